package infer

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDrawsMCSE: sd/sqrt(n) for independent draws of q; draws resampled
// by the PSIS weights add the importance-sampling error sd/sqrt(ESS).
func TestDrawsMCSE(t *testing.T) {
	q := &Fitted{Summary: &Summary{SummarySource: SourceQ, Diagnostics: Diagnostics{ESSBulkMin: 1000}}}
	require.InDelta(t, 2/math.Sqrt(4000), q.drawsMCSE(2, 4000), 1e-15)
	p := &Fitted{Summary: &Summary{SummarySource: SourcePSIS, Diagnostics: Diagnostics{ESSBulkMin: 1000}}}
	require.InDelta(t, 2*math.Sqrt(1.0/4000+1.0/1000), p.drawsMCSE(2, 4000), 1e-15)
	p.Summary.Diagnostics.ESSBulkMin = Figure(math.NaN())
	require.InDelta(t, 2/math.Sqrt(4000), p.drawsMCSE(2, 4000), 1e-15, "no ESS")
	require.InDelta(t, 2/math.Sqrt(4000), (&Fitted{}).drawsMCSE(2, 4000), 1e-15, "no summary")
}

// TestSummarizeDraws: the mean, sd, R's type-7 5% and 95% quantiles and
// the Monte Carlo standard error of the values over the draws.
func TestSummarizeDraws(t *testing.T) {
	x := make([]float64, 101)
	for i := range x {
		x[len(x)-1-i] = float64(i) // unsorted: x is not changed
	}
	f := &Fitted{Summary: &Summary{SummarySource: SourceQ}}
	s := f.SummarizeDraws(x)
	require.Equal(t, 50.0, s.Mean)
	require.InDelta(t, math.Sqrt(101*102/12.0), s.SD, 1e-12)
	require.InDelta(t, 5, s.Q05, 1e-12)
	require.InDelta(t, 95, s.Q95, 1e-12)
	require.InDelta(t, s.SD/math.Sqrt(101), s.MCSE, 1e-15)
	require.Equal(t, 100.0, x[0])
}
