package ir

import (
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
type OdeForm struct {
	Stiff bool
	Tol   bool // tolerances after ts (ode_*_tol)
	Old   bool // integrate_ode_*: theta, x_r, x_i, then optional tolerances
}

// odeEntry is the vocabulary entry of an ODE function.
func odeEntry(name, params, doc string, form OdeForm) *Function {
	min := 4
	switch {
	case form.Old:
		min = 7
	case form.Tol:
		min = 7
	}
	return &Function{Name: name, Params: params, Doc: doc, Arity: []int{min}, ODE: &form}
}

// ODECall is a call of an ODE solver.
type ODECall struct {
	ExprBase
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
