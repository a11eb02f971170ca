package infer

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/internal/simdata"
	"github.com/mscppl/mscppl/internal/testtier"
)

// TestHMMReferences: hidden Markov models at the defaults (seed 1), by the
// forward loop as Stan's model writes it and by hmm_marginal:
// posteriordb's hmm_drive (K = 2, N = 416) against posteriordb's NUTS
// reference, and the simulated T = 1000 data set of internal/simdata
// (go run ./examples/tools/hmmsim) against
// examples/reference/hmm_drive_sim1000.csv (go run ./examples/tools/hmmref,
// adaptive Metropolis on the same posterior). Each run must say
// converged, each mean must be within 4 Monte Carlo sds of the
// difference (the summary's mcse_mean and the reference's: ESS 10000 for
// posteriordb's, refESS for hmmref's), and each sd within 4 Monte Carlo
// sds of the ratio of two sd estimates (sqrt(1/(2 ESS)) each, ESS the
// summaries' ess_bulk_min); the tolerances are capped at the project's
// 0.1 sd and 10%.
func TestHMMReferences(t *testing.T) {
	sim, err := simdata.HMMDriveJSON(t.TempDir(), 1000)
	require.NoError(t, err)
	const dir = "../examples/posteriordb/bball_drive_event_1-hmm_drive_1/"
	const refESS = 50000 // below hmmref's smallest ESS over the parameters, 131000 by batch means (its stderr)
	for _, c := range []struct {
		name, model, data, ref string
		ess                    float64
	}{
		{"hmm_drive forward loop", dir + "model.msc", dir + "data.json", dir + "reference.csv", 10000},
		{"hmm_drive hmm_marginal", dir + "model_marginal.msc", dir + "data.json", dir + "reference.csv", 10000},
		{"simulated T = 1000 forward loop", dir + "model.msc", sim, "../examples/reference/hmm_drive_sim1000.csv", refESS},
		{"simulated T = 1000 hmm_marginal", dir + "model_marginal.msc", sim, "../examples/reference/hmm_drive_sim1000.csv", refESS},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.ref != dir+"reference.csv" {
				testtier.Skip(t) // T = 1000: 4-5 s each; the fast tier fits hmm_drive's N = 416
			}
			m, err := Load(c.model, c.data)
			require.NoError(t, err)
			f, err := Fit(context.Background(), m, Options{})
			require.NoError(t, err)
			s := f.Summary
			require.True(t, s.Converged, "%s: %v", s.Verdict, s.Warnings)
			ref := readReference(t, c.ref)
			require.Len(t, ref, 8)
			ess := float64(s.Diagnostics.ESSBulkMin)
			require.Greater(t, ess, 100.0)
			dm, ds := 0.0, 0.0
			for name, want := range ref {
				got, ok := s.Latent[name]
				require.True(t, ok, name)
				// the mean: the summary's Monte Carlo error and the
				// reference's, in reference sds
				se := math.Hypot(float64(got.MCSE)/want.SD, 1/math.Sqrt(c.ess))
				tolM := math.Min(4*se, 0.1)
				em := math.Abs(got.Mean-want.Mean) / want.SD
				require.LessOrEqual(t, em, tolM, "%s: mean %g, reference %g ± %g", name, got.Mean, want.Mean, want.SD)
				// the sd: each estimate's relative error about sqrt(1/(2 ESS))
				tolS := math.Min(4*math.Sqrt(1/(2*ess)+1/(2*c.ess)), 0.1)
				es := math.Abs(got.SD/want.SD - 1)
				require.LessOrEqual(t, es, tolS, "%s: sd %g, reference %g", name, got.SD, want.SD)
				dm, ds = math.Max(dm, em), math.Max(ds, es)
			}
			t.Logf("mean error %.3f sd, sd error %.1f%%, ESS %.0f, k-hat %.2f, R-hat %.3f, %.1fs",
				dm, 100*ds, ess, s.Diagnostics.Khat, s.Diagnostics.RhatMax, s.ElapsedSeconds)
		})
	}
}
