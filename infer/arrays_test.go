package infer

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestArrayLatentsPosterior: array latents with constraints, whose
// posterior is the prior, against its exact moments: array[3]
// real<lower=0> with exponential(2) priors (mean and sd 1/2) and
// array[2] simplex[3] with Dirichlet priors (means alpha / sum(alpha)).
// The summaries name the elements theta[1] and p[2,3].
func TestArrayLatentsPosterior(t *testing.T) {
	for _, c := range []struct {
		name, src string
		mean, sd  map[string]float64
	}{
		{"exponential", "latent { theta: array[3] real<lower=0> }\nmodel { theta ~ exponential(2) }\n",
			map[string]float64{"theta[1]": 0.5, "theta[2]": 0.5, "theta[3]": 0.5},
			map[string]float64{"theta[1]": 0.5, "theta[2]": 0.5, "theta[3]": 0.5}},
		{"dirichlet", "latent { p: array[2] simplex[3] }\nmodel {\n  p[1] ~ dirichlet(to_vector({1.0, 2.0, 3.0}))\n  p[2] ~ dirichlet(to_vector({4.0, 1.0, 1.0}))\n}\n",
			map[string]float64{"p[1,1]": 1.0 / 6, "p[1,2]": 2.0 / 6, "p[1,3]": 3.0 / 6, "p[2,1]": 4.0 / 6, "p[2,2]": 1.0 / 6, "p[2,3]": 1.0 / 6},
			// sd of a Dirichlet component: sqrt(a (A - a) / (A^2 (A + 1))), A = 6
			map[string]float64{"p[1,1]": math.Sqrt(5.0 / 252), "p[1,2]": math.Sqrt(8.0 / 252), "p[1,3]": math.Sqrt(9.0 / 252), "p[2,1]": math.Sqrt(8.0 / 252), "p[2,2]": math.Sqrt(5.0 / 252), "p[2,3]": math.Sqrt(5.0 / 252)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := LoadSource("a.msc", []byte(c.src), "")
			require.NoError(t, err)
			f, err := Fit(context.Background(), m, Options{Seed: 1})
			require.NoError(t, err)
			s := f.Summary
			require.Len(t, s.Latent, len(c.mean))
			for name, want := range c.mean {
				got, ok := s.Latent[name]
				require.True(t, ok, "no summary of %s: %v", name, s.LatentOrder)
				tol := math.Max(4*float64(got.MCSE), 0.01)
				require.InDelta(t, want, got.Mean, tol, "mean of %s", name)
				require.InDelta(t, c.sd[name], got.SD, 0.1*c.sd[name], "sd of %s", name)
			}
		})
	}
}

// TestLotkaVolterraWithoutODERuns: posteriordb's Lotka-Volterra model,
// all but the ODE solver call, loads its data.json unchanged and runs;
// the summaries name the array latents' elements.
func TestLotkaVolterraWithoutODERuns(t *testing.T) {
	src, err := os.ReadFile("../ir/lower/testdata/lotka_volterra.msc")
	require.NoError(t, err)
	m, err := LoadSource("lotka_volterra.msc", src, "../ir/lower/testdata/lotka_volterra.json")
	require.NoError(t, err)
	f, err := Fit(context.Background(), m, Options{Seed: 1, Iters: 2000, Fixed: true})
	require.NoError(t, err)
	require.Equal(t, []string{"theta[1]", "theta[2]", "theta[3]", "theta[4]", "z_init[1]", "z_init[2]", "sigma[1]", "sigma[2]"}, f.Summary.LatentOrder)
	for _, name := range f.Summary.LatentOrder {
		require.Greater(t, f.Summary.Latent[name].Mean, 0.0, name)
	}
}
