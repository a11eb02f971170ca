package lower

import (
	"fmt"
	"math"
	"strings"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/stdlib"
)

// Structure describes what structure detection found.
type Structure struct {
	StateSpace bool
	// Reason says why the model is not a state-space model (when it is not).
	Reason string
	// Attempt is true when a model that is not a state-space model looks
	// like one: an element of a latent vector is drawn given another
	// element of it (z[t] ~ normal(z[t-1], s)). Reason is then worth
	// reporting; for a regression it is not.
	Attempt bool
	// Latent is the state vector of a state-space model.
	Latent *ir.Var
	// GaussianTransition is true when every transition is a normal(mean, sd).
	GaussianTransition bool
	// Transition names the (first) non-Gaussian transition family.
	Transition string
	// Statics are the static latents beside the state (particle Gibbs):
	// the model is a state-space model in the state given them.
	Statics []*ir.Var
	// States are the vectors that form a K-dimensional state (K > 1; Latent
	// is the first).
	States []*ir.Var
}

// StateDim is the dimension of a state-space model's state: the number
// of vectors that form it, or a matrix latent's columns (rows as states);
// 1 for one latent vector.
func (s Structure) StateDim() int {
	if s.Latent != nil && s.Latent.Type.Kind == ir.Matrix {
		return s.Latent.Type.Cols
	}
	return max(1, len(s.States))
}

func (s Structure) String() string {
	if !s.StateSpace {
		return "not a state-space model: " + s.Reason
	}
	tr := "Gaussian transition: CSMC with twisted Gaussian proposals"
	if !s.GaussianTransition {
		tr = s.Transition + " transition, not Gaussian: CSMC with per-step Gaussian proposals N(a_t + b_t z[t-1], s_t^2)"
	}
	over := fmt.Sprintf("%s over t = 1..%d", s.Latent.Name, s.Latent.Type.Rows)
	if K := s.StateDim(); K > 1 {
		tr = "Gaussian transition: CSMC with vector twisted Gaussian proposals"
		if !s.GaussianTransition {
			tr = "transition not Gaussian: CSMC with vector per-step Gaussian proposals"
		}
		over = fmt.Sprintf("(%s) over t = 1..%d, a %d-dimensional state", varNames(s.States), s.Latent.Type.Rows, K)
	}
	if len(s.Statics) > 0 {
		// how a run takes it (the Kalman marginal or particle Gibbs) is
		// the plan's to say (mscppl check's "state space:" line)
		return fmt.Sprintf("state-space: %s with the static latents %s, %s", over, varNames(s.Statics), tr)
	}
	return fmt.Sprintf("state-space: %s, %s", over, tr)
}

// varNames lists the variables' names, for Structure's text.
func varNames(vs []*ir.Var) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	return strings.Join(names, ", ")
}

// looksDynamic reports whether some ~ statement draws one element of a
// latent vector given another element of the same vector.
func looksDynamic(c *Compiled) bool {
	for _, f := range c.Factors {
		if f.Prior == nil || len(f.Prior.LhsPos) != 1 {
			continue
		}
		p := f.Prior.LhsPos[0]
		for _, v := range c.Model.Latents {
			if v.Type.Kind != ir.Vector || p < v.Offset || p >= v.Offset+v.UDim() {
				continue
			}
			for _, d := range f.deps {
				if d != p && d >= v.Offset && d < v.Offset+v.UDim() {
					return true
				}
			}
		}
	}
	return false
}

// detect classifies the compiled model from the dependency sets of its
// terms (factors[i].deps, and factors[i].prior.lhsPos for the positions a
// prior term draws), the one entry point of state-space detection: a
// model whose only latent is a vector is classified on its own compile, a
// state-space view's compile with the state it was given (opt.state), and
// any other model through its view (detectView, ssmview.go). It also
// collects the terms that depend on no latent.
func detect(c *Compiled, opt CompileOptions) {
	c.constTerms = c.constTerms[:0]
	for i, f := range c.Factors {
		if f.Prior == nil && len(f.deps) == 0 {
			c.constTerms = append(c.constTerms, i)
		}
	}
	state, why := opt.state, ""
	if state == nil {
		state, why = latentVector(c)
	}
	if why == "" {
		if why = detectState(c, state); why == "" {
			return
		}
	}
	c.structure = Structure{Reason: why, Attempt: looksDynamic(c)}
	if !opt.NoView {
		detectView(c, opt)
	}
}

