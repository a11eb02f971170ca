package infer

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/internal/exact"
	"github.com/mscppl/mscppl/internal/testtier"
)

// caseSeeds are the seeds each silent-failure case runs at (the closing
// note of issue 22 gives the counts over seeds 1-16, from
// examples/tools/seedscore).
var caseSeeds = []uint64{1, 2, 3}

// slowCases are the cases whose three runs take 5-11 s each on the 2-core
// machine: they run in the long tier. In the fast tier the same verdicts
// are guarded by TestNoSilentFailure (the funnel and the centred eight
// schools, NOT converged) and cmd/mscppl's TestRemedyGoldens (the centred
// hierarchy's and the unordered mixture's remedies).
var slowCases = map[string]bool{"hier_centred": true, "hier_noncentred": true, "funnel": true, "mix_unordered": true}

// TestSilentFailureCases: the posteriors of issue 22 against their exact
// answers (package internal/exact: quadrature, closed forms and grids,
// never the engine). Every run either matches (each mean within 0.1 exact
// sd, each sd within 10%, each probability within 0.05) or says NOT
// converged with a warning; and each case gives the verdict its cause
// calls for:
//
//   - two modes of equal mass (theta^2 = 25): the modes warning, and from
//     the defensive mixture P(theta > 0) and the log evidence right;
//   - three modes: matched or flagged;
//   - the centred hierarchy: NOT converged, the remedy its non-centred
//     form; the non-centred one matches on most seeds;
//   - Neal's funnel: NOT converged;
//   - the unordered mixture: NOT converged, the remedy ordered[2]; the
//     ordered one matches.
func TestSilentFailureCases(t *testing.T) {
	cases, err := exact.Cases()
	require.NoError(t, err)
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if slowCases[c.Name] {
				testtier.Skip(t)
			}
			model := filepath.Join(dir, c.Name+".msc")
			require.NoError(t, os.WriteFile(model, []byte(c.Model), 0o644))
			data := ""
			if c.DataName != "" {
				data = filepath.Join(dir, c.DataName+".csv")
				require.NoError(t, os.WriteFile(data, []byte(c.Data), 0o644))
			}
			m, err := Load(model, data)
			require.NoError(t, err)
			matched := 0
			for _, seed := range caseSeeds {
				f, err := Fit(context.Background(), m, Options{Seed: seed})
				require.NoError(t, err)
				s := f.Summary
				ok, worst := matches(s, c)
				t.Logf("seed %d: matches %v (%s), converged %v, warnings %d", seed, ok, worst, s.Converged, len(s.Warnings))
				if !ok {
					require.False(t, s.Converged, "seed %d: converged with a wrong answer (%s)", seed, worst)
					require.NotEmpty(t, s.Warnings)
				}
				if ok && s.Converged {
					matched++
				}
				warned := strings.Join(s.Warnings, "\n")
				switch c.Name {
				case "bimodal":
					require.False(t, s.Converged)
					require.Contains(t, warned, "modes of comparable mass")
					require.InDelta(t, 0.5, s.Latent["pos"].Mean, 0.05)
					require.InDelta(t, -4.9557832778, float64(s.LogEvidence), 0.1)
				case "hier_centred":
					require.False(t, s.Converged)
					require.Contains(t, warned, "a_raw ~ normal(0, 1)")
					require.Contains(t, warned, "funnel's neck")
				case "funnel":
					require.False(t, s.Converged)
				case "mix_unordered":
					require.False(t, s.Converged)
					require.Contains(t, warned, "ordered[2]")
				case "mix_ordered":
					require.True(t, ok && s.Converged, "seed %d: %s; %v", seed, worst, s.Warnings)
				}
			}
			if c.Name == "hier_noncentred" {
				// 15 of seeds 1-16 match and converge
				require.GreaterOrEqual(t, matched, 2)
			}
		})
	}
}

// matches reports whether a summary meets the exact answer: each mean
// within 0.1 exact sd, each sd within 10%, each probability within 0.05;
// and names the worst figure.
func matches(s *Summary, c exact.Case) (bool, string) {
	ok, worst, by := true, "", 0.0
	note := func(bad bool, r float64, what string) {
		if bad {
			ok = false
		}
		if r > by {
			by, worst = r, what
		}
	}
	for _, e := range c.Exact {
		got, have := s.Latent[e.Name]
		if !have {
			continue
		}
		if slices.Contains(c.Probs, e.Name) {
			d := math.Abs(got.Mean - e.Mean)
			note(d > 0.05, d/0.05, e.Name+" probability")
			continue
		}
		dm := math.Abs(got.Mean-e.Mean) / e.SD
		ds := math.Abs(got.SD/e.SD - 1)
		note(dm > 0.1, dm/0.1, e.Name+" mean")
		note(ds > 0.1, ds/0.1, e.Name+" sd")
	}
	return ok, worst
}
