package msc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// prob wraps a hand-written target in a Problem with the capabilities it
// implements (the facade builds its problems field by field).
func prob(t Target) *Problem {
	p := &Problem{Dim: t.Dim(), Target: t}
	p.Grad, _ = t.(GradTarget)
	p.Params, _ = t.(ParamTarget)
	p.Prior, _ = t.(PriorTarget)
	p.Diagnoser, _ = t.(Diagnoser)
	return p
}

// ssProb is the Problem of a hand-written state-space model.
func ssProb(m StateSpace) *Problem {
	return &Problem{Dim: m.Len() * m.StateDim(), StateSpace: m}
}

// k1 is the layout of a hand-written model with a scalar state (K = 1, the
// state of step t at z[t]); line is that of T scalar states.
type k1 struct{}

func (k1) StateDim() int      { return 1 }
func (k1) Index(t, _ int) int { return t }

type line struct {
	k1
	T int
}

func (l line) Len() int { return l.T }

// twisted1 and ar1 are the twisted and the per-step proposals of T scalar
// states at their start.
func twisted1(T int) *Twisted {
	tw, err := NewTwisted(line{T: T})
	if err != nil {
		panic(err)
	}
	return tw
}

func ar1(T int) *ARProposal {
	p, err := NewARProposal(line{T: T})
	if err != nil {
		panic(err)
	}
	return p
}

// fillFor is Fill with the named registered kernel and family.
func fillFor(s Settings, d int, kernel, family string) (Settings, error) {
	k, _ := LookupKernel(kernel)
	f, _ := LookupFamily(family)
	return Fill(s, d, k, f)
}

// TestProblemCheck: a kernel's needs are checked against the problem's
// capabilities before it is built, and the error names what is missing
// (and why the model is not a state-space model).
func TestProblemCheck(t *testing.T) {
	g := gauss{m: []float64{0}, prec: []float64{1}}
	p := prob(g)
	require.Equal(t, CapLogJoint, p.Has())
	csmc, ok := LookupKernel("csmc")
	require.True(t, ok)
	p.NotStateSpace = "not a state-space model: no latent vector"
	_, _, err := NewKernel(csmc, p, twisted1(3), 10, KernelOptions{})
	require.EqualError(t, err, "the csmc kernel needs a state-space structure, which this model does not provide (it is not a state-space model: no latent vector)")
	cis, _ := LookupKernel("cis")
	_, _, err = NewKernel(cis, p, NewFullRank(1), 10, KernelOptions{ProposePrior: true})
	require.EqualError(t, err, "the cis kernel needs a prior that can be sampled, which this model does not provide")
	k, release, err := NewKernel(cis, p, NewFullRank(1), 10, KernelOptions{})
	require.NoError(t, err)
	release()
	require.Equal(t, "cis", k.Name())
	// auto: CIS on a model without a state-space structure
	spec, err := ChooseKernel("msc", p, KernelOptions{})
	require.NoError(t, err)
	require.Equal(t, "cis", spec.Name)
	_, err = ChooseKernel("smc", p, KernelOptions{})
	require.ErrorContains(t, err, "--method smc: the smc kernel needs a state-space structure")
	require.Equal(t, "a batched log joint, the gradient of the log joint", (CapLogJoint | CapGradient).String())
}

// TestChooseKernelStateSpace: CSMC outranks CIS on a state-space model, and
// its proposal is the twisted one for a Gaussian transition, the per-step
// one otherwise.
func TestChooseKernelStateSpace(t *testing.T) {
	p := ssProb(&lgssm{x: []float64{0.8, -0.4, 1.3}, phi: 0.7, q: 0.6, r: 0.5, s0: 1})
	require.Equal(t, CapStateSpace|CapGaussianTransition, p.Has())
	spec, err := ChooseKernel("msc", p, KernelOptions{})
	require.NoError(t, err)
	require.Equal(t, "csmc", spec.Name)
	q, err := NewProposal(p)
	require.NoError(t, err)
	require.IsType(t, &Twisted{}, q)
	p.StateSpace = &tssm{x: []float64{0.9, -0.5, 1.4}}
	require.Equal(t, CapStateSpace|CapTransitionDensity, p.Has())
	q, err = NewProposal(p)
	require.NoError(t, err)
	require.IsType(t, &ARProposal{}, q)
}
