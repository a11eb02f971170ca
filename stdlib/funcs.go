package stdlib

import (
	"math"
	"sort"
)

// ElemFunc is an elementwise function with the method set of autodiff.Func.
type ElemFunc struct {
	name string
	f    func(x float64) float64
	// d returns f'(x) given x and y = f(x).
	d func(x, y float64) float64
}

// Name is the function's name in the language.
func (e *ElemFunc) Name() string { return e.name }

// Eval sets y[i] = f(x[i]).
func (e *ElemFunc) Eval(y, x []float64) {
	for i, v := range x {
		y[i] = e.f(v)
	}
}

// Deriv accumulates dx[i] += dy[i] f'(x[i]).
func (e *ElemFunc) Deriv(dx, dy, y, x []float64) {
	for i, v := range x {
		dx[i] += dy[i] * e.d(v, y[i])
	}
}

// Elementwise functions of the language that the tape does not have built in.
var (
	PhiFunc = &ElemFunc{"Phi", Phi, func(x, _ float64) float64 {
		return math.Exp(-0.5*x*x - lnSqrt2Pi)
	}}
	LogPhiFunc      = &ElemFunc{"log_Phi", LogPhi, func(x, _ float64) float64 { return InvMills(x) }}
	InvLogitFunc    = &ElemFunc{"inv_logit", InvLogit, func(_, y float64) float64 { return y * (1 - y) }}
	LogInvLogitFunc = &ElemFunc{"log_inv_logit", LogInvLogit, func(x, _ float64) float64 { return InvLogit(-x) }}
	AbsFunc         = &ElemFunc{"abs", math.Abs, func(x, _ float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	}}
	SquareFunc   = &ElemFunc{"square", func(x float64) float64 { return x * x }, func(x, _ float64) float64 { return 2 * x }}
	LgammaFunc   = &ElemFunc{"lgamma", lgamma, func(x, _ float64) float64 { return digamma(x) }}
	Log1pExpFunc = &ElemFunc{"log1p_exp", Log1pExp, func(x, _ float64) float64 { return InvLogit(x) }}
)

// FuncKind classifies the language's functions.
type FuncKind int

const (
	Elementwise FuncKind = iota // vector -> vector of the same shape, scalar -> scalar
	Reduction                   // vector -> scalar
	Pairwise                    // (vector, vector) -> scalar
)

// FuncSpec describes a function of the language for the compiler.
type FuncSpec struct {
	Name  string
	Arity int
	Kind  FuncKind
	// Elem is the elementwise implementation, nil for the functions the
	// tape has built in (exp, log, sqrt, log1p, expm1, sum, dot, log_sum_exp).
	Elem *ElemFunc
}

var funcs = map[string]*FuncSpec{
	"exp":           {Name: "exp", Arity: 1},
	"log":           {Name: "log", Arity: 1},
	"sqrt":          {Name: "sqrt", Arity: 1},
	"log1p":         {Name: "log1p", Arity: 1},
	"expm1":         {Name: "expm1", Arity: 1},
	"Phi":           {Name: "Phi", Arity: 1, Elem: PhiFunc},
	"log_Phi":       {Name: "log_Phi", Arity: 1, Elem: LogPhiFunc},
	"inv_logit":     {Name: "inv_logit", Arity: 1, Elem: InvLogitFunc},
	"log_inv_logit": {Name: "log_inv_logit", Arity: 1, Elem: LogInvLogitFunc},
	"log1p_exp":     {Name: "log1p_exp", Arity: 1, Elem: Log1pExpFunc},
	"abs":           {Name: "abs", Arity: 1, Elem: AbsFunc},
	"square":        {Name: "square", Arity: 1, Elem: SquareFunc},
	"lgamma":        {Name: "lgamma", Arity: 1, Elem: LgammaFunc},
	"sum":           {Name: "sum", Arity: 1, Kind: Reduction},
	"log_sum_exp":   {Name: "log_sum_exp", Arity: 1, Kind: Reduction},
	"dot":           {Name: "dot", Arity: 2, Kind: Pairwise},
}

// LookupFunc finds a function by name.
func LookupFunc(name string) (*FuncSpec, bool) {
	f, ok := funcs[name]
	return f, ok
}

// FuncNames lists the functions, sorted.
func FuncNames() []string {
	out := make([]string, 0, len(funcs))
	for n := range funcs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
