package stdlib

import (
	"math"

	"github.com/mscppl/mscppl/stdlib/special"
)

// The CDFs of the families whose CDF is not closed form (student_t, gamma,
// inv_gamma, beta, chi_square, inv_chi_square, scaled_inv_chi_square and
// the discrete binomial, poisson and neg_binomial_2, through the
// regularized incomplete gamma and beta functions special.LogIncGamma and
// special.LogIncBeta), beta_binomial (a sum of its mass function), and of
// the rest of the closed-form ones (double_exponential, frechet, uniform, half_normal,
// bernoulli). Each lccdf is computed directly, never as 1 - cdf, so it
// keeps its relative accuracy where the CDF rounds to 1. NAME_cdf of every
// family with NAME_lcdf is exp(NAME_lcdf) (expCDF). The discrete families'
// y is an integer (a real y counts as its floor) and their derivative in y
// is 0.
//
// skew_normal's, through Owen's T function, is in cdf_skew.go.

var moreCDFSpecs = []cdfSpec{
	{name: "student_t", arity: 4,
		validParams: func(a []float64) bool { return a[1] > 0 && a[3] > 0 && finite(a[1], a[2], a[3]) },
		lcdf:        func(a, d []float64) float64 { return studentCDF(a, d, false) },
		lccdf:       func(a, d []float64) float64 { return studentCDF(a, d, true) }},
	{name: "skew_normal", arity: 4,
		validParams: func(a []float64) bool { return a[2] > 0 && finite(a[1], a[2], a[3]) },
		lcdf:        func(a, d []float64) float64 { return skewNormalCDF(a, d, false) },
		lccdf:       func(a, d []float64) float64 { return skewNormalCDF(a, d, true) }},
	{name: "gamma", arity: 3,
		validParams:  func(a []float64) bool { return a[1] > 0 && a[2] > 0 && finite(a[1], a[2]) },
		belowSupport: func(a []float64) bool { return a[0] <= 0 },
		aboveSupport: func(a []float64) bool { return math.IsInf(a[0], 1) },
		lcdf: func(a, d []float64) float64 {
			g := special.LogIncGamma(a[1], a[2]*a[0])
			d[0], d[1], d[2] = g.DLogPX*a[2], g.DLogPA, g.DLogPX*a[0]
			return g.LogP
		},
		lccdf: func(a, d []float64) float64 {
			g := special.LogIncGamma(a[1], a[2]*a[0])
			d[0], d[1], d[2] = g.DLogQX*a[2], g.DLogQA, g.DLogQX*a[0]
			return g.LogQ
		}},
	{name: "inv_gamma", arity: 3,
		validParams:  func(a []float64) bool { return a[1] > 0 && a[2] > 0 && finite(a[1], a[2]) },
		belowSupport: func(a []float64) bool { return a[0] <= 0 },
		aboveSupport: func(a []float64) bool { return math.IsInf(a[0], 1) },
		lcdf: func(a, d []float64) float64 {
			x := a[2] / a[0]
			g := special.LogIncGamma(a[1], x)
			d[0], d[1], d[2] = -g.DLogQX*x/a[0], g.DLogQA, g.DLogQX/a[0]
			return g.LogQ
		},
		lccdf: func(a, d []float64) float64 {
			x := a[2] / a[0]
			g := special.LogIncGamma(a[1], x)
			d[0], d[1], d[2] = -g.DLogPX*x/a[0], g.DLogPA, g.DLogPX/a[0]
			return g.LogP
		}},
	{name: "chi_square", arity: 2,
		validParams:  func(a []float64) bool { return a[1] > 0 && finite(a[1]) },
		belowSupport: func(a []float64) bool { return a[0] <= 0 },
		aboveSupport: func(a []float64) bool { return math.IsInf(a[0], 1) },
		lcdf: func(a, d []float64) float64 {
			g := special.LogIncGamma(a[1]/2, a[0]/2)
			d[0], d[1] = g.DLogPX/2, g.DLogPA/2
			return g.LogP
		},
		lccdf: func(a, d []float64) float64 {
			g := special.LogIncGamma(a[1]/2, a[0]/2)
			d[0], d[1] = g.DLogQX/2, g.DLogQA/2
			return g.LogQ
		}},
	{name: "inv_chi_square", arity: 2,
		validParams:  func(a []float64) bool { return a[1] > 0 && finite(a[1]) },
		belowSupport: func(a []float64) bool { return a[0] <= 0 },
		aboveSupport: func(a []float64) bool { return math.IsInf(a[0], 1) },
		lcdf: func(a, d []float64) float64 {
			x := 0.5 / a[0]
			g := special.LogIncGamma(a[1]/2, x)
			d[0], d[1] = -g.DLogQX*x/a[0], g.DLogQA/2
			return g.LogQ
		},
		lccdf: func(a, d []float64) float64 {
			x := 0.5 / a[0]
			g := special.LogIncGamma(a[1]/2, x)
			d[0], d[1] = -g.DLogPX*x/a[0], g.DLogPA/2
			return g.LogP
		}},
	{name: "scaled_inv_chi_square", arity: 3,
		validParams:  func(a []float64) bool { return a[1] > 0 && a[2] > 0 && finite(a[1], a[2]) },
		belowSupport: func(a []float64) bool { return a[0] <= 0 },
		aboveSupport: func(a []float64) bool { return math.IsInf(a[0], 1) },
		lcdf: func(a, d []float64) float64 {
			x := a[1] * a[2] * a[2] / (2 * a[0])
			g := special.LogIncGamma(a[1]/2, x)
			d[0], d[1], d[2] = -g.DLogQX*x/a[0], g.DLogQA/2+g.DLogQX*x/a[1], 2*g.DLogQX*x/a[2]
			return g.LogQ
		},
		lccdf: func(a, d []float64) float64 {
			x := a[1] * a[2] * a[2] / (2 * a[0])
			g := special.LogIncGamma(a[1]/2, x)
			d[0], d[1], d[2] = -g.DLogPX*x/a[0], g.DLogPA/2+g.DLogPX*x/a[1], 2*g.DLogPX*x/a[2]
			return g.LogP
		}},
	{name: "beta", arity: 3,
		validParams:  func(a []float64) bool { return a[1] > 0 && a[2] > 0 && finite(a[1], a[2]) },
		belowSupport: func(a []float64) bool { return a[0] <= 0 },
		aboveSupport: func(a []float64) bool { return a[0] >= 1 },
		lcdf: func(a, d []float64) float64 {
			r := special.LogIncBeta(a[1], a[2], a[0], 1-a[0])
			d[0], d[1], d[2] = r.DLogI[2], r.DLogI[0], r.DLogI[1]
			return r.LogI
		},
		lccdf: func(a, d []float64) float64 {
			r := special.LogIncBeta(a[1], a[2], a[0], 1-a[0])
			d[0], d[1], d[2] = r.DLogC[2], r.DLogC[0], r.DLogC[1]
			return r.LogC
		}},
	{name: "double_exponential", arity: 3,
		validParams: func(a []float64) bool { return a[2] > 0 && finite(a[1], a[2]) },
		lcdf: func(a, d []float64) float64 {
			z := (a[0] - a[1]) / a[2]
			if z < 0 {
				zDerivs(d, 1, 1/a[2], a[2], z)
				return z - math.Ln2
			}
			e := math.Exp(-z)
			zDerivs(d, e/(2-e), 1/a[2], a[2], z)
			return math.Log1p(-e / 2)
		},
		lccdf: func(a, d []float64) float64 {
			z := (a[0] - a[1]) / a[2]
			if z > 0 {
				zDerivs(d, -1, 1/a[2], a[2], z)
				return -z - math.Ln2
			}
			e := math.Exp(z)
			zDerivs(d, -e/(2-e), 1/a[2], a[2], z)
			return math.Log1p(-e / 2)
		}},
	{name: "frechet", arity: 3,
		validParams:  func(a []float64) bool { return a[1] > 0 && a[2] > 0 && finite(a[1], a[2]) },
		belowSupport: func(a []float64) bool { return a[0] <= 0 },
		lcdf: func(a, d []float64) float64 {
			t := frechetT(a, d)
			scale(d, -1)
			return -t
		},
		lccdf: func(a, d []float64) float64 {
			y, al, s := a[0], a[1], a[2]
			l := math.Log(y / s)
			v, dv := log1mExpNegLog(-al * l)
			d[0], d[1], d[2] = -dv*al/y, -dv*l, dv*al/s
			return v
		}},
	{name: "uniform", arity: 3,
		validParams:  func(a []float64) bool { return a[1] < a[2] && finite(a[1], a[2]) },
		belowSupport: func(a []float64) bool { return a[0] <= a[1] },
		aboveSupport: func(a []float64) bool { return a[0] >= a[2] },
		lcdf: func(a, d []float64) float64 {
			u, w := a[0]-a[1], a[2]-a[1]
			d[0], d[1], d[2] = 1/u, 1/w-1/u, -1/w
			return logFraction(u, a[2]-a[0], w)
		},
		lccdf: func(a, d []float64) float64 {
			u, w := a[2]-a[0], a[2]-a[1]
			d[0], d[1], d[2] = -1/u, 1/w, 1/u-1/w
			return logFraction(u, a[0]-a[1], w)
		}},
	{name: "half_normal", arity: 2,
		validParams:  func(a []float64) bool { return a[1] > 0 && finite(a[1]) },
		belowSupport: func(a []float64) bool { return a[0] <= 0 },
		lcdf: func(a, d []float64) float64 {
			z := a[0] / a[1]
			var v float64
			if z < 1 {
				v = math.Log(math.Erf(z / math.Sqrt2))
			} else {
				v = special.Log1mExp(math.Ln2 + special.LogPhi(-z))
			}
			fz := math.Exp(math.Ln2 - 0.5*z*z - special.LnSqrt2Pi - v)
			d[0], d[1] = fz/a[1], -fz*z/a[1]
			return v
		},
		lccdf: func(a, d []float64) float64 {
			z := a[0] / a[1]
			fz := -special.InvMills(-z)
			d[0], d[1] = fz/a[1], -fz*z/a[1]
			if z < 0.5 { // 2 Phi(-z) = 1 - erf(z/sqrt 2), erf relatively exact
				return math.Log1p(-math.Erf(z / math.Sqrt2))
			}
			return math.Ln2 + special.LogPhi(-z)
		}},
	// discrete families: a[0] is the count n
	{name: "bernoulli", arity: 2,
		validParams:  func(a []float64) bool { return a[1] >= 0 && a[1] <= 1 },
		belowSupport: func(a []float64) bool { return a[0] < 0 },
		aboveSupport: func(a []float64) bool { return a[0] >= 1 },
		lcdf:         func(a, d []float64) float64 { d[1] = -1 / (1 - a[1]); return math.Log1p(-a[1]) },
		lccdf:        func(a, d []float64) float64 { d[1] = 1 / a[1]; return math.Log(a[1]) }},
	{name: "binomial", arity: 3,
		validParams:  func(a []float64) bool { return a[1] >= 0 && isInt(a[1]) && a[2] >= 0 && a[2] <= 1 },
		belowSupport: func(a []float64) bool { return a[0] < 0 },
		aboveSupport: func(a []float64) bool { return a[0] >= a[1] },
		lcdf: func(a, d []float64) float64 {
			n := math.Floor(a[0])
			r := special.LogIncBeta(a[1]-n, n+1, 1-a[2], a[2])
			d[2] = -r.DLogI[2]
			return r.LogI
		},
		lccdf: func(a, d []float64) float64 {
			n := math.Floor(a[0])
			r := special.LogIncBeta(a[1]-n, n+1, 1-a[2], a[2])
			d[2] = -r.DLogC[2]
			return r.LogC
		}},
	{name: "poisson", arity: 2,
		validParams:  func(a []float64) bool { return a[1] >= 0 && finite(a[1]) },
		belowSupport: func(a []float64) bool { return a[0] < 0 },
		aboveSupport: func(a []float64) bool { return math.IsInf(a[0], 1) },
		lcdf: func(a, d []float64) float64 {
			g := special.LogIncGamma(math.Floor(a[0])+1, a[1])
			d[1] = g.DLogQX
			return g.LogQ
		},
		lccdf: func(a, d []float64) float64 {
			g := special.LogIncGamma(math.Floor(a[0])+1, a[1])
			d[1] = g.DLogPX
			return g.LogP
		}},
	{name: "neg_binomial_2", arity: 3,
		validParams:  func(a []float64) bool { return a[1] > 0 && a[2] > 0 && finite(a[1], a[2]) },
		belowSupport: func(a []float64) bool { return a[0] < 0 },
		aboveSupport: func(a []float64) bool { return math.IsInf(a[0], 1) },
		lcdf:         func(a, d []float64) float64 { return negBinomial2CDF(a, d, false) },
		lccdf:        func(a, d []float64) float64 { return negBinomial2CDF(a, d, true) }},
	{name: "beta_binomial", arity: 4,
		validParams: func(a []float64) bool {
			return a[1] >= 0 && a[1] <= betaBinomialMaxN && isInt(a[1]) && a[2] > 0 && a[3] > 0 && finite(a[2], a[3])
		},
		belowSupport: func(a []float64) bool { return a[0] < 0 },
		aboveSupport: func(a []float64) bool { return a[0] >= a[1] },
		lcdf:         func(a, d []float64) float64 { return betaBinomialCDF(a, d, false) },
		lccdf:        func(a, d []float64) float64 { return betaBinomialCDF(a, d, true) }},
}

