package ir

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib/ode"
)

// ODE solvers: ode_rk45(f, y0, t0, ts, ...), ode_bdf, their _tol forms
// and Stan's older integrate_ode_rk45 / integrate_ode_bdf. f is a user
// function passed by name; it is resolved once on parameters of its own
// (t, y and the extra arguments) and compiled into a small tape of its
// own, which the solver (package stdlib/ode) evaluates for f and, by
// reverse sweeps, its Jacobians. The call is one node of the model's
// tape: its value the states at ts, its backward pass the forward
// sensitivities. A failed solve adds a term of -Inf to the log density of
// that draw and is counted per call (SolverNotes).

// odeForm is the argument layout of one of the ODE functions.
type odeForm struct {
	stiff bool
	tol   bool // tolerances after ts (ode_*_tol)
	old   bool // integrate_ode_*: theta, x_r, x_i, then optional tolerances
}

// odeEntry is the vocabulary entry of an ODE function.
func odeEntry(name, params, doc string, form odeForm) *Function {
	min := 4
	switch {
	case form.old:
		min = 7
	case form.tol:
		min = 7
	}
	return &Function{Name: name, Params: params, Doc: doc, arity: []int{min},
		raw: func(r *resolver, c *lang.Call, pos lang.Pos) Expr { return r.odeCall(c, pos, form) }}
}

// oldBDFDefaults are the tolerances of Stan's integrate_ode_bdf when the
// call gives none (its other solvers default to ode.Default*).
var oldBDFDefaults = ode.Options{RelTol: 1e-10, AbsTol: 1e-10, MaxSteps: 100_000_000}

// odeType is the type of the result of an ODE call with n output times
// and k states, stored as a matrix[N, K] whose row n is the state at
// ts[n]: Stan's array[N] vector[K] for ode_*, array[N, K] real for the
// older integrate_ode_*.
func odeType(n, k int, old bool) Type {
	t := matType(n, k)
	t.Array = 1 // ode_*: array[N] vector[K], one state per row
	if old {
		t.Array = 2 // integrate_ode_*: array[N, K] real
	}
	return t
}

// ODECall is a call of an ODE solver.
type ODECall struct {
	exprBase
	Name  string // as written
	Fn    string // the right-hand side's function
	Stiff bool
	// the right-hand side: f's parameters (t, y, extra...) and its body
	// resolved on them
	T, Y   *Var
	Extra  []*Var
	Body   []Stmt
	Result Expr
	// the arguments
	Y0, T0, TS Expr
	Args       []Expr
	Opt        ode.Options
}

// bareName is the name e is when it is a name alone.
func bareName(e *lang.Expr) (string, bool) {
	if e == nil || len(e.Rest) > 0 || e.Then != nil || e.Left == nil || len(e.Left.Rest) > 0 {
		return "", false
	}
	u := e.Left.Left
	if u == nil || u.Power == nil || u.Power.Exp != nil || u.Power.Base == nil {
		return "", false
	}
	b := u.Power.Base
	if len(b.Indexes) > 0 || b.Trans || b.Prim == nil || b.Prim.Ident == nil {
		return "", false
	}
	return *b.Prim.Ident, true
}

