package resample

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMultinomialCountMatchesMerge: for few particles multinomial counts
// the cumulative weights below each uniform; the draws are those of the
// merge, edge cases (zero weights, one particle, no draw) included.
func TestMultinomialCountMatchesMerge(t *testing.T) {
	merge := func(rng *rand.Rand, w []float64, out []int32) {
		n := len(out)
		u := make([]float64, n+1)
		s := 0.0
		for i := range u {
			s += rng.ExpFloat64()
			u[i] = s
		}
		j, c := 0, w[0]
		for i := 0; i < n; i++ {
			x := u[i] / u[n]
			for x >= c && j < len(w)-1 {
				j++
				c += w[j]
			}
			out[i] = int32(j)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for rep := 0; rep < 200000; rep++ {
		n := 1 + rng.IntN(smallN)
		w := make([]float64, n)
		s := 0.0
		for i := range w {
			if rng.IntN(4) > 0 {
				w[i] = rng.ExpFloat64() * rng.ExpFloat64()
			}
			s += w[i]
		}
		if s == 0 {
			w[rng.IntN(n)], s = 1, 1
		}
		for i := range w {
			w[i] /= s
		}
		m := rng.IntN(n + 1)
		o1, o2 := make([]int32, m), make([]int32, m)
		seed := rng.Uint64()
		merge(rand.New(rand.NewPCG(seed, 1)), w, o1)
		Multinomial(rand.New(rand.NewPCG(seed, 1)), w, o2, make([]float64, 2*n))
		require.Equal(t, o1, o2, "weights %v", w)
	}
}

// TestNormaliseAndLogMeanExp: exact values, and the degenerate cases
// reported rather than divided by zero.
func TestNormaliseAndLogMeanExp(t *testing.T) {
	for _, c := range []struct {
		name         string
		logw, w      []float64
		logMean, ess float64
		ok, stepUnif bool
	}{
		{"two", []float64{math.Log(1), math.Log(3)}, []float64{0.25, 0.75}, math.Log(2), 1 / (0.25*0.25 + 0.75*0.75), true, false},
		{"all -Inf", []float64{math.Inf(-1), math.Inf(-1)}, []float64{0.5, 0.5}, math.Inf(-1), 0, false, true},
		{"NaN", []float64{0, math.NaN()}, []float64{0.5, 0.5}, math.NaN(), 0, false, true},
	} {
		w := make([]float64, len(c.logw))
		logMean, ess, ok := Normalise(c.logw, w)
		require.Equal(t, c.ok, ok, c.name)
		if ok {
			require.InDeltaSlice(t, c.w, w, 1e-15, c.name)
			require.InDelta(t, c.logMean, logMean, 1e-15, c.name)
			require.InDelta(t, c.ess, ess, 1e-12, c.name)
		}
		_, ess, ok = NormaliseStep(c.logw, w)
		require.Equal(t, c.ok, ok, c.name)
		if c.stepUnif {
			require.Equal(t, c.w, w, "%s: uniform weights so that a sweep can end", c.name)
			require.Zero(t, ess)
		}
	}
	m, se := LogMeanExpSE([]float64{math.Log(1), math.Log(3)})
	require.InDelta(t, math.Log(2), m, 1e-15)
	require.InDelta(t, 0.5, se, 1e-15) // sqrt(((1-2)^2 + (3-2)^2) / 1 / 2) / 2
}
