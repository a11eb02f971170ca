package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer"
)

// TestSMCBaseline runs the SMC baseline (--method smc) end to end on a
// linear-Gaussian state-space model with known parameters: its q (the
// twisted proposal) cannot be sampled, so the summaries are the smoothing
// marginals of the particle filters' trajectories, R-hat is of those
// draws, and both the means and the evidence are compared with a Kalman
// smoother and filter.
func TestSMCBaseline(t *testing.T) {
	dir, x := lgssmData(t, 60)
	model := filepath.Join(dir, "lgssm_fixed.msc")
	src := strings.Replace(lgssmModel, "param { phi: real<lower=-1, upper=1> = 0.3 }\n", "", 1)
	src = strings.Replace(src, "phi * z[t-1]", "0.8 * z[t-1]", 1)
	require.NotEqual(t, lgssmModel, src)
	require.NoError(t, os.WriteFile(model, []byte(src), 0o644))
	ll, smooth := kalman(x, 0.8)

	s := runJSON(t, "run", model, filepath.Join(dir, "x.csv"), "--method", "smc", "--iters", "2000", "--fixed", "--chains", "2", "--seed", "3")
	require.Equal(t, "smc", s.Method)
	require.Equal(t, "none", s.Kernel, "the baseline's kernel is not one of MSC's")
	require.Equal(t, "twisted-gaussian", s.Family)
	require.Equal(t, infer.SourceChain, s.SummarySource)
	require.Equal(t, "draws of the kernel", s.Diagnostics.RhatOf)
	require.Equal(t, 2000, s.Iterations)
	rhat := float64(s.Diagnostics.RhatMax)
	require.Truef(t, rhat >= 1 && rhat < 1.05, "R-hat %g", rhat)
	require.Truef(t, float64(s.Diagnostics.ESSBulkMin) > 100, "bulk ESS %g", float64(s.Diagnostics.ESSBulkMin))
	require.Len(t, s.LatentOrder, len(x))
	worst := 0.0
	for i, name := range s.LatentOrder {
		m := s.Latent[name]
		q05, q50, q95, mcse := float64(m.Q05), float64(m.Q50), float64(m.Q95), float64(m.MCSE)
		require.Truef(t, q05 < q50 && q50 < q95, "%s: quantiles %g %g %g", name, q05, q50, q95)
		require.Truef(t, mcse > 0 && mcse < 0.2*m.SD, "%s: mcse %g, sd %g", name, mcse, m.SD)
		worst = math.Max(worst, math.Abs(m.Mean-smooth[i])/m.SD)
		require.InDeltaf(t, smooth[i], m.Mean, 5*mcse+0.05*m.SD, "%s: the particle filters' smoothing mean against Kalman's", name)
	}
	t.Logf("largest |mean - Kalman| %.3f sd, R-hat %.3f, log evidence %.3f (se %.3f), Kalman %.3f", worst, rhat, float64(s.LogEvidence), float64(s.LogEvidenceSE), ll)
	require.InDelta(t, ll, float64(s.LogEvidence), 4*float64(s.LogEvidenceSE)+0.05)
	require.Contains(t, s.Verdict, "smoothing marginals")

	// the table a person reads
	code, stdout, stderr := mscppl("run", model, filepath.Join(dir, "x.csv"), "--method", "smc", "--iters", "300", "--fixed", "--chains", "1", "--seed", "3")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "SMC, none kernel")
	require.Contains(t, stdout, "verdict: ")
}
