package msc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWindowSpan: the records behind R-hat, the ESS and Result.ChainDraws
// are at most MaxChainDraws per chain, end at the last record, and are the
// same for windowDraws and windowRows. Records hold their own iteration
// number, so the rows say which iterations were kept.
func TestWindowSpan(t *testing.T) {
	for _, tc := range []struct {
		name        string
		frac        float64
		iters       int
		wantM, step int // records kept per chain, iterations between them
	}{
		{"half of a run within the cap", 0.5, 1999, 999, 1},
		{"all of 1499 iterations: stride 2", 1, 1499, 749, 2},
		{"1001 records: stride 2", 1, 1002, 501, 2},
		{"short window", 0.5, 40, 20, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &evaluator{s: &Settings{AverageFraction: tc.frac}}
			for range 2 {
				l := &loop{d: 1}
				b := &drawBuf{d: 1, cap: 4000, thin: 1}
				for it := range tc.iters {
					b.Add(it, []float64{float64(it)}, -float64(it))
				}
				e.chains = append(e.chains, &chain{l: l, buf: b})
			}
			rows, lps, iters := e.windowRows(tc.iters - 1)
			require.Len(t, rows, 2)
			require.Len(t, lps, 2)
			require.Len(t, iters, tc.wantM)
			require.LessOrEqual(t, len(iters), MaxChainDraws)
			require.Equal(t, tc.iters-1, iters[len(iters)-1], "the last record is kept")
			for r := 1; r < len(iters); r++ {
				require.Equal(t, tc.step, iters[r]-iters[r-1])
			}
			col := e.windowDraws(tc.iters - 1)(0)
			for c := range rows {
				for r, it := range iters {
					require.Equal(t, float64(it), rows[c][r])
					require.Equal(t, -float64(it), lps[c][r], "each row's log joint")
					require.Equal(t, float64(it), col[c][r])
				}
			}
		})
	}
}