// odeCall resolves a call of an ODE solver.
func (r *resolver) odeCall(c *lang.Call, pos lang.Pos, form odeForm) Expr {
	usage := "f, y0, t0, ts, ..."
	switch {
	case form.old:
		usage = "f, y0, t0, ts, theta, x_r, x_i[, rtol, atol, max_steps]"
	case form.tol:
		usage = "f, y0, t0, ts, rtol, atol, max_steps, ..."
	}
	n := len(c.Args)
	if n < 4 || form.tol && n < 7 || form.old && n != 7 && n != 10 {
		r.errorf(pos, "%s takes (%s), got %d argument%s", c.Name, usage, n, plural1(n))
		return nil
	}
	name, ok := bareName(c.Args[0])
	fd := r.funcs[name]
	if !ok || fd == nil {
		e := r.errorf(r.at(c.Args[0].Pos), "the first argument of %s must name a function of the functions block", c.Name)
		e.Hint = "f(t: real, y: vector, ...) -> vector, passed by its name: " + c.Name + "(f, " + usage[3:] + ")"
		names := make([]string, 0, len(r.funcs))
		for n := range r.funcs {
			names = append(names, n)
		}
		sort.Strings(names)
		if s := lang.Suggest(name, names); ok && s != "" {
			e.Hint = fmt.Sprintf("did you mean %q?", s)
		}
		return nil
	}
	args := make([]Expr, n)
	for i := 1; i < n; i++ {
		if args[i] = r.expr(c.Args[i]); args[i] == nil {
			return nil
		}
	}
	y0, t0, ts := args[1], args[2], args[3]
	if y0.Type().Kind != Vector {
		r.errorf(y0.Pos(), "the initial state y0 of %s must be a vector, got %s", c.Name, y0.Type())
		return nil
	}
	if !t0.Type().Scalar() {
		r.errorf(t0.Pos(), "the initial time t0 of %s must be a scalar, got %s", c.Name, t0.Type())
		return nil
	}
	if ts.Type().Kind != Vector {
		r.errorf(ts.Pos(), "the output times ts of %s must be a vector, got %s", c.Name, ts.Type())
		return nil
	}
	x := &ODECall{exprBase: exprBase{pos, odeType(ts.Type().Rows, y0.Type().Rows, form.old)}, Name: c.Name, Fn: name, Stiff: form.stiff, Y0: y0, T0: t0, TS: ts}
	var tols []Expr
	switch {
	case form.old:
		x.Args = args[4:7]
		tols = args[7:]
	case form.tol:
		tols = args[4:7]
		x.Args = args[7:]
	default:
		x.Args = args[4:]
	}
	if form.old && form.stiff {
		// Stan's integrate_ode_bdf defaults to tighter tolerances than
		// ode_bdf (Stan Math's integrate_ode_bdf.hpp)
		x.Opt = oldBDFDefaults
	}
	if len(tols) == 3 {
		what := []string{"the relative tolerance", "the absolute tolerance", "the maximum number of steps"}
		var v [3]float64
		for i, e := range tols {
			f, ok := foldConst(e)
			// (Stan's older integrate_ode_* take the steps as a real: 5e2)
			if !ok || !e.Type().Scalar() || !(f > 0) || math.IsInf(f, 0) || i == 2 && (f != math.Trunc(f) || f > math.MaxInt32 || e.Type().Kind != Int && !form.old) {
				r.errorf(e.Pos(), "%s of %s must be a positive %s known before inference, got %s", what[i], c.Name, map[bool]string{true: "integer", false: "number"}[i == 2], FormatExpr(e))
				return nil
			}
			if i == 0 && !(f >= ode.MinRelTol && f <= ode.MaxRelTol) {
				er := r.errorf(e.Pos(), "the relative tolerance of %s must be within [%g, %g], got %g", c.Name, float64(ode.MinRelTol), float64(ode.MaxRelTol), f)
				er.Hint = "below 1e-16 it asks for more digits than a float64 has, and the steps would shrink to nothing; Stan's default is 1e-6"
				return nil
			}
			v[i] = f
		}
		x.Opt = ode.Options{RelTol: v[0], AbsTol: v[1], MaxSteps: int(v[2])}
	}
	if !r.odeRHS(x, fd) {
		return nil
	}
	return x
}