// studentCDF is student_t_lcdf (complement: _lccdf) of (y, nu, mu, sigma):
// with z = (y - mu)/sigma, F(-|z|) = I_x(nu/2, 1/2)/2 for x = nu/(nu + z^2)
// is the smaller tail, computed directly; the other is log(1 - F(-|z|)).
// The derivative in z is the density over the CDF.
func studentCDF(a, d []float64, complement bool) float64 {
	nu, s := a[1], a[3]
	z := (a[0] - a[2]) / s
	if math.IsInf(z, 0) {
		if (z > 0) == complement {
			return negInf
		}
		return 0
	}
	if z*z > 1e20*nu {
		return studentFarTail(nu, z, s, d, complement)
	}
	z2 := z * z
	x, y := nu/(nu+z2), z2/(nu+z2)
	r := special.LogIncBeta(nu/2, 0.5, x, y)
	g := r.LogI - math.Ln2
	dg := 0.5*r.DLogI[0] + r.DLogI[2]*x*y/nu
	v, dnu := g, dg
	if (z > 0) != complement {
		v = special.Log1mExp(g)
		dnu = -math.Exp(g-v) * dg
	}
	lg1, _ := math.Lgamma((nu + 1) / 2)
	lg2, _ := math.Lgamma(nu / 2)
	lpdf := lg1 - lg2 - 0.5*math.Log(nu*math.Pi) - (nu+1)/2*math.Log1p(z2/nu)
	dz := math.Exp(lpdf - v)
	if complement {
		dz = -dz
	}
	d[0], d[1], d[2], d[3] = dz/s, dnu, -dz/s, -dz*z/s
	return v
}

