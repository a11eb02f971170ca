package show

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer"
)

// TestSummaryElides: a vector of more than LongVector elements shows its
// first and last Ends rows and those a warning or a note names (x[17] and
// xx[16], but not x[16] for xx[16]), a "..." row for each gap and a line counting what
// was left out; scalars come first; short vectors show every row;
// SummaryAll shows everything.
func TestSummaryElides(t *testing.T) {
	s := &infer.Summary{Model: "m.msc", Method: "msc", Kernel: "cis", Family: "fullrank", Latent: map[string]infer.Moments{},
		Verdict: "NOT converged", Warnings: []string{"R-hat is 1.2 for x[17], ..."}, Notes: []string{"q's sds are narrow (xx[16])"}}
	add := func(name string, v float64) {
		s.LatentOrder = append(s.LatentOrder, name)
		s.Latent[name] = infer.Moments{Mean: v, SD: 1}
	}
	for i := 1; i <= 30; i++ {
		add(fmt.Sprintf("x[%d]", i), float64(i))
	}
	add("a", -1)
	for i := 1; i <= LongVector; i++ {
		add(fmt.Sprintf("short[%d]", i), 0)
	}
	for i := 1; i <= 20; i++ {
		add(fmt.Sprintf("xx[%d]", i), 0)
	}
	var b strings.Builder
	Summary(&b, s)
	out := b.String()
	rows := map[string]bool{}
	var order []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[2] == "1.0000" || len(f) == 1 && f[0] == "..." {
			rows[f[0]] = true
			order = append(order, f[0])
		}
	}
	for _, r := range []string{"a", "x[1]", "x[4]", "x[17]", "x[27]", "x[30]", "short[1]", "short[10]", "xx[1]", "xx[4]", "xx[16]", "xx[17]", "xx[20]"} {
		require.Truef(t, rows[r], "row %s is shown:\n%s", r, out)
	}
	for _, r := range []string{"x[5]", "x[16]", "x[18]", "x[26]", "xx[5]", "xx[15]"} {
		require.Falsef(t, rows[r], "row %s is left out:\n%s", r, out)
	}
	require.Equal(t, "a", order[0], "scalars first")
	require.Equal(t, []string{"x[4]", "...", "x[17]", "...", "x[27]"}, order[4:9])
	require.Contains(t, out, "left out: 21 of the 30 rows of x, 11 of the 20 rows of xx; --all prints every row")
	require.Less(t, strings.Index(out, "left out:"), strings.Index(out, "verdict:"))
	for _, l := range strings.Split(out, "\n") {
		require.Equal(t, strings.TrimRight(l, " "), l, "no trailing blanks")
	}

	b.Reset()
	SummaryAll(&b, s)
	all := b.String()
	require.NotContains(t, all, "left out")
	n := 0
	for _, l := range strings.Split(all, "\n") {
		f := strings.Fields(l)
		require.False(t, len(f) == 1 && f[0] == "...", "no gap")
		if len(f) > 2 && f[2] == "1.0000" {
			n++
		}
	}
	require.Equal(t, len(s.LatentOrder), n, "a row per element")
	for _, name := range s.LatentOrder {
		require.Contains(t, all, " "+name+" ")
	}
}

// TestSummarySource: q's own marginals say why: a k-hat too large, or a
// PSIS check that was not run (no k-hat at all).
func TestSummarySource(t *testing.T) {
	nan := infer.Figure(math.NaN())
	for _, tc := range []struct {
		khat, khatQ infer.Figure
		want        string
	}{
		{0.9, 0.95, "latents: q's own marginals (k-hat too large for posterior estimates)"},
		{nan, nan, "latents: q's own marginals (the PSIS check was not run)"},
	} {
		s := &infer.Summary{Model: "m.msc", Method: "msc", Kernel: "cis", Family: "fullrank", SummarySource: infer.SourceQ,
			Latent: map[string]infer.Moments{"z": {Mean: 1, SD: 1}}, LatentOrder: []string{"z"}, Verdict: "NOT converged"}
		s.Diagnostics.Khat, s.Diagnostics.KhatQ = tc.khat, tc.khatQ
		var b strings.Builder
		Summary(&b, s)
		require.Contains(t, b.String(), tc.want)
	}
}
