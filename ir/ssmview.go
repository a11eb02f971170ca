package ir

import (
	"fmt"
	"strings"
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
	view    *Compiled // the view's compile (its params: the model's, then the statics)
	statics []*Var    // the static latents, in the view's param order
	// staticPos are the unconstrained latent positions of the statics in the
	// model's latent vector (in the view's param order), statePos those of
	// the state x_1..x_T.
	staticPos, statePos []int
	nParams             int // the model's own params (the view's first)
}

// detectView tries the state-space view after the model's own detection
// failed; on success c.structure describes the view and c.sv holds it.
func (c *Compiled) detectView(opt CompileOptions) {
	m := c.Model
	state := c.dynamicLatent()
	if state == nil {
		if !c.structure.Attempt {
			c.structure.Reason = "no latent vector is a state: none has an element drawn given another element of it, as in x[t] ~ normal(phi * x[t - 1], s)"
		}
		return
	}
	c.structure.Attempt = true // it looks like one: say why it is not
	var statics []*Var
	for _, v := range m.Latents {
		if v == state || v.Derived != nil {
			continue
		}
		if v.Special() {
			c.structure.Reason = fmt.Sprintf("the static latent %s has a vector constraint or bounds that depend on other variables; particle Gibbs takes static latents with constant bounds", v.Name)
			return
		}
		statics = append(statics, v)
	}
	if state.Special() || state.Bij.HasLower || state.Bij.HasUpper {
		return // detection's own reason stands
	}
	body, bad := splitStatements(m.Body, state)
	if bad != nil {
		c.structure.Reason = fmt.Sprintf("the statement at %s (%s) reads %s in a way that is not elementwise over t (element t of each argument must depend on %s[t] only, as in y ~ normal(x, s) or x[2:T] ~ normal(phi * x[1:(T - 1)], s))",
			bad.Pos(), bad.Text, state.Name, state.Name)
		return
	}
	view, err := compileView(m, body, state, statics, opt)
	if err != nil {
		c.structure.Reason = "its state-space view does not compile: " + err.Error()
		return
	}
	st := view.structure
	if !st.StateSpace {
		c.structure.Reason = st.Reason
		c.structure.Attempt = true
		return
	}
	info := &viewInfo{view: view, statics: statics, nParams: m.ParamDim}
	for _, v := range statics {
		for i := 0; i < v.UDim(); i++ {
			info.staticPos = append(info.staticPos, v.Offset+i)
		}
	}
	for t := 0; t < state.Type.Rows; t++ {
		info.statePos = append(info.statePos, state.Offset+t)
	}
	st.Statics = statics
	c.structure = st
	c.sv = info
}

// dynamicLatent is the one latent vector one of whose elements is drawn
// given others of it (the state), or nil.
func (c *Compiled) dynamicLatent() *Var {
	var found *Var
	for _, v := range c.Model.Latents {
		if v.Type.Kind != Vector || v.Derived != nil || v.Type.Rows < 2 || v.VecBij != nil {
			continue
		}
		lo, hi := v.Offset, v.Offset+v.UDim()
		in := func(p int) bool { return p >= lo && p < hi }
		dynamic := false
		for _, f := range c.factors {
			if f.prior == nil || len(f.prior.lhsPos) == 0 || !in(f.prior.lhsPos[0]) {
				continue
			}
			for _, d := range f.deps {
				if in(d) {
					dynamic = true
				}
			}
		}
		if dynamic {
			if found != nil {
				return nil // two: a vector state, not yet
			}
			found = v
		}
	}
	return found
}

// compileView compiles m with body, state as its only latent and the
// statics as params after the model's own. The variables are shared with
// m, so their kinds and offsets are changed for the compile and restored.
func compileView(m *Model, body []Stmt, state *Var, statics []*Var, opt CompileOptions) (*Compiled, error) {
	type saved struct {
		kind   VarKind
		offset int
	}
	keep := map[*Var]saved{state: {state.Kind, state.Offset}}
	for _, v := range statics {
		keep[v] = saved{v.Kind, v.Offset}
	}
	defer func() {
		for v, s := range keep {
			v.Kind, v.Offset = s.kind, s.offset
		}
	}()
	vm := *m
	vm.Body = body
	vm.Latents = []*Var{state}
	vm.LatentDim = state.UDim()
	state.Offset = 0
	vm.Params = append(append([]*Var(nil), m.Params...), statics...)
	off := m.ParamDim
	for _, v := range statics {
		v.Kind, v.Offset = ParamVar, off
		off += v.UDim()
	}
	vm.ParamDim = off
	opt.noView = true
	return Compile(&vm, opt)
}

