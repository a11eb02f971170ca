package infer

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/internal/exact"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer/msc"
)

// TestLaplaceConjugate: on the conjugate normal mean model the log joint is
// exactly quadratic, so the mode is the posterior mean sum(x)/(n+1) and the
// inverse curvature the posterior variance 1/(n+1); q starts at that
// covariance times warmWiden^2.
func TestLaplaceConjugate(t *testing.T) {
	m, err := Load("../examples/normal_mean.msc", "../examples/data/normal_mean.csv")
	require.NoError(t, err)
	b, err := os.ReadFile("../examples/data/normal_mean.csv")
	require.NoError(t, err)
	lines := strings.Fields(string(b))[1:]
	sum := 0.0
	for _, l := range lines {
		v, err := strconv.ParseFloat(l, 64)
		require.NoError(t, err)
		sum += v
	}
	n := float64(len(lines))
	for i := range 4 {
		md, ok := laplace(NewRand(uint64(i+1), streamWarm), m.Comp, nil)
		require.True(t, ok)
		require.InDelta(t, sum/(n+1), md.x[0], 1e-6)
		require.InDelta(t, 1/(n+1), md.cov[0], 1e-6)
		// the Laplace mass: log p(x*) + log sqrt(2 pi / (n + 1))
		require.InDelta(t, md.logp+0.5*math.Log(2*math.Pi/(n+1)), md.logMass, 1e-6)
	}
	f, err := Fit(context.Background(), m, Options{Seed: 3})
	require.NoError(t, err)
	require.Equal(t, "laplace", f.Summary.Init)
	g, err := Fit(context.Background(), m, Options{Seed: 3, Init: "zero"})
	require.NoError(t, err)
	require.Equal(t, "zero", g.Summary.Init)
	_, err = Fit(context.Background(), m, Options{Seed: 3, Init: "mode"})
	require.ErrorContains(t, err, `unknown init "mode"`)
}

// TestLaplaceFallback: where there is no usable mode the chains start at
// N(0, I) and the summary says why. Neal's funnel has no finite mode (the
// density grows without bound as v falls); with y ~ normal(theta^2, 0.5)
// (internal/exact's bimodal case) the chains' searches find the two equal
// modes theta = +5 and -5, neither dominating.
func TestLaplaceFallback(t *testing.T) {
	bimodal := filepath.Join(t.TempDir(), "bimodal.msc")
	require.NoError(t, os.WriteFile(bimodal, []byte(exact.BimodalModel), 0o644))
	for _, c := range []struct {
		model, data string
		seed        uint64
		reason      string
	}{
		{"../examples/funnel.msc", "", 1, "no finite mode"},
		{bimodal, "", 1, "different modes"},
	} {
		m, err := Load(c.model, c.data)
		require.NoError(t, err)
		chains := chainsFor(t, m, 4)
		w := startAtLaplace(c.seed, chains)
		require.True(t, w.tried)
		require.False(t, w.started, c.model)
		require.Contains(t, w.reason, c.reason)
		q0 := chains[0].Q.(msc.Sampler)
		mean, sd := make([]float64, q0.Dim()), make([]float64, q0.Dim())
		q0.Moments(mean, sd)
		for j := range mean {
			require.Equal(t, 0.0, mean[j], "q keeps its default start")
			require.Equal(t, 1.0, sd[j])
		}
	}
}

// TestDominantMode: on posteriordb's two-component mixture at seed 2 one
// chain's search ends at a mode with the components collapsed, whose
// Laplace mass is negligible beside the best mode's: every chain starts at
// the best mode (before, all four started at N(0, I)).
func TestDominantMode(t *testing.T) {
	dir := "../examples/posteriordb/low_dim_gauss_mix-low_dim_gauss_mix/"
	m, err := Load(dir+"model.msc", dir+"data.json")
	require.NoError(t, err)
	chains := chainsFor(t, m, 4)
	w := startAtLaplace(2, chains)
	require.True(t, w.started, w.reason)
	require.GreaterOrEqual(t, w.dominant, 2, "the searches found more than one mode")
	best := comparableModes(w.modes)
	require.Len(t, best, 1)
	for _, ch := range chains {
		q := ch.Q.(msc.Sampler)
		mean, sd := make([]float64, q.Dim()), make([]float64, q.Dim())
		q.Moments(mean, sd)
		require.InDeltaSlice(t, best[0].x, mean, 1e-9, "every chain starts at the best mode")
	}
}

// chainsFor builds C chains' problems and default families, as Fit does.
func chainsFor(t testing.TB, m *Model, C int) []msc.Chain {
	chains := make([]msc.Chain, C)
	for i := range C {
		mi, err := m.Clone()
		require.NoError(t, err)
		q, err := msc.NewFamily(msc.Defaults.Family, mi.IR.LatentDim)
		require.NoError(t, err)
		chains[i] = msc.Chain{Problem: newProblem(mi.Comp), Q: q}
	}
	return chains
}

// TestLaplaceLargeData: on a large data set the log joint is of order 1e4
// and L-BFGS's absolute gradient threshold cannot be met at the mode (its
// line search fails for want of a decrease there); the point is still
// accepted as the mode, since the Newton step from it is a tiny fraction of
// an sd, and the chains start at it.
func TestLaplaceLargeData(t *testing.T) {
	if testing.Short() {
		t.Skip("long: a 20000-row regression")
	}
	model, data := probitData(t, 20000, 20)
	m, err := Load(model, data)
	require.NoError(t, err)
	w := startAtLaplace(1, chainsFor(t, m, 2))
	require.True(t, w.started, w.reason)
}
