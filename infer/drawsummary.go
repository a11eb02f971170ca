package infer

import (
	"math"
	"sort"

	"github.com/mscppl/mscppl/infer/diag"
)

// DrawsSummary summarises the values of a scalar over draws of a fit.
type DrawsSummary struct {
	Mean, SD float64
	// MCSE is the Monte Carlo standard error of Mean (see drawsMCSE).
	MCSE float64
	// Q05 and Q95 are the 5% and 95% quantiles.
	Q05, Q95 float64
}

// SummarizeDraws summarises x, the values of a scalar over draws of f's
// Draws or UnconstrainedDraws (such as an expression of the latents
// evaluated under each), one value per draw.
func (f *Fitted) SummarizeDraws(x []float64) DrawsSummary {
	mean, sd := MeanSD(x)
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return DrawsSummary{Mean: mean, SD: sd, MCSE: f.drawsMCSE(sd, len(x)), Q05: diag.Quantile(s, 0.05), Q95: diag.Quantile(s, 0.95)}
}

// drawsMCSE is the Monte Carlo standard error of a mean over n of f's
// Draws (or UnconstrainedDraws, or any function of them) whose sd is sd.
// Independent draws of q give sd/sqrt(n). Draws resampled by the PSIS
// weights carry the importance-sampling error, about sd/sqrt(ESS) with the
// weights' effective sample size, plus that of resampling, at most
// sd/sqrt(n).
func (f *Fitted) drawsMCSE(sd float64, n int) float64 {
	v := 1 / float64(n)
	if s := f.Summary; s != nil && s.SummarySource == SourcePSIS {
		if ess := float64(s.Diagnostics.ESSBulkMin); ess > 0 {
			v += 1 / ess
		}
	}
	return sd * math.Sqrt(v)
}