// studentFarTail is studentCDF where x = nu/(nu + z^2) < 1e-20 (z^2 may
// overflow): the smaller tail is I_x(a, 1/2)/2 with a = nu/2, whose series
// x^a (1-x)^(1/2) / (a B(a, 1/2)) (1 + (a + 1/2)/(a + 1) x + ...) is its
// first term to 1e-20 relative, in logs with log x = log nu - 2 log|z|.
func studentFarTail(nu, z, s float64, d []float64, complement bool) float64 {
	a := nu / 2
	lz := math.Log(math.Abs(z))
	lx := math.Log(nu) - 2*lz
	lga, _ := math.Lgamma(a)
	lgab, _ := math.Lgamma(a + 0.5)
	lbeta := lga + 0.5*math.Log(math.Pi) - lgab
	g := a*lx - math.Log(a) - lbeta - math.Ln2
	// d g / d nu, and the log density, -(nu+1)/2 log(1 + z^2/nu) expanded
	dg := 0.5*lx + 0.5 - 1/nu - 0.5*(special.Digamma(a)-special.Digamma(a+0.5))
	lpdf := lgab - lga - 0.5*math.Log(nu*math.Pi) - (nu+1)/2*(2*lz-math.Log(nu))
	v, dnu := g, dg
	if (z > 0) != complement {
		v = special.Log1mExp(g)
		dnu = -math.Exp(g-v) * dg
	}
	dz := math.Exp(lpdf - v)
	if complement {
		dz = -dz
	}
	d[0], d[1], d[2], d[3] = dz/s, dnu, -dz/s, -dz*z/s
	return v
}

