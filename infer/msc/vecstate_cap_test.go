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

// TestCapStateSpace: the problem has one state-space structure, whatever
// K; what its transition offers follows from the interfaces it implements,
// and the messages name what is missing.
func TestCapStateSpace(t *testing.T) {
	both := &Problem{Dim: 6, StateSpace: stubVec{3, 2}}
	require.Equal(t, CapStateSpace|CapGaussianTransition|CapTransitionDensity, both.Has())
	require.NoError(t, both.Check("k", CapStateSpace|CapGaussianTransition))
	gen := &Problem{Dim: 6, StateSpace: struct{ GeneralStateSpace }{stubVec{3, 2}}}
	require.Equal(t, CapStateSpace|CapTransitionDensity, gen.Has())
	require.EqualError(t, gen.Check("k", CapGaussianTransition), "k needs a state-space structure with a Gaussian transition, which this model does not provide")
	scalar := ssProb(&lgssm{x: []float64{1, 2}, phi: 0.5, q: 1, r: 1, s0: 1})
	require.Equal(t, CapStateSpace|CapGaussianTransition, scalar.Has())
	require.EqualError(t, scalar.Check("k", CapTransitionDensity), "k needs a state-space structure whose transition density can be evaluated, which this model does not provide")
	none := &Problem{Dim: 2, NotStateSpace: "not a state-space model"}
	require.EqualError(t, none.Check("k", CapStateSpace|CapLogJoint),
		"k needs a batched log joint, a state-space structure, which this model does not provide (it is not a state-space model)")
}
