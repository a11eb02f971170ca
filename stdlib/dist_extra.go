package stdlib

import (
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/stdlib/special"
	"gonum.org/v1/gonum/stat/distuv"
)

// Further scalar families in Stan's parameterisations, common in
// posteriordb's models: std_normal, uniform, neg_binomial_2, neg_binomial_2_log,
// beta_binomial, chi_square, inv_chi_square, scaled_inv_chi_square,
// gumbel, pareto, frechet and rayleigh.

func init() {
	register(&Family{
		Name: "std_normal", Doc: "normal(0, 1); std_normal_lpdf(y) takes no bar", Support: RealLine,
		LogPdf: func(x float64, _ []float64) float64 { return -0.5*x*x - special.LnSqrt2Pi },
		Grad: func(x float64, p, _ []float64) (float64, float64) {
			if math.IsNaN(x) {
				return math.NaN(), math.NaN()
			}
			if math.IsInf(x, 0) {
				return negInf, 0
			}
			return -0.5*x*x - special.LnSqrt2Pi, -x
		},
		Rand: func(r *rand.Rand, _ []float64) float64 { return r.NormFloat64() },
	})
	register(&Family{
		Name: "uniform", Doc: "the uniform distribution on [alpha, beta]", Params: []ParamSpec{{"alpha", RealLine}, {"beta", RealLine}}, Less: [][2]int{{0, 1}}, Support: RealLine,
		LogPdf: logPdfFromGrad(uniformGrad),
		Grad:   uniformGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return p[0] + (p[1]-p[0])*r.Float64() },
	})
	register(&Family{
		Name: "neg_binomial_2", Doc: "the negative binomial of mean mu and variance mu + mu^2 / phi", Params: []ParamSpec{{"mu", Positive}, {"phi", Positive}}, Support: NonNegInt, Discrete: true,
		LogPdf: negBinomial2LogPdf,
		Grad:   negBinomial2Grad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return gammaPoisson(r, p[0], p[1]) },
	})
	register(&Family{
		Name: "neg_binomial_2_log", Doc: "neg_binomial_2(exp(eta), phi)", Params: []ParamSpec{{"eta", RealLine}, {"phi", Positive}}, Support: NonNegInt, Discrete: true,
		LogPdf: negBinomial2LogLogPdf,
		Grad:   negBinomial2LogGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return gammaPoisson(r, math.Exp(p[0]), p[1]) },
	})
	register(&Family{
		Name: "beta_binomial", Doc: "binomial(N, p) with p ~ beta(alpha, beta)", Params: []ParamSpec{{"N", NonNegInt}, {"alpha", Positive}, {"beta", Positive}}, Support: NonNegInt, Discrete: true,
		LogPdf: logPdfFromGrad(betaBinomialGrad),
		Grad:   betaBinomialGrad,
		Rand: func(r *rand.Rand, p []float64) float64 {
			q := distuv.Beta{Alpha: p[1], Beta: p[2], Src: r}.Rand()
			return distuv.Binomial{N: p[0], P: q, Src: r}.Rand()
		},
	})
	register(&Family{
		Name: "chi_square", Doc: "the chi-square distribution with nu degrees of freedom", Params: []ParamSpec{{"nu", Positive}}, Support: Positive,
		LogPdf: logPdfFromGrad(chiSquareGrad),
		Grad:   chiSquareGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return chiSquareRand(r, p[0]) },
	})
	register(&Family{
		Name: "inv_chi_square", Doc: "1 / x for x ~ chi_square(nu)", Params: []ParamSpec{{"nu", Positive}}, Support: Positive,
		LogPdf: logPdfFromGrad(invChiSquareGrad),
		Grad:   invChiSquareGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return 1 / chiSquareRand(r, p[0]) },
	})
	register(&Family{
		Name: "scaled_inv_chi_square", Doc: "the scaled inverse chi-square of scale s", Params: []ParamSpec{{"nu", Positive}, {"s", Positive}}, Support: Positive,
		LogPdf: logPdfFromGrad(scaledInvChiSquareGrad),
		Grad:   scaledInvChiSquareGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return p[0] * p[1] * p[1] / chiSquareRand(r, p[0]) },
	})
	register(&Family{
		Name: "gumbel", Doc: "the Gumbel (type I extreme value) distribution", Params: []ParamSpec{{"mu", RealLine}, {"beta", Positive}}, Support: RealLine,
		LogPdf: logPdfFromGrad(gumbelGrad),
		Grad:   gumbelGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return p[0] - p[1]*math.Log(r.ExpFloat64()) },
	})
	register(&Family{
		Name: "pareto", Doc: "the Pareto distribution on y >= y_min", Params: []ParamSpec{{"y_min", Positive}, {"alpha", Positive}}, Support: Positive,
		LogPdf: logPdfFromGrad(paretoGrad),
		Grad:   paretoGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return p[0] * math.Exp(r.ExpFloat64()/p[1]) },
	})
	register(&Family{
		Name: "frechet", Doc: "the Frechet distribution of shape alpha and scale sigma", Params: []ParamSpec{{"alpha", Positive}, {"sigma", Positive}}, Support: Positive,
		LogPdf: logPdfFromGrad(frechetGrad),
		Grad:   frechetGrad,
		Rand:   func(r *rand.Rand, p []float64) float64 { return p[1] * math.Pow(r.ExpFloat64(), -1/p[0]) },
	})
	register(&Family{
		Name: "rayleigh", Doc: "the Rayleigh distribution of scale sigma", Params: []ParamSpec{{"sigma", Positive}}, Support: NonNegative,
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

// lgammaRatioDeriv is the derivative in phi of lgammaRatioValue,
// digamma(x + phi) - digamma(phi), as a sum for small x.
func lgammaRatioDeriv(x, phi float64) float64 {
	if x >= 64 {
		return digamma(x+phi) - digamma(phi)
	}
	d := 0.0
	for i := 0.0; i < x; i++ {
		d += 1 / (phi + i)
	}
	return d
}

// lgammaRatioValue is log Gamma(x + phi) - log Gamma(phi) for an integer
// count x >= 0: for small x the log of the product phi (phi + 1) ... (phi +
// x - 1), taken 8 factors at a time (the difference of two lgammas loses
// about log10(phi) digits for large phi; one log per factor was the cost of
// the density).
func lgammaRatioValue(x, phi float64) float64 {
	if x >= 64 {
		return lgamma(x+phi) - lgamma(phi)
	}
	l := 0.0
	if phi > 1e30 { // products of 8 factors could overflow
		for i := 0.0; i < x; i++ {
			l += math.Log(phi + i)
		}
		return l
	}
	for i := 0.0; i < x; {
		p := 1.0
		for k := 0; k < 8 && i < x; k, i = k+1, i+1 {
			p *= phi + i
		}
		l += math.Log(p)
	}
	return l
}

func negBinomial2Valid(x float64, p []float64) bool {
	return !isNaN3(x, p) && p[0] > 0 && p[1] > 0 && finite(p[0], p[1]) && x >= 0 && isInt(x) && !math.IsInf(x, 0)
}

// negBinomialLogPmf is the negative binomial's log pmf at count x with
// dispersion phi, given l1 = log((mu + phi)/phi) and lx = log((mu + phi)/mu)
// for its mean mu (each parameterisation computes them stably its way).
func negBinomialLogPmf(x, phi, l1, lx float64) float64 {
	lp := lgammaRatioValue(x, phi) - lgamma(x+1) - phi*l1
	if x > 0 {
		lp -= x * lx
	}
	return lp
}

// negBinomial2LogPdf is neg_binomial_2's log pmf (the value of its Grad).
func negBinomial2LogPdf(x float64, p []float64) float64 {
	if !negBinomial2Valid(x, p) {
		return badValue(x, p)
	}
	mu, phi := p[0], p[1]
	return negBinomialLogPmf(x, phi, math.Log1p(mu/phi), math.Log1p(phi/mu))
}

func negBinomial2Grad(x float64, p, dp []float64) (float64, float64) {
	if !negBinomial2Valid(x, p) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	mu, phi := p[0], p[1]
	l1 := math.Log1p(mu / phi)
	dp[0] = x/mu - (x+phi)/(mu+phi)
	dp[1] = lgammaRatioDeriv(x, phi) - l1 + (mu-x)/(mu+phi)
	return negBinomialLogPmf(x, phi, l1, math.Log1p(phi/mu)), 0
}

func negBinomial2LogValid(x float64, p []float64) bool {
	return !isNaN3(x, p) && p[1] > 0 && finite(p[0], p[1]) && x >= 0 && isInt(x) && !math.IsInf(x, 0)
}

// negBinomial2LogLogPdf is neg_binomial_2_log's log pmf (the value of its
// Grad): mu = exp(eta), with l1 and lx as log1p_exp of eta - log phi and
// its negative.
func negBinomial2LogLogPdf(x float64, p []float64) float64 {
	if !negBinomial2LogValid(x, p) {
		return badValue(x, p)
	}
	eta, phi := p[0], p[1]
	lphi := math.Log(phi)
	return negBinomialLogPmf(x, phi, special.Log1pExp(eta-lphi), special.Log1pExp(lphi-eta))
}

func negBinomial2LogGrad(x float64, p, dp []float64) (float64, float64) {
	if !negBinomial2LogValid(x, p) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	eta, phi := p[0], p[1]
	lphi := math.Log(phi)
	l1 := special.Log1pExp(eta - lphi)
	q := special.InvLogit(eta - lphi) // exp(eta) / (exp(eta) + phi)
	dp[0] = x - (x+phi)*q
	dp[1] = lgammaRatioDeriv(x, phi) - l1 + q - x*(1-q)/phi
	return negBinomialLogPmf(x, phi, l1, special.Log1pExp(lphi-eta)), 0
}

// badValue is the log density outside the domain: NaN for NaN input, else
// -Inf.
func badValue(x float64, p []float64) float64 {
	if isNaN3(x, p) {
		return math.NaN()
	}
	return negInf
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
