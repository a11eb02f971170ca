package stdlib

import "math"

const (
	lnSqrt2Pi = 0.91893853320467274178032973640562 // log(sqrt(2 pi))
	invSqrt2  = 0.70710678118654752440084436210485
	lnSqrt2   = 0.34657359027997265470861606072909 // log(sqrt(2))
)

// Phi is the standard normal CDF.
func Phi(x float64) float64 {
	t := -x * invSqrt2
	if t > -1.25 && t < 1.25 {
		return 0.5 * erfcMid(t)
	}
	return 0.5 * math.Erfc(t)
}

const sqrt2OverPi = 0.79788456080286535587989211986876 // sqrt(2/pi)

// LogPhi is log Phi(x), accurate far into both tails and cheap: one log
// (or one exp for x > 1.77) per call. Below x = -36.8 an asymptotic series
// takes over.
func LogPhi(x float64) float64 {
	t := -x * invSqrt2 // Phi(x) = erfc(t) / 2
	if t >= 1.25 {
		if t >= 26 {
			return logPhiAsym(x)
		}
		return logErfcTailT(t) - math.Log(t) - math.Ln2
	}
	if t > -1.25 {
		// erfc is a rational function here (no exp inside)
		return math.Log(0.5 * erfcMid(t))
	}
	if t > -26 {
		return log1mQ(0.5 * erfcTail(-t))
	}
	if x != x {
		return x
	}
	return 0
}

// logPhiAsym is the asymptotic series of log Phi(x) for x <= -36.8:
// log Phi(x) = -x^2/2 - log(-x) - log sqrt(2 pi) + log(1 - 1/x^2 + 3/x^4 - ...)
func logPhiAsym(x float64) float64 {
	z := 1 / (x * x)
	s := 1 - z*(1-z*(3-z*(15-z*(105-z*945))))
	return -0.5*x*x - math.Log(-x) - lnSqrt2Pi + math.Log(s)
}

// millsAsym is the asymptotic series of phi(x)/Phi(x) for x <= -20:
// -x / (1 - 1/x^2 + 3/x^4 - ...).
func millsAsym(x float64) float64 {
	z := 1 / (x * x)
	s := 1 - z*(1-z*(3-z*(15-z*(105-z*945))))
	return -x / s
}

// log1mQ is log(1 - q) for 0 <= q < 0.04.
func log1mQ(q float64) float64 {
	if q < 1e-3 {
		// the series of log1p(-q) to q^5: the next term is below
		// q^6/6 < 2e-19, far under the rounding of the result
		return -q * (1 + q*(0.5+q*(1.0/3+q*(0.25+q*0.2))))
	}
	return math.Log1p(-q)
}

// phiDensity is the standard normal density.
func phiDensity(x float64) float64 { return math.Exp(-0.5*x*x - lnSqrt2Pi) }

// InvMills is d/dx log Phi(x) = phi(x)/Phi(x), computed stably.
func InvMills(x float64) float64 {
	t := -x * invSqrt2
	if t >= 1.25 {
		if x > -20 {
			// phi/Phi = 2 exp(-t^2) / (sqrt(2 pi) erfc(t)), and
			// t erfc(t) = exp(-t^2 - 0.5625 + R/S): the t^2 cancels
			return sqrt2OverPi * t * math.Exp(0.5625-erfcRS(t))
		}
		return millsAsym(x)
	}
	if t > -1.25 {
		return phiDensity(x) / (0.5 * erfcMid(t))
	}
	if t > -5.9 {
		// Phi(x) = 1 - q; below t = -5.9, q < 2^-54 and 1 - q rounds to 1
		return phiDensity(x) / (1 - 0.5*erfcTail(-t))
	}
	if x != x {
		return x
	}
	return phiDensity(x)
}

// LogPhiAndMills is (LogPhi(x), InvMills(x)), sharing the evaluation of
// erfc between the two.
func LogPhiAndMills(x float64) (logPhi, mills float64) {
	t := -x * invSqrt2
	if t >= 1.25 {
		if t >= 26 {
			return logPhiAsym(x), millsAsym(x)
		}
		rs := erfcRS(t)
		z := math.Float64frombits(math.Float64bits(t) & 0xffffffff00000000)
		logPhi = (-z*z - 0.5625 + (z-t)*(z+t) + rs) - math.Log(t) - math.Ln2
		if x > -20 {
			return logPhi, sqrt2OverPi * t * math.Exp(0.5625-rs)
		}
		return logPhi, millsAsym(x)
	}
	if t > -1.25 {
		p := 0.5 * erfcMid(t)
		return math.Log(p), phiDensity(x) / p
	}
	if t > -26 {
		q := 0.5 * erfcTail(-t)
		return log1mQ(q), phiDensity(x) / (1 - q)
	}
	if x != x {
		return x, x
	}
	return 0, phiDensity(x)
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
