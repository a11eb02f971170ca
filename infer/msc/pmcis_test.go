package msc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPMCISTune checks the choice of N on the unit-scale local level with T = 80
// (sq = 0.3, sr = 0.5, y simulated): at the starting 32 particles
// the variance of log Zhat is far above 1, and at the N tune chooses a
// separate measure over 100 filters puts it near 1. tune stops once its
// 16-filter estimate lies in [0.5, 2]; that estimate is within a factor
// 0.23 to 2.5 of the truth with probability 0.998 (chi-square with 15
// degrees of freedom), so the true variance lies in [0.2, 8.7]; the bounds
// allow the 100-filter estimate's own 14% error.
func TestPMCISTune(t *testing.T) {
	m := newGewekeLL(gewekeScales[0], 80)
	rng := rand.New(rand.NewPCG(5, 33))
	z := make([]float64, m.Dim())
	z[0], z[1] = math.Log(0.3), math.Log(0.5)
	m.fixed = true
	m.samplePrior(rng, z)
	m.sampleData(rng, z)
	k := pmcisFor(t, m, 10)
	copy(k.cur, z)
	k.getTheta(k.cur, k.theta)
	k.ss.SetStatics(k.theta)
	variance := func(n int) float64 {
		require.NoError(t, k.setParticles(n))
		ls := make([]float64, 100)
		for r := range ls {
			require.True(t, k.pf.Sweep(rng, false))
			ls[r] = k.pf.LogZ
		}
		mean, v := 0.0, 0.0
		for _, l := range ls {
			mean += l / float64(len(ls))
		}
		for _, l := range ls {
			v += (l - mean) * (l - mean) / float64(len(ls)-1)
		}
		return v
	}
	v32 := variance(pmStartParticles)
	require.NoError(t, k.setParticles(pmStartParticles))
	require.NoError(t, k.tune(rng, "the test's theta", k.maxParticles()))
	n := k.Particles()
	vn := variance(n)
	t.Logf("var log Zhat: %.3g at N = %d; tune chose N = %d, var %.3g; %s", v32, pmStartParticles, n, vn, k.Notes()[0])
	require.Greater(t, v32, 10.0, "the test needs a variance far above 1 at the start")
	require.True(t, vn > 0.17 && vn < 10, "the variance at the chosen N = %d is %.3g, not about 1", n, vn)
}
