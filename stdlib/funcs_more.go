package stdlib

import "math"

// More elementwise functions of one argument (Stan's names).
var (
	// InvFunc is inv(x) = 1/x.
	InvFunc = &ElemFunc{"inv", func(x float64) float64 { return 1 / x }, func(_, y float64) float64 { return -y * y }}
	// PhiApproxFunc is Phi_approx(x) = inv_logit(0.07056 x^3 + 1.5976 x).
	PhiApproxFunc = &ElemFunc{"Phi_approx", PhiApprox, func(x, y float64) float64 {
		return y * (1 - y) * (3*0.07056*x*x + 1.5976)
	}}
	// InvCloglogFunc is inv_cloglog(x) = 1 - exp(-exp(x)).
	InvCloglogFunc = &ElemFunc{"inv_cloglog", InvCloglog, func(x, _ float64) float64 {
		return math.Exp(x - math.Exp(x))
	}}
	// Log1mFunc is log1m(x) = log(1 - x).
	Log1mFunc = &ElemFunc{"log1m", func(x float64) float64 { return math.Log1p(-x) }, func(x, _ float64) float64 {
		return -1 / (1 - x)
	}}
	// Log1mExpFunc is log1m_exp(x) = log(1 - exp(x)) for x < 0.
	Log1mExpFunc = &ElemFunc{"log1m_exp", Log1mExp, func(x, _ float64) float64 {
		return -1 / math.Expm1(-x)
	}}
	// Log1mInvLogitFunc is log1m_inv_logit(x) = log(1 - inv_logit(x)).
	Log1mInvLogitFunc = &ElemFunc{"log1m_inv_logit", func(x float64) float64 { return -Log1pExp(x) }, func(x, _ float64) float64 {
		return -InvLogit(x)
	}}
	// DigammaFunc is digamma(x), with derivative trigamma(x).
	DigammaFunc = &ElemFunc{"digamma", digamma, func(x, _ float64) float64 { return Trigamma(x) }}
)

var moreElem = []*ElemFunc{InvFunc, PhiApproxFunc, InvCloglogFunc, Log1mFunc, Log1mExpFunc, Log1mInvLogitFunc, DigammaFunc}

// PhiApprox is Stan's logistic approximation of Phi.
func PhiApprox(x float64) float64 { return InvLogit(0.07056*x*x*x + 1.5976*x) }

// InvCloglog is 1 - exp(-exp(x)), accurate for x far below 0.
func InvCloglog(x float64) float64 { return -math.Expm1(-math.Exp(x)) }

// Log1mExp is log(1 - exp(x)) for x <= 0, computed stably (NaN for x > 0).
func Log1mExp(x float64) float64 {
	switch {
	case x > 0:
		return math.NaN()
	case x > -math.Ln2:
		return math.Log(-math.Expm1(x))
	}
	return math.Log1p(-math.Exp(x))
}

// Digamma is the derivative of lgamma, accurate to a few ulps (gonum's
// mathext.Digamma stops its series early, with errors near 1e-11 that
// jump at the integers and spoil finite-difference checks of it). It is
// NaN at 0 and the negative integers.
func Digamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case math.IsInf(x, -1):
		return math.NaN()
	case x <= 0:
		if x == math.Trunc(x) {
			return math.NaN()
		}
		// reflection: psi(1 - x) - psi(x) = pi cot(pi x)
		return Digamma(1-x) - math.Pi/math.Tan(math.Pi*x)
	}
	acc := 0.0
	for x < 10 {
		acc -= 1 / x
		x++
	}
	// psi(x) = log x - 1/(2x) - sum B_2k / (2k x^2k)
	z := 1 / (x * x)
	s := z * (1.0/12 - z*(1.0/120-z*(1.0/252-z*(1.0/240-z*(1.0/132-z*(691.0/32760-z/12))))))
	return acc + math.Log(x) - 0.5/x - s
}

// Trigamma is the derivative of digamma.
func Trigamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, -1):
		return math.NaN()
	case math.IsInf(x, 1):
		return 0
	case x <= 0:
		if x == math.Trunc(x) {
			return math.Inf(1)
		}
		// reflection: psi1(1 - x) + psi1(x) = pi^2 / sin^2(pi x)
		s := math.Sin(math.Pi * x)
		return math.Pi*math.Pi/(s*s) - Trigamma(1-x)
	}
	acc := 0.0
	for x < 8 {
		acc += 1 / (x * x)
		x++
	}
	// asymptotic series: 1/x + 1/(2x^2) + sum B_2k / x^(2k+1)
	z := 1 / (x * x)
	s := z * (1.0/6 - z*(1.0/30-z*(1.0/42-z*(1.0/30-z*(5.0/66-z*(691.0/2730-z*7.0/6))))))
	return acc + 1/x + 0.5*z + s/x
}