// odeRHS resolves f's body on parameters of its own: t, y (a vector of
// y0's length) and the extra arguments' types.
func (r *resolver) odeRHS(x *ODECall, fd *lang.FuncDef) bool {
	K := x.Y0.Type().Rows
	if len(fd.Params) != 2+len(x.Args) {
		e := r.errorf(x.Pos(), "%s passes %d argument%s to %s (t, y and %d more), which takes %d", x.Name, 2+len(x.Args), plural1(2+len(x.Args)), fd.Name, len(x.Args), len(fd.Params))
		e.Hint = fmt.Sprintf("%s(t: real, y: vector, ...) -> vector gets t, y and the arguments after ts", fd.Name)
		return false
	}
	types := []Type{tReal, vecType(K)}
	if len(fd.Params) > 1 && fd.Params[1].ArrayDims() == 1 {
		types[1].Array = 1 // the state as Stan's older forms pass it: array[] real
	}
	for _, a := range x.Args {
		types = append(types, a.Type())
	}
	for i, prm := range fd.Params {
		if !paramAccepts(prm.ArrayDims(), prm.Base, types[i]) || i == 0 && prm.Base != "real" {
			what := "argument"
			switch i {
			case 0:
				what = "the time"
			case 1:
				what = "the state"
			}
			r.errorf(r.at(prm.Pos), "parameter %d of %s (%s) must take %s, %s, passed by %s; it is declared %s", i+1, fd.Name, prm.Name, what, types[i], x.Name, prm.Base)
			return false
		}
	}
	if r.depth >= maxInlineDepth {
		r.errorf(x.Pos(), "calls of %s nest more than %d deep; recursive functions are not supported", fd.Name, maxInlineDepth)
		return false
	}
	scope, leave := r.enterFunction()
	defer leave()
	if r.inODE == "" {
		r.inODE = fmt.Sprintf("the right-hand side %s of %s at %d:%d", fd.Name, x.Name, x.Pos().Line, x.Pos().Col)
		r.inODEDepth = r.depth
		defer func() { r.inODE = "" }()
	}
	vars := make([]*Var, len(fd.Params))
	for i, prm := range fd.Params {
		vars[i] = r.newVar(prm.Name, r.at(prm.Pos), LocalVar, types[i])
		scope[prm.Name] = vars[i]
	}
	x.T, x.Y, x.Extra = vars[0], vars[1], vars[2:]
	n := len(fd.Body)
	x.Body = r.stmts(fd.Body[:n-1])
	res := r.expr(fd.Body[n-1].Return)
	if res == nil {
		return false
	}
	if t := res.Type(); t.Kind != Vector || t.Rows != K {
		r.errorf(res.Pos(), "%s returns %s; as the right-hand side of %s it must return the derivative of the state, a vector[%d]", fd.Name, t, x.Name, K)
		return false
	}
	x.Result = res
	r.refuseMessages(x.Body, res, fd.Name, x.Name)
	return true
}

// ---- compilation ---------------------------------------------------------------

