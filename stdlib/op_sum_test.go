package stdlib

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mscppl/mscppl/stdlib/special"
)

// blockSum is the summed probit or logit density as SumLogDensity defined
// it before its sums overlapped the next block: blocks of 256, the slice
// function, then the block's sum, in order.
func blockSum(logit bool, x, eta []float64) float64 {
	n := max(len(x), len(eta))
	sign := 1.0
	if logit {
		sign = -1
	}
	s := 0.0
	for lo := 0; lo < n; lo += 256 {
		b := make([]float64, min(n, lo+256)-lo)
		for k := range b {
			b[k] = sign * (2*bc(x, lo+k) - 1) * bc(eta, lo+k)
		}
		if logit {
			special.Log1pExpSlice(b, b)
			for _, v := range b {
				s -= v
			}
		} else {
			special.LogPhiSlice(b, b)
			for _, v := range b {
				s += v
			}
		}
	}
	return s
}

// TestSumLogDensityBinaryOrder: the probit and logit sums are the same bits
// as a block's sum after the block (the order of the additions is kept),
// at lengths around the block size and with a broadcast outcome or
// predictor.
func TestSumLogDensityBinaryOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, name := range []string{"bernoulli_probit", "bernoulli_logit"} {
		f, _ := Lookup(name)
		op := NewSumLogDensity(f)
		for _, n := range []int{1, 2, 255, 256, 257, 511, 512, 513, 1000, 100003} {
			x, eta := make([]float64, n), make([]float64, n)
			for i := range x {
				x[i], eta[i] = float64(rng.IntN(2)), 3*rng.NormFloat64()
			}
			for _, in := range [][][]float64{{x, eta}, {x[:1], eta}, {x, eta[:1]}} {
				var out [1]float64
				op.Forward(out[:], in)
				want := blockSum(name == "bernoulli_logit", in[0], in[1])
				if math.Float64bits(out[0]) != math.Float64bits(want) {
					t.Fatalf("%s, n = %d, lengths %d and %d: %v, want %v", name, n, len(in[0]), len(in[1]), out[0], want)
				}
			}
		}
	}
}

// BenchmarkSumLogDensityLogit100k: the logit likelihood of 100000 rows, a
// PSIS draw's (or a CIS sample's) term of a large logistic regression.
func BenchmarkSumLogDensityLogit100k(b *testing.B) {
	benchSumLogDensity(b, "bernoulli_logit", 100000)
}

// benchSumLogDensity times the summed log density of family name over n
// binary outcomes with linear predictors of sd 2 (a fixed seed).
func benchSumLogDensity(b *testing.B, name string, n int) {
	f, _ := Lookup(name)
	op := NewSumLogDensity(f)
	x, eta := make([]float64, n), make([]float64, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range x {
		x[i] = float64(rng.IntN(2))
		eta[i] = 2 * rng.NormFloat64()
	}
	in := [][]float64{x, eta}
	var out [1]float64
	b.ReportAllocs()
	for b.Loop() {
		op.Forward(out[:], in)
	}
}

// TestSumLogDensityProbitBackwardMatchesGrad: the gradient of the summed
// bernoulli_probit density (its slice path) is, element for element and
// to the bit, that of the family's scalar Grad, on arguments in both tails,
// infinite and NaN.
func TestSumLogDensityProbitBackwardMatchesGrad(t *testing.T) {
	f, _ := Lookup("bernoulli_probit")
	op := NewSumLogDensity(f)
	x := []float64{1, 0, 1, 0, 1, 0, 0.5, 1, 0, 1}
	eta := []float64{0.3, -2, 25, -25, -40, 40, 1, math.Inf(1), math.NaN(), -1e3}
	dx, deta := make([]float64, len(x)), make([]float64, len(x))
	op.Backward(nil, []float64{2}, [][]float64{x, eta}, [][]float64{dx, deta})
	dp := make([]float64, 1)
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for i := range x {
		_, gx := f.Grad(x[i], []float64{eta[i]}, dp)
		if !same(dx[i], 2*gx) || !same(deta[i], 2*dp[0]) {
			t.Fatalf("element %d: got %v, %v; Grad gives %v, %v", i, dx[i], deta[i], 2*gx, 2*dp[0])
		}
	}
}
