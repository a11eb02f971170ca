package infer

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDrawsMCSE: sd/sqrt(n) for independent draws of q; draws resampled by
// the PSIS weights add the importance-sampling error sd/sqrt(ESS).
func TestDrawsMCSE(t *testing.T) {
	q := &Fitted{Summary: &Summary{SummarySource: "q", Diagnostics: Diagnostics{ESSBulkMin: 1000}}}
	require.InDelta(t, 2/math.Sqrt(4000), q.DrawsMCSE(2, 4000), 1e-15)
	p := &Fitted{Summary: &Summary{SummarySource: "psis", Diagnostics: Diagnostics{ESSBulkMin: 1000}}}
	require.InDelta(t, 2*math.Sqrt(1.0/4000+1.0/1000), p.DrawsMCSE(2, 4000), 1e-15)
	p.Summary.Diagnostics.ESSBulkMin = Figure(math.NaN())
	require.InDelta(t, 2/math.Sqrt(4000), p.DrawsMCSE(2, 4000), 1e-15, "no ESS")
	require.InDelta(t, 2/math.Sqrt(4000), (&Fitted{}).DrawsMCSE(2, 4000), 1e-15, "no summary")
}