// ode lowers an ODE call: f's own tape, the solver, and one node.
func (cp *compiler) ode(e *ODECall) autodiff.Node {
	g := cp.g
	y0, t0, ts := cp.expr(e.Y0), cp.expr(e.T0), cp.expr(e.TS)
	if !g.IsConst(t0) || !g.IsConst(ts) {
		cp.fail(e.Pos(), "the times t0 and ts of %s must be known before inference (data)", e.Name)
	}
	// the checks of every solve, once before the first (the times are data)
	if err := ode.CheckArgs(g.Value(t0, 0)[0], g.Value(ts, 0), e.Opt); err != nil {
		cp.fail(e.Pos(), "%s cannot be solved: %v", e.Name, err)
	}
	ins := []autodiff.Node{y0, t0, ts}
	K, N := e.Y0.Type().Rows, e.TS.Type().Rows
	op := &odeOp{rejections: rejections{name: e.Name, pos: e.Pos(), unit: "solve", derived: cp.inDerived}, k: K, n: N, opt: e.Opt}
	// the extra arguments: data are constants of f's tape, the others its
	// parameters (with sensitivities)
	sg := autodiff.New()
	sub := &compiler{m: cp.m, g: sg, c: &Compiled{Model: cp.m, g: sg}, env: make([]autodiff.Node, len(cp.m.Vars)),
		ints: make([]int, len(cp.m.Vars)), seen: cp.seen, ops: cp.ops, consts: map[float64]autodiff.Node{}, max: cp.max,
		covered: make([]int, cp.m.LatentDim), localDeps: make([][]int, len(cp.m.Vars)), elems: make([][]autodiff.Node, len(cp.m.Vars)),
		depMark: make([]int, cp.m.LatentDim)}
	for i := range sub.env {
		sub.env[i] = -1
	}
	var consts []func(in autodiff.Node)
	P := 0
	for i, a := range e.Args {
		an := cp.expr(a)
		ins = append(ins, an)
		v, t := e.Extra[i], a.Type()
		if g.IsConst(an) {
			val := append([]float64(nil), g.Value(an, 0)...)
			if t.Kind == Matrix {
				sub.env[v.ID] = sg.ConstMatrix(t.Rows, t.Cols, val)
			} else {
				sub.env[v.ID] = sg.Const(val)
			}
			continue
		}
		op.params = append(op.params, odeParam{in: 3 + i, off: P, n: t.Len()})
		off, tt := 1+K+P, t
		consts = append(consts, func(in autodiff.Node) {
			switch {
			case tt.Scalar():
				sub.env[v.ID] = sg.Index(in, off)
			case tt.Kind == Matrix:
				sub.env[v.ID] = sg.Reshape(sg.Slice(in, off, off+tt.Len()), tt.Rows, tt.Cols)
			default:
				sub.env[v.ID] = sg.Slice(in, off, off+tt.Len())
			}
		})
		P += t.Len()
	}
	in := sg.Input(1 + K + P + K) // t, y, the parameters, the weights of the outputs
	sub.env[e.T.ID] = sg.Index(in, 0)
	sub.env[e.Y.ID] = sg.Slice(in, 1, 1+K)
	for _, f := range consts {
		f(in)
	}
	sub.block(e.Body)
	out := sub.expr(e.Result)
	w := sg.Slice(in, 1+K+P, 1+K+P+K)
	s := sg.Dot(out, w)
	sg.Alloc(K)
	op.rhs = &odeRHS{g: sg, in: in, out: out, s: s, order: sg.Ancestors(s, out), k: K, p: P}
	op.p = make([]float64, P)
	op.sens = make([]float64, N*K*(K+P))
	op.ys = make([]float64, N*K)
	method := ode.RK45
	if e.Stiff {
		method = ode.Stiff
	}
	op.method = method
	op.solver = ode.NewSolver(ode.System{K: K, P: P, F: op.rhs.f, Jac: op.rhs.jac}, method)
	// the projection: odeNominalSteps steps (odeStepSeconds), and the
	// buffers (the solver's 14 states of K + K (K + P), the outputs and
	// sensitivities, f's tape)
	full := float64(K + K*(K+P))
	step := odeStepSeconds(op.rhs.order, sg, K, e.Stiff)
	basis := fmt.Sprintf("projected at %d steps of rk45 on %d states, %.3g ms each", odeNominalSteps, K, 1e3*step)
	if e.Stiff {
		basis = fmt.Sprintf("projected at %d steps of the stiff method on %d states, %.3g ms each: 3 Jacobians of %d sweeps of the right-hand side and an LU of %d x %d", odeNominalSteps, K, 1e3*step, 2*K, K, K)
	}
	cp.heavy(e.Pos(), e.Name, basis, odeNominalSteps*step,
		8*(14*full+float64(len(op.sens)+len(op.ys)))+512*float64(sg.NumNodes()))
	cp.addRejecter(&op.rejections)
	n := g.Custom(op, N*K+1, ins...)
	if !cp.inDerived {
		// the solve's own term: 0, or -Inf when it failed
		deps := cp.depsOf(e.Y0, nil)
		for _, a := range e.Args {
			deps = cp.depsOf(a, deps)
		}
		cp.addTerm(factor{node: g.Index(n, N*K), pos: e.Pos(), text: FormatExpr(e) + " (a failed solve)", deps: deps, why: op.reason})
	}
	return g.Reshape(g.Slice(n, 0, N*K), N, K)
}

// odeRHS evaluates f on its tape: batch element b holds (t, y, p, w) with
// w the b-th unit vector, so one forward and one reverse sweep over K
// elements give the K rows of the Jacobian.
type odeRHS struct {
	g          *autodiff.Graph
	in, out, s autodiff.Node
	order      []autodiff.Node
	k, p       int
}

func (r *odeRHS) load(b int, t float64, y, p []float64) {
	v := r.g.Value(r.in, b)
	v[0] = t
	copy(v[1:], y[:r.k])
	copy(v[1+r.k:], p[:r.p])
	w := v[1+r.k+r.p:]
	clear(w)
	w[b] = 1
}

func (r *odeRHS) f(t float64, y, p, dydt []float64) {
	r.load(0, t, y, p)
	r.g.ForwardNodes(r.order, 1)
	copy(dydt, r.g.Value(r.out, 0))
}

