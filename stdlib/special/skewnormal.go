package special

import "math"

// The log CDF of the standard skew normal distribution (LogSkewNormalCDF;
// package stdlib's skew_normal_lcdf, _lccdf and _cdf of (y, xi, omega,
// alpha) at z = (y - xi)/omega), through Owen's T function written so
// that every CDF is a sum of positive terms, never a difference (so both
// tails keep their relative accuracy):
//
//	alpha <= 0:  F(z) = Phi(z) + 2 T(z, -alpha),
//	             T(h, a) = 1/(2 pi) int_0^atan(a) exp(-h^2 / (2 cos^2 t)) dt;
//	alpha > 0:   F(z) = max(0, erf(z / sqrt 2)) + J(z, alpha) / pi,
//	             J(z, a) = int_0^atan(1/a) exp(-z^2 / (2 sin^2 t)) dt,
//
// (the second is T(z, inf) - T(z, alpha), with T(z, inf) = Phi(-|z|)/2, in
// Craig's form), and 1 - F(z; alpha) = F(-z; -alpha), so that a caller
// takes log(1 - F) from F(-z; -alpha) directly while it is below log(1/2).
// The integrals are composite Gauss-Legendre rules (skewGLN nodes a panel,
// logCotIntegral) in log space, on the range where the integrand exceeds
// e^-40 of its largest value; far in the tail of alpha > 0 (z and alpha z
// below -100), where that range underflows, the asymptotic series of
// logSkewFarTail.

const skewGLN = 20

var skewGLX, skewGLW = gaussLegendre(skewGLN)

// gaussLegendre returns the nodes and weights of the n-point
// Gauss-Legendre rule on [-1, 1] (Newton's method on P_n).
func gaussLegendre(n int) ([]float64, []float64) {
	x, w := make([]float64, n), make([]float64, n)
	for i := 0; i < (n+1)/2; i++ {
		r := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for it := 0; it < 100; it++ {
			p0, p1 := 1.0, r
			for k := 2; k <= n; k++ {
				p0, p1 = p1, ((2*float64(k)-1)*r*p1-(float64(k)-1)*p0)/float64(k)
			}
			dp = float64(n) * (r*p1 - p0) / (r*r - 1)
			dr := p1 / dp
			r -= dr
			if math.Abs(dr) < 1e-16 {
				break
			}
		}
		p0, p1 := 1.0, r
		for k := 2; k <= n; k++ {
			p0, p1 = p1, ((2*float64(k)-1)*r*p1-(float64(k)-1)*p0)/float64(k)
		}
		dp = float64(n) * (r*p1 - p0) / (r*r - 1)
		x[i], x[n-1-i] = -r, r
		w[i] = 2 / ((1 - r*r) * dp * dp)
		w[n-1-i] = w[i]
	}
	return x, w
}

// logOwenT is log T(h, a) for a >= 0: with t = pi/2 - theta,
// T = exp(-h^2/2)/(2 pi) int_(atan(1/a))^(pi/2) exp(-h^2 cot^2(t) / 2) dt.
func logOwenT(h, a float64) float64 {
	if a == 0 {
		return negInf
	}
	h2 := h * h
	return -0.5*h2 - math.Log(2*math.Pi) + logCotIntegral(h2, 0, math.Atan(1/a), math.Pi/2)
}

// logCraigJ is log J(z, a) for a > 0: exp(-z^2 (1 + a^2)/2) times
// int_0^atan(1/a) exp(-z^2 (cot^2(t) - a^2) / 2) dt.
func logCraigJ(z, a float64) float64 {
	z2 := z * z
	return -0.5*z2*(1+a*a) + logCotIntegral(z2, a, 0, math.Atan(1/a))
}

