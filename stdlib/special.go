package stdlib

import "math"

const (
	lnSqrt2Pi = 0.91893853320467274178032973640562 // log(sqrt(2 pi))
	invSqrt2  = 0.70710678118654752440084436210485
	lnSqrt2   = 0.34657359027997265470861606072909 // log(sqrt(2))
)

// Phi is the standard normal CDF.
func Phi(x float64) float64 { return 0.5 * math.Erfc(-x*invSqrt2) }

// LogPhi is log Phi(x), accurate far into both tails and cheap: one log
// (or one exp and one log1p for x > 1.77) per call. Below x = -36.8 an
// asymptotic series takes over.
func LogPhi(x float64) float64 {
	t := -x * invSqrt2 // Phi(x) = erfc(t) / 2
	switch {
	case math.IsNaN(x):
		return x
	case t >= 26:
		// log Phi(x) = -x^2/2 - log(-x) - log sqrt(2 pi) + log(1 - 1/x^2 + 3/x^4 - ...)
		z := 1 / (x * x)
		s := 1 - z*(1-z*(3-z*(15-z*(105-z*945))))
		return -0.5*x*x - math.Log(-x) - lnSqrt2Pi + math.Log(s)
	case t >= 1.25:
		return logErfcTail(t) - math.Ln2
	case t > -1.25:
		// erfc is a rational function here (no exp inside)
		return math.Log(0.5 * math.Erfc(t))
	case t > -26:
		// log(1 - q) with q = erfc(-t)/2 < 0.04
		q := 0.5 * erfcTail(-t)
		if q < 1e-3 {
			// the series of log1p(-q) to q^5: the next term is below
			// q^6/6 < 2e-19, far under the rounding of the result
			return -q * (1 + q*(0.5+q*(1.0/3+q*(0.25+q*0.2))))
		}
		return math.Log1p(-q)
	}
	return 0
}

// InvMills is d/dx log Phi(x) = phi(x)/Phi(x), computed stably.
func InvMills(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x > -20:
		// phi(x)/Phi(x) with Phi via erfc: exp(-x^2/2)/sqrt(2 pi) / (erfc(-x/sqrt2)/2)
		return math.Exp(-0.5*x*x-lnSqrt2Pi) / (0.5 * math.Erfc(-x*invSqrt2))
	}
	// continued-fraction-free asymptotic: phi/Phi ~ -x / (1 - 1/x^2 + 3/x^4 - ...)
	z := 1 / (x * x)
	s := 1 - z*(1-z*(3-z*(15-z*(105-z*945))))
	return -x / s
}

// InvLogit is 1/(1+exp(-x)).
func InvLogit(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// Log1pExp is log(1 + exp(x)) without overflow.
func Log1pExp(x float64) float64 {
	if x > 35 {
		return x
	}
	if x < -35 {
		return math.Exp(x)
	}
	return math.Log1p(math.Exp(x))
}

// LogInvLogit is log(inv_logit(x)) = -log1p(exp(-x)).
func LogInvLogit(x float64) float64 { return -Log1pExp(-x) }

// LogSumExp is log(sum(exp(x))) computed stably.
func LogSumExp(xs []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range xs {
		if v > mx {
			mx = v
		}
	}
	if math.IsInf(mx, 0) {
		return mx
	}
	s := 0.0
	for _, v := range xs {
		s += math.Exp(v - mx)
	}
	return mx + math.Log(s)
}
