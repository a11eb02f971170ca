package infer

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// neck is where the log joint rises far above every draw behind the
// summaries.
type neck struct {
	at          mode    // the point and its log joint
	top, excess float64 // the draws' highest log joint, and by how much at exceeds what they should reach
}

// neckOf returns the neck a centred hierarchy's funnel has, when a warm
// start's search climbed into it (nil otherwise).
func (f *Fitted) neckOf(im *importance) *neck {
	if f.peak.x == nil || f.problem == nil || len(f.problem.Facts.Centred) == 0 {
		return nil
	}
	top := math.Inf(-1)
	for _, l := range im.lp {
		top = math.Max(top, l)
	}
	d := float64(len(f.peak.x))
	// under a Gaussian posterior the mode is above the highest of M draws
	// by half the chi-square quantile at 1/M
	gap := 0.5 * distuv.ChiSquared{K: d}.Quantile(1/float64(len(im.lp)))
	excess := f.peak.logp - top - gap
	if !(excess > neckMargin) {
		return nil
	}
	return &neck{at: f.peak, top: top, excess: excess}
}

// neckMargin is how far (in nats) above what the draws should reach the
// searches' peak must be.
const neckMargin = 10.0

// neckWarning says where the searches climbed, with the scales' values
// there.
func (f *Fitted) neckWarning(n *neck) string {
	m := f.Model
	x := make([]float64, m.IR.XDim)
	m.Comp.Constrain(n.at.x, x)
	names := m.IR.LatentNames()
	var scales, where []string
	for _, c := range f.problem.Facts.Centred {
		for _, s := range c.Scale {
			if slices.Contains(scales, s) {
				continue
			}
			scales = append(scales, s)
			if j := slices.Index(names, s); j >= 0 {
				where = append(where, fmt.Sprintf("%s = %.3g", s, x[j]))
			}
		}
	}
	at := ""
	if len(where) > 0 {
		at = " at " + strings.Join(where, ", ")
	}
	return fmt.Sprintf(
		"a funnel's neck that the summaries' draws never reach: a search for a mode climbed to log density %.1f%s without finding one, %.0f above the highest of the %d draws (%.1f) and more than a Gaussian posterior allows; the density of a centred hierarchy rises without bound as its scale (%s) goes to zero with the group effects together, and that region holds posterior mass no Gaussian q reaches (Stan reports divergences there), so the summaries of %s and of what it scales are unreliable whatever k-hat says; %s",
		n.at.logp, at, n.at.logp-n.top, f.imp.draws, n.top, strings.Join(scales, ", "), strings.Join(scales, ", "), f.khatAdvice())
}
