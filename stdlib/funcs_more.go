package stdlib

import (
	"math"

	"github.com/mscppl/mscppl/stdlib/special"
)

// More elementwise functions of one argument (Stan's names).
var (
	// InvFunc is inv(x) = 1/x.
	InvFunc = &ElemFunc{"inv", func(x float64) float64 { return 1 / x }, func(_, y float64) float64 { return -y * y }}
	// PhiApproxFunc is Phi_approx(x) = inv_logit(0.07056 x^3 + 1.5976 x).
	PhiApproxFunc = &ElemFunc{"Phi_approx", special.PhiApprox, func(x, y float64) float64 {
		return y * (1 - y) * (3*0.07056*x*x + 1.5976)
	}}
	// InvCloglogFunc is inv_cloglog(x) = 1 - exp(-exp(x)).
	InvCloglogFunc = &ElemFunc{"inv_cloglog", special.InvCloglog, func(x, _ float64) float64 {
		return math.Exp(x - math.Exp(x))
	}}
	// Log1mFunc is log1m(x) = log(1 - x).
	Log1mFunc = &ElemFunc{"log1m", func(x float64) float64 { return math.Log1p(-x) }, func(x, _ float64) float64 {
		return -1 / (1 - x)
	}}
	// Log1mExpFunc is log1m_exp(x) = log(1 - exp(x)) for x < 0.
	Log1mExpFunc = &ElemFunc{"log1m_exp", special.Log1mExp, func(x, _ float64) float64 {
		return -1 / math.Expm1(-x)
	}}
	// Log1mInvLogitFunc is log1m_inv_logit(x) = log(1 - inv_logit(x)).
	Log1mInvLogitFunc = &ElemFunc{"log1m_inv_logit", func(x float64) float64 { return -special.Log1pExp(x) }, func(x, _ float64) float64 {
		return -special.InvLogit(x)
	}}
	// DigammaFunc is digamma(x), with derivative trigamma(x).
	DigammaFunc = &ElemFunc{"digamma", digamma, func(x, _ float64) float64 { return special.Trigamma(x) }}
)

var moreElem = []*ElemFunc{InvFunc, PhiApproxFunc, InvCloglogFunc, Log1mFunc, Log1mExpFunc, Log1mInvLogitFunc, DigammaFunc}
