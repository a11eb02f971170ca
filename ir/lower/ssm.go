package lower

import (
	"fmt"
	"strings"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
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
	if len(s.States) > 1 || s.Latent != nil && s.Latent.Type.Kind == ir.Matrix {
		tr = "Gaussian transition: CSMC with vector twisted Gaussian proposals"
		if !s.GaussianTransition {
			tr = "transition not Gaussian: CSMC with vector per-step Gaussian proposals"
		}
		return fmt.Sprintf("state-space: (%s) over t = 1..%d, a %d-dimensional state, %s", stateNames(s.States), s.Latent.Type.Rows, s.StateDim(), tr)
	}
	if len(s.Statics) > 0 {
		return fmt.Sprintf("state-space: %s over t = 1..%d with the static latents %s (particle Gibbs: CSMC for %s given them, CIS for them given %s), %s",
			s.Latent.Name, s.Latent.Type.Rows, staticNames(s.Statics), s.Latent.Name, s.Latent.Name, tr)
	}
	return fmt.Sprintf("state-space: %s over t = 1..%d, %s", s.Latent.Name, s.Latent.Type.Rows, tr)
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

// ssmStep holds the factors of one time step of a state-space model.
type ssmStep struct {
	trans      int // index into factors of the transition z[t] ~ ...
	obs        []int
	transOrder []autodiff.Node // nodes to evaluate for the transition's arguments (Gaussian)
	transFull  []autodiff.Node // nodes to evaluate for the transition's log density
	obsOrder   []autodiff.Node // nodes to evaluate for the observation factors
	obsSum     autodiff.Node   // sum of the observation factors (or -1)
}

// detect classifies the compiled model from the dependency sets of its
// terms (factors[i].deps, and factors[i].prior.lhsPos for the positions a
// prior term draws). It also collects the terms that depend on no latent.
func detect(c *Compiled) {
	c.constTerms = c.constTerms[:0]
	for i, f := range c.Factors {
		if f.Prior == nil && len(f.deps) == 0 {
			c.constTerms = append(c.constTerms, i)
		}
	}
	m := c.Model
	no := func(format string, args ...any) {
		c.structure = Structure{Reason: fmt.Sprintf(format, args...), Attempt: looksDynamic(c)}
	}
	var drawn []*ir.Var // the latents proper (derived quantities are computed from them)
	for _, v := range m.Latents {
		if v.Derived == nil {
			drawn = append(drawn, v)
		}
	}
	if len(drawn) != 1 {
		names := make([]string, len(drawn))
		for i, v := range drawn {
			names[i] = v.Name
		}
		if len(drawn) == 0 {
			no("a state-space model has exactly one latent vector z (this model has no latent variables)")
			return
		}
		no("a state-space model has exactly one latent vector z (this model has %d latent variables: %s); its other unknowns are params, learned alongside q",
			len(drawn), strings.Join(names, ", "))
		return
	}
	z := drawn[0]
	if z.Special() {
		no("the latent %s has a vector constraint or bounds that depend on other variables", z.Name)
		return
	}
	if z.Type.Kind != ir.Vector {
		no("the latent %s is not a vector", z.Name)
		return
	}
	if z.Bij.HasLower || z.Bij.HasUpper {
		no("the latent %s is constrained", z.Name)
		return
	}
	T := z.Type.Rows
	if T < 2 {
		no("the latent %s has a single time step", z.Name)
		return
	}
	steps := make([]ssmStep, T)
	for t := range steps {
		steps[t].trans = -1
		steps[t].obsSum = -1
	}
	gauss := true
	transName := ""
	for i, f := range c.Factors {
		pos := f.Pos
		if f.Prior != nil {
			if len(f.Prior.LhsPos) != 1 {
				no("the statement at %s draws the whole vector %s at once; a state-space model draws %s[t] given %s[t-1]", pos, z.Name, z.Name, z.Name)
				return
			}
			t := f.Prior.LhsPos[0]
			if steps[t].trans >= 0 {
				no("%s[%d] appears on the left of ~ twice", z.Name, t+1)
				return
			}
			for _, d := range f.deps {
				if d != t-1 {
					no("the distribution of %s[%d] (statement at %s) depends on %s[%d], not only on %s[%d]", z.Name, t+1, pos, z.Name, d+1, z.Name, t)
					return
				}
			}
			steps[t].trans = i
			if !f.Tilde.Family.GaussianMoments {
				gauss = false
				transName = f.Tilde.Family.Name
			}
			continue
		}
		// an observation factor: depends on at most one state
		t := -1
		for _, d := range f.deps {
			if t >= 0 && d != t {
				no("the statement at %s depends on both %s[%d] and %s[%d]; an observation may depend on one state only", pos, z.Name, t+1, z.Name, d+1)
				return
			}
			t = d
		}
		if t < 0 {
			continue // a factor of data and params only: constant in z
		}
		steps[t].obs = append(steps[t].obs, i)
	}
	for t := range steps {
		if steps[t].trans < 0 {
			no("%s[%d] has no distribution (no %s[%d] ~ ... statement)", z.Name, t+1, z.Name, t+1)
			return
		}
	}
	g := c.g
	for t := range steps {
		f := c.Factors[steps[t].trans]
		if gauss {
			steps[t].transOrder = g.Ancestors(f.Tilde.Args[1], f.Tilde.Args[2])
		}
		steps[t].transFull = g.Ancestors(f.Node)
		if len(steps[t].obs) > 0 {
			nodes := make([]autodiff.Node, len(steps[t].obs))
			for k, i := range steps[t].obs {
				nodes[k] = c.Factors[i].Node
			}
			if len(nodes) == 1 {
				steps[t].obsSum = nodes[0]
			} else {
				steps[t].obsSum = g.AddN(nodes...)
			}
			steps[t].obsOrder = g.Ancestors(steps[t].obsSum)
		}
	}
	c.structure = Structure{StateSpace: true, Latent: z, GaussianTransition: gauss, Transition: transName}
	c.ssm = &StateSpace{c: c, steps: steps, fast: &ssmFast{}} // the step templates are compiled on first use
}

// StateSpace is the state-space structure of a compiled model, as
// detection found it: the value the CSMC kernel consumes (package msc's
// StateSpace and GeneralStateSpace). It evaluates the model's transition
// and observation terms step by step, for many particles at once, on the
// compiled model's graph (so it shares its params).
type StateSpace struct {
	c     *Compiled
	steps []ssmStep
	fast  *ssmFast // the step templates (nil: the generic path)
}

// StateSpaceOf returns the model's state-space structure when its latents
// are exactly the state trajectory (found on the model, or on its view when
// statements are vectorised over the state), or nil (StructureOf says why;
// with static latents see StaticStateSpaceOf).
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

// Len is the number of time steps.
func (s *StateSpace) Len() int { return len(s.steps) }

// StateDim is the state's dimension: a StateSpace is the K = 1 state-space
// structure (the state x_t one latent per step), evaluated by step
// programs where they can be (ssm_fast.go); VectorStateSpace is the same
// interface for K > 1.
func (s *StateSpace) StateDim() int { return 1 }

// Index is the unconstrained latent position of x_t (the latents are the
// trajectory).
func (s *StateSpace) Index(t, _ int) int { return t }

// ReserveParticles prepares evaluations over n particles.
func (s *StateSpace) ReserveParticles(n int) {
	s.c.Reserve(n)
	if f := s.fastSteps(); f != nil {
		f.reserve(n)
	}
}

// Transition writes the mean and sd of p(z_t | z_{t-1} = prev[i]).
func (s *StateSpace) Transition(t int, prev, mean, sd []float64) {
	c := s.c
	if f := s.fastSteps(); f != nil && f.outMean >= 0 {
		f.transition(c, t, prev, mean, sd)
		return
	}
	s.transitionGeneric(t, prev, mean, sd)
}

func (s *StateSpace) transitionGeneric(t int, prev, mean, sd []float64) {
	c := s.c
	st := &s.steps[t]
	f := &c.Factors[st.trans]
	n := len(mean)
	if t > 0 {
		for i := 0; i < n; i++ {
			c.g.Value(c.LatentNode, i)[t-1] = prev[i]
		}
	}
	c.g.ForwardNodes(st.transOrder, n)
	for i := 0; i < n; i++ {
		mv, sv := c.g.Value(f.Tilde.Args[1], i), c.g.Value(f.Tilde.Args[2], i)
		mean[i], sd[i] = mv[0], sv[0]
	}
}

// ObsLogDensity writes the log density of the observations at step t.
func (s *StateSpace) ObsLogDensity(t int, cur, out []float64) {
	c := s.c
	if f := s.fastSteps(); f != nil && s.steps[t].obsSum >= 0 {
		f.obsLogDensity(c, t, cur, out)
		return
	}
	s.obsLogDensityGeneric(t, cur, out)
}

func (s *StateSpace) obsLogDensityGeneric(t int, cur, out []float64) {
	c := s.c
	st := &s.steps[t]
	n := len(out)
	if st.obsSum < 0 {
		for i := range out {
			out[i] = 0
		}
		return
	}
	for i := 0; i < n; i++ {
		c.g.Value(c.LatentNode, i)[t] = cur[i]
	}
	c.g.ForwardNodes(st.obsOrder, n)
	for i := 0; i < n; i++ {
		out[i] = c.g.Value(st.obsSum, i)[0]
	}
}

// TransitionLogDensity writes log p(z_t = cur[i] | z_{t-1} = prev[i]).
func (s *StateSpace) TransitionLogDensity(t int, prev, cur, out []float64) {
	c := s.c
	if f := s.fastSteps(); f != nil {
		f.transitionLogDensity(c, t, prev, cur, out)
		return
	}
	s.transitionLogDensityGeneric(t, prev, cur, out)
}

func (s *StateSpace) transitionLogDensityGeneric(t int, prev, cur, out []float64) {
	c := s.c
	st := &s.steps[t]
	f := &c.Factors[st.trans]
	n := len(out)
	for i := 0; i < n; i++ {
		u := c.g.Value(c.LatentNode, i)
		if t > 0 {
			u[t-1] = prev[i]
		}
		u[t] = cur[i]
	}
	c.g.ForwardNodes(st.transFull, n)
	for i := 0; i < n; i++ {
		out[i] = c.g.Value(f.Node, i)[0]
	}
}