// logCotIntegral is log int_lo^hi exp(-k (cot^2(t) - c^2) / 2) dt for
// k >= 0 and cot(hi) >= c >= 0, an increasing integrand whose largest
// value, at hi, is at most 1. Below the point where it is e^-40 (cot(t)^2
// = c^2 + 80/k) it is left out; from there to hi, Gauss-Legendre panels
// whose lengths grow fourfold away from 0, where exp(-k cot^2(t)/2) has
// its essential singularity, so that each panel is as long as its distance
// to it (a fixed rule on the whole range loses digits for small k).
func logCotIntegral(k, c, lo, hi float64) float64 {
	if k > 0 {
		lo = math.Max(lo, math.Atan(1/math.Sqrt(c*c+80/k)))
	}
	if lo == 0 || k == 0 {
		return math.Log(hi - lo) // the integrand is 1
	}
	// below hi * 1e-17 the integrand adds less than 1e-17 of the integral
	lo = math.Max(lo, hi*1e-17)
	s := 0.0
	for a := lo; a < hi; a *= 4 {
		b := math.Min(4*a, hi)
		if b > hi/(1+1e-12) {
			b = hi
		}
		m, r := 0.5*(a+b), 0.5*(b-a)
		p := 0.0
		for i, x := range skewGLX {
			ct := 1 / math.Tan(m+r*x)
			p += skewGLW[i] * math.Exp(-0.5*k*(ct-c)*(ct+c))
		}
		s += r * p
		if b == hi {
			break
		}
	}
	return math.Log(s)
}

// LogSkewNormalCDF is log F(z; alpha), the CDF of the standard skew
// normal distribution (density 2 phi(z) Phi(alpha z)); 1 - F(z; alpha) is
// F(-z; -alpha).
func LogSkewNormalCDF(z, al float64) float64 {
	if al > 0 && z < -skewAsymFrom && al*z < -skewAsymFrom {
		return logSkewFarTail(-z, al)
	}
	if al <= 0 {
		return logAddExp(LogPhi(z), math.Ln2+logOwenT(z, -al))
	}
	j := logCraigJ(z, al) - math.Log(math.Pi)
	if z > 0 {
		return logAddExp(math.Log(math.Erf(z/math.Sqrt2)), j)
	}
	return j
}

// skewAsymFrom is where logSkewFarTail takes over from the quadrature:
// both a = -z and alpha a beyond it.
const skewAsymFrom = 100

// logSkewFarTail is log F(-a; alpha) for alpha > 0 and a, alpha a >=
// skewAsymFrom (where the quadrature's integrand underflows), by the
// asymptotic series: with Phi(-alpha u) = phi(alpha u)/(alpha u) *
// sum_k c_k (alpha u)^(-2k) (c = 1, -1, 3, -15, ...) and
// int_a^inf u^(-2k-1) e^(-q u^2/2) du = e^(-q a^2/2) / (q a^(2k+2)) *
// sum_m (-1)^m (k+1)...(k+m) (2/(q a^2))^m, q = 1 + alpha^2,
//
//	F(-a) = e^(-q a^2/2) / (pi alpha q a^2) sum_k sum_m c_k (alpha a)^(-2k) (-1)^m (k+1)_m (2/(q a^2))^m,
//
// truncated at k, m <= 5 (the terms left out are below 1e-17 here).
func logSkewFarTail(a, al float64) float64 {
	q := 1 + al*al
	x := 1 / (al * a * al * a) // (alpha a)^-2
	y := 2 / (q * a * a)
	sum, ck, xk := 0.0, 1.0, 1.0
	for k := 0; k <= 5; k++ {
		inner, term := 0.0, 1.0
		for m := 0; m <= 5; m++ {
			inner += term
			term *= -float64(k+m+1) * y
		}
		sum += ck * xk * inner
		ck *= -float64(2*k + 1)
		xk *= x
	}
	return -0.5*q*a*a - math.Log(math.Pi*al*q) - 2*math.Log(a) + math.Log(sum)
}

// logAddExp is log(exp(a) + exp(b)), b = -Inf included.
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}
