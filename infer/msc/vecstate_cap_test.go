package msc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// stubVec is a vector state-space structure that is never evaluated.
type stubVec struct{ T, K int }

func (s stubVec) Len() int                                                { return s.T }
func (s stubVec) StateDim() int                                           { return s.K }
func (s stubVec) Index(t, k int) int                                      { return t*s.K + k }
func (stubVec) ReserveParticles(int)                                      {}
func (stubVec) Transition(int, []float64, []float64, []float64)           {}
func (stubVec) ObsLogDensity(int, []float64, []float64)                   {}
func (stubVec) TransitionLogDensity(int, []float64, []float64, []float64) {}

// TestCapAnyStateSpace: a need of CapAnyStateSpace is met by a scalar or a
// vector state-space structure, and is named once when neither is there.
func TestCapAnyStateSpace(t *testing.T) {
	vec := &Problem{Dim: 6, VectorStateSpace: stubVec{3, 2}, VectorGeneral: stubVec{3, 2}}
	require.Equal(t, CapVectorStateSpace|CapVectorGaussian, vec.Has())
	require.NoError(t, vec.Check("k", CapAnyStateSpace))
	require.Error(t, vec.Check("k", CapStateSpace))
	require.Error(t, vec.Check("k", CapGaussianTransition))
	gen := &Problem{Dim: 6, VectorGeneral: stubVec{3, 2}}
	require.Equal(t, CapVectorStateSpace, gen.Has())
	require.NoError(t, gen.Check("k", CapAnyStateSpace))
	require.EqualError(t, gen.Check("k", CapVectorGaussian), "k needs a vector state-space structure with a Gaussian transition, which this model does not provide")
	scalar := ssProb(&lgssm{x: []float64{1, 2}, phi: 0.5, q: 1, r: 1, s0: 1})
	scalar.General = &tssm{x: []float64{1, 2}}
	require.NoError(t, scalar.Check("k", CapAnyStateSpace))
	require.Error(t, scalar.Check("k", CapVectorStateSpace))
	none := &Problem{Dim: 2, NotStateSpace: "not a state-space model"}
	require.EqualError(t, none.Check("k", CapAnyStateSpace|CapLogJoint),
		"k needs a batched log joint, a state-space structure, which this model does not provide (it is not a state-space model)")
	require.Equal(t, "a state-space structure", CapAnyStateSpace.String())
	require.Equal(t, "a state-space structure with vector states", CapVectorStateSpace.String())
}
