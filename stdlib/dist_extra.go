package stdlib

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Further scalar families in Stan's parameterisations, common in
// posteriordb's models: std_normal, uniform, neg_binomial_2, neg_binomial_2_log,
// beta_binomial, chi_square, inv_chi_square, scaled_inv_chi_square,
// gumbel, pareto, frechet and rayleigh.

func init() {
	register(&Family{
		Name: "std_normal", Support: RealLine,
		LogPdf: func(x float64, _ []float64) float64 { return -0.5*x*x - lnSqrt2Pi },
		Grad: func(x float64, p, _ []float64) (float64, float64) {
			if math.IsNaN(x) {
				return math.NaN(), math.NaN()
			}
			if math.IsInf(x, 0) {
				return negInf, 0
			}
			return -0.5*x*x - lnSqrt2Pi, -x
		},
		Rand: func(r *rand.Rand, _ []float64) float64 { return r.NormFloat64() },
	})
	register(&Family{
		Name: "uniform", Params: []ParamSpec{{"alpha", RealLine}, {"beta", RealLine}}, Support: RealLine,
		LogPdf: logPdfFromGrad(uniformGrad),
		Grad:   uniformGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return p[0] + (p[1]-p[0])*r.Float64() },
	})
	register(&Family{
		Name: "neg_binomial_2", Params: []ParamSpec{{"mu", Positive}, {"phi", Positive}}, Support: NonNegInt, Discrete: true,
		LogPdf: logPdfFromGrad(negBinomial2Grad),
		Grad:   negBinomial2Grad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return gammaPoisson(r, p[0], p[1]) },
	})
	register(&Family{
		Name: "neg_binomial_2_log", Params: []ParamSpec{{"eta", RealLine}, {"phi", Positive}}, Support: NonNegInt, Discrete: true,
		LogPdf: logPdfFromGrad(negBinomial2LogGrad),
		Grad:   negBinomial2LogGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return gammaPoisson(r, math.Exp(p[0]), p[1]) },
	})
	register(&Family{
		Name: "beta_binomial", Params: []ParamSpec{{"N", NonNegInt}, {"alpha", Positive}, {"beta", Positive}}, Support: NonNegInt, Discrete: true,
		LogPdf: logPdfFromGrad(betaBinomialGrad),
		Grad:   betaBinomialGrad,
		Rand: func(r *rand.Rand, p []float64) float64 {
			q := distuv.Beta{Alpha: p[1], Beta: p[2], Src: r}.Rand()
			return distuv.Binomial{N: p[0], P: q, Src: r}.Rand()
		},
	})
	register(&Family{
		Name: "chi_square", Params: []ParamSpec{{"nu", Positive}}, Support: Positive,
		LogPdf: logPdfFromGrad(chiSquareGrad),
		Grad:   chiSquareGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return chiSquareRand(r, p[0]) },
	})
	register(&Family{
		Name: "inv_chi_square", Params: []ParamSpec{{"nu", Positive}}, Support: Positive,
		LogPdf: logPdfFromGrad(invChiSquareGrad),
		Grad:   invChiSquareGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return 1 / chiSquareRand(r, p[0]) },
	})
	register(&Family{
		Name: "scaled_inv_chi_square", Params: []ParamSpec{{"nu", Positive}, {"s", Positive}}, Support: Positive,
		LogPdf: logPdfFromGrad(scaledInvChiSquareGrad),
		Grad:   scaledInvChiSquareGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return p[0] * p[1] * p[1] / chiSquareRand(r, p[0]) },
	})
	register(&Family{
		Name: "gumbel", Params: []ParamSpec{{"mu", RealLine}, {"beta", Positive}}, Support: RealLine,
		LogPdf: logPdfFromGrad(gumbelGrad),
		Grad:   gumbelGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return p[0] - p[1]*math.Log(r.ExpFloat64()) },
	})
	register(&Family{
		Name: "pareto", Params: []ParamSpec{{"y_min", Positive}, {"alpha", Positive}}, Support: Positive,
		LogPdf: logPdfFromGrad(paretoGrad),
		Grad:   paretoGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return p[0] * math.Exp(r.ExpFloat64()/p[1]) },
	})
	register(&Family{
		Name: "frechet", Params: []ParamSpec{{"alpha", Positive}, {"sigma", Positive}}, Support: Positive,
		LogPdf: logPdfFromGrad(frechetGrad),
		Grad:   frechetGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return p[1] * math.Pow(r.ExpFloat64(), -1/p[0]) },
	})
	register(&Family{
		Name: "rayleigh", Params: []ParamSpec{{"sigma", Positive}}, Support: NonNegative,
		LogPdf: logPdfFromGrad(rayleighGrad),
		Grad:   rayleighGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return p[0] * math.Sqrt(2*r.ExpFloat64()) },
	})
}

