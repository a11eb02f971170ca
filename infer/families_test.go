package infer

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPriorOnlyFamilies: a model of independent latents with the families
// of stdlib/dist_extra.go as priors and no data has those priors as its
// posterior; the default run reports their exact means and sds (within 0.1
// sd and 10%) and says converged.
func TestPriorOnlyFamilies(t *testing.T) {
	const src = `latent {
  u: real<lower=-1, upper=3>
  c: real<lower=0>
  g: real
  r: real<lower=0>
  n: vector[2]
}
model {
  u ~ uniform(-1, 3)
  c ~ chi_square(6)
  g ~ gumbel(1, 2)
  r ~ rayleigh(1.5)
  n ~ std_normal()
  target += std_normal_lpdf(n[2])
}
`
	const euler = 0.5772156649015329
	exact := map[string][2]float64{
		"u":    {1, 4 / math.Sqrt(12)},
		"c":    {6, math.Sqrt(12)},
		"g":    {1 + 2*euler, 2 * math.Pi / math.Sqrt(6)},
		"r":    {1.5 * math.Sqrt(math.Pi/2), 1.5 * math.Sqrt((4-math.Pi)/2)},
		"n[1]": {0, 1},
		"n[2]": {0, 1 / math.Sqrt2},
	}
	m, err := LoadSource("families.msc", []byte(src), "")
	require.NoError(t, err)
	f, err := Fit(context.Background(), m, Options{Seed: 1})
	require.NoError(t, err)
	s := f.Summary
	require.True(t, s.Converged, "%v", s.Warnings)
	for name, want := range exact {
		got := s.Latent[name]
		t.Logf("%s: mean %.4f (exact %.4f), sd %.4f (exact %.4f)", name, got.Mean, want[0], got.SD, want[1])
		require.InDelta(t, want[0], got.Mean, 0.1*want[1], name)
		require.InDelta(t, want[1], got.SD, 0.1*want[1], name)
	}
}
