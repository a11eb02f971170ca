package special

import "math"

// The implementations of Phi, LogPhi, InvMills and Log1pExp before the table-driven ones of fast.go (issue 12), kept for
// the tests and the benchmarks (with the erfc pieces of
// logerfc_old_test.go).

// oldPhi is the standard normal CDF.
func oldPhi(x float64) float64 {
	t := -x * invSqrt2
	if t > -1.25 && t < 1.25 {
		return 0.5 * erfcMid(t)
	}
	return 0.5 * math.Erfc(t)
}

const sqrt2OverPi = 0.79788456080286535587989211986876 // sqrt(2/pi)

// oldLogPhi is log Phi(x), accurate far into both tails and cheap: one log
// (or one exp for x > 1.77) per call. Below x = -36.8 an asymptotic series
// takes over.
func oldLogPhi(x float64) float64 {
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

// log1mQ is log(1 - q) for 0 <= q < 0.04.
func log1mQ(q float64) float64 {
	if q < 1e-3 {
		// the series of log1p(-q) to q^5: the next term is below
		// q^6/6 < 2e-19, far under the rounding of the result
		return -q * (1 + q*(0.5+q*(1.0/3+q*(0.25+q*0.2))))
	}
	return math.Log1p(-q)
}

// oldInvMills is d/dx log Phi(x) = phi(x)/Phi(x), computed stably.
func oldInvMills(x float64) float64 {
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

// oldLog1pExp is log(1 + exp(x)) without overflow.
func oldLog1pExp(x float64) float64 {
	if x > 35 {
		return x
	}
	if x < -35 {
		return math.Exp(x)
	}
	return math.Log1p(math.Exp(x))
}
