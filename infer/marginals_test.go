package infer

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/stdlib"
)

// TestDensity: the kernel density of 4000 Gaussian draws is the Gaussian
// within 0.03 (no lumps), and that of log-normal draws, estimated through
// the lower bound's log, the log-normal density on x > 0.
func TestDensity(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	z := make([]float64, 4000)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	for _, pt := range (transform{}).density(z, 0, -3, 3) {
		require.InDelta(t, math.Exp(-pt.X*pt.X/2)/math.Sqrt(2*math.Pi), pt.Density, 0.03, "at %g", pt.X)
	}
	x := make([]float64, len(z))
	for i, v := range z {
		x[i] = math.Exp(v)
	}
	tr := transform{bij: stdlib.Bijection{HasLower: true}, known: true}
	lo, hi := tr.plotRange(x)
	require.Greater(t, lo, 0.0)
	for _, pt := range tr.density(x, 0, lo, hi) {
		l := math.Log(pt.X)
		require.InDelta(t, math.Exp(-l*l/2)/(pt.X*math.Sqrt(2*math.Pi)), pt.Density, 0.04, "at %g", pt.X)
	}
}

// steps is the layout of T scalar states.
type steps int

func (s steps) Len() int         { return int(s) }
func (steps) StateDim() int      { return 1 }
func (steps) Index(t, _ int) int { return t }

// TestIsGaussian: q's marginals are drawn exactly only for a Gaussian q,
// known by its family's registration, not by its name.
func TestIsGaussian(t *testing.T) {
	require.True(t, isGaussian(msc.NewFullRank(2)))
	require.True(t, isGaussian(msc.NewMeanField(2)))
	require.False(t, isGaussian(msc.NewStudentT(2, 5)))
	tw, err := msc.NewTwisted(steps(3))
	require.NoError(t, err)
	require.False(t, isGaussian(tw), "a state-space proposal")
	mean, sd := gaussianMoments(msc.NewMeanField(3))
	require.Equal(t, []float64{0, 0, 0}, mean)
	require.Equal(t, []float64{1, 1, 1}, sd)
	mean, sd = gaussianMoments(msc.NewStudentT(3, 5))
	require.Nil(t, mean)
	require.Nil(t, sd)
}

// marginalsRun fits a model of a real and a positive latent with family
// and returns the input of EstimateMarginals as mscppl run --out writes
// it.
func marginalsRun(t *testing.T, family, optimizer string) MarginalsInput {
	t.Helper()
	m, err := LoadSource("m.msc", []byte("latent {\n  mu: real\n  s: real<lower=0>\n}\nmodel {\n  mu ~ normal(1, 0.5)\n  s ~ normal(0, 1)\n}\n"), "")
	require.NoError(t, err)
	f, err := Fit(context.Background(), m, Options{Iters: 2000, Fixed: true, Family: family, Optimizer: optimizer})
	require.NoError(t, err)
	v, err := f.Variational()
	require.NoError(t, err)
	b, err := json.Marshal(v)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "variational.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	rows, err := f.Draws(1000, 1)
	require.NoError(t, err)
	cols := make([][]float64, len(rows[0]))
	for _, r := range rows {
		for j, x := range r {
			cols[j] = append(cols[j], x)
		}
	}
	return MarginalsInput{Names: m.IR.LatentNames(), Draws: cols, Model: m, Summary: f.Summary, Variational: path}
}

// TestEstimateMarginals: one curve per component up to Max, each on its
// support; the prior of mu is its N(1, 0.5^2); with q's own draws and a
// Gaussian q, q's exact density; with a Student-t q, an estimate from the
// draws; a model whose latents are not the draws' is reported, and its
// constraints and prior are not used.
func TestEstimateMarginals(t *testing.T) {
	in := marginalsRun(t, "", "")
	ms := EstimateMarginals(in)
	require.False(t, ms.ModelChanged)
	require.False(t, ms.NoPrior)
	require.Len(t, ms.Components, 2)
	require.Equal(t, "mu", ms.Components[0].Name)
	require.Equal(t, "", ms.Components[0].Constraint)
	require.Equal(t, "<lower=0>", ms.Components[1].Constraint)
	for _, c := range ms.Components {
		require.Len(t, c.Posterior, gridPoints, c.Name)
		require.NotEmpty(t, c.Prior, c.Name)
	}
	for _, pt := range ms.Components[1].Posterior {
		require.Greater(t, pt.X, 0.0, "s stays on its support")
	}
	for _, pt := range ms.Components[0].Prior {
		d := (pt.X - 1) / 0.5
		require.InDelta(t, math.Exp(-d*d/2)/(0.5*math.Sqrt(2*math.Pi)), pt.Density, 0.06, "mu's prior at %g", pt.X)
	}

	in.Max = 1
	require.Len(t, EstimateMarginals(in).Components, 1)
	in.Max = 0

	// the draws are q's own: a Gaussian q is drawn exactly
	sum := *in.Summary
	sum.SummarySource = SourceQ
	in.Summary = &sum
	ms = EstimateMarginals(in)
	require.True(t, ms.Exact)
	mean, sd := sum.QLatent["mu"].Mean, sum.QLatent["mu"].SD
	for _, pt := range ms.Components[0].Posterior {
		d := (pt.X - mean) / sd
		require.InDelta(t, math.Exp(-d*d/2)/(sd*math.Sqrt(2*math.Pi)), pt.Density, 1e-9, "q's density of mu at %g", pt.X)
	}
	in.Variational = ""
	require.False(t, EstimateMarginals(in).Exact, "no variational.json: an estimate from the draws")

	// a Student-t q is not Gaussian: its density is estimated from its draws
	st := marginalsRun(t, "student_t", "adam")
	sumT := *st.Summary
	sumT.SummarySource = SourceQ
	st.Summary = &sumT
	require.False(t, EstimateMarginals(st).Exact)

	// the model has changed since the run
	in.Names, in.Draws = in.Names[:1], in.Draws[:1]
	ms = EstimateMarginals(in)
	require.True(t, ms.ModelChanged)
	require.Nil(t, ms.Components[0].Prior)

	// no model: the draws' own space
	in.Model = nil
	ms = EstimateMarginals(in)
	require.False(t, ms.ModelChanged)
	require.Nil(t, ms.Components[0].Prior)
	require.Equal(t, "", ms.Components[0].Constraint)
}
