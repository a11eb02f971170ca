package infer

import (
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
)

// The compiled model provides these capabilities of msc.Problem.
var (
	_ msc.Target            = (*ir.Compiled)(nil)
	_ msc.GradTarget        = (*ir.Compiled)(nil)
	_ msc.ParamTarget       = (*ir.Compiled)(nil)
	_ msc.PriorTarget       = (*ir.Compiled)(nil)
	_ msc.Diagnoser         = (*ir.Compiled)(nil)
	_ msc.StateSpace        = (*ir.StateSpace)(nil)
	_ msc.GeneralStateSpace = (*ir.StateSpace)(nil)
	_ msc.Target            = (*splitTarget)(nil)
	_ msc.ParamTarget       = (*splitTarget)(nil)
	_ msc.StaticStateSpace  = staticView{}
)

// staticView is the state-space structure of a model with static latents
// (ir.StaticView) as msc takes it.
type staticView struct {
	*ir.StaticView
	gaussian bool
}

// Given is the structure of the state given the statics last set.
func (s staticView) Given() (msc.GeneralStateSpace, msc.StateSpace) {
	ss := s.StateSpace()
	if s.gaussian {
		return ss, ss
	}
	return ss, nil
}

// newProblem is the engine's view of one compiled model: every capability
// the model has, the state-space structure when detection found one, and,
// when clone is not nil, a split over ways cores of its batched log joint.
func newProblem(c *ir.Compiled, ways int, clone func() (*ir.Compiled, error)) *msc.Problem {
	p := &msc.Problem{
		Dim: c.Dim(), Names: c.Model.UnconstrainedNames(),
		Target: c, Grad: c, Diagnoser: c,
	}
	if c.NumParams() > 0 {
		p.Params = c
	}
	if c.PriorError() == nil {
		p.Prior = c
	}
	switch st := c.Structure(); {
	case c.StateSpace() != nil:
		ss := c.StateSpace()
		p.General = ss
		if st.GaussianTransition {
			p.StateSpace = ss
		}
	case c.StaticStateSpace() != nil:
		p.Statics = staticView{c.StaticStateSpace(), st.GaussianTransition}
	default:
		p.NotStateSpace = st.String()
	}
	if clone != nil && ways >= 2 {
		p.Split = func(S int) (*msc.Problem, func(), error) {
			t, stop, err := newSplitTarget(c, ways, S, clone)
			if err != nil || t == nil {
				return p, stop, err
			}
			sp := *p
			sp.Target, sp.Split = t, nil
			if p.Params != nil {
				sp.Params = t
			}
			return &sp, stop, nil
		}
	}
	return p
}

// Problem is the engine's view of the model's compiled target, for callers
// that drive package msc themselves (benchmarks, tools).
func (m *Model) Problem() *msc.Problem { return newProblem(m.Comp, 0, nil) }
