package stdlib

import (
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/stdlib/special"
	"gonum.org/v1/gonum/stat/distuv"
)

// More scalar families in Stan's parameterisations: inv_gamma, logistic,
// double_exponential, weibull, poisson_log and binomial_logit.

func init() {
	register(&Family{
		Name: "inv_gamma", Doc: "1 / x for x ~ gamma(alpha, beta)", Params: []ParamSpec{{"alpha", Positive}, {"beta", Positive}}, Support: Positive,
		LogPdf: logPdfFromGrad(invGammaGrad),
		Grad:   invGammaGrad,
		Rand: func(r *rand.Rand, p []float64) float64 {
			return p[1] / distuv.Gamma{Alpha: p[0], Beta: 1, Src: r}.Rand()
		},
	})
	register(&Family{
		Name: "logistic", Doc: "the logistic distribution", Params: []ParamSpec{{"mu", RealLine}, {"sigma", Positive}}, Support: RealLine,
		LogPdf: logPdfFromGrad(logisticGrad),
		Grad:   logisticGrad,
		Rand: func(r *rand.Rand, p []float64) float64 {
			u := r.Float64()
			for u == 0 {
				u = r.Float64()
			}
			return p[0] + p[1]*(math.Log(u)-math.Log1p(-u))
		},
	})
	register(&Family{
		Name: "double_exponential", Doc: "the Laplace distribution", Params: []ParamSpec{{"mu", RealLine}, {"sigma", Positive}}, Support: RealLine,
		LogPdf: logPdfFromGrad(doubleExponentialGrad),
		Grad:   doubleExponentialGrad,
		Rand: func(r *rand.Rand, p []float64) float64 {
			e := r.ExpFloat64()
			if r.Uint64()&1 == 0 {
				e = -e
			}
			return p[0] + p[1]*e
		},
	})
	register(&Family{
		Name: "weibull", Doc: "the Weibull distribution of shape alpha and scale sigma", Params: []ParamSpec{{"alpha", Positive}, {"sigma", Positive}}, Support: NonNegative,
		LogPdf: logPdfFromGrad(weibullGrad),
		Grad:   weibullGrad,
		Rand: func(r *rand.Rand, p []float64) float64 {
			return p[1] * math.Pow(r.ExpFloat64(), 1/p[0])
		},
	})
	register(&Family{
		Name: "poisson_log", Doc: "poisson(exp(alpha))", Params: []ParamSpec{{"alpha", RealLine}}, Support: NonNegInt, Discrete: true,
		LogPdf: logPdfFromGrad(poissonLogGrad),
		Grad:   poissonLogGrad,
		Rand: func(r *rand.Rand, p []float64) float64 {
			rate := math.Exp(p[0])
			if rate == 0 {
				return 0
			}
			return distuv.Poisson{Lambda: rate, Src: r}.Rand()
		},
	})
	register(&Family{
		Name: "binomial_logit", Doc: "binomial(n, inv_logit(alpha))", Params: []ParamSpec{{"n", NonNegInt}, {"alpha", RealLine}}, Support: NonNegInt, Discrete: true,
		LogPdf: logPdfFromGrad(binomialLogitGrad),
		Grad:   binomialLogitGrad,
		Rand: func(r *rand.Rand, p []float64) float64 {
			return distuv.Binomial{N: p[0], P: special.InvLogit(p[1]), Src: r}.Rand()
		},
	})
}

func invGammaGrad(x float64, p, dp []float64) (float64, float64) {
	a, b := p[0], p[1]
	if isNaN3(x, p) || !(a > 0) || !(b > 0) || math.IsInf(a, 0) || math.IsInf(b, 0) || !(x > 0) || math.IsInf(x, 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	lx, lb := math.Log(x), math.Log(b)
	dp[0] = lb - digamma(a) - lx
	dp[1] = a/b - 1/x
	return a*lb - lgamma(a) - (a+1)*lx - b/x, (-(a + 1) + b/x) / x
}

func logisticGrad(x float64, p, dp []float64) (float64, float64) {
	mu, s := p[0], p[1]
	if isNaN3(x, p) || !(s > 0) || math.IsInf(s, 0) || math.IsInf(mu, 0) || math.IsInf(x, 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	z := (x - mu) / s
	az := math.Abs(z)
	// log density in z: -|z| - 2 log1p(exp(-|z|)), symmetric in z
	lz := -az - 2*math.Log1p(math.Exp(-az))
	dz := -math.Tanh(0.5 * z)
	dx := dz / s
	dp[0] = -dx
	dp[1] = (-1 - z*dz) / s
	return lz - math.Log(s), dx
}

func doubleExponentialGrad(x float64, p, dp []float64) (float64, float64) {
	mu, s := p[0], p[1]
	if isNaN3(x, p) || !(s > 0) || math.IsInf(s, 0) || math.IsInf(mu, 0) || math.IsInf(x, 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	d := x - mu
	sg := 0.0
	switch {
	case d > 0:
		sg = 1
	case d < 0:
		sg = -1
	}
	ad := math.Abs(d)
	dp[0] = sg / s
	dp[1] = (ad/s - 1) / s
	return -math.Ln2 - math.Log(s) - ad/s, -sg / s
}

func weibullGrad(x float64, p, dp []float64) (float64, float64) {
	a, s := p[0], p[1]
	if isNaN3(x, p) || !(a > 0) || !(s > 0) || math.IsInf(a, 0) || math.IsInf(s, 0) || x < 0 || math.IsInf(x, 0) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	if x == 0 {
		zero(dp)
		switch {
		case a == 1:
			return -math.Log(s), 0
		case a > 1:
			return negInf, 0
		}
		return math.Inf(1), 0
	}
	l := math.Log(x) - math.Log(s) // log(x / sigma)
	u := math.Exp(a * l)           // (x / sigma)^alpha
	dp[0] = 1/a + l - u*l
	dp[1] = a * (u - 1) / s
	return math.Log(a) - math.Log(s) + (a-1)*l - u, ((a - 1) - a*u) / x
}

func poissonLogGrad(x float64, p, dp []float64) (float64, float64) {
	al := p[0]
	if isNaN3(x, p) || math.IsInf(al, 1) || !(x >= 0) || !isInt(x) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	if math.IsInf(al, -1) { // rate 0
		dp[0] = 0
		if x == 0 {
			return 0, 0
		}
		return negInf, 0
	}
	rate := math.Exp(al)
	lp := -rate - lgamma(x+1)
	if x > 0 {
		lp += x * al
	}
	if math.IsInf(lp, -1) {
		dp[0] = 0
		return lp, 0
	}
	dp[0] = x - rate
	return lp, 0
}

func binomialLogitGrad(x float64, p, dp []float64) (float64, float64) {
	n, al := p[0], p[1]
	if isNaN3(x, p) || !(n >= 0) || !isInt(n) || math.IsInf(al, 0) || !(x >= 0 && x <= n) || !isInt(x) {
		lp, dx, _ := bad(x, p, dp)
		return lp, dx
	}
	dp[0] = 0
	lp := lgamma(n+1) - lgamma(x+1) - lgamma(n-x+1)
	if x > 0 {
		lp += x * special.LogInvLogit(al)
	}
	if n-x > 0 {
		lp += (n - x) * special.LogInvLogit(-al)
	}
	// d/dalpha = x (1 - q) - (n - x) q with q = inv_logit(alpha)
	dp[1] = x*special.InvLogit(-al) - (n-x)*special.InvLogit(al)
	return lp, 0
}