func (r *odeRHS) jac(t float64, y, p, dydt, jy, jp, ft []float64) {
	K, P := r.k, r.p
	for b := 0; b < K; b++ {
		r.load(b, t, y, p)
	}
	r.g.ForwardNodes(r.order, K)
	copy(dydt, r.g.Value(r.out, 0))
	r.g.Backward(r.s, K)
	for b := 0; b < K; b++ {
		gr := r.g.Grad(r.in, b)
		if gr == nil { // f depends on nothing
			ft[b] = 0
			clear(jy[b*K : (b+1)*K])
			clear(jp[b*P : (b+1)*P])
			continue
		}
		ft[b] = gr[0]
		copy(jy[b*K:(b+1)*K], gr[1:1+K])
		copy(jp[b*P:(b+1)*P], gr[1+K:1+K+P])
	}
}

// odeParam is an extra argument of the call that is a parameter of the
// solve: input in of the node, at offset off of p.
type odeParam struct{ in, off, n int }

// odeOp is the tape op of an ODE call: in = [y0, t0, ts, extra
// arguments...] -> the N x K states, row by row, then a term that is 0,
// or -Inf when the solve failed (then, in the model block, the states are
// y0 at every time, finite values that keep the log density -Inf rather
// than NaN; in the derived block they are NaN: a draw whose solve failed
// has no derived values, never the initial state's).
type odeOp struct {
	rejections
	k, n    int
	opt     ode.Options
	params  []odeParam
	rhs     *odeRHS
	solver  *ode.Solver
	method  ode.Method
	p, sens []float64
	ys      []float64 // the states of Backward's solve
}

// Name is the call's name.
func (o *odeOp) Name() string { return o.name }

func (o *odeOp) gather(in [][]float64) {
	for _, q := range o.params {
		copy(o.p[q.off:q.off+q.n], in[q.in])
	}
}

// Forward solves for the states.
func (o *odeOp) Forward(out []float64, in [][]float64) {
	o.gather(in)
	nk := o.n * o.k
	out[nk] = 0
	o.evals.Add(1)
	o.solver.Done = o.done
	if err := o.solver.Solve(in[0], o.p, in[1][0], in[2], o.opt, out[:nk], nil); err != nil {
		o.failed(err)
		for n := 0; n < o.n; n++ {
			copy(out[n*o.k:(n+1)*o.k], in[0])
		}
		if o.derived {
			for i := range out[:nk] {
				out[i] = math.NaN()
			}
		}
		out[nk] = o.rejected()
	}
}

// failed counts a failed solve with the solver's reason, and suggests the
// stiff solver when rk45 found the problem stiff; a solve stopped because
// the run was interrupted is recorded, not counted.
func (o *odeOp) failed(err error) {
	msg := err.Error()
	if errors.Is(err, ode.ErrInterrupted) {
		o.interrupt(msg)
		o.evals.Add(-1) // (nor is the solve)
		return
	}
	if errors.Is(err, ode.ErrStiff) {
		msg += "; use ode_bdf (or ode_bdf_tol), the stiff solver"
	}
	o.reject(msg)
}

// Backward solves again with sensitivities (under the same error control,
// so it takes more steps than Forward's) and sends the adjoints of the
// states to y0 and the parameters.
func (o *odeOp) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	if out[o.n*o.k] != 0 || o.derived {
		return // a failed solve: its log density is -Inf, no gradient
	}
	o.gather(in)
	o.solver.Done = o.done
	if err := o.solver.Solve(in[0], o.p, in[1][0], in[2], o.opt, o.ys, o.sens); err != nil {
		// the solve with sensitivities failed where the one without did
		// not: the gradient is NaN, not silently 0
		o.failed(err)
		for _, d := range din {
			for i := range d {
				d[i] = math.NaN()
			}
		}
		return
	}
	K, M := o.k, o.k+len(o.p)
	for n := 0; n < o.n; n++ {
		for i := 0; i < K; i++ {
			a := dout[n*K+i]
			if a == 0 {
				continue
			}
			row := o.sens[n*K*M+i*M : n*K*M+(i+1)*M]
			if d := din[0]; d != nil {
				for j := 0; j < K; j++ {
					d[j] += a * row[j]
				}
			}
			for _, q := range o.params {
				d := din[q.in]
				if d == nil {
					continue
				}
				for j := 0; j < q.n; j++ {
					d[j] += a * row[K+q.off+j]
				}
			}
		}
	}
}
