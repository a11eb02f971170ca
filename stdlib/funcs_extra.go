package stdlib

import (
	"math"

	"github.com/mscppl/mscppl/stdlib/special"
)

// Further scalar functions of Stan's library, elementwise on vectors:
// logit, erf, erfc, tgamma, log2, log10, exp2, cbrt, inv_sqrt, inv_square,
// the trigonometric and hyperbolic functions and their inverses, and the
// step functions (step, floor, ceil, round, trunc: derivative 0); of two
// or three arguments: lbeta, lchoose, lmultiply, log_diff_exp, hypot,
// fdim, atan2, fma. (The aliases binomial_coefficient_log, multiply_log
// and dot_product are entries of package ir's vocabulary.)

var extraElem = []*ElemFunc{
	{"logit", func(x float64) float64 { return math.Log(x / (1 - x)) }, func(x, _ float64) float64 { return 1 / (x * (1 - x)) }},
	{"erf", math.Erf, func(x, _ float64) float64 { return 2 / math.Sqrt(math.Pi) * math.Exp(-x*x) }},
	{"erfc", math.Erfc, func(x, _ float64) float64 { return -2 / math.Sqrt(math.Pi) * math.Exp(-x*x) }},
	{"tgamma", math.Gamma, func(x, y float64) float64 { return y * digamma(x) }},
	{"log2", math.Log2, func(x, _ float64) float64 { return 1 / (x * math.Ln2) }},
	{"log10", math.Log10, func(x, _ float64) float64 { return 1 / (x * math.Ln10) }},
	{"exp2", math.Exp2, func(_, y float64) float64 { return y * math.Ln2 }},
	{"cbrt", math.Cbrt, func(_, y float64) float64 { return 1 / (3 * y * y) }},
	{"inv_sqrt", func(x float64) float64 { return 1 / math.Sqrt(x) }, func(_, y float64) float64 { return -0.5 * y * y * y }},
	{"inv_square", func(x float64) float64 { return 1 / (x * x) }, func(x, y float64) float64 { return -2 * y / x }},
	{"sin", math.Sin, func(x, _ float64) float64 { return math.Cos(x) }},
	{"cos", math.Cos, func(x, _ float64) float64 { return -math.Sin(x) }},
	{"tan", math.Tan, func(_, y float64) float64 { return 1 + y*y }},
	{"asin", math.Asin, func(x, _ float64) float64 { return 1 / math.Sqrt(1-x*x) }},
	{"acos", math.Acos, func(x, _ float64) float64 { return -1 / math.Sqrt(1-x*x) }},
	{"atan", math.Atan, func(x, _ float64) float64 { return 1 / (1 + x*x) }},
	{"sinh", math.Sinh, func(x, _ float64) float64 { return math.Cosh(x) }},
	{"cosh", math.Cosh, func(x, _ float64) float64 { return math.Sinh(x) }},
	{"tanh", math.Tanh, func(_, y float64) float64 { return 1 - y*y }},
	{"asinh", math.Asinh, func(x, _ float64) float64 { return 1 / math.Sqrt(x*x+1) }},
	{"acosh", math.Acosh, func(x, _ float64) float64 { return 1 / math.Sqrt(x*x-1) }},
	{"atanh", math.Atanh, func(x, _ float64) float64 { return 1 / (1 - x*x) }},
	{"step", func(x float64) float64 { return b2f(!(x < 0)) }, zeroDeriv},
	{"int_step", func(x float64) float64 { return b2f(x > 0) }, zeroDeriv},
	{"floor", math.Floor, zeroDeriv},
	{"ceil", math.Ceil, zeroDeriv},
	{"round", math.Round, zeroDeriv},
	{"trunc", math.Trunc, zeroDeriv},
}

func zeroDeriv(_, _ float64) float64 { return 0 }

var extraNary = []*NaryFunc{
	{Name: "lbeta", Arity: 2,
		Eval: func(a []float64) float64 { return logBeta(a[0], a[1]) },
		Grad: func(a, d []float64) float64 {
			dab := digamma(a[0] + a[1])
			d[0], d[1] = digamma(a[0])-dab, digamma(a[1])-dab
			return logBeta(a[0], a[1])
		}},
	{Name: "lchoose", Arity: 2, Eval: func(a []float64) float64 { return lchoose(a[0], a[1]) }, Grad: lchooseGrad},
	{Name: "lmultiply", Arity: 2, Eval: func(a []float64) float64 { return lmultiply(a[0], a[1]) }, Grad: lmultiplyGrad},
	{Name: "log_diff_exp", Arity: 2,
		Eval: func(a []float64) float64 { return logDiffExp(a[0], a[1]) },
		Grad: func(a, d []float64) float64 {
			d[0], d[1] = -1/math.Expm1(a[1]-a[0]), -1/math.Expm1(a[0]-a[1])
			return logDiffExp(a[0], a[1])
		}},
	{Name: "hypot", Arity: 2,
		Eval: func(a []float64) float64 { return math.Hypot(a[0], a[1]) },
		Grad: func(a, d []float64) float64 {
			h := math.Hypot(a[0], a[1])
			d[0], d[1] = a[0]/h, a[1]/h
			return h
		}},
	{Name: "fdim", Arity: 2,
		Eval: func(a []float64) float64 { return math.Max(a[0]-a[1], 0) },
		Grad: func(a, d []float64) float64 {
			d[0], d[1] = 0, 0
			if a[0] > a[1] {
				d[0], d[1] = 1, -1
			}
			return math.Max(a[0]-a[1], 0)
		}},
	{Name: "atan2", Arity: 2,
		Eval: func(a []float64) float64 { return math.Atan2(a[0], a[1]) },
		Grad: func(a, d []float64) float64 {
			r := a[0]*a[0] + a[1]*a[1]
			d[0], d[1] = a[1]/r, -a[0]/r
			return math.Atan2(a[0], a[1])
		}},
	{Name: "fma", Arity: 3,
		Eval: func(a []float64) float64 { return math.FMA(a[0], a[1], a[2]) },
		Grad: func(a, d []float64) float64 {
			d[0], d[1], d[2] = a[1], a[0], 1
			return math.FMA(a[0], a[1], a[2])
		}},
}

func lchoose(n, k float64) float64 { return lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1) }

func lchooseGrad(a, d []float64) float64 {
	n, k := a[0], a[1]
	dnk := digamma(n - k + 1)
	d[0], d[1] = digamma(n+1)-dnk, dnk-digamma(k+1)
	return lchoose(n, k)
}

// lmultiply is a log b, 0 when both are 0 (Stan's convention).
func lmultiply(a, b float64) float64 {
	if a == 0 && b == 0 {
		return 0
	}
	return a * math.Log(b)
}

func lmultiplyGrad(a, d []float64) float64 {
	d[0], d[1] = math.Log(a[1]), a[0]/a[1]
	if a[0] == 0 && a[1] == 0 {
		d[0], d[1] = 0, 0
	}
	return lmultiply(a[0], a[1])
}

// logDiffExp is log(exp(a) - exp(b)) for a >= b (NaN for a < b, -Inf for
// a = b).
func logDiffExp(a, b float64) float64 {
	if math.IsInf(b, -1) {
		return a
	}
	return a + special.Log1mExp(b-a)
}