// gammaPoisson draws a negative binomial with mean mu and dispersion phi as
// a Poisson whose rate is Gamma(phi, phi/mu).
func gammaPoisson(r *rand.Rand, mu, phi float64) float64 {
	rate := distuv.Gamma{Alpha: phi, Beta: phi / mu, Src: r}.Rand()
	if !(rate > 0) {
		return 0
	}
	return distuv.Poisson{Lambda: rate, Src: r}.Rand()
}

func chiSquareRand(r *rand.Rand, nu float64) float64 {
	return distuv.ChiSquared{K: nu, Src: r}.Rand()
}

// finite reports whether every value is finite.
func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func uniformGrad(x float64, p, dp []float64) (float64, float64) {
	a, b := p[0], p[1]
	if isNaN3(x, p) || !finite(a, b) || !(a < b) || !(x >= a && x <= b) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	w := b - a
	dp[0], dp[1] = 1/w, -1/w
	return -math.Log(w), 0
}

// lgammaRatio is log Gamma(x + phi) - log Gamma(phi) and its derivative
// in phi, as sums over the integer count x when it is small (the
// difference of two lgammas loses about log10(phi) digits for large phi).
func lgammaRatio(x, phi float64) (l, d float64) {
	if x >= 64 {
		return lgamma(x+phi) - lgamma(phi), digamma(x+phi) - digamma(phi)
	}
	for i := 0.0; i < x; i++ {
		l += math.Log(phi + i)
		d += 1 / (phi + i)
	}
	return l, d
}

