package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/mscppl/mscppl/infer"
	kf "github.com/mscppl/mscppl/internal/kalman"
	"github.com/mscppl/mscppl/internal/testtier"
	"github.com/stretchr/testify/require"
)

// localLevelKnown is internal/kalman's local level (case c) with both sds
// known, at the values its data were simulated with (sq = 0.5, sr = 1): a
// pure state-space model, whose evidence is log p(y), which the Kalman
// filter gives exactly.
const localLevelKnown = `data { y: vector[T] }
latent { x: vector[T] }
model {
  x[1] ~ normal(0, 10)
  for t in 2..T {
    x[t] ~ normal(x[t-1], 0.5)
  }
  y ~ normal(x, 1)
}
`

const localLevelData = "../../internal/kalman/testdata/local_level.csv"

// localLevelExact writes the model into a temporary directory and returns
// its path, the data's y and the Kalman filter's log p(y).
func localLevelExact(t *testing.T) (model string, y []float64, logZ float64) {
	t.Helper()
	y, err := kf.ReadData(localLevelData)
	require.NoError(t, err)
	res, err := kf.Filter(kf.ScalarModel(0, 100, 1, 0.25, 1, 1), kf.Scalar(y))
	require.NoError(t, err)
	model = filepath.Join(t.TempDir(), "local_level_known.msc")
	require.NoError(t, os.WriteFile(model, []byte(localLevelKnown), 0o644))
	return model, y, res.LogLik
}

// writeTwist writes a variational.json with the twisted proposal
// psi_t(x) = exp(-lam_t x^2 / 2 + nu_t x) (the form mscppl run --out
// writes) beside model and returns its path.
func writeTwist(t *testing.T, model string, nu, lam []float64) string {
	t.Helper()
	names := make([]string, len(nu))
	rows := func(v []float64, f func(float64) float64) [][]float64 {
		out := make([][]float64, len(v))
		for i, x := range v {
			out[i] = []float64{f(x)}
		}
		return out
	}
	empty := make([][]float64, len(nu))
	for i := range names {
		names[i] = fmt.Sprintf("x[%d]", i+1)
		empty[i] = []float64{}
	}
	q, err := json.Marshal(map[string]any{"state_dim": 1, "nu": rows(nu, func(x float64) float64 { return x }),
		"log_lambda_diag": rows(lam, math.Log), "lambda_unit_factor_offdiag": empty})
	require.NoError(t, err)
	b, err := json.Marshal(infer.Variational{Model: model, Family: "twisted-gaussian", LatentNames: names, Q: q})
	require.NoError(t, err)
	path := filepath.Join(filepath.Dir(model), "variational.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// optimalLevelTwist is the local level's backward information filter,
// psi_t(x) = p(y_{t:T} | x_t) up to a constant, for which the twisted
// proposal is the posterior and every particle filter is exact.
func optimalLevelTwist(y []float64, q2, r2 float64) (nu, lam []float64) {
	T := len(y)
	nu, lam = make([]float64, T), make([]float64, T)
	lam[T-1], nu[T-1] = 1/r2, y[T-1]/r2
	for t := T - 2; t >= 0; t-- {
		v := q2 + 1/lam[t+1]
		lam[t] = 1/v + 1/r2
		nu[t] = nu[t+1]/lam[t+1]/v + y[t]/r2
	}
	return nu, lam
}

// evidenceJSON runs mscppl evidence with args and returns its result.
func evidenceJSON(t *testing.T, args ...string) *infer.EvidenceResult {
	t.Helper()
	code, stdout, stderr := mscppl(append(append([]string{"evidence"}, args...), "--json")...)
	require.Equal(t, 0, code, stderr)
	var r infer.EvidenceResult
	require.NoError(t, json.Unmarshal([]byte(stdout), &r))
	return &r
}

// TestEvidenceExactLocalLevel: mscppl evidence on the local level with
// both sds known (T = 100) against the Kalman filter's exact log p(y):
// with the optimal twist every filter is exact, so the estimate equals
// log p(y) to rounding (every constant of the model's densities and of
// the proposal's normaliser counted); with a deliberately imperfect twist
// (half the optimal Lambda_t, nu_t shifted) the estimate lies within 4.5
// of its reported standard errors, which are small enough for that to
// mean something.
func TestEvidenceExactLocalLevel(t *testing.T) {
	model, y, logZ := localLevelExact(t)
	nu, lam := optimalLevelTwist(y, 0.25, 1)
	opt := writeTwist(t, model, nu, lam)
	r := evidenceJSON(t, model, localLevelData, "--params", opt, "--particles", "4", "--repeats", "3")
	t.Logf("optimal twist: %.8f (se %.2g), exact %.8f", r.LogEvidence, r.SE, logZ)
	require.InDelta(t, logZ, r.LogEvidence, 1e-6)

	for i := range nu {
		lam[i] *= 0.5
		nu[i] = 0.5*nu[i] + 0.3*math.Sin(float64(i))
	}
	imp := writeTwist(t, model, nu, lam)
	for _, seed := range []string{"1", "2", "3"} {
		r := evidenceJSON(t, model, localLevelData, "--params", imp, "--particles", "100", "--repeats", "50", "--seed", seed)
		t.Logf("imperfect twist, seed %s: %.4f (se %.4f), exact %.4f: z %+.2f", seed, r.LogEvidence, r.SE, logZ, (r.LogEvidence-logZ)/r.SE)
		require.Less(t, r.SE, 0.1)
		require.Lessf(t, math.Abs(r.LogEvidence-logZ), 4.5*r.SE, "log evidence %.4f +- %.4f, exact %.4f", r.LogEvidence, r.SE, logZ)
	}
}

// TestEvidenceExactLocalLevelRun: the same model through mscppl run --out
// (the learned twisted proposal) and mscppl evidence at its defaults: the
// run's own log evidence and the command's within 4.5 of their reported
// standard errors of the exact log p(y).
func TestEvidenceExactLocalLevelRun(t *testing.T) {
	testtier.Skip(t) // a default run, about 5 s
	model, _, logZ := localLevelExact(t)
	out := filepath.Join(filepath.Dir(model), "fit")
	s := runJSON(t, "run", model, localLevelData, "--seed", "1", "--out", out)
	require.True(t, s.Converged, s.Verdict)
	t.Logf("run: %.4f (se %.4f), exact %.4f", s.LogEvidence, s.LogEvidenceSE, logZ)
	require.Lessf(t, math.Abs(float64(s.LogEvidence)-logZ), 4.5*float64(s.LogEvidenceSE), "the run's log evidence %.4f +- %.4f, exact %.4f", s.LogEvidence, s.LogEvidenceSE, logZ)
	for _, seed := range []string{"1", "2"} {
		r := evidenceJSON(t, model, localLevelData, "--params", filepath.Join(out, "variational.json"), "--seed", seed)
		t.Logf("evidence, seed %s: %.4f (se %.4f): z %+.2f", seed, r.LogEvidence, r.SE, (r.LogEvidence-logZ)/r.SE)
		require.Contains(t, r.Estimator, "learned twisted")
		require.Less(t, r.SE, 0.05)
		require.Lessf(t, math.Abs(r.LogEvidence-logZ), 4.5*r.SE, "log evidence %.4f +- %.4f, exact %.4f", r.LogEvidence, r.SE, logZ)
	}
}
