package lower

import (
	"errors"
	"fmt"
	"math"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/stdlib/ode"
)

// ---- compilation ---------------------------------------------------------------

// ode lowers an ODE call: f's own tape, the solver, and one node.
func (cp *compiler) ode(e *ir.ODECall) autodiff.Node {
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
	op := &odeOp{Rejections: Rejections{Op: e.Name, Pos: e.Pos(), Unit: "solve", Derived: cp.inDerived}, k: K, n: N, opt: e.Opt}
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
			if t.Kind == ir.Matrix {
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
			case tt.Kind == ir.Matrix:
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
	cp.addRejecter(&op.Rejections)
	n := g.Custom(op, N*K+1, ins...)
	if !cp.inDerived {
		// the solve's own term: 0, or -Inf when it failed
		deps := cp.depsOf(e.Y0, nil)
		for _, a := range e.Args {
			deps = cp.depsOf(a, deps)
		}
		cp.addTerm(Factor{Node: g.Index(n, N*K), Pos: e.Pos(), Text: ir.FormatExpr(e) + " (a failed solve)", deps: deps, Why: op.Reason})
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

func (r *odeRHS) Load(b int, t float64, y, p []float64) {
	v := r.g.Value(r.in, b)
	v[0] = t
	copy(v[1:], y[:r.k])
	copy(v[1+r.k:], p[:r.p])
	w := v[1+r.k+r.p:]
	clear(w)
	w[b] = 1
}

func (r *odeRHS) f(t float64, y, p, dydt []float64) {
	r.Load(0, t, y, p)
	r.g.ForwardNodes(r.order, 1)
	copy(dydt, r.g.Value(r.out, 0))
}

func (r *odeRHS) jac(t float64, y, p, dydt, jy, jp, ft []float64) {
	K, P := r.k, r.p
	for b := 0; b < K; b++ {
		r.Load(b, t, y, p)
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
	Rejections
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
func (o *odeOp) Name() string { return o.Op }

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
	o.Evals.Add(1)
	o.solver.Done = o.Done
	if err := o.solver.Solve(in[0], o.p, in[1][0], in[2], o.opt, out[:nk], nil); err != nil {
		o.failed(err)
		for n := 0; n < o.n; n++ {
			copy(out[n*o.k:(n+1)*o.k], in[0])
		}
		if o.Derived {
			for i := range out[:nk] {
				out[i] = math.NaN()
			}
		}
		out[nk] = o.Rejected()
	}
}

// failed counts a failed solve with the solver's reason, and suggests the
// stiff solver when rk45 found the problem stiff; a solve stopped because
// the run was interrupted is recorded, not counted.
func (o *odeOp) failed(err error) {
	msg := err.Error()
	if errors.Is(err, ode.ErrInterrupted) {
		o.Interrupt(msg)
		o.Evals.Add(-1) // (nor is the solve)
		return
	}
	if errors.Is(err, ode.ErrStiff) {
		msg += "; use ode_bdf (or ode_bdf_tol), the stiff solver"
	}
	o.Reject(msg)
}

// Backward solves again with sensitivities (under the same error control,
// so it takes more steps than Forward's) and sends the adjoints of the
// states to y0 and the parameters.
func (o *odeOp) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	if out[o.n*o.k] != 0 || o.Derived {
		return // a failed solve: its log density is -Inf, no gradient
	}
	o.gather(in)
	o.solver.Done = o.Done
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
