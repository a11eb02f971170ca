package infer

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/mscppl/mscppl/internal/testtier"
	"github.com/stretchr/testify/require"
)

// TestPosteriordb runs every posterior of examples/posteriordb on its
// unchanged data.json at the defaults and compares each reported
// component (latents and derived quantities, by Stan's names) with the
// posteriordb reference (10 chains x 1000 NUTS draws; the mean's Monte
// Carlo error is about 0.01 sd): the mean within 0.1 reference sd and the
// sd within 10%, or else the run must say it did not converge and warn.
// The summaries aim at a Monte Carlo error of 0.02 sd, so 0.1 sd is more
// than 4 combined Monte Carlo sds.
// slowPosteriordb are the posteriors whose default runs take over a second
// on the 2-core machine: they run in the long tier. In the fast tier,
// TestODEPosteriorAgainstQuadrature guards the ODE path (lotka_volterra),
// TestHMMReferences the hidden Markov models (its posteriordb cases),
// TestLargeRegressionExact the regressions (diamonds), and cmd/mscppl's
// TestMethodKernelMatrix runs every one of these models briefly.
var slowPosteriordb = map[string]bool{
	"hudson_lynx_hare-lotka_volterra": true,
	"diamonds-diamonds":               true,
	"hmm_example-hmm_example":         true,
	"bball_drive_event_1-hmm_drive_1": true,
	"garch-garch11":                   true,
}

func TestPosteriordb(t *testing.T) {
	dirs, err := filepath.Glob("../examples/posteriordb/*/model*.msc")
	require.NoError(t, err)
	require.Len(t, dirs, 15) // thirteen posteriors, two of them also by hmm_marginal
	for _, model := range dirs {
		dir := filepath.Dir(model)
		t.Run(filepath.Base(dir)+"/"+filepath.Base(model), func(t *testing.T) {
			if slowPosteriordb[filepath.Base(dir)] {
				testtier.Skip(t)
			}
			m, err := Load(model, filepath.Join(dir, "data.json"))
			require.NoError(t, err)
			f, err := Fit(context.Background(), m, Options{})
			require.NoError(t, err)
			s := f.Summary
			ref := readReference(t, filepath.Join(dir, "reference.csv"))
			dm, ds, n := 0.0, 0.0, 0
			for name, want := range ref {
				got, ok := s.Latent[name]
				if !ok {
					continue
				}
				n++
				dm = math.Max(dm, math.Abs(got.Mean-want.Mean)/want.SD)
				ds = math.Max(ds, math.Abs(got.SD/want.SD-1))
			}
			require.Greater(t, n, 0, "no reported component matches the reference's names")
			t.Logf("%d components: mean error %.3f sd, sd error %.1f%%, converged %v, k-hat %.2f, R-hat %.3f, %.1fs",
				n, dm, 100*ds, s.Converged, s.Diagnostics.Khat, s.Diagnostics.RhatMax, s.ElapsedSeconds)
			if dm > 0.1 || ds > 0.1 {
				require.False(t, s.Converged, "a miss must not be reported as converged")
				require.NotEmpty(t, s.Warnings)
			}
		})
	}
}

func readReference(t *testing.T, path string) map[string]Moments {
	t.Helper()
	_, err := os.Stat(path)
	require.NoError(t, err)
	dir, file := filepath.Split(path)
	return referenceAt(t, dir, file)
}
