package special

import "math"

// LnSqrt2Pi is log(sqrt(2 pi)), the log of the normalising constant of
// the normal density.
const LnSqrt2Pi = 0.91893853320467274178032973640562

const invSqrt2 = 0.70710678118654752440084436210485

// Phi is the standard normal CDF (fast.go: a table of polynomials and an
// inlined exp for |x| < 37.5).
func Phi(x float64) float64 {
	if x > -37.5 && x < 37.5 {
		return fastPhi(x)
	}
	return phiSlow(x)
}

// phiSlow is Phi outside (-37.5, 37.5), NaN included.
func phiSlow(x float64) float64 { return 0.5 * math.Erfc(-x*invSqrt2) }

// LogPhi is log Phi(x), accurate far into both tails (fast.go: no call to
// math.Log or math.Exp for -63 < x < 37.5). Below x = -63 an asymptotic
// series takes over.
func LogPhi(x float64) float64 {
	if x > -63 && x < 37.5 {
		return fastLogPhi(x)
	}
	return logPhiSlow(x)
}

// logPhiSlow is LogPhi outside (-63, 37.5), NaN included.
func logPhiSlow(x float64) float64 {
	switch {
	case x != x:
		return x
	case x <= -63:
		return logPhiAsym(x)
	}
	// log Phi(x) = log1p(-Phi(-x)) = -Phi(-x) to a relative 1e-300 here
	if v := 0.5 * math.Erfc(x*invSqrt2); v != 0 {
		return -v
	}
	return 0
}

// logPhiAsym is the asymptotic series of log Phi(x) for x <= -36.8:
// log Phi(x) = -x^2/2 - log(-x) - log sqrt(2 pi) + log(1 - 1/x^2 + 3/x^4 - ...)
func logPhiAsym(x float64) float64 {
	z := 1 / (x * x)
	s := 1 - z*(1-z*(3-z*(15-z*(105-z*945))))
	return -0.5*x*x - math.Log(-x) - LnSqrt2Pi + math.Log(s)
}

// millsAsym is the asymptotic series of phi(x)/Phi(x) for x <= -20:
// -x / (1 - 1/x^2 + 3/x^4 - ...).
func millsAsym(x float64) float64 {
	z := 1 / (x * x)
	s := 1 - z*(1-z*(3-z*(15-z*(105-z*945))))
	return -x / s
}

// phiDensity is the standard normal density.
func phiDensity(x float64) float64 { return math.Exp(-0.5*x*x - LnSqrt2Pi) }

// InvMills is d/dx log Phi(x) = phi(x)/Phi(x), computed stably (fast.go
// for -63 < x < 37.5).
func InvMills(x float64) float64 {
	if x > -63 && x < 37.5 {
		return fastInvMills(x)
	}
	return invMillsSlow(x)
}

// invMillsSlow is InvMills outside (-63, 37.5), NaN included.
func invMillsSlow(x float64) float64 {
	switch {
	case x != x:
		return x
	case x <= -63:
		return millsAsym(x)
	}
	return phiDensity(x) // Phi(x) = 1 to the last bit
}

// InvLogit is 1/(1+exp(-x)).
func InvLogit(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

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

// Log1pExp is log(1 + exp(x)) without overflow (fast.go for |x| < 63).
func Log1pExp(x float64) float64 {
	if x > -63 && x < 63 {
		return fastLog1pExp(x)
	}
	return log1pExpSlow(x)
}

// log1pExpSlow is Log1pExp outside (-63, 63), NaN included.
func log1pExpSlow(x float64) float64 {
	if x >= 63 {
		return x // + exp(-x), below half an ulp of x
	}
	return math.Exp(x) // - exp(2x)/2, below half an ulp
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
