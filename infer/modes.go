package infer

import (
	"fmt"
	"github.com/mscppl/mscppl/infer/msc/advice"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mscppl/mscppl/infer/msc"
)

// proposal is what the PSIS check draws from: q, or another proposal
// built from it.
type proposal interface {
	Dim() int
	Sample(rng *rand.Rand, z, eps []float64)
	LogQNoise(z, eps []float64) float64
	Moments(mean, sd []float64)
}

// Modes: the warm start's searches find the posterior's modes (infer/
// warmstart.go). A mode whose Laplace mass is comparable to the best one's
// and that q does not cover is mass the run did not explore: the chains
// all settled in one mode (their R-hat cannot see the other), or q is a
// compromise between them. The check then draws from a defensive mixture
// (Hesterberg 1995; Owen and Zhou 2000), q with Laplace approximations at
// the modes, whose importance weights see every mode, so that the
// summaries, a probability such as P(theta > 0) and the log evidence are
// right; and the run is not converged, with a warning that names the
// modes, since q itself covers only some of them.
const (
	// comparableMass: a mode counts when its Laplace mass is at least a
	// twentieth of the best one's.
	comparableMass = 20.0
	// coverQuantile: q covers a mode when the mode lies within the
	// 99.9% region of q (its log density there above q's at its mean less
	// half the chi-square quantile).
	coverQuantile = 0.999
	// defensiveWeight is q's weight in the mixture; the modes share the
	// rest in proportion to their Laplace masses.
	defensiveWeight = 0.5
	// modeWiden widens the Laplace components' sds.
	modeWiden = 1.2
)

// comparableModes are the modes whose Laplace mass is comparable to the
// best one's (modes is best first).
func comparableModes(modes []mode) []mode {
	var out []mode
	for _, m := range modes {
		if m.logMass >= modes[0].logMass-math.Log(comparableMass) {
			out = append(out, m)
		}
	}
	return out
}

// missedModes are the comparable modes q does not cover (nil when q covers
// them all or there is one mode).
func missedModes(q msc.Sampler, modes []mode) []mode {
	cm := comparableModes(modes)
	if len(cm) < 2 {
		return nil
	}
	d := q.Dim()
	mean, sd := make([]float64, d), make([]float64, d)
	q.Moments(mean, sd)
	top := q.LogQ(mean)
	chi := distuv.ChiSquared{K: float64(d)}.Quantile(coverQuantile)
	var out []mode
	for _, m := range cm {
		if q.LogQ(m.x) < top-0.5*chi {
			out = append(out, m)
		}
	}
	return out
}

// component is what a mixture needs of each of its components.
type component interface {
	Dim() int
	Sample(rng *rand.Rand, z, eps []float64)
	LogQ(z []float64) float64
	Moments(mean, sd []float64)
}

// defensive is a mixture of proposals: the defensive mixture w_0 q +
// sum_m w_m N(x_m, modeWiden^2 cov_m), or the second opinion's.
type defensive struct {
	comps []component
	logw  []float64
	cum   []float64 // cumulative weights, for choosing a component
	d     int
}

// newDefensive builds the mixture of q with the comparable modes.
func newDefensive(q msc.Sampler, modes []mode) (*defensive, error) {
	cm := comparableModes(modes)
	comps, logw := []component{q}, []float64{math.Log(defensiveWeight)}
	lse := math.Inf(-1)
	for _, md := range cm {
		lse = logAddExp(lse, md.logMass)
	}
	for _, md := range cm {
		g := msc.NewFullRank(q.Dim())
		cov := make([]float64, len(md.cov))
		for i, v := range md.cov {
			cov[i] = v * modeWiden * modeWiden
		}
		if err := g.SetMoments(md.x, cov); err != nil {
			return nil, err
		}
		comps = append(comps, g)
		logw = append(logw, math.Log(1-defensiveWeight)+md.logMass-lse)
	}
	return newMixture(comps, logw), nil
}

