package lower

import (
	"slices"

	"github.com/mscppl/mscppl/autodiff"
)

// The fast path of a state-space model whose state is one latent vector
// (K = 1): each time step compiled once into an autodiff step program
// (segments: the transition's moments given z[t-1], the transition's log
// density, the observations given z[t]), the steps of one shape sharing a
// template. A sweep then evaluates one step over all particles at a time
// with the particle values as the template's inputs (no copies through the
// latent arena), reading the subexpressions of params and data, which are
// evaluated once per change of the params. The param gradient evaluates
// every step of the retained trajectory at once per template, forward and
// backward, and then the shared (params-only) part of the graph backward,
// clearing only its adjoints: no whole-graph pass and no whole-arena clear.
// The adjoints reach the params in the order of the graph's Backward, so
// that the gradient is the generic path's to the bit (when
// StepGradient.Exact: no node belongs to two steps).

// step program segments and outputs
const (
	segMoments = iota // mean and sd of a Gaussian transition, given z[t-1]
	segTrans          // log p(z[t] | z[t-1])
	segObs            // the observations' log density given z[t]
)

type ssmFast struct {
	built bool // compiled (by fastSteps, on first use)
	tpls  []*autodiff.StepTemplate
	steps [][]int // the time steps of each template
	pos   []int   // the latent position of the state at each step
	tplOf []int32 // template of step t
	kOf   []int32 // index of step t within its template
	// output indices (the same in every template; -1 when absent)
	outMean, outSD, outTrans int
	outObs                   []int // per template: -1 when its steps have no observation
	// the params-only nodes the steps read, with the const terms and their
	// ancestors, in topological order
	shared     []autodiff.Node
	constNodes []autodiff.Node
	grad       *autodiff.StepGradient
	// the params and arena layout the shared values were computed for
	snap  []float64
	valid bool
	batch int
	// trajectory inputs per template
	prev, cur [][]float64
}

// maxSameHash bounds the shapes compared in full per hash.
const maxSameHash = 16

// fastSteps returns the step templates of a state-space model, compiled on
// first use, or nil when the model is not one or a step uses something a
// step program cannot evaluate (the generic path then serves it).
func (s *StateSpace) fastSteps() *ssmFast {
	if s == nil {
		return nil
	}
	f := s.fast
	if f == nil || f.built {
		return f
	}
	if !s.buildFast(f) {
		s.fast = nil
		return nil
	}
	f.built = true
	return f
}

// buildFast compiles the step templates into f, reporting whether it could.
func (s *StateSpace) buildFast(f *ssmFast) bool {
	c := s.c
	g := c.g
	gauss := s.gaussian
	*f = ssmFast{outMean: -1, outSD: -1, tplOf: make([]int32, s.T), kOf: make([]int32, s.T), pos: s.pos}
	var progs []*autodiff.StepProgram // the first program of each shape
	all := make([]*autodiff.StepProgram, len(s.steps))
	var groups [][]int
	byHash := map[uint64][]int{} // hash of a shape -> indices into progs
	var externals []autodiff.Node
	for t := range s.steps {
		st := &s.steps[t]
		fac := &c.Factors[st.trans[0]]
		var mom []autodiff.Node
		if gauss {
			mom = []autodiff.Node{fac.Tilde.Args[1], fac.Tilde.Args[2]}
		}
		var obs []autodiff.Node
		if st.obsSum >= 0 {
			obs = []autodiff.Node{st.obsSum}
		}
		prev := -1
		if t > 0 {
			prev = s.pos[t-1]
		}
		p, err := g.CompileStep(c.LatentNode, []int{prev, s.pos[t]}, mom, []autodiff.Node{fac.Node}, obs)
		if err != nil || p.SegmentReads(segObs) {
			return false
		}
		all[t] = p
		externals = append(externals, p.Externals()...)
		// the shapes with the same hash, compared in full (a bounded
		// number: steps that differ in ways the hash does not see get
		// templates of their own beyond it)
		h := p.ShapeHash()
		gi := -1
		for _, i := range byHash[h] {
			if progs[i].SameShape(p) {
				gi = i
				break
			}
		}
		if gi < 0 && len(byHash[h]) < maxSameHash {
			byHash[h] = append(byHash[h], len(progs))
		}
		if gi < 0 {
			progs = append(progs, p)
			groups = append(groups, nil)
			gi = len(progs) - 1
		}
		f.tplOf[t] = int32(gi)
		f.kOf[t] = int32(len(groups[gi]))
		groups[gi] = append(groups[gi], t)
	}
	if gauss {
		f.outMean, f.outSD, f.outTrans = 0, 1, 2
	} else {
		f.outTrans = 0
	}
	for _, steps := range groups {
		ps := make([]*autodiff.StepProgram, len(steps))
		for k, t := range steps {
			ps[k] = all[t]
		}
		f.tpls = append(f.tpls, autodiff.NewStepTemplate(ps))
		f.steps = append(f.steps, steps)
		o := -1
		if s.steps[steps[0]].obsSum >= 0 {
			o = f.outTrans + 1
		}
		f.outObs = append(f.outObs, o)
		f.prev = append(f.prev, make([]float64, len(steps)))
		f.cur = append(f.cur, make([]float64, len(steps)))
	}
	for _, i := range c.constTerms {
		f.constNodes = append(f.constNodes, c.Factors[i].Node)
	}
	var vars []autodiff.Node
	for _, e := range externals {
		if !g.IsConst(e) {
			vars = append(vars, e)
		}
	}
	for _, n := range f.constNodes {
		if !g.IsConst(n) {
			vars = append(vars, n)
		}
	}
	if len(vars) > 0 {
		f.shared = g.Ancestors(vars...)
	}
	f.grad = g.NewStepGradient(f.tpls, f.shared)
	f.reserve(c.maxBatch)
	return true
}

