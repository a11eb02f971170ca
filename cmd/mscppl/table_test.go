package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunTableGoldens: run's table of a state-space model (94 states)
// shows the scalars first, then the first and last rows of z and a line
// saying how many were left out and how to see them (testdata/table/
// elided.golden); --all prints every row (all.golden), and --json keeps
// every latent. The elided table is the full one without the left-out rows.
func TestRunTableGoldens(t *testing.T) {
	args := []string{"run", "../../examples/stochastic_volatility_paper.msc", "../../examples/data/dem2gbp_monthly.csv",
		"--iters", "200", "--fixed", "--chains", "2", "--seed", "3"}
	out := map[string]string{}
	for _, c := range []struct {
		name  string
		extra []string
	}{{"elided", nil}, {"all", []string{"--all"}}} {
		code, stdout, stderr := mscppl(append(args, c.extra...)...)
		require.Equal(t, 0, code, stderr)
		got := elapsed.ReplaceAllString(stdout, ", X.XXs\n")
		golden := filepath.Join("testdata/table", c.name+".golden")
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
			require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
		}
		want, err := os.ReadFile(golden)
		require.NoError(t, err, "missing golden file; run go test -update")
		require.Equal(t, string(want), got)
		out[c.name] = got
	}
	elided, all := out["elided"], out["all"]
	// the rows named by a warning are shown (here z[15] and z[19], which the
	// smoother check names)
	require.Contains(t, elided, "left out: 84 of the 94 rows of z; --all prints every row")
	require.Contains(t, elided, "the states z[15] and z[19] (2 of 94) disagree")
	require.Contains(t, elided, " z[15] ")
	require.Contains(t, elided, " z[19] ")
	require.NotContains(t, all, "left out")
	for _, row := range []string{"z[1]", "z[4]", "z[91]", "z[94]"} {
		require.Contains(t, elided, " "+row+" ")
	}
	require.NotContains(t, elided, " z[5] ")
	require.NotContains(t, elided, " z[90] ")
	// the scalars (here the derived level) come before the vector
	require.Less(t, strings.Index(elided, " level "), strings.Index(elided, " z[1] "))
	// the elided table is the full one less the rows left out (the
	// columns' widths aside)
	words := func(l string) string { return strings.Join(strings.Fields(l), " ") }
	lines := strings.Split(all, "\n")
	i := 0
	for _, l := range strings.Split(elided, "\n") {
		if strings.TrimSpace(l) == "..." || strings.HasPrefix(l, "left out: ") {
			continue
		}
		for i < len(lines) && words(lines[i]) != words(l) {
			i++
		}
		require.Lessf(t, i, len(lines), "line %q of the elided table is in the full one, in order", l)
	}
	for i := range 94 {
		require.Contains(t, all, " z["+strconv.Itoa(i+1)+"] ")
	}
	s := runJSON(t, args...)
	require.Len(t, s.LatentOrder, 95, "--json keeps every latent")
}
