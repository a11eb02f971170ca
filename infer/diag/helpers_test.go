package diag

import (
	"math"
	"math/rand/v2"
)

// normalChains returns c chains of n i.i.d. N(mean[c], scale[c]^2) draws.
func normalChains(seed uint64, c, n int, mean, scale []float64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([][]float64, c)
	for i := range out {
		out[i] = make([]float64, n)
		for j := range out[i] {
			m, s := 0.0, 1.0
			if mean != nil {
				m = mean[i]
			}
			if scale != nil {
				s = scale[i]
			}
			out[i][j] = m + s*rng.NormFloat64()
		}
	}
	return out
}

// ar1Chains returns c stationary AR(1) chains x_t = phi x_{t-1} + e_t.
func ar1Chains(seed uint64, c, n int, phi float64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([][]float64, c)
	for i := range out {
		out[i] = make([]float64, n)
		x := rng.NormFloat64() / math.Sqrt(1-phi*phi)
		for j := range out[i] {
			x = phi*x + rng.NormFloat64()
			out[i][j] = x
		}
	}
	return out
}

// normalLogRatios returns the log ratios log N(x|0,s2) - log N(x|0,1) for
// s draws x ~ N(0, 1).
func normalLogRatios(seed uint64, s int, s2 float64) (x, lr []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	x, lr = make([]float64, s), make([]float64, s)
	for i := range x {
		x[i] = rng.NormFloat64()
		lr[i] = -x[i]*x[i]/(2*s2) - 0.5*math.Log(s2) + x[i]*x[i]/2
	}
	return x, lr
}

func relErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300)
}