// logFraction is log(u/w) for u + v = w (u, v > 0), as log1p(-v/w) when
// u/w is near 1, so that it keeps its relative accuracy there.
func logFraction(u, v, w float64) float64 {
	if u > v {
		return math.Log1p(-v / w)
	}
	return math.Log(u / w)
}

// frechetT is t = (y/sigma)^-alpha for (y, alpha, sigma), the frechet CDF
// being exp(-t), with its partial derivatives in d.
func frechetT(a, d []float64) float64 {
	y, al, s := a[0], a[1], a[2]
	l := math.Log(y / s)
	t := math.Exp(-al * l)
	d[0], d[1], d[2] = -al*t/y, -t*l, al*t/s
	return t
}

// negBinomial2CDF is neg_binomial_2_lcdf (complement: _lccdf) of (n, mu,
// phi): P(Y <= n) = I_p(phi, n + 1) with p = phi/(mu + phi).
func negBinomial2CDF(a, d []float64, complement bool) float64 {
	mu, phi := a[1], a[2]
	n := math.Floor(a[0])
	s := mu + phi
	r := special.LogIncBeta(phi, n+1, phi/s, mu/s)
	v, dv := r.LogI, r.DLogI
	if complement {
		v, dv = r.LogC, r.DLogC
	}
	d[1] = -dv[2] * phi / (s * s)
	d[2] = dv[0] + dv[2]*mu/(s*s)
	return v
}

