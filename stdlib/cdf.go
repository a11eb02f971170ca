package stdlib

import (
	"math"

	"github.com/mscppl/mscppl/stdlib/special"
)

// Log CDFs and log complementary CDFs, NAME_lcdf(y | params) and
// NAME_lccdf(y | params), for the families whose CDF has a closed form:
// std_normal, exponential, weibull, lognormal, logistic, gumbel, cauchy,
// rayleigh and pareto (normal_lcdf and normal_lccdf are in nary.go). Each
// is a scalar function of (y, params...) with its partial derivatives;
// register puts them in their family's entry (Family.LogCDF, LogCCDF).

// cdfSpec is one family's pair: lcdf and lccdf of (y, params) with the
// partial derivatives written into d.
type cdfSpec struct {
	name         string
	arity        int
	lcdf, lccdf  func(a, d []float64) float64
	validParams  func(a []float64) bool
	belowSupport func(a []float64) bool // y below the support: lcdf -Inf, lccdf 0
	aboveSupport func(a []float64) bool // y at or above the support's top: lcdf 0, lccdf -Inf
}

// log1mExpNegLog is log(1 - exp(-t)) given lt = log t (t may underflow:
// then the value is log t - t/2, to a relative t^2/24) and its derivative
// in lt, t/expm1(t).
func log1mExpNegLog(lt float64) (float64, float64) {
	t := math.Exp(lt)
	if lt < -30 {
		return lt - t/2, 1 - t/2
	}
	if math.IsInf(t, 1) {
		return 0, 0
	}
	return special.Log1mExp(-t), t / math.Expm1(t)
}

var cdfSpecs = []cdfSpec{
	{name: "std_normal", arity: 1,
		lcdf:  func(a, d []float64) float64 { d[0] = special.InvMills(a[0]); return special.LogPhi(a[0]) },
		lccdf: func(a, d []float64) float64 { d[0] = -special.InvMills(-a[0]); return special.LogPhi(-a[0]) }},
	{name: "exponential", arity: 2,
		validParams:  func(a []float64) bool { return a[1] > 0 && !math.IsInf(a[1], 0) },
		belowSupport: func(a []float64) bool { return a[0] <= 0 },
		lcdf: func(a, d []float64) float64 {
			v, dv := log1mExpNegLog(math.Log(a[1]) + math.Log(a[0]))
			d[0], d[1] = dv/a[0], dv/a[1]
			return v
		},
		lccdf: func(a, d []float64) float64 { d[0], d[1] = -a[1], -a[0]; return -a[1] * a[0] }},
	{name: "weibull", arity: 3,
		validParams:  func(a []float64) bool { return a[1] > 0 && a[2] > 0 && finite(a[1], a[2]) },
		belowSupport: func(a []float64) bool { return a[0] <= 0 },
		lcdf: func(a, d []float64) float64 {
			y, al, s := a[0], a[1], a[2]
			l := math.Log(y / s)
			v, dv := log1mExpNegLog(al * l)
			d[0], d[1], d[2] = dv*al/y, dv*l, -dv*al/s
			return v
		},
		lccdf: func(a, d []float64) float64 {
			t := weibullT(a, d)
			scale(d, -1)
			return -t
		}},
	{name: "lognormal", arity: 3,
		validParams:  func(a []float64) bool { return a[2] > 0 && finite(a[1], a[2]) },
		belowSupport: func(a []float64) bool { return a[0] <= 0 },
		lcdf: func(a, d []float64) float64 {
			z := (math.Log(a[0]) - a[1]) / a[2]
			zDerivs(d, special.InvMills(z), 1/(a[2]*a[0]), a[2], z)
			return special.LogPhi(z)
		},
		lccdf: func(a, d []float64) float64 {
			z := (math.Log(a[0]) - a[1]) / a[2]
			zDerivs(d, -special.InvMills(-z), 1/(a[2]*a[0]), a[2], z)
			return special.LogPhi(-z)
		}},
	{name: "logistic", arity: 3,
		validParams: func(a []float64) bool { return a[2] > 0 && finite(a[1], a[2]) },
		lcdf: func(a, d []float64) float64 {
			z := (a[0] - a[1]) / a[2]
			zDerivs(d, special.InvLogit(-z), 1/a[2], a[2], z)
			return -special.Log1pExp(-z)
		},
		lccdf: func(a, d []float64) float64 {
			z := (a[0] - a[1]) / a[2]
			zDerivs(d, -special.InvLogit(z), 1/a[2], a[2], z)
			return -special.Log1pExp(z)
		}},
	{name: "gumbel", arity: 3,
		validParams: func(a []float64) bool { return a[2] > 0 && finite(a[1], a[2]) },
		lcdf: func(a, d []float64) float64 {
			z := (a[0] - a[1]) / a[2]
			u := math.Exp(-z)
			zDerivs(d, u, 1/a[2], a[2], z)
			return -u
		},
		lccdf: func(a, d []float64) float64 {
			z := (a[0] - a[1]) / a[2]
			v, dv := log1mExpNegLog(-z) // log(1 - exp(-u)), u = exp(-z)
			zDerivs(d, -dv, 1/a[2], a[2], z)
			return v
		}},
	{name: "cauchy", arity: 3,
		validParams: func(a []float64) bool { return a[2] > 0 && finite(a[1], a[2]) },
		lcdf:        func(a, d []float64) float64 { return cauchyCDF(a, d, false) },
		lccdf:       func(a, d []float64) float64 { return cauchyCDF(a, d, true) }},
	{name: "rayleigh", arity: 2,
		validParams:  func(a []float64) bool { return a[1] > 0 && !math.IsInf(a[1], 0) },
		belowSupport: func(a []float64) bool { return a[0] <= 0 },
		lcdf: func(a, d []float64) float64 {
			v, dv := log1mExpNegLog(2*math.Log(a[0]/a[1]) - math.Ln2)
			d[0], d[1] = 2*dv/a[0], -2*dv/a[1]
			return v
		},
		lccdf: func(a, d []float64) float64 {
			s2 := a[1] * a[1]
			d[0], d[1] = -a[0]/s2, a[0]*a[0]/(s2*a[1])
			return -a[0] * a[0] / (2 * s2)
		}},
	{name: "pareto", arity: 3,
		validParams:  func(a []float64) bool { return a[1] > 0 && a[2] > 0 && finite(a[1], a[2]) },
		belowSupport: func(a []float64) bool { return a[0] <= a[1] },
		lcdf: func(a, d []float64) float64 {
			l := math.Log(a[0] / a[1]) // t = alpha l > 0
			v, dv := log1mExpNegLog(math.Log(a[2]) + math.Log(l))
			d[0], d[1], d[2] = dv/(l*a[0]), -dv/(l*a[1]), dv/a[2]
			return v
		},
		lccdf: func(a, d []float64) float64 {
			l := math.Log(a[1] / a[0])
			d[0], d[1], d[2] = -a[2]/a[0], a[2]/a[1], l
			return a[2] * l
		}},
}