// latentVector returns the model's one latent vector, when its latents
// proper are one unconstrained vector of two steps or more, or why not.
func latentVector(c *Compiled) ([]*ir.Var, string) {
	var drawn []*ir.Var // the latents proper (derived quantities are computed from them)
	for _, v := range c.Model.Latents {
		if v.Derived == nil {
			drawn = append(drawn, v)
		}
	}
	switch {
	case len(drawn) == 0:
		return nil, "a state-space model has exactly one latent vector z (this model has no latent variables)"
	case len(drawn) > 1:
		return nil, fmt.Sprintf("a state-space model has exactly one latent vector z (this model has %d latent variables: %s); its other unknowns are params, learned alongside q",
			len(drawn), varNames(drawn))
	}
	z := drawn[0]
	switch {
	case z.Special():
		return nil, fmt.Sprintf("the latent %s has a vector constraint or bounds that depend on other variables", z.Name)
	case z.Type.Kind != ir.Vector:
		return nil, fmt.Sprintf("the latent %s is not a vector", z.Name)
	case z.Bij.HasLower || z.Bij.HasUpper:
		return nil, fmt.Sprintf("the latent %s is constrained", z.Name)
	case z.Type.Rows < 2:
		return nil, fmt.Sprintf("the latent %s has a single time step", z.Name)
	}
	return drawn, ""
}

// StateSpace is the state-space structure of a compiled model, as
// detection found it: the value the CSMC kernel consumes (package msc's
// StateSpace, GaussianStateSpace and GeneralStateSpace). The state at each
// step is K-dimensional: one latent vector of length T (K = 1), K latent
// vectors of one length T that together form it (a local linear trend's
// level and slope), or the rows of a matrix[T, K], each component drawn
// given the state at the step before,
//
//	x_k[t] ~ family(f(x[t-1]), ...),   y_t depends on x[t] only.
//
// A Gaussian transition's covariance is diagonal (each component has its
// own sd given x[t-1]). It evaluates the model's transition and
// observation terms step by step, for many particles at once, on the
// graph of the compile it was found on (so it shares its params); a state
// that is one latent vector is evaluated by step programs where they can
// be (ssm_fast.go).
type StateSpace struct {
	c        *Compiled
	T, K     int
	pos      []int // pos[t*K+k]: the latent position of component k at step t
	steps    []ssmStep
	gaussian bool
	fast     *ssmFast // the step templates of a one-vector state (nil: the generic path)
}

// ssmStep holds the factors of one time step of a state-space model.
type ssmStep struct {
	trans      []int           // factors of x_k[t] ~ ..., by k
	obs        []int           // observation factors of step t
	transOrder []autodiff.Node // nodes to evaluate for the transitions' arguments (Gaussian)
	transFull  []autodiff.Node // nodes to evaluate for the transitions' log densities
	obsOrder   []autodiff.Node // nodes to evaluate for the observation factors
	obsSum     autodiff.Node   // sum of the observation factors (or -1)
}

// statePositions are the latent positions of the state formed by vars,
// component k at step t at t*K + k: K vectors of one length T, or the
// rows of one matrix[T, K].
func statePositions(vars []*ir.Var) []int {
	T, K := vars[0].Type.Rows, len(vars)
	matrix := vars[0].Type.Kind == ir.Matrix
	if matrix {
		K = vars[0].Type.Cols
	}
	pos := make([]int, T*K)
	for t := range T {
		for k := range K {
			if matrix {
				pos[t*K+k] = vars[0].Offset + t*K + k
			} else {
				pos[t*K+k] = vars[k].Offset + t
			}
		}
	}
	return pos
}

