package stdlib

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNarySliceSameBits: the slice paths of log_mix and normal_lpdf give
// the bits of their elementwise Eval, on inputs with NaN, infinities,
// theta at 0 and 1, sd invalid (the slice path declines), broadcast
// arguments and lengths across the block size.
func TestNarySliceSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -800, 800}
	vec := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			if rng.IntN(10) == 0 {
				v[i] = special[rng.IntN(len(special))]
			} else {
				v[i] = 30 * rng.NormFloat64()
			}
		}
		return v
	}
	normal, _ := lookupNary("normal_lpdf")
	for _, c := range []struct {
		f    *NaryFunc
		name string
		args func(n int) [][]float64
	}{
		{LogMixFunc, "log_mix", func(n int) [][]float64 {
			return [][]float64{{rng.Float64()}, vec(n), vec(n)}
		}},
		{LogMixFunc, "log_mix theta 0", func(n int) [][]float64 { return [][]float64{{0}, vec(n), vec(n)} }},
		{LogMixFunc, "log_mix theta 1", func(n int) [][]float64 { return [][]float64{{1}, vec(n), vec(1)} }},
		{LogMixFunc, "log_mix theta out of range", func(n int) [][]float64 { return [][]float64{{1.5}, vec(n), vec(n)} }},
		{normal, "normal_lpdf", func(n int) [][]float64 { return [][]float64{vec(n), vec(1), {0.5 + rng.Float64()}} }},
		{normal, "normal_lpdf vector mu", func(n int) [][]float64 { return [][]float64{vec(n), vec(n), {2}} }},
		{normal, "normal_lpdf sd 0", func(n int) [][]float64 { return [][]float64{vec(n), vec(1), {0}} }},
		{normal, "normal_lpdf sd NaN", func(n int) [][]float64 { return [][]float64{vec(n), vec(1), {math.NaN()}} }},
	} {
		for _, n := range []int{2, 3, 255, 256, 257, 1000} {
			in := c.args(n)
			got, want := make([]float64, n), make([]float64, n)
			NewNaryOp(c.f).Forward(got, in)
			x := make([]float64, len(in))
			for i := range want {
				for j := range in {
					x[j] = bc(in[j], i)
				}
				want[i] = c.f.Eval(x)
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
					t.Fatalf("%s n = %d: element %d = %v, elementwise %v (args %v)", c.name, n, i, got[i], want[i], func() []float64 {
						for j := range in {
							x[j] = bc(in[j], i)
						}
						return x
					}())
				}
			}
		}
	}
}