// newMixture is the mixture of comps with log weights logw (summing to
// log 1).
func newMixture(comps []component, logw []float64) *defensive {
	m := &defensive{d: comps[0].Dim(), comps: comps, logw: logw}
	c := 0.0
	for _, lw := range logw {
		c += math.Exp(lw)
		m.cum = append(m.cum, c)
	}
	return m
}

func logAddExp(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

func (m *defensive) Dim() int { return m.d }

// Sample draws each row from a component chosen by its weight.
func (m *defensive) Sample(rng *rand.Rand, z, eps []float64) {
	d := m.d
	for i := 0; i+d <= len(z); i += d {
		u := rng.Float64() * m.cum[len(m.cum)-1]
		c := 0
		for c < len(m.cum)-1 && u >= m.cum[c] {
			c++
		}
		m.comps[c].Sample(rng, z[i:i+d], eps[i:i+d])
	}
}

// LogQNoise is the mixture's log density at z (the noise is not enough to
// evaluate it: every component's density counts).
func (m *defensive) LogQNoise(z, _ []float64) float64 {
	l := math.Inf(-1)
	for c, q := range m.comps {
		l = logAddExp(l, m.logw[c]+q.LogQ(z))
	}
	return l
}

// LogQ is the mixture's log density at z.
func (m *defensive) LogQ(z []float64) float64 { return m.LogQNoise(z, nil) }

// Moments writes the mixture's means and sds.
func (m *defensive) Moments(mean, sd []float64) {
	cm, cs := make([]float64, m.d), make([]float64, m.d)
	second := make([]float64, m.d)
	clear(mean)
	for c, q := range m.comps {
		w := math.Exp(m.logw[c])
		q.Moments(cm, cs)
		for j := range mean {
			mean[j] += w * cm[j]
			second[j] += w * (cs[j]*cs[j] + cm[j]*cm[j])
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(math.Max(0, second[j]-mean[j]*mean[j]))
	}
}

// modesWarning names the modes, in each latent's own space.
func (f *Fitted) modesWarning(missed []mode) string {
	m := f.Model
	cm := comparableModes(f.modes)
	names := m.IR.LatentNames()
	where := func(md mode) string {
		x := make([]float64, m.IR.XDim)
		m.Comp.Constrain(md.x, x)
		var parts []string
		for j, n := range names {
			if j == 3 {
				parts = append(parts, "...")
				break
			}
			parts = append(parts, fmt.Sprintf("%s = %.4g", n, x[j]))
		}
		return strings.Join(parts, ", ")
	}
	var list []string
	for _, md := range cm {
		list = append(list, fmt.Sprintf("(%s; %.0f%% of their Laplace mass)", where(md), 100*math.Exp(md.logMass-logSumMass(cm))))
	}
	// the cause and remedy from the model: an ordering for exchangeable
	// components (the modes are its labellings)
	var a advice.Advice
	if f.problem != nil {
		a = advice.Facts{Exchangeable: f.problem.Facts.Exchangeable}.Structural()
	}
	return fmt.Sprintf(
		"the posterior has %d modes of comparable mass, found by the warm start's searches: %s; q covers %d of them, so the chains explored part of the posterior only; the summaries, draws.csv and the log evidence weigh draws of q mixed with Laplace approximations at every mode (a defensive mixture), so they include the modes q misses, but q itself (q_latent, variational.json) does not; likely cause: %s; remedy: %s",
		len(cm), strings.Join(list, ", "), len(cm)-len(missed),
		a.Cause("the chains settled in one mode and cannot cross to another"),
		a.Remedy("if the modes are a symmetry of the model (a sign, a relabelling), break it (a <lower=0> bound, an ordered vector); otherwise the posterior is multimodal and these summaries, not q, describe it"))
}

func logSumMass(ms []mode) float64 {
	l := math.Inf(-1)
	for _, m := range ms {
		l = logAddExp(l, m.logMass)
	}
	return l
}