// detectState classifies c as a state-space model whose state is vars
// (one length T: one vector, K vectors, or one matrix[T, K] whose row t
// is the state at step t). It sets c.ssm and c.structure and returns ""
// when it is one, and says why not otherwise.
func detectState(c *Compiled, vars []*ir.Var) string {
	T, K := vars[0].Type.Rows, len(vars)
	matrix := vars[0].Type.Kind == ir.Matrix
	if matrix {
		K = vars[0].Type.Cols
	}
	one := len(vars) == 1 && !matrix // one latent vector
	s := &StateSpace{c: c, T: T, K: K, pos: statePositions(vars), steps: make([]ssmStep, T), gaussian: true}
	where := map[int][2]int{} // latent position -> (t, k)
	for j, p := range s.pos {
		where[p] = [2]int{j / K, j % K}
	}
	name := func(p int) string {
		tk := where[p]
		if matrix {
			return fmt.Sprintf("%s[%d, %d]", vars[0].Name, tk[0]+1, tk[1]+1)
		}
		return fmt.Sprintf("%s[%d]", vars[tk[1]].Name, tk[0]+1)
	}
	for t := range s.steps {
		s.steps[t].trans = make([]int, K)
		for k := range K {
			s.steps[t].trans[k] = -1
		}
		s.steps[t].obsSum = -1
	}
	transName := ""
	for i, f := range c.Factors {
		if lhs := f.drawn(); lhs != nil {
			mv := f.mvn != nil // a row drawn at once
			if len(lhs) != 1 && !(mv && len(lhs) == K) {
				if one {
					z := vars[0].Name
					return fmt.Sprintf("the statement at %s draws the whole vector %s at once; a state-space model draws %s[t] given %s[t-1]", f.Pos, z, z, z)
				}
				return fmt.Sprintf("the statement at %s draws several elements of the state at once; each component is drawn given the state at the step before", f.Pos)
			}
			t := where[lhs[0]][0]
			for j, p := range lhs {
				tk, ok := where[p]
				if !ok || tk[0] != t || mv && tk[1] != j {
					return fmt.Sprintf("the statement at %s draws a latent that is not part of the state", f.Pos)
				}
				if s.steps[t].trans[tk[1]] >= 0 {
					return fmt.Sprintf("%s appears on the left of ~ twice", name(p))
				}
				s.steps[t].trans[tk[1]] = i
			}
			deps := f.deps
			if mv {
				deps = f.mvn.deps // (f.deps holds the row drawn too)
			}
			for _, d := range deps {
				if dt, ok := where[d]; !ok || dt[0] != t-1 {
					before := fmt.Sprintf("the state at step %d", t)
					if one {
						before = fmt.Sprintf("%s[%d]", vars[0].Name, t)
					}
					return fmt.Sprintf("the distribution of %s (statement at %s) depends on %s, not only on %s", name(lhs[0]), f.Pos, name(d), before)
				}
			}
			if !mv && !f.Tilde.Family.GaussianMoments {
				s.gaussian = false
				transName = f.Tilde.Family.Name
			}
			continue
		}
		// an observation factor: depends on the state at one step at most
		t, at := -1, -1
		for _, d := range f.deps {
			dt := where[d][0]
			if t >= 0 && dt != t {
				if one {
					return fmt.Sprintf("the statement at %s depends on both %s and %s; an observation may depend on one state only", f.Pos, name(at), name(d))
				}
				return fmt.Sprintf("the statement at %s depends on the state at steps %d and %d; an observation may depend on the state at one step only", f.Pos, t+1, dt+1)
			}
			t, at = dt, d
		}
		if t >= 0 {
			s.steps[t].obs = append(s.steps[t].obs, i)
		}
		// else a factor of data and params only: constant in the state
	}
	for t := range s.steps {
		for k, i := range s.steps[t].trans {
			if i < 0 {
				n := name(s.pos[t*K+k])
				return fmt.Sprintf("%s has no distribution (no %s ~ ... statement)", n, n)
			}
		}
	}
	g := c.g // a model that is one: the steps' nodes
	for t := range s.steps {
		st := &s.steps[t]
		var args, full []autodiff.Node
		for _, i := range st.trans {
			f := c.Factors[i]
			full = append(full, f.Node)
			switch {
			case s.gaussian && f.mvn != nil:
				args = append(args, f.mvn.mean, f.mvn.cov)
			case s.gaussian:
				args = append(args, f.Tilde.Args[1], f.Tilde.Args[2])
			}
		}
		if s.gaussian {
			st.transOrder = g.Ancestors(args...)
		}
		st.transFull = g.Ancestors(full...)
		if len(st.obs) > 0 {
			nodes := make([]autodiff.Node, len(st.obs))
			for k, i := range st.obs {
				nodes[k] = c.Factors[i].Node
			}
			st.obsSum = nodes[0]
			if len(nodes) > 1 {
				st.obsSum = g.AddN(nodes...)
			}
			st.obsOrder = g.Ancestors(st.obsSum)
		}
	}
	c.structure = Structure{StateSpace: true, Latent: vars[0], GaussianTransition: s.gaussian, Transition: transName}
	if one {
		s.fast = &ssmFast{} // the step templates are compiled on first use
	} else {
		c.structure.States = vars
	}
	c.ssm = s
	return ""
}

