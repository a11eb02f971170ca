package stdlib

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRegistryEntries: every distribution of the registry has a doc line;
// a multivariate one has one shape per parameter and an op of its name; a
// scalar one has a log density, a gradient that matches central finite
// differences of it (in y for continuous ones and in every real
// parameter) at a point of its domain, and a sampler whose draws are in
// its support. A new entry is checked without a test of its own.
func TestRegistryEntries(t *testing.T) {
	domainPoint := map[Domain]float64{RealLine: 0.3, Positive: 1.7, NonNegative: 1.2, Unit: 0.35, Binary: 1, NonNegInt: 3}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range FamilyNames() {
		f, _ := Lookup(n)
		require.NotEmpty(t, f.Doc, n)
		switch {
		case f.Vec != nil:
			require.Len(t, f.Vec.Params, len(f.Params), n)
			require.Equal(t, n, f.Vec.New(3).Name(), n)
			continue
		case f.GLMOf != "":
			_, ok := Lookup(f.GLMOf)
			require.True(t, ok, n)
			continue
		}
		require.NotNil(t, f.LogPdf, n)
		require.NotNil(t, f.Grad, n)
		require.NotNil(t, f.Rand, n)
		require.Same(t, f.LogDensity(), func() *NaryFunc { d, _ := LogDensityFunc(n); return d }(), n)
		p := make([]float64, len(f.Params))
		for i, ps := range f.Params {
			p[i] = domainPoint[ps.Domain]
		}
		x := domainPoint[f.Support]
		switch n {
		case "uniform":
			p = []float64{0, 2}
		case "pareto":
			x = 2.5
		}
		dp := make([]float64, len(p))
		lp, dx := f.Grad(x, p, dp)
		require.False(t, math.IsInf(lp, 0) || math.IsNaN(lp), "%s(%g | %v) = %g", n, x, p, lp)
		relClose(t, f.LogPdf(x, p), lp, 1e-12, "%s: LogPdf and Grad", n)
		if !f.Discrete {
			h := 1e-6
			relClose(t, (f.LogPdf(x+h, p)-f.LogPdf(x-h, p))/(2*h), dx, 1e-6, "%s d/dy", n)
		}
		for i, ps := range f.Params {
			if ps.Domain == NonNegInt || ps.Domain == Binary {
				continue
			}
			pp, pm := append([]float64(nil), p...), append([]float64(nil), p...)
			pp[i] += 1e-6
			pm[i] -= 1e-6
			relClose(t, (f.LogPdf(x, pp)-f.LogPdf(x, pm))/2e-6, dp[i], 1e-6, "%s d/d%s", n, ps.Name)
		}
		for range 20 {
			y := f.Rand(rng, p)
			require.False(t, math.IsInf(f.LogPdf(y, p), -1), "%s: a draw %g outside the support", n, y)
		}
	}
}