func negBinomial2Grad(x float64, p, dp []float64) (float64, float64) {
	mu, phi := p[0], p[1]
	if isNaN3(x, p) || !(mu > 0) || !(phi > 0) || !finite(mu, phi) || !(x >= 0) || !isInt(x) || math.IsInf(x, 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	lr, dr := lgammaRatio(x, phi)
	l1 := math.Log1p(mu / phi) // log(mu + phi) - log(phi)
	dp[0] = x/mu - (x+phi)/(mu+phi)
	dp[1] = dr - l1 + (mu-x)/(mu+phi)
	lp := lr - lgamma(x+1) - phi*l1
	if x > 0 {
		lp -= x * math.Log1p(phi/mu) // x (log mu - log(mu + phi))
	}
	return lp, 0
}

func negBinomial2LogGrad(x float64, p, dp []float64) (float64, float64) {
	eta, phi := p[0], p[1]
	if isNaN3(x, p) || !(phi > 0) || !finite(eta, phi) || !(x >= 0) || !isInt(x) || math.IsInf(x, 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	lphi := math.Log(phi)
	lr, dr := lgammaRatio(x, phi)
	l1 := Log1pExp(eta - lphi) // log(exp(eta) + phi) - log(phi)
	q := InvLogit(eta - lphi)  // exp(eta) / (exp(eta) + phi)
	dp[0] = x - (x+phi)*q
	dp[1] = dr - l1 + q - x*(1-q)/phi
	lp := lr - lgamma(x+1) - phi*l1
	if x > 0 {
		lp -= x * Log1pExp(lphi-eta) // x (eta - log(exp(eta) + phi))
	}
	return lp, 0
}

func betaBinomialGrad(x float64, p, dp []float64) (float64, float64) {
	n, a, b := p[0], p[1], p[2]
	if isNaN3(x, p) || !(n >= 0) || !isInt(n) || math.IsInf(n, 0) || !(a > 0) || !(b > 0) || !finite(a, b) || !(x >= 0 && x <= n) || !isInt(x) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	dnab, dab := digamma(n+a+b), digamma(a+b)
	dp[0] = 0
	dp[1] = digamma(x+a) - dnab - digamma(a) + dab
	dp[2] = digamma(n-x+b) - dnab - digamma(b) + dab
	lc := lgamma(n+1) - lgamma(x+1) - lgamma(n-x+1)
	return lc + logBeta(x+a, n-x+b) - logBeta(a, b), 0
}

func logBeta(a, b float64) float64 { return lgamma(a) + lgamma(b) - lgamma(a+b) }

func chiSquareGrad(x float64, p, dp []float64) (float64, float64) {
	nu := p[0]
	if isNaN3(x, p) || !(nu > 0) || !finite(nu, x) || !(x > 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	h, lx := nu/2, math.Log(x)
	dp[0] = 0.5 * (lx - math.Ln2 - digamma(h))
	return -h*math.Ln2 - lgamma(h) + (h-1)*lx - x/2, (h-1)/x - 0.5
}

func invChiSquareGrad(x float64, p, dp []float64) (float64, float64) {
	nu := p[0]
	if isNaN3(x, p) || !(nu > 0) || !finite(nu, x) || !(x > 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	h, lx := nu/2, math.Log(x)
	dp[0] = -0.5 * (lx + math.Ln2 + digamma(h))
	return -h*math.Ln2 - lgamma(h) - (h+1)*lx - 0.5/x, -(h+1)/x + 0.5/(x*x)
}

func scaledInvChiSquareGrad(x float64, p, dp []float64) (float64, float64) {
	nu, s := p[0], p[1]
	if isNaN3(x, p) || !(nu > 0) || !(s > 0) || !finite(nu, s, x) || !(x > 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	h, lx, s2 := nu/2, math.Log(x), s*s
	dp[0] = 0.5*math.Log(h) + 0.5 - 0.5*digamma(h) + math.Log(s) - 0.5*lx - s2/(2*x)
	dp[1] = nu/s - nu*s/x
	lp := h*math.Log(h) - lgamma(h) + nu*math.Log(s) - (h+1)*lx - nu*s2/(2*x)
	return lp, -(h+1)/x + nu*s2/(2*x*x)
}

func gumbelGrad(x float64, p, dp []float64) (float64, float64) {
	mu, beta := p[0], p[1]
	if isNaN3(x, p) || !(beta > 0) || !finite(mu, beta, x) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	z := (x - mu) / beta
	e := math.Exp(-z)
	dx := (e - 1) / beta
	dp[0] = -dx
	dp[1] = (z*(1-e) - 1) / beta
	return -math.Log(beta) - z - e, dx
}

func paretoGrad(x float64, p, dp []float64) (float64, float64) {
	ymin, alpha := p[0], p[1]
	if isNaN3(x, p) || !(ymin > 0) || !(alpha > 0) || !finite(ymin, alpha, x) || !(x >= ymin) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	lx, lm := math.Log(x), math.Log(ymin)
	dp[0] = alpha / ymin
	dp[1] = 1/alpha + lm - lx
	return math.Log(alpha) + alpha*lm - (alpha+1)*lx, -(alpha + 1) / x
}

func frechetGrad(x float64, p, dp []float64) (float64, float64) {
	alpha, sigma := p[0], p[1]
	if isNaN3(x, p) || !(alpha > 0) || !(sigma > 0) || !finite(alpha, sigma, x) || !(x > 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	l := math.Log(x / sigma)
	t := math.Exp(-alpha * l) // (x/sigma)^-alpha
	dp[0] = 1/alpha - l + t*l
	dp[1] = alpha / sigma * (1 - t)
	return math.Log(alpha) - math.Log(sigma) - (1+alpha)*l - t, (alpha*t - 1 - alpha) / x
}

func rayleighGrad(x float64, p, dp []float64) (float64, float64) {
	sigma := p[0]
	if isNaN3(x, p) || !(sigma > 0) || !finite(sigma, x) || !(x > 0) { // density 0 at x = 0
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	s2 := sigma * sigma
	dp[0] = -2/sigma + x*x/(s2*sigma)
	return math.Log(x) - 2*math.Log(sigma) - x*x/(2*s2), 1/x - x/s2
}