// StateSpaceOf returns the model's state-space structure when its latents
// are exactly the state (found on the model, or on its view when
// statements are vectorised over the state or the state has several
// components), or nil (StructureOf says why; with static latents see
// StaticStateSpaceOf).
func StateSpaceOf(c *Compiled) *StateSpace {
	if c.sv != nil {
		if len(c.sv.statics) > 0 {
			return nil
		}
		return c.sv.view.ssm
	}
	return c.ssm
}

// StaticView is the state-space structure of a model with static latents
// beside its state: the state-space view evaluates at the statics last set.
type StaticView struct{ c *Compiled }

// StaticStateSpaceOf returns the model's state-space structure given its
// static latents, or nil when the model has none.
func StaticStateSpaceOf(c *Compiled) *StaticView {
	if c.sv == nil || len(c.sv.statics) == 0 {
		return nil
	}
	return &StaticView{c}
}

// Statics are the unconstrained latent positions of the statics.
func (s *StaticView) Statics() []int { return s.c.sv.staticPos }

// States are the latent positions of x_1, ..., x_T.
func (s *StaticView) States() []int { return s.c.sv.statePos }

// SetStatics sets the statics (unconstrained, in the order of Statics) at
// which the state-space structure evaluates.
func (s *StaticView) SetStatics(theta []float64) {
	v := s.c.sv.view
	copy(v.g.Value(v.param, 0)[s.c.sv.nParams:], theta)
}

// StateSpace is the structure of the state given the statics.
func (s *StaticView) StateSpace() *StateSpace { return s.c.sv.view.ssm }

// ConstLogDensity returns the sum of the log-density terms that depend on no
// latent element, at the current params: the part of the log joint that is
// constant in z. A state-space model's log joint at z is the sum over t of
// TransitionLogDensity and ObsLogDensity plus ConstLogDensity, so the
// evidence of a particle filter must include it.
func ConstLogDensity(c *Compiled) float64 {
	if len(c.constTerms) == 0 {
		return 0
	}
	if c.constOrder == nil {
		nodes := make([]autodiff.Node, len(c.constTerms))
		for k, i := range c.constTerms {
			nodes[k] = c.Factors[i].Node
		}
		c.constOrder = c.g.Ancestors(nodes...)
	}
	c.Reserve(1)
	c.g.ForwardNodes(c.constOrder, 1)
	s := 0.0
	for _, i := range c.constTerms {
		s += c.g.Value(c.Factors[i].Node, 0)[0]
	}
	return s
}

// StructureOf reports the detected structure of c.
func StructureOf(c *Compiled) Structure { return c.structure }

// clone is s on the compile n, a clone of s's (the steps are what
// detection found, read-only; the step templates are compiled again).
func (s *StateSpace) clone(n *Compiled) *StateSpace {
	if s == nil {
		return nil
	}
	ns := *s
	ns.c = n
	if s.fast != nil {
		ns.fast = &ssmFast{}
	}
	return &ns
}

// Len is the number of time steps T.
func (s *StateSpace) Len() int { return s.T }

// StateDim is the dimension K of the state.
func (s *StateSpace) StateDim() int { return s.K }

// Index is the latent position of component k at step t.
func (s *StateSpace) Index(t, k int) int { return s.pos[t*s.K+k] }

