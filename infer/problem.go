package infer

import (
	"fmt"
	"github.com/mscppl/mscppl/infer/msc/advice"
	"sync/atomic"

	"github.com/mscppl/mscppl/infer/lgssm"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/infer/pmcis"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/explain"
	"github.com/mscppl/mscppl/ir/lower"
	"github.com/mscppl/mscppl/ir/structure"
)

// The compiled model provides these capabilities of msc.Problem.
var (
	_ msc.Target           = (*lower.Compiled)(nil)
	_ msc.GradTarget       = (*lower.Compiled)(nil)
	_ msc.ParamTarget      = (*lower.Compiled)(nil)
	_ msc.PriorTarget      = (*lower.Compiled)(nil)
	_ msc.Diagnoser        = diagnoser{}
	_ msc.Target           = (*splitTarget)(nil)
	_ msc.ParamTarget      = (*splitTarget)(nil)
	_ msc.StaticStateSpace = staticView{}
	// a state-space structure offers its transition's moments and its
	// density whatever the transition (the moments are those of a Gaussian
	// only when the transition is one: stateSpace)
	_ msc.GaussianStateSpace = (*lower.StateSpace)(nil)
	_ msc.GeneralStateSpace  = (*lower.StateSpace)(nil)
)

// generalOnly hides the moments of a transition that is not Gaussian.
type generalOnly struct{ msc.GeneralStateSpace }

// stateSpace is the structure ss as msc takes it: with its transition's
// moments when the transition is Gaussian, its density alone otherwise.
func stateSpace(ss *lower.StateSpace) msc.GeneralStateSpace {
	if ss.GaussianTransition() {
		return ss
	}
	return generalOnly{ss}
}

// staticView is the state-space structure of a model with static latents
// (lower.StaticView) as msc takes it.
type staticView struct{ *lower.StaticView }

// Given is the structure of the state given the statics last set.
func (s staticView) Given() msc.GeneralStateSpace { return stateSpace(s.StateSpace()) }

// problemsMade counts the problems newProblem made (the tests check that a
// run makes one per chain).
var problemsMade atomic.Int64

// diagnoser explains a compiled model's non-finite log joint: it names
// the statement (lower.Diagnose).
type diagnoser struct{ c *lower.Compiled }

func (d diagnoser) Diagnose(z []float64) error { return explain.Diagnose(d.c, z) }

// DiagnoseZero explains a run whose first iters iterations drew no point
// of positive density, at the chain's retained sample z.
func (d diagnoser) DiagnoseZero(z []float64, iters int) error {
	return zeroDensityError(d.c, z, fmt.Sprintf("the draws of the first %d iterations", iters))
}

// newProblem is the engine's view of one compiled model: every capability
// the model has and the state-space structure when detection found one.
func newProblem(c *lower.Compiled) *msc.Problem {
	problemsMade.Add(1)
	p := &msc.Problem{
		Dim: c.Dim(), Names: c.Model.UnconstrainedNames(), ParamNames: unconstrainedParamNames(c.Model),
		Target: c, Grad: c, Diagnoser: diagnoser{c}, Facts: facts(c), Cost: tapeCost(c),
	}
	if c.NumParams() > 0 {
		p.Params = c
	}
	if lower.PriorError(c) == nil {
		p.Prior = c
	}
	if ss := lower.StateSpaceOf(c); ss != nil {
		p.StateSpace = stateSpace(ss)
	} else if sv := lower.StaticStateSpaceOf(c); sv != nil {
		p.Statics = staticView{sv}
		p.NotLinear = lgssm.DetectLinear(p)
		p.Linear = p.NotLinear == nil
	} else {
		p.NotStateSpace = lower.StructureOf(c).String()
	}
	return p
}

// splitOver lets p, the problem of c, split its batched log joint over
// ways cores (Problem.Split), on copies of c that clone makes.
func splitOver(p *msc.Problem, c *lower.Compiled, ways int, clone func() (*lower.Compiled, error)) {
	if ways >= 2 {
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
}

// Problem is the engine's view of the model's compiled target, for callers
// that drive package msc themselves (benchmarks, tools).
func (m *Model) Problem() *msc.Problem { return newProblem(m.Comp) }

// unconstrainedParamNames names the params' unconstrained components as a
// user reads them: s for an unconstrained s, log(s) for s > 0, logit of the
// scaled value for two bounds.
func unconstrainedParamNames(m *ir.Model) []string {
	out := make([]string, m.ParamDim)
	for _, v := range m.Params {
		for i := range v.Type.Len() {
			n := v.Name
			if !v.Type.Scalar() {
				n = fmt.Sprintf("%s[%d]", v.Name, i+1)
			}
			b := v.Bij
			switch {
			case b.HasLower && b.HasUpper:
				n = fmt.Sprintf("logit((%s - %g) / %g)", n, b.Lower, b.Upper-b.Lower)
			case b.HasLower && b.Lower == 0:
				n = "log(" + n + ")"
			case b.HasLower:
				n = fmt.Sprintf("log(%s - %g)", n, b.Lower)
			case b.HasUpper:
				n = fmt.Sprintf("log(%g - %s)", b.Upper, n)
			}
			out[v.Offset+i] = n
		}
	}
	return out
}

// facts are the model's facts (structure.Facts) as the engine takes them.
func facts(c *lower.Compiled) advice.Facts {
	f := structure.FactsOf(c)
	var out advice.Facts
	for _, x := range f.Centred {
		out.Centred = append(out.Centred, advice.Centred{Latent: x.Latent, Scale: x.Scale, Raw: x.Raw, Define: x.Define})
	}
	for _, x := range f.Exchangeable {
		out.Exchangeable = append(out.Exchangeable, advice.Exchangeable{Latents: x.Latents, Reflected: x.Reflected, K: x.K, Order: x.Order, Declare: x.Declare})
	}
	return out
}

// tapeCost is the number of scalars one row of c's log joint computes:
// the values a row of a batch takes (autodiff.Graph.RowFloats, the lengths
// of the tape's nodes that depend on the latents; a matrix-vector product
// counts its rows, not its rows times columns).
func tapeCost(c *lower.Compiled) float64 {
	if g := c.Graph(); g != nil {
		return float64(g.RowFloats())
	}
	return 0
}

// StateSpacePath says for mscppl check which path a run of a model with
// statics beside a state takes, and why: lgssm.Path when the state enters
// linearly and Gaussian given them, pmcis.Path otherwise ("" without
// statics beside a state).
func StateSpacePath(c *lower.Compiled) string {
	if lower.StaticStateSpaceOf(c) == nil {
		return ""
	}
	p := newProblem(c)
	problemsMade.Add(-1) // not a run's
	if !p.Linear {
		return pmcis.Path(p)
	}
	return lgssm.Path(p)
}
