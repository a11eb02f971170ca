package special

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The implementations of Phi, LogPhi and InvMills before issue 12, kept
// as references for the faster ones (erfcTail and logErfcTailT are
// unchanged in value).

func refPhi(x float64) float64 { return 0.5 * math.Erfc(-x*invSqrt2) }

func refLogPhi(x float64) float64 {
	t := -x * invSqrt2
	switch {
	case math.IsNaN(x):
		return x
	case t >= 26:
		z := 1 / (x * x)
		s := 1 - z*(1-z*(3-z*(15-z*(105-z*945))))
		return -0.5*x*x - math.Log(-x) - LnSqrt2Pi + math.Log(s)
	case t >= 1.25:
		return (logErfcTailT(t) - math.Log(t)) - math.Ln2
	case t > -1.25:
		return math.Log(0.5 * math.Erfc(t))
	case t > -26:
		q := 0.5 * erfcTail(-t)
		if q < 1e-3 {
			return -q * (1 + q*(0.5+q*(1.0/3+q*(0.25+q*0.2))))
		}
		return math.Log1p(-q)
	}
	return 0
}

func refInvMills(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x > -20:
		return math.Exp(-0.5*x*x-LnSqrt2Pi) / (0.5 * math.Erfc(-x*invSqrt2))
	}
	z := 1 / (x * x)
	s := 1 - z*(1-z*(3-z*(15-z*(105-z*945))))
	return -x / s
}

// relErr is |got-want|/|want|, 0 when both are equal (including both
// NaN or the same infinity), and the absolute error when |want| < 1e-300.
func relErr(got, want float64) float64 {
	if got == want || (math.IsNaN(got) && math.IsNaN(want)) {
		return 0
	}
	if math.IsNaN(got) || math.IsNaN(want) || math.IsInf(got, 0) || math.IsInf(want, 0) {
		return math.Inf(1)
	}
	d := math.Abs(got - want)
	if math.Abs(want) < 1e-300 {
		if d < 1e-300 {
			return 0
		}
		return d
	}
	return d / math.Abs(want)
}

// millsTol is the tolerance of InvMills against the reference. On
// (-20, -1.77] the new InvMills cancels the exp(-x^2/2) of phi and of
// erfc analytically, while the reference rounds x*x/2 in the argument of
// its exp: the reference itself is off by up to about x^2/2 ulps there.
//
// Since the table-driven functions of fast.go (which are within 2.1e-15 of
// 80-digit values, TestFastAgainstMpmath), the tolerances also allow for
// the references' own errors elsewhere: on the right, the rounding of
// x^2/2 in the exp of phi, as on the left; at and below x = -20 their
// asymptotic series stops before the term 10395/x^12 (2.5e-12 at -20).
func millsTol(x float64) float64 {
	if x <= -20 {
		z := 1 / (x * x)
		return 1e-14 + 2*10395*z*z*z*z*z*z
	}
	return 1e-14 + 2*0.5*x*x*0x1p-52
}

// refTol is the tolerance of Phi and LogPhi against the references: the
// references round t = -x/sqrt(2) before erfc, which moves erfc(t) by
// 2 t^2 = x^2 ulps relative.
func refTol(x float64) float64 { return 1e-14 + 2*x*x*0x1p-52 }

func specialPoints() []float64 {
	xs := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
		1e-300, -1e-300, 1e3, -1e3, 1e10, -1e10, 1e300, -1e300, math.MaxFloat64, -math.MaxFloat64,
		-20, -20 + 1e-12, -20 - 1e-12, -26 / invSqrt2, -1.25 / invSqrt2, 1.25 / invSqrt2,
		0.84375 / invSqrt2, -0.84375 / invSqrt2, 0.25 / invSqrt2, -0.25 / invSqrt2,
		5.9 / invSqrt2, 26 / invSqrt2, 28 / invSqrt2, -28 / invSqrt2, 1 / 0.35 / invSqrt2, -1 / 0.35 / invSqrt2,
		36.77, 36.78, 38, 38.5, 39, 40, 45, -36.77, -36.78, -40, -45, -100, 100}
	n := len(xs)
	for i := 0; i < n; i++ {
		xs = append(xs, math.Nextafter(xs[i], math.Inf(1)), math.Nextafter(xs[i], math.Inf(-1)))
	}
	// dense grid on [-45, 45]
	for i := -450000; i <= 450000; i++ {
		xs = append(xs, float64(i)*1e-4)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for i := 0; i < 1000000; i++ {
		xs = append(xs, -40+80*rng.Float64())
	}
	return xs
}

func TestSpecialMatchesReference(t *testing.T) {
	var worst [3]float64
	var at [3]float64
	note := func(k int, x, e float64) {
		if e > worst[k] {
			worst[k], at[k] = e, x
		}
	}
	for _, x := range specialPoints() {
		if e := relErr(Phi(x), refPhi(x)); e > refTol(x) {
			t.Fatalf("Phi(%v) = %v, want %v (rel %g)", x, Phi(x), refPhi(x), e)
		} else {
			note(0, x, e)
		}
		if e := relErr(LogPhi(x), refLogPhi(x)); e > refTol(x) {
			t.Fatalf("LogPhi(%v) = %v, want %v (rel %g)", x, LogPhi(x), refLogPhi(x), e)
		} else {
			note(1, x, e)
		}
		if e := relErr(InvMills(x), refInvMills(x)); e > millsTol(x) {
			t.Fatalf("InvMills(%v) = %v, want %v (rel %g)", x, InvMills(x), refInvMills(x), e)
		} else {
			note(2, x, e)
		}
	}
	for k, name := range []string{"Phi", "LogPhi", "InvMills"} {
		t.Logf("%s: worst relative difference from the reference %.3g at x = %v", name, worst[k], at[k])
	}
}
