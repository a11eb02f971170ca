package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRemedyGoldens: a warning's remedy is chosen from what the model is,
// one model per case, and the notes, warnings and verdict of each run are
// in testdata/remedies/NAME.golden. The centred eight schools is told to
// write theta non-centred given tau; the non-centred one, short of
// iterations, never is (and is told more --iters, its chains still coming
// together); low_dim_gauss_mix without ordered is told to declare mu
// ordered (not more iterations, nor another family), and with ordered
// converges; a derived 0/1 quantity constant on the posterior gets no note
// on q's moments.
func TestRemedyGoldens(t *testing.T) {
	const (
		ex  = "../../examples/"
		dir = "testdata/remedies/"
		mix = ex + "posteriordb/low_dim_gauss_mix-low_dim_gauss_mix/"
	)
	for _, c := range []struct {
		name      string
		args      []string
		converged bool
		has, not  []string
	}{
		{"eight_schools_centered", []string{ex + "eight_schools_centered.msc", ex + "data/eight_schools.csv"}, false,
			[]string{"theta's prior scale depends on the latent tau", "write it non-centred: theta_raw ~ normal(0, 1) in place of theta, with theta = mu + tau * theta_raw"},
			[]string{"ordered"}},
		{"eight_schools_noncentered_short", []string{ex + "eight_schools_noncentered.msc", ex + "data/eight_schools.csv", "--iters", "500"}, false,
			[]string{"remedy: more --iters (the cap was 500)", "spread fell from"},
			[]string{"non-centred", "ordered"}},
		{"gauss_mix_unordered", []string{dir + "gauss_mix_unordered.msc", mix + "data.json", "--iters", "2000"}, false,
			[]string{"label switching: the 2 elements of mu", "remedy: declare mu: ordered[2] in the latent block"},
			[]string{"non-centred", "--iters", "--family"}},
		{"gauss_mix_ordered", []string{mix + "model.msc", mix + "data.json"}, true, nil, []string{"warning:"}},
		{"constant_indicator", []string{dir + "constant_indicator.msc", ex + "data/normal_mean.csv"}, true, nil,
			[]string{"q has not reached the posterior's moments", "warning:"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := mscppl(append([]string{"run", "--seed", "1"}, c.args...)...)
			require.Equal(t, 0, code, stderr)
			var lines []string
			for _, l := range strings.Split(stdout, "\n") {
				if strings.HasPrefix(l, "note: ") || strings.HasPrefix(l, "warning: ") || strings.HasPrefix(l, "verdict: ") {
					lines = append(lines, l)
				}
			}
			got := strings.Join(lines, "\n") + "\n"
			golden := filepath.Join(dir, c.name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "missing golden file; run go test -run TestRemedyGoldens -update")
			require.Equal(t, string(want), got)
			require.Equal(t, c.converged, strings.Contains(got, "verdict: converged"), got)
			for _, s := range c.has {
				require.Contains(t, got, s)
			}
			for _, s := range c.not {
				require.NotContains(t, got, s)
			}
		})
	}
}