// ensure evaluates the shared nodes (and hands their values to the
// templates) when the params or the arena changed since the last time.
func (f *ssmFast) ensure(c *Compiled) {
	var p []float64
	if c.hasParam {
		p = c.g.Value(c.param, 0)
	}
	if f.valid && f.batch == c.maxBatch && slices.Equal(p, f.snap) {
		return
	}
	c.Reserve(1)
	c.g.ForwardNodes(f.shared, 1)
	for _, t := range f.tpls {
		t.GatherExternals()
	}
	f.snap = append(f.snap[:0], p...)
	f.valid, f.batch = true, c.maxBatch
}

func (f *ssmFast) reserve(n int) {
	for _, t := range f.tpls {
		t.Reserve(n)
	}
}

func (f *ssmFast) transition(c *Compiled, t int, prev, mean, sd []float64) {
	f.ensure(c)
	tp := f.tpls[f.tplOf[t]]
	tp.SetInput(0, prev)
	tp.Forward(segMoments, int(f.kOf[t]), len(mean))
	tp.Output(f.outMean, mean)
	tp.Output(f.outSD, sd)
}

func (f *ssmFast) obsLogDensity(c *Compiled, t int, cur, out []float64) {
	f.ensure(c)
	tp := f.tpls[f.tplOf[t]]
	tp.SetInput(1, cur)
	tp.Forward(segObs, int(f.kOf[t]), len(out))
	tp.Output(f.outObs[f.tplOf[t]], out)
}

func (f *ssmFast) transitionLogDensity(c *Compiled, t int, prev, cur, out []float64) {
	f.ensure(c)
	tp := f.tpls[f.tplOf[t]]
	tp.SetInput(0, prev)
	tp.SetInput(1, cur)
	k := int(f.kOf[t])
	tp.Forward(segMoments, k, len(out))
	tp.Forward(segTrans, k, len(out))
	tp.Output(f.outTrans, out)
}

// gradParams is GradParams along the trajectory z.
func (f *ssmFast) gradParams(c *Compiled, z, grad []float64) float64 {
	f.ensure(c)
	g := c.g
	lp := 0.0
	for i, tp := range f.tpls {
		prev, cur := f.prev[i], f.cur[i]
		for k, t := range f.steps[i] {
			if t > 0 {
				prev[k] = z[f.pos[t-1]]
			} else {
				prev[k] = 0
			}
			cur[k] = z[f.pos[t]]
		}
		tp.SetInput(0, prev)
		tp.SetInput(1, cur)
		tp.ForwardAll()
		lp += tp.OutputSum(f.outTrans, tp.Steps())
		if o := f.outObs[i]; o >= 0 {
			lp += tp.OutputSum(o, tp.Steps())
		}
	}
	for _, n := range f.constNodes {
		lp += g.Value(n, 0)[0]
	}
	if !c.hasParam {
		return lp
	}
	g.ClearAdjoints(f.shared)
	for _, n := range f.constNodes {
		if !g.IsConst(n) {
			g.Grad(n, 0)[0]++ // the log joint's sum seeds its terms first
		}
	}
	for i, tp := range f.tpls {
		if o := f.outObs[i]; o >= 0 {
			tp.BackwardAll(f.outTrans, o)
		} else {
			tp.BackwardAll(f.outTrans)
		}
	}
	f.grad.Backward()
	copy(grad, g.Grad(c.param, 0))
	return lp
}
