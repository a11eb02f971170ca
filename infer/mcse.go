package infer

import "math"

// DrawsMCSE is the Monte Carlo standard error of a mean over n of f's
// Draws (or UnconstrainedDraws, or any function of them) whose sd is sd.
// Independent draws of q give sd/sqrt(n). Draws resampled by the PSIS
// weights carry the importance-sampling error, about sd/sqrt(ESS) with the
// weights' effective sample size, plus that of resampling, at most
// sd/sqrt(n).
func (f *Fitted) DrawsMCSE(sd float64, n int) float64 {
	v := 1 / float64(n)
	if s := f.Summary; s != nil && s.SummarySource == "psis" {
		if ess := float64(s.Diagnostics.ESSBulkMin); ess > 0 {
			v += 1 / ess
		}
	}
	return sd * math.Sqrt(v)
}
