package special

import "math"

// Digamma is the derivative of lgamma, accurate to a few ulps (gonum's
// mathext.Digamma stops its series early, with errors near 1e-11 that
// jump at the integers and spoil finite-difference checks of it). It is
// NaN at 0 and the negative integers.
func Digamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case math.IsInf(x, -1):
		return math.NaN()
	case x <= 0:
		if x == math.Trunc(x) {
			return math.NaN()
		}
		// reflection: psi(1 - x) - psi(x) = pi cot(pi x)
		return Digamma(1-x) - math.Pi/math.Tan(math.Pi*x)
	}
	acc := 0.0
	for x < 10 {
		acc -= 1 / x
		x++
	}
	// psi(x) = log x - 1/(2x) - sum B_2k / (2k x^2k)
	z := 1 / (x * x)
	s := z * (1.0/12 - z*(1.0/120-z*(1.0/252-z*(1.0/240-z*(1.0/132-z*(691.0/32760-z/12))))))
	return acc + math.Log(x) - 0.5/x - s
}

// Trigamma is the derivative of digamma.
func Trigamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, -1):
		return math.NaN()
	case math.IsInf(x, 1):
		return 0
	case x <= 0:
		if x == math.Trunc(x) {
			return math.Inf(1)
		}
		// reflection: psi1(1 - x) + psi1(x) = pi^2 / sin^2(pi x)
		s := math.Sin(math.Pi * x)
		return math.Pi*math.Pi/(s*s) - Trigamma(1-x)
	}
	acc := 0.0
	for x < 8 {
		acc += 1 / (x * x)
		x++
	}
	// asymptotic series: 1/x + 1/(2x^2) + sum B_2k / x^(2k+1)
	z := 1 / (x * x)
	s := z * (1.0/6 - z*(1.0/30-z*(1.0/42-z*(1.0/30-z*(5.0/66-z*(691.0/2730-z*7.0/6))))))
	return acc + 1/x + 0.5*z + s/x
}