// betaBinomialMaxN is the largest N of beta_binomial's CDF, a sum of up
// to N terms; a larger N counts as outside the parameter's domain (-Inf).
const betaBinomialMaxN = 1e7

// betaBinomialCDF is beta_binomial_lcdf (complement: _lccdf) of (n, N,
// alpha, beta): the log of the sum of the mass function over 0..n
// (n+1..N), summed in log space with the derivatives of each term. A side
// above 1/2 is log(1 - the other side), so that it keeps its relative
// accuracy where it is near 1.
func betaBinomialCDF(a, d []float64, complement bool) float64 {
	n, N := math.Floor(a[0]), a[1]
	lo, hi, olo, ohi := 0.0, n, n+1, N
	if complement {
		lo, hi, olo, ohi = olo, ohi, lo, hi
	}
	v, g := betaBinomialSum(a, lo, hi)
	if v > -math.Ln2 {
		w, gw := betaBinomialSum(a, olo, ohi)
		v = special.Log1mExp(w)
		f := -math.Exp(w - v)
		g = [2]float64{f * gw[0], f * gw[1]}
	}
	d[2], d[3] = g[0], g[1]
	return v
}

// betaBinomialSum is the log of beta_binomial's mass summed over lo..hi
// and its derivatives in alpha and beta.
func betaBinomialSum(a []float64, lo, hi float64) (float64, [2]float64) {
	m, s := negInf, 0.0
	var g, dp [3]float64
	for k := lo; k <= hi; k++ {
		lp, _ := betaBinomialGrad(k, a[1:4], dp[:])
		if math.IsInf(lp, -1) {
			continue
		}
		if lp > m {
			c := math.Exp(m - lp)
			s = s*c + 1
			for j := range g {
				g[j] = g[j]*c + dp[j]
			}
			m = lp
			continue
		}
		w := math.Exp(lp - m)
		s += w
		for j := range g {
			g[j] += w * dp[j]
		}
	}
	if s == 0 {
		return negInf, [2]float64{}
	}
	return m + math.Log(s), [2]float64{g[1] / s, g[2] / s}
}

// expCDF is NAME_cdf, exp of the family's NAME_lcdf, with its derivatives.
func expCDF(name string, lcdf *NaryFunc) *NaryFunc {
	return &NaryFunc{Name: name, Arity: lcdf.Arity,
		Eval: func(a []float64) float64 { return math.Exp(lcdf.Eval(a)) },
		Grad: func(a, d []float64) float64 {
			p := math.Exp(lcdf.Grad(a, d))
			for i := range d {
				if p == 0 {
					d[i] = 0
				} else {
					d[i] *= p
				}
			}
			return p
		}, GradForward: true}
}
