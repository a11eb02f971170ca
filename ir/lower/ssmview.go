package lower

import (
	"fmt"
	"slices"

	"github.com/mscppl/mscppl/ir"
)

// The state-space view of a model written as Stan users write one: with
// observations and transitions vectorised over the state (y ~ normal(x, s),
// x[2:T] ~ normal(phi * x[1:(T - 1)], s)) and with static latents beside the
// state (phi, s with priors). The model's own compile is a batched log joint
// over all its latents; structure detection on it fails for such models,
// since a vectorised statement is one term over every time step and a
// static latent is a dependency of every step. The view is a second compile
// of the same model in which
//
//   - every statement that is vectorised over the state is split into one
//     statement per element (y[t] ~ normal(x[t], s)), when each of its
//     arguments is elementwise in the state (an element of the result
//     depends on the same element of the vectors it reads);
//   - the static latents are params: the view's param vector is the model's
//     params followed by the statics, set by SetStatics;
//
// so that the view's own structure detection sees a textbook state-space
// model over the state alone. Particle Gibbs (package msc) sweeps the state
// on the view at the current statics and moves the statics on the model's
// own log joint.

// viewInfo is what the view adds to the model's compile.
type viewInfo struct {
	view    *Compiled // the view's compile (its params: the model's, then the statics; its ssm the structure)
	statics []*ir.Var // the static latents, in the view's param order
	// staticPos are the unconstrained latent positions of the statics in the
	// model's latent vector (in the view's param order), statePos those of
	// the state, as StateSpace.Index orders them.
	staticPos, statePos []int
	nParams             int // the model's own params (the view's first)
}

// detectView tries the state-space view after the model's own detection
// failed; on success c.structure describes the view and c.sv holds it.
func detectView(c *Compiled, opt CompileOptions) {
	m := c.Model
	states, why := dynamicLatents(c)
	if states == nil {
		if why != "" {
			c.structure.Reason, c.structure.Attempt = why, true
		} else if !c.structure.Attempt {
			c.structure.Reason = "no latent vector is a state: none has an element drawn given another element of it, as in x[t] ~ normal(phi * x[t - 1], s)"
		}
		return
	}
	c.structure.Attempt = true // it looks like one: say why it is not
	state := states[0]
	var statics []*ir.Var
	for _, v := range m.Latents {
		if slices.Contains(states, v) || v.Derived != nil {
			continue
		}
		if v.Special() {
			c.structure.Reason = fmt.Sprintf("the static latent %s has a vector constraint or bounds that depend on other variables; particle Gibbs takes static latents with constant bounds", v.Name)
			return
		}
		statics = append(statics, v)
	}
	for _, s := range states {
		if s.Special() || s.Bij.HasLower || s.Bij.HasUpper {
			c.structure.Reason = fmt.Sprintf("the state %s is constrained; a state is an unconstrained vector", s.Name)
			return
		}
	}
	body, bad := splitStatements(m.Body, states)
	if bad != nil {
		c.structure.Reason = fmt.Sprintf("the statement at %s (%s) reads %s in a way that is not elementwise over t (element t of each argument must depend on %s[t] only, as in y ~ normal(x, s) or x[2:T] ~ normal(phi * x[1:(T - 1)], s))",
			bad.Pos(), bad.Text, state.Name, state.Name)
		return
	}
	view, err := compileView(m, body, states, statics, opt)
	if err != nil {
		c.structure.Reason = "its state-space view does not compile: " + err.Error()
		return
	}
	st := view.structure // the view's own detection: its latents are the state
	if !st.StateSpace {
		c.structure.Reason = st.Reason
		return
	}
	info := &viewInfo{view: view, statics: statics, nParams: m.ParamDim}
	for _, v := range statics {
		for i := 0; i < v.UDim(); i++ {
			info.staticPos = append(info.staticPos, v.Offset+i)
		}
	}
	info.statePos = statePositions(states)
	st.Statics = statics
	c.structure = st
	c.sv = info
}

