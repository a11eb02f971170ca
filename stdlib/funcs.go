package stdlib

import (
	"math"
	"slices"

	"github.com/mscppl/mscppl/stdlib/special"
)

// ElemFunc is an elementwise function with the method set of autodiff.Func.
type ElemFunc struct {
	name string
	f    func(x float64) float64
	// d returns f'(x) given x and y = f(x).
	d func(x, y float64) float64
}

// NewElemFunc returns the elementwise op of f, with d(x, y) = f'(x) given x
// and y = f(x).
func NewElemFunc(name string, f func(x float64) float64, d func(x, y float64) float64) *ElemFunc {
	return &ElemFunc{name, f, d}
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
	PhiFunc = &ElemFunc{"Phi", special.Phi, func(x, _ float64) float64 {
		return math.Exp(-0.5*x*x - special.LnSqrt2Pi)
	}}
	LogPhiFunc      = &ElemFunc{"log_Phi", special.LogPhi, func(x, _ float64) float64 { return special.InvMills(x) }}
	InvLogitFunc    = &ElemFunc{"inv_logit", special.InvLogit, func(_, y float64) float64 { return y * (1 - y) }}
	LogInvLogitFunc = &ElemFunc{"log_inv_logit", special.LogInvLogit, func(x, _ float64) float64 { return special.InvLogit(-x) }}
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
	Log1pExpFunc = &ElemFunc{"log1p_exp", special.Log1pExp, func(x, _ float64) float64 { return special.InvLogit(x) }}
)

// ElemFuncs are the elementwise numeric ops of one argument that the tape
// does not have built in (exp, log, sqrt, log1p and expm1 are tape ops).
// Package ir's vocabulary names the language's functions and points to
// these; the registry is there, this is the catalogue of the numbers.
var ElemFuncs = slices.Concat([]*ElemFunc{PhiFunc, LogPhiFunc, InvLogitFunc, LogInvLogitFunc, AbsFunc,
	SquareFunc, LgammaFunc, Log1pExpFunc}, moreElem, extraElem)

// FindElem returns the op of ElemFuncs called name, nil if there is none.
func FindElem(name string) *ElemFunc {
	for _, e := range ElemFuncs {
		if e.name == name {
			return e
		}
	}
	return nil
}
