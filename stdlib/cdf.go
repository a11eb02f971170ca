package stdlib

import "math"

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

// logOneMinusExpNeg is log(1 - exp(-t)) for t > 0 and its derivative in t,
// 1/expm1(t).
func logOneMinusExpNeg(t float64) (float64, float64) {
	return Log1mExp(-t), 1 / math.Expm1(t)
}

var cdfSpecs = []cdfSpec{
	{name: "std_normal", arity: 1,
		lcdf:  func(a, d []float64) float64 { d[0] = InvMills(a[0]); return LogPhi(a[0]) },
		lccdf: func(a, d []float64) float64 { d[0] = -InvMills(-a[0]); return LogPhi(-a[0]) }},
	{name: "exponential", arity: 2,
		validParams:  func(a []float64) bool { return a[1] > 0 && !math.IsInf(a[1], 0) },
		belowSupport: func(a []float64) bool { return a[0] <= 0 },
		lcdf: func(a, d []float64) float64 {
			v, dt := logOneMinusExpNeg(a[1] * a[0])
			d[0], d[1] = dt*a[1], dt*a[0]
			return v
		},
		lccdf: func(a, d []float64) float64 { d[0], d[1] = -a[1], -a[0]; return -a[1] * a[0] }},
	{name: "weibull", arity: 3,
		validParams:  func(a []float64) bool { return a[1] > 0 && a[2] > 0 && finite(a[1], a[2]) },
		belowSupport: func(a []float64) bool { return a[0] <= 0 },
		lcdf: func(a, d []float64) float64 {
			v, dv := logOneMinusExpNeg(weibullT(a, d))
			scale(d, dv)
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
			zDerivs(d, InvMills(z), 1/(a[2]*a[0]), a[2], z)
			return LogPhi(z)
		},
		lccdf: func(a, d []float64) float64 {
			z := (math.Log(a[0]) - a[1]) / a[2]
			zDerivs(d, -InvMills(-z), 1/(a[2]*a[0]), a[2], z)
			return LogPhi(-z)
		}},
	{name: "logistic", arity: 3,
		validParams: func(a []float64) bool { return a[2] > 0 && finite(a[1], a[2]) },
		lcdf: func(a, d []float64) float64 {
			z := (a[0] - a[1]) / a[2]
			zDerivs(d, InvLogit(-z), 1/a[2], a[2], z)
			return -Log1pExp(-z)
		},
		lccdf: func(a, d []float64) float64 {
			z := (a[0] - a[1]) / a[2]
			zDerivs(d, -InvLogit(z), 1/a[2], a[2], z)
			return -Log1pExp(z)
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
			u := math.Exp(-z)
			v, dv := logOneMinusExpNeg(u)
			zDerivs(d, -u*dv, 1/a[2], a[2], z)
			return v
		}},
	{name: "cauchy", arity: 3,
		validParams: func(a []float64) bool { return a[2] > 0 && finite(a[1], a[2]) },
		lcdf: func(a, d []float64) float64 {
			z := (a[0] - a[1]) / a[2]
			p := 0.5 + math.Atan(z)/math.Pi
			zDerivs(d, 1/(math.Pi*(1+z*z)*p), 1/a[2], a[2], z)
			return math.Log(p)
		},
		lccdf: func(a, d []float64) float64 {
			z := (a[0] - a[1]) / a[2]
			q := 0.5 - math.Atan(z)/math.Pi
			zDerivs(d, -1/(math.Pi*(1+z*z)*q), 1/a[2], a[2], z)
			return math.Log(q)
		}},
	{name: "rayleigh", arity: 2,
		validParams:  func(a []float64) bool { return a[1] > 0 && !math.IsInf(a[1], 0) },
		belowSupport: func(a []float64) bool { return a[0] <= 0 },
		lcdf: func(a, d []float64) float64 {
			s2 := a[1] * a[1]
			v, dv := logOneMinusExpNeg(a[0] * a[0] / (2 * s2))
			d[0], d[1] = dv*a[0]/s2, -dv*a[0]*a[0]/(s2*a[1])
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
			l := math.Log(a[1] / a[0])
			v, dv := logOneMinusExpNeg(-a[2] * l)
			d[0], d[1], d[2] = dv*a[2]/a[0], -dv*a[2]/a[1], -dv*l
			return v
		},
		lccdf: func(a, d []float64) float64 {
			l := math.Log(a[1] / a[0])
			d[0], d[1], d[2] = -a[2]/a[0], a[2]/a[1], l
			return a[2] * l
		}},
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
