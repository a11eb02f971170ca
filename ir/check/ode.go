package check

import (
	"fmt"
	"math"
	"sort"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib/ode"
)

// oldBDFDefaults are the tolerances of Stan's integrate_ode_bdf when the
// call gives none (its other solvers default to ode.Default*).
var oldBDFDefaults = ode.Options{RelTol: 1e-10, AbsTol: 1e-10, MaxSteps: 100_000_000}

// odeType is the type of the result of an ODE call with n output times
// and k states, stored as a matrix[N, K] whose row n is the state at
// ts[n]: Stan's array[N] vector[K] for ode_*, array[N, K] real for the
// older integrate_ode_*.
func odeType(n, k int, old bool) ir.Type {
	t := ir.MatType(n, k)
	t.Array = 1 // ode_*: array[N] vector[K], one state per row
	if old {
		t.Array = 2 // integrate_ode_*: array[N, K] real
	}
	return t
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
func (r *resolver) odeCall(c *lang.Call, pos lang.Pos, form ir.OdeForm) ir.Expr {
	usage := "f, y0, t0, ts, ..."
	switch {
	case form.Old:
		usage = "f, y0, t0, ts, theta, x_r, x_i[, rtol, atol, max_steps]"
	case form.Tol:
		usage = "f, y0, t0, ts, rtol, atol, max_steps, ..."
	}
	n := len(c.Args)
	if n < 4 || form.Tol && n < 7 || form.Old && n != 7 && n != 10 {
		r.errorf(pos, "%s takes (%s), got %d argument%s", c.Name, usage, n, ir.Plural1(n))
		return nil
	}
	name, ok := bareName(c.Args[0])
	fd := r.funcs[name]
	r.called[name] = true
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
	args := make([]ir.Expr, n)
	for i := 1; i < n; i++ {
		if args[i] = r.expr(c.Args[i]); args[i] == nil {
			return nil
		}
	}
	y0, t0, ts := args[1], args[2], args[3]
	if y0.Type().Kind != ir.Vector {
		r.errorf(y0.Pos(), "the initial state y0 of %s must be a vector, got %s", c.Name, y0.Type())
		return nil
	}
	if !t0.Type().Scalar() {
		r.errorf(t0.Pos(), "the initial time t0 of %s must be a scalar, got %s", c.Name, t0.Type())
		return nil
	}
	if ts.Type().Kind != ir.Vector {
		r.errorf(ts.Pos(), "the output times ts of %s must be a vector, got %s", c.Name, ts.Type())
		return nil
	}
	x := &ir.ODECall{ExprBase: ir.ExprBase{P: pos, T: odeType(ts.Type().Rows, y0.Type().Rows, form.Old)}, Name: c.Name, Fn: name, Stiff: form.Stiff, Y0: y0, T0: t0, TS: ts}
	var tols []ir.Expr
	switch {
	case form.Old:
		x.Args = args[4:7]
		tols = args[7:]
	case form.Tol:
		tols = args[4:7]
		x.Args = args[7:]
	default:
		x.Args = args[4:]
	}
	if form.Old && form.Stiff {
		// Stan's integrate_ode_bdf defaults to tighter tolerances than
		// ode_bdf (Stan Math's integrate_ode_bdf.hpp)
		x.Opt = oldBDFDefaults
	}
	if len(tols) == 3 {
		what := []string{"the relative tolerance", "the absolute tolerance", "the maximum number of steps"}
		var v [3]float64
		for i, e := range tols {
			f, ok := ir.FoldConst(e)
			// (Stan's older integrate_ode_* take the steps as a real: 5e2)
			if !ok || !e.Type().Scalar() || !(f > 0) || math.IsInf(f, 0) || i == 2 && (f != math.Trunc(f) || f > math.MaxInt32 || e.Type().Kind != ir.Int && !form.Old) {
				r.errorf(e.Pos(), "%s of %s must be a positive %s known before inference, got %s", what[i], c.Name, map[bool]string{true: "integer", false: "number"}[i == 2], ir.FormatExpr(e))
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
func (r *resolver) odeRHS(x *ir.ODECall, fd *lang.FuncDef) bool {
	K := x.Y0.Type().Rows
	if fd.Void {
		r.errorf(x.Pos(), "%s is a void function; %s needs one returning the derivative of the state, a vector", fd.Name, x.Name)
		return false
	}
	if len(fd.Params) != 2+len(x.Args) {
		e := r.errorf(x.Pos(), "%s passes %d argument%s to %s (t, y and %d more), which takes %d", x.Name, 2+len(x.Args), ir.Plural1(2+len(x.Args)), fd.Name, len(x.Args), len(fd.Params))
		e.Hint = fmt.Sprintf("%s(t: real, y: vector, ...) -> vector gets t, y and the arguments after ts", fd.Name)
		return false
	}
	types := []ir.Type{ir.TReal, ir.VecType(K)}
	if len(fd.Params) > 1 && fd.Params[1].ArrayDims() == 1 {
		types[1].Array = 1 // the state as Stan's older forms pass it: array[] real
	}
	for _, a := range x.Args {
		types = append(types, a.Type())
	}
	for i, prm := range fd.Params {
		if !ir.ParamAccepts(prm.ArrayDims(), prm.Base, types[i]) || i == 0 && prm.Base != lang.BaseReal {
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
	vars := make([]*ir.Var, len(fd.Params))
	for i, prm := range fd.Params {
		vars[i] = r.newVar(prm.Name, r.at(prm.Pos), ir.LocalVar, types[i])
		scope[prm.Name] = vars[i]
	}
	x.T, x.Y, x.Extra = vars[0], vars[1], vars[2:]
	n := len(fd.Body)
	x.Body = r.stmts(fd.Body[:n-1])
	res := r.expr(fd.Body[n-1].Return)
	if res == nil {
		return false
	}
	if t := res.Type(); t.Kind != ir.Vector || t.Rows != K {
		r.errorf(res.Pos(), "%s returns %s; as the right-hand side of %s it must return the derivative of the state, a vector[%d]", fd.Name, t, x.Name, K)
		return false
	}
	x.Result = res
	r.refuseMessages(x.Body, res, fd.Name, x.Name)
	return true
}
