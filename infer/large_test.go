package infer

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir/lower"
)

// TestLargeRegressionExact: a linear regression with a known noise sd and
// 20000 rows is costly enough for the dense schedule, so the run stops on
// the corrected agreement (msc.Defaults.AgreeSDCorrected) before the
// uncorrected first check, says so in a note, converges, and its PSIS
// summaries match the exact Gaussian posterior within their Monte Carlo
// error.
func TestLargeRegressionExact(t *testing.T) {
	if testing.Short() {
		t.Skip("a 20000-row run")
	}
	const n, k = 20000, 3
	rng := rand.New(rand.NewPCG(3, 4))
	X := make([][]float64, n)
	y := make([]float64, n)
	truth := []float64{0.3, -0.7, 0.2}
	for i := range X {
		X[i] = make([]float64, k)
		eta := -0.5
		for j := range X[i] {
			X[i][j] = rng.NormFloat64()
			eta += truth[j] * X[i][j]
		}
		y[i] = eta + rng.NormFloat64()
	}
	dir := t.TempDir()
	data, err := json.Marshal(map[string]any{"N": n, "K": k, "X": X, "y": y})
	require.NoError(t, err)
	path := filepath.Join(dir, "data.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	src := `data {
  N: int<lower=0>
  K: int<lower=1>
  X: matrix[N, K]
  y: vector[N]
}
latent {
  alpha: real
  beta: vector[K]
}
model {
  alpha ~ normal(0, 10)
  beta ~ normal(0, 10)
  y ~ normal(alpha + X * beta, 1)
}
`
	m, err := LoadSource("regression.msc", []byte(src), path)
	require.NoError(t, err)
	f, err := Fit(context.Background(), m, Options{Seed: 1})
	require.NoError(t, err)
	s := f.Summary

	// the exact posterior: precision I/100 + A'A, mean its inverse times A'y,
	// for A = [1 X]
	A := mat.NewDense(n, k+1, nil)
	for i := range X {
		A.Set(i, 0, 1)
		for j := range k {
			A.Set(i, j+1, X[i][j])
		}
	}
	var prec mat.SymDense
	prec.SymOuterK(1, A.T())
	for j := range k + 1 {
		prec.SetSym(j, j, prec.At(j, j)+0.01)
	}
	var cov mat.SymDense
	var ch mat.Cholesky
	require.True(t, ch.Factorize(&prec))
	require.NoError(t, ch.InverseTo(&cov))
	var aty, mean mat.VecDense
	aty.MulVec(A.T(), mat.NewVecDense(n, y))
	mean.MulVec(&cov, &aty)

	require.True(t, s.Converged, s.Warnings)
	require.Equal(t, SourcePSIS, s.SummarySource)
	require.Less(t, s.Iterations, msc.Defaults.FirstCheck, "the corrected schedule")
	require.LessOrEqual(t, float64(s.Diagnostics.ChainSpreadMax), msc.Defaults.AgreeSDCorrected)
	require.True(t, strings.Contains(strings.Join(s.Notes, "\n"), "asked to agree within 0.1 posterior sd instead of 0.05 once draws of their q had reliable weights (k-hat"), s.Notes)
	for j, name := range []string{"alpha", "beta[1]", "beta[2]", "beta[3]"} {
		got := s.Latent[name]
		sd := math.Sqrt(cov.At(j, j))
		t.Logf("%s: mean %.6g exact %.6g (mcse %.3g), sd %.4g exact %.4g; iterations %d, spread %.3f", name, float64(got.Mean), mean.AtVec(j), float64(got.MCSE), float64(got.SD), sd, s.Iterations, float64(s.Diagnostics.ChainSpreadMax))
		// the mean within 4 of its Monte Carlo standard errors; the sd
		// within 4 of its own (about sd/sqrt(2 ESS))
		require.InDelta(t, mean.AtVec(j), float64(got.Mean), 4*float64(got.MCSE), name)
		require.InDelta(t, sd, float64(got.SD), 4*sd/math.Sqrt(2*float64(s.Diagnostics.ESSBulkMin)), name)
	}
}

// TestConfirmCorrection: the corrected agreement is confirmed for a q
// whose draws have reliable weights (a little wider than the posterior) and refused for
// one far too narrow (k-hat above khatGood), with the k-hat said.
func TestConfirmCorrection(t *testing.T) {
	m, err := LoadSource("n.msc", []byte("latent { z: real }\nmodel { z ~ normal(1, 2) }\n"), "")
	require.NoError(t, err)
	f := &Fitted{Model: m, comps: []*lower.Compiled{m.Comp}}
	confirm := f.confirmCorrection(1)
	q := msc.NewFullRank(1)
	q.Mu[0], q.L[0] = 1, 2.2
	ok, why := confirm(q, 500)
	require.True(t, ok, why)
	require.Contains(t, why, "from 1000 draws of q at iteration 500")
	q.L[0] = 0.5
	ok, why = confirm(q, 500)
	require.False(t, ok, why)
	require.Regexp(t, `^k-hat (0\.[5-9]|[1-9])`, why)
}