// GaussianTransition reports whether every transition is a normal: then
// Transition gives its moments (otherwise only TransitionLogDensity is
// meaningful).
func (s *StateSpace) GaussianTransition() bool { return s.gaussian }

// ReserveParticles prepares evaluations over n particles.
func (s *StateSpace) ReserveParticles(n int) {
	s.c.Reserve(n)
	if f := s.fastSteps(); f != nil {
		f.reserve(n)
	}
}

// load writes the n particles' states (n x K) at step t into the latent rows.
func (s *StateSpace) load(t int, x []float64, n int) {
	K := s.K
	for i := range n {
		row := s.c.g.Value(s.c.LatentNode, i)
		for k := range K {
			row[s.pos[t*K+k]] = x[i*K+k]
		}
	}
}

// Transition writes the mean and the (diagonal) Cholesky factor of x_t
// given x_{t-1} = prev for each particle (for K = 1, the sd).
func (s *StateSpace) Transition(t int, prev, mean, chol []float64) {
	if f := s.fastSteps(); f != nil && f.outMean >= 0 {
		f.transition(s.c, t, prev, mean, chol)
		return
	}
	K, c := s.K, s.c
	n := len(mean) / K
	if t > 0 {
		s.load(t-1, prev, n)
	}
	st := &s.steps[t]
	c.g.ForwardNodes(st.transOrder, n)
	clear(chol[:n*K*K])
	for k, fi := range st.trans {
		f := &c.Factors[fi]
		if f.mvn != nil {
			f.mvn.moments(c.g, K, n, mean, chol)
			return
		}
		for i := range n {
			mean[i*K+k] = c.g.Value(f.Tilde.Args[1], i)[0]
			chol[i*K*K+k*K+k] = c.g.Value(f.Tilde.Args[2], i)[0]
		}
	}
}

// TransitionLogDensity writes log p(x_t = cur | x_{t-1} = prev).
func (s *StateSpace) TransitionLogDensity(t int, prev, cur, out []float64) {
	if f := s.fastSteps(); f != nil {
		f.transitionLogDensity(s.c, t, prev, cur, out)
		return
	}
	c := s.c
	n := len(out)
	if t > 0 {
		s.load(t-1, prev, n)
	}
	s.load(t, cur, n)
	st := &s.steps[t]
	c.g.ForwardNodes(st.transFull, n)
	for i := range n {
		lp := c.g.Value(c.Factors[st.trans[0]].Node, i)[0]
		for j, fi := range st.trans[1:] {
			if fi != st.trans[j] { // (a row drawn at once is one term)
				lp += c.g.Value(c.Factors[fi].Node, i)[0]
			}
		}
		out[i] = lp
	}
}

// ObsLogDensity writes the log density of the observations at step t.
func (s *StateSpace) ObsLogDensity(t int, cur, out []float64) {
	st := &s.steps[t]
	if st.obsSum < 0 {
		clear(out)
		return
	}
	if f := s.fastSteps(); f != nil {
		f.obsLogDensity(s.c, t, cur, out)
		return
	}
	c := s.c
	n := len(out)
	s.load(t, cur, n)
	c.g.ForwardNodes(st.obsOrder, n)
	for i := range n {
		out[i] = c.g.Value(st.obsSum, i)[0]
	}
}

// drawn are the latent positions the term draws: a prior's, or the row of
// a multivariate normal; nil for another term.
func (f *Factor) drawn() []int {
	switch {
	case f.Prior != nil:
		return f.Prior.LhsPos
	case f.mvn != nil:
		return f.mvn.pos
	}
	return nil
}

// moments writes the mean and the Cholesky factor of the row for n
// particles (n x K, n x K x K); a covariance that is not positive
// definite gives a NaN factor.
func (m *mvnTerm) moments(g *autodiff.Graph, K, n int, mean, chol []float64) {
	for i := range n {
		mu, cov, l := g.Value(m.mean, i), g.Value(m.cov, i), chol[i*K*K:(i+1)*K*K]
		for k := range K {
			mean[i*K+k] = mu[min(k, len(mu)-1)]
		}
		switch {
		case m.chol:
			copy(l, cov)
		case !stdlib.CholeskyLower(cov, K, l):
			l[0] = math.NaN()
		}
	}
}