// cauchyCDF is cauchy_lcdf (complement: _lccdf) of (y, mu, sigma). With
// z = (y - mu)/sigma, F(z) = atan2(1, -z)/pi and 1 - F(z) = atan2(1, z)/pi
// (no cancellation in either tail: atan2(1, z) is 1/z to full precision
// for large z, where 1/2 - atan(z)/pi is 0); the side above 1/2 is
// log1p(-the other). The derivative in z, f(z)/F(z), is
// 1/(z^2 (1 + 1/z^2) pi F) for |z| > 1, so that z^2 never overflows.
func cauchyCDF(a, d []float64, complement bool) float64 {
	z := (a[0] - a[1]) / a[2]
	if complement {
		z = -z
	}
	// the value is log F(z) (the complement at y is F at -z)
	var v, piF float64
	if z <= 0 {
		piF = math.Atan2(1, -z)
		v = math.Log(piF / math.Pi)
	} else {
		q := math.Atan2(1, z)
		piF = math.Pi - q
		v = math.Log1p(-q / math.Pi)
	}
	var fz float64
	if math.Abs(z) <= 1 {
		fz = 1 / ((1 + z*z) * piF)
	} else {
		w := 1 / z
		fz = (w / piF) * (w / (1 + w*w))
	}
	if complement {
		fz = -fz
	}
	zDerivs(d, fz, 1/a[2], a[2], (a[0]-a[1])/a[2])
	return v
}

// weibullT is t = (y/sigma)^alpha for (y, alpha, sigma), with its partial
// derivatives in d.
func weibullT(a, d []float64) float64 {
	y, al, s := a[0], a[1], a[2]
	l := math.Log(y / s)
	t := math.Exp(al * l)
	d[0], d[1], d[2] = al*t/y, t*l, -al*t/s
	return t
}

// zDerivs writes the partial derivatives of f(z), z = (y - mu)/s (or
// (log y - mu)/s with dzdy = 1/(s y)), in (y, mu, s), given f'(z).
func zDerivs(d []float64, fz, dzdy, s, z float64) {
	d[0], d[1], d[2] = fz*dzdy, -fz/s, -fz*z/s
}

func scale(d []float64, c float64) {
	for i := range d {
		d[i] *= c
	}
}

// cdfFunc makes NAME_lcdf or NAME_lccdf of a spec: NaN for NaN input, -Inf
// (lcdf) or 0 (lccdf) below the support (and at y = -Inf), 0 (lcdf) or
// -Inf (lccdf) above it (and at y = +Inf), -Inf with zero derivatives for
// parameters outside their domain. It never returns NaN for other input:
// a value that overflows (shapes near 1e300) is -Inf with zero
// derivatives, a derivative that is 0 * Inf where the CDF saturates is 0,
// and a log CDF above 0 by rounding is 0.
func cdfFunc(s cdfSpec, complement bool) *NaryFunc {
	name, f := s.name+"_lcdf", s.lcdf
	if complement {
		name, f = s.name+"_lccdf", s.lccdf
	}
	grad := func(a, d []float64) float64 {
		for i := range d {
			d[i] = 0
		}
		for _, v := range a {
			if math.IsNaN(v) {
				return math.NaN()
			}
		}
		if s.validParams != nil && !s.validParams(a) {
			return negInf
		}
		if s.belowSupport != nil && s.belowSupport(a) {
			if complement {
				return 0
			}
			return negInf
		}
		if s.aboveSupport != nil && s.aboveSupport(a) || math.IsInf(a[0], 1) {
			if complement {
				return negInf
			}
			return 0
		}
		if math.IsInf(a[0], -1) {
			if complement {
				return 0
			}
			return negInf
		}
		v := f(a, d)
		switch {
		case math.IsNaN(v): // arguments so large that the formulas overflow
			clear(d)
			return negInf
		case v > 0: // rounding
			v = 0
		}
		for i := range d {
			if math.IsNaN(d[i]) { // 0 * Inf where the CDF saturates
				d[i] = 0
			}
		}
		return v
	}
	return &NaryFunc{Name: name, Arity: s.arity,
		Eval: func(a []float64) float64 {
			var buf [MaxNaryArity]float64
			return grad(a, buf[:len(a)])
		},
		Grad: grad, GradForward: true}
}
