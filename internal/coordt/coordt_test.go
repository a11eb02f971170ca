package coordt

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCoordTDensity: T's density integrates to one on a grid (a
// correlated 2-D one with df 3), LogQ at a draw equals LogQNoise from the
// coordinates Sample wrote, and the draws' sample means and sds match
// Moments within five of their standard errors (df 8, whose kurtosis is
// finite: 4.5).
func TestCoordTDensity(t *testing.T) {
	mean := []float64{1, -2}
	cov := []float64{4, 1.2, 1.2, 1}
	c := New(mean, cov, 3, 1.2)
	require.NotNil(t, c)
	const h, lim = 0.05, 60.0
	total := 0.0
	x := make([]float64, 2)
	for a := -lim; a < lim; a += h {
		for b := -lim; b < lim; b += h {
			x[0], x[1] = mean[0]+a, mean[1]+b
			total += math.Exp(c.LogQ(x)) * h * h
		}
	}
	require.InDelta(t, 1, total, 2e-3, "the density integrates to %.5f", total)

	rng := rand.New(rand.NewPCG(1, 2))
	c = New(mean, cov, 8, 1.2)
	const n = 40000
	z, eps := make([]float64, 2), make([]float64, 2)
	var s, ss [2]float64
	for range n {
		c.Sample(rng, z, eps)
		require.InDelta(t, c.LogQ(z), c.LogQNoise(z, eps), 1e-9)
		for k := range 2 {
			s[k] += z[k]
			ss[k] += z[k] * z[k]
		}
	}
	wantMean, wantSD := make([]float64, 2), make([]float64, 2)
	c.Moments(wantMean, wantSD)
	require.InDelta(t, 1.2*2, wantSD[0], 1e-12) // 1.2 times the covariance's sds
	require.InDelta(t, 1.2*1, wantSD[1], 1e-12)
	for k := range 2 {
		m := s[k] / n
		sd := math.Sqrt(ss[k]/n - m*m)
		require.InDelta(t, wantMean[k], m, 5*wantSD[k]/math.Sqrt(n), "mean %d", k)
		require.InDelta(t, wantSD[k], sd, 5*wantSD[k]*math.Sqrt((4.5-1)/(4*n)), "sd %d", k)
	}
	require.Nil(t, New(mean, []float64{1, 2, 2, 1}, 3, 1)) // not positive definite
}