// dynamicLatents are the latent vectors that form the state: those one of
// whose elements is drawn given another element of a state vector (to a
// fixed point, so that a component drawn given another's past joins), all
// of one length; nil when there is none, with a reason when their lengths
// differ.
func dynamicLatents(c *Compiled) ([]*ir.Var, string) {
	var cands []*ir.Var
	for _, v := range c.Model.Latents {
		if (v.Type.Kind == ir.Vector || v.Type.Kind == ir.Matrix) && v.Derived == nil && v.Type.Rows >= 2 && v.VecBij == nil {
			cands = append(cands, v)
		}
	}
	owner := func(p int) *ir.Var {
		for _, v := range cands {
			if p >= v.Offset && p < v.Offset+v.UDim() {
				return v
			}
		}
		return nil
	}
	in := map[*ir.Var]bool{}
	for changed := true; changed; {
		changed = false
		for _, f := range c.Factors {
			lhs := f.drawn()
			if len(lhs) == 0 {
				continue
			}
			v := owner(lhs[0])
			if v == nil || in[v] {
				continue
			}
			for _, d := range f.deps {
				if w := owner(d); w != nil && (w == v || in[w]) {
					in[v], changed = true, true
					break
				}
			}
		}
	}
	var out []*ir.Var
	for _, v := range cands {
		if in[v] {
			out = append(out, v)
		}
	}
	for _, v := range out[min(1, len(out)):] {
		if v.Type.Rows != out[0].Type.Rows {
			return nil, fmt.Sprintf("the state vectors %s and %s have different lengths (%d and %d); the components of a state have one length T", out[0].Name, v.Name, out[0].Type.Rows, v.Type.Rows)
		}
		if v.Type.Kind == ir.Matrix || out[0].Type.Kind == ir.Matrix {
			return nil, fmt.Sprintf("the state is %s and %s; a state is one matrix[T, K] or vectors of length T, not both", out[0].Name, v.Name)
		}
	}
	return out, ""
}

// compileView compiles m with body, the state's vectors as its only latents
// and the statics as params after the model's own. The variables are shared with
// m, so their kinds and offsets are changed for the compile and restored.
func compileView(m *ir.Model, body []ir.Stmt, states []*ir.Var, statics []*ir.Var, opt CompileOptions) (*Compiled, error) {
	type saved struct {
		kind   ir.VarKind
		offset int
	}
	keep := map[*ir.Var]saved{}
	for _, v := range append(append([]*ir.Var(nil), states...), statics...) {
		keep[v] = saved{v.Kind, v.Offset}
	}
	defer func() {
		for v, s := range keep {
			v.Kind, v.Offset = s.kind, s.offset
		}
	}()
	vm := *m
	vm.Body = body
	vm.Latents = states
	vm.LatentDim = 0
	for _, v := range states {
		v.Offset = vm.LatentDim
		vm.LatentDim += v.UDim()
	}
	vm.Params = append(append([]*ir.Var(nil), m.Params...), statics...)
	off := m.ParamDim
	for _, v := range statics {
		v.Kind, v.Offset = ir.ParamVar, off
		off += v.UDim()
	}
	vm.ParamDim = off
	opt.NoView, opt.state = true, states
	return lower(&vm, opt)
}

// splitStatements returns body with each ~ statement that is vectorised
// over the state split into one statement per element, or the statement
// that reads the state in a way the view cannot split.
func splitStatements(body []ir.Stmt, states []*ir.Var) ([]ir.Stmt, *ir.Tilde) {
	var out []ir.Stmt
	for _, s := range body {
		switch s := s.(type) {
		case *ir.Tilde:
			t := s.LHS.Type()
			if t.Kind != ir.Vector || !slices.ContainsFunc(states, func(v *ir.Var) bool { return usesVar(s, v) }) {
				out = append(out, s)
				continue
			}
			n := t.Rows
			for k := 0; k < n; k++ {
				lhs, ok := ir.Element(s.LHS, k)
				if !ok {
					return nil, s
				}
				args := make([]ir.Expr, len(s.Args))
				for i, a := range s.Args {
					if args[i], ok = ir.Element(a, k); !ok {
						return nil, s
					}
				}
				out = append(out, &ir.Tilde{StmtBase: s.StmtBase, LHS: lhs, Dist: s.Dist, Args: args, Root: s.Root,
					Text: fmt.Sprintf("%s (element %d of %d)", s.Text, k+1, n)})
			}
		case *ir.For:
			b, bad := splitStatements(s.Body, states)
			if bad != nil {
				return nil, bad
			}
			f := *s
			f.Body = b
			out = append(out, &f)
		default:
			out = append(out, s)
		}
	}
	return out, nil
}

// usesVar reports whether the statement reads v.
func usesVar(s *ir.Tilde, v *ir.Var) bool {
	if refersTo(s.LHS, v) {
		return true
	}
	for _, a := range s.Args {
		if refersTo(a, v) {
			return true
		}
	}
	return false
}