// splitStatements returns body with each ~ statement that is vectorised
// over the state split into one statement per element, or the statement
// that reads the state in a way the view cannot split.
func splitStatements(body []Stmt, state *Var) ([]Stmt, *Tilde) {
	var out []Stmt
	for _, s := range body {
		switch s := s.(type) {
		case *Tilde:
			t := s.LHS.Type()
			if t.Kind != Vector || !usesVar(s, state) {
				out = append(out, s)
				continue
			}
			n := t.Rows
			for k := 0; k < n; k++ {
				lhs, ok := element(s.LHS, k)
				if !ok {
					return nil, s
				}
				args := make([]Expr, len(s.Args))
				for i, a := range s.Args {
					if args[i], ok = element(a, k); !ok {
						return nil, s
					}
				}
				out = append(out, &Tilde{stmtBase: s.stmtBase, LHS: lhs, Dist: s.Dist, Args: args, Root: s.Root,
					Text: fmt.Sprintf("%s (element %d of %d)", s.Text, k+1, n)})
			}
		case *For:
			b, bad := splitStatements(s.Body, state)
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
func usesVar(s *Tilde, v *Var) bool {
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

// element is element k (0-based) of an elementwise vector expression (a
// scalar is its own element), or false when e is not elementwise.
func element(e Expr, k int) (Expr, bool) {
	t := e.Type()
	if t.Scalar() {
		return e, true
	}
	if t.Kind != Vector {
		return nil, false
	}
	et := tReal
	num := func(v int) Expr { return &Num{exprBase: exprBase{e.Pos(), tInt}, V: float64(v)} }
	switch e := e.(type) {
	case *Ref:
		if t.IntElems {
			et = tInt
		}
		return &Index{exprBase: exprBase{e.Pos(), et}, X: e, Idx: []Expr{num(k + 1)}}, true
	case *Slice: // x[a:b]: element k is x[a + k]
		xt := e.X.Type()
		if xt.Kind != Vector {
			return nil, false
		}
		if xt.IntElems {
			et = tInt
		}
		return &Index{exprBase: exprBase{e.Pos(), et}, X: e.X, Idx: []Expr{num(e.Lo[0] + k)}}, true
	case *Unary:
		x, ok := element(e.X, k)
		if !ok {
			return nil, false
		}
		return &Unary{exprBase: exprBase{e.Pos(), x.Type()}, X: x}, true
	case *Binary:
		if e.MatVec {
			return nil, false
		}
		switch e.Op {
		case OpMul, OpDiv:
			if !e.X.Type().Scalar() && !e.Y.Type().Scalar() {
				return nil, false // a product of two vectors is not elementwise
			}
		case OpPow:
			return nil, false
		}
		x, ok1 := element(e.X, k)
		y, ok2 := element(e.Y, k)
		if !ok1 || !ok2 {
			return nil, false
		}
		op := e.Op
		switch op {
		case OpEMul:
			op = OpMul
		case OpEDiv:
			op = OpDiv
		}
		rt := tReal
		if op.Logical() {
			rt = tInt
		}
		return &Binary{exprBase: exprBase{e.Pos(), rt}, Op: op, X: x, Y: y}, true
	case *Call:
		if e.Def == nil || !e.Def.elementwise || len(e.Args) != 1 {
			return nil, false
		}
		x, ok := element(e.Args[0], k)
		if !ok {
			return nil, false
		}
		return &Call{exprBase: exprBase{e.Pos(), tReal}, Name: e.Name, Def: e.Def, Args: []Expr{x}}, true
	case *NaryCall:
		args := make([]Expr, len(e.Args))
		for i, a := range e.Args {
			var ok bool
			if args[i], ok = element(a, k); !ok {
				return nil, false
			}
		}
		return &NaryCall{exprBase: exprBase{e.Pos(), tReal}, Name: e.Name, Fn: e.Fn, Args: args}, true
	}
	return nil, false
}

// staticNames lists the statics' names, for Structure's text.
func staticNames(vs []*Var) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	return strings.Join(names, ", ")
}
