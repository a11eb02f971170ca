package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/infer/pfsmooth"
)

// The smoother's second opinion on a state-space run: independent
// bootstrap particle filters (package pfsmooth) at the run's final params (for
// a model with statics, at draws of the statics from the chains' record),
// whose traced trajectories' marginals the kept states' must match. It
// does not rely on the chains landing in different modes: chains that all
// sit in one mode of a two-signed state agree with each other, not with
// the smoother. smoothFilters filters give smoothPer trajectories each
// (drawn by backward simulation);
// the Monte Carlo errors are the filters' (jackknife over filters) and the
// chains' (their ESS).
//
// A bootstrap filter is coarse where an observation is sharp: on the
// growth model (T = 30) a step whose median ESS was 2 of 1000 particles
// left the traced sd of the step before it 0.72 against the exact 0.41;
// at 10000 particles (ESS 33) it was 0.44. So the filters start with
// smoothParticles particles and take more, as many times as the smallest
// median ESS of a step falls short of smoothESS, within smoothBudget
// particle steps over all the filters; a state at a step (or before a
// step) still below smoothESS is not compared, and the warning or a note
// says how many.
const (
	smoothFilters   = 32
	smoothPer       = 8
	smoothParticles = 1000
	// smoothMinParticles is the fewest particles a filter starts with, when
	// the budget would allow fewer than smoothParticles (T above 500).
	smoothMinParticles = 100
	smoothESS          = 50
	smoothBudget       = 16e6
	// smoothSign is how far the chains' and the smoother's P(x > 0) must
	// be apart to count (beside the Monte Carlo test); means and sds use
	// the accuracy the summaries aim at (tailsMean, tailsSD).
	smoothSign = 0.1
	// smoothNamed is how many disagreeing states the warning names.
	smoothNamed = 5
)

// smoothOpinion is where the chains' state marginals disagree with the
// smoother's.
type smoothOpinion struct {
	bad     []string // the states that disagree, in the order of the latents
	states  int      // the states compared
	worst   string   // the largest disagreement, in words
	statics bool     // the filters ran at draws of the statics

	filters, particles int
	skipped            int // states at steps where the filters were too coarse
}

// smootherOpinion runs the smoother and compares (nil when the run kept
// too few draws, or the model's transition cannot be drawn from).
func (f *Fitted) smootherOpinion(rng *rand.Rand) *smoothOpinion {
	res, p := f.Result, f.problem
	if res == nil || p == nil || res.ChainDraws == nil || f.kernel == nil || !f.kernel.Markov {
		return nil
	}
	d := p.Dim
	T := d
	if p.Statics != nil {
		T = len(p.Statics.States())
	}
	filters := smoothFilters
	var statics [][]float64
	if p.Statics != nil {
		pos := p.Statics.Statics()
		total := 0
		for _, ch := range res.ChainDraws {
			total += len(ch) / d
		}
		for i := range filters {
			r := i * total / filters
			c := 0
			for r >= len(res.ChainDraws[c])/d {
				r -= len(res.ChainDraws[c]) / d
				c++
			}
			row := res.ChainDraws[c][r*d : (r+1)*d]
			th := make([]float64, len(pos))
			for k, j := range pos {
				th[k] = row[j]
			}
			statics = append(statics, th)
		}
	}
	sm, err := smoothEnough(rng, p, statics, filters, T)
	if err != nil {
		return nil // no second opinion to be had (the evidence's filter reports degenerate weights)
	}
	o := compareSmoothed(res.ChainDraws, sm, p.Names)
	if o != nil {
		o.statics = p.Statics != nil
	}
	return o
}

// smoothEnough runs the filters with smoothParticles particles (fewer for
// a series too long for them within the budget), then with
// more until every step's median ESS reaches smoothESS or the budget is
// spent.
func smoothEnough(rng *rand.Rand, p *msc.Problem, statics [][]float64, filters, T int) (*pfsmooth.Smoothed, error) {
	// (a long series starts with fewer particles, within the budget)
	for n := max(smoothMinParticles, min(smoothParticles, int(smoothBudget/float64(filters*T)))); ; {
		sm, err := pfsmooth.Smooth(rng, p, statics, filters, smoothPer, n)
		if err != nil {
			return nil, err
		}
		low := slices.Min(sm.ESS)
		more := min(int(float64(n)*math.Ceil(smoothESS/math.Max(low, 1))), int(smoothBudget/float64(filters*T)))
		if low >= smoothESS || more <= n {
			return sm, nil
		}
		n = more
	}
}

// compareSmoothed compares the chains' draws (each chain's rows of
// sm.Dim) of every state with the smoother's: mean, sd and P(x > 0), each
// difference against both Monte Carlo errors at the Bonferroni level
// tailsAlpha over all the figures compared, and large enough to matter.
func compareSmoothed(chains [][]float64, sm *pfsmooth.Smoothed, names []string) *smoothOpinion {
	d, R, per := sm.Dim, sm.Filters, sm.Per
	out := &smoothOpinion{filters: R, particles: sm.N}
	z := distuv.UnitNormal.Quantile(1 - tailsAlpha/float64(2*3*len(sm.States)))
	cols := make([][]float64, len(chains))
	fm, f2, fp := make([]float64, R), make([]float64, R), make([]float64, R)
	worst := 0.0
	coarse := func(t int) bool {
		return sm.ESS[t] < smoothESS || (t+1 < len(sm.ESS) && sm.ESS[t+1] < smoothESS)
	}
	for i, j := range sm.States {
		if coarse(sm.StepOf[i]) {
			out.skipped++
			continue
		}
		out.states++
		// the chains: pooled moments, errors from their ESS
		var n, s1, s2, pos float64
		for c, ch := range chains {
			m := len(ch) / d
			cols[c] = cols[c][:0]
			for r := range m {
				x := ch[r*d+j]
				cols[c] = append(cols[c], x)
				n++
				s1 += x
				s2 += x * x
				if x > 0 {
					pos++
				}
			}
		}
		if n < 2 {
			return nil
		}
		cm := s1 / n
		csd := math.Sqrt(math.Max(0, s2/n-cm*cm))
		cp := pos / n
		var m4 float64
		for _, col := range cols {
			for _, x := range col {
				m4 += math.Pow(x-cm, 4) / n
			}
		}
		ess := msc.DrawsESS(cols)
		if !(ess > 0) {
			ess = float64(len(chains)) // a chain that never moved: its figures claim little
		}
		// the smoother: per filter, then a jackknife over the filters
		for f := range R {
			var a, b, q float64
			for r := range per {
				x := sm.Z[(f*per+r)*d+j]
				a += x
				b += x * x
				if x > 0 {
					q++
				}
			}
			fm[f], f2[f], fp[f] = a/float64(per), b/float64(per), q/float64(per)
		}
		sMean, sSD, sP, seMean, seSD, seP := jackknifeMoments(fm, f2, fp)
		nd := float64(R * per)
		seMean = math.Max(seMean, sSD/math.Sqrt(nd))
		seSD = math.Max(seSD, sSD/math.Sqrt(2*nd))
		// (P(x > 0) pulled off 0 and 1 by half a draw, so that a sign
		// every draw agrees on still has an error)
		p0 := (sP*nd + 0.5) / (nd + 1)
		seP = math.Max(seP, math.Sqrt(p0*(1-p0)/nd))
		// the chains' errors: their own sd for their mean and sd (what
		// they claim), the smoother's P(x > 0) for the sign (under the
		// hypothesis that both estimate the same marginal)
		kurt := 3.0
		if csd > 0 {
			kurt = math.Max(1, m4/(csd*csd*csd*csd))
		}
		ceMean := csd / math.Sqrt(ess)
		ceSD := csd * math.Sqrt((kurt-1)/(4*ess))
		ceP := math.Sqrt(p0 * (1 - p0) / ess)
		name := fmt.Sprintf("component %d", j+1)
		if j < len(names) {
			name = names[j]
		}
		off := false
		judge := func(diff, se, floor float64, text string) {
			if math.IsNaN(diff) || math.Abs(diff) <= z*se || math.Abs(diff) <= floor {
				return
			}
			off = true
			if r := math.Abs(diff) / math.Max(se, 1e-300); r > worst {
				worst, out.worst = r, text+fmt.Sprintf(", %.0f standard errors apart", r)
			}
		}
		judge(cm-sMean, math.Hypot(ceMean, seMean), tailsMean*sSD,
			fmt.Sprintf("%s's mean %.4g against the smoother's %.4g", name, cm, sMean))
		judge(csd-sSD, math.Hypot(ceSD, seSD), tailsSD*sSD,
			fmt.Sprintf("%s's sd %.4g against the smoother's %.4g", name, csd, sSD))
		judge(cp-sP, math.Hypot(ceP, seP), smoothSign,
			fmt.Sprintf("%s's P(> 0) %.2f against the smoother's %.2f", name, cp, sP))
		if off {
			out.bad = append(out.bad, name)
		}
	}
	return out
}

// jackknifeMoments are the mean, sd and P(x > 0) of the pooled draws
// whose per-filter means of x, x^2 and 1(x > 0) are fm, f2 and fp (equal
// numbers of draws per filter), with their jackknife standard errors
// over the filters.
func jackknifeMoments(fm, f2, fp []float64) (mean, sd, p, seMean, seSD, seP float64) {
	R := float64(len(fm))
	var a, b, c float64
	for i := range fm {
		a += fm[i]
		b += f2[i]
		c += fp[i]
	}
	mean, p = a/R, c/R
	sd = math.Sqrt(math.Max(0, b/R-mean*mean))
	var vm, vs, vp float64
	for i := range fm {
		m := (a - fm[i]) / (R - 1)
		s := math.Sqrt(math.Max(0, (b-f2[i])/(R-1)-m*m))
		q := (c - fp[i]) / (R - 1)
		vm += (m - mean) * (m - mean)
		vs += (s - sd) * (s - sd)
		vp += (q - p) * (q - p)
	}
	k := (R - 1) / R
	return mean, sd, p, math.Sqrt(k * vm), math.Sqrt(k * vs), math.Sqrt(k * vp)
}

// warning is the summary's warning for a disagreement ("" when none).
func (o *smoothOpinion) warning() string {
	if o == nil || len(o.bad) == 0 {
		return ""
	}
	named := o.bad[:min(len(o.bad), smoothNamed)]
	list := joinAnd(named)
	if len(o.bad) > len(named) {
		list = fmt.Sprint(named[0])
		for _, n := range named[1:] {
			list += ", " + n
		}
		list += ", ..."
	}
	at := "at the run's final params"
	if o.statics {
		at = "at draws of the statics from the chains"
	}
	subject, verb := "the states", "disagree"
	if len(o.bad) == 1 {
		subject, verb = "the state", "disagrees"
	}
	return fmt.Sprintf(
		"%s %s (%d of %d) %s with an independent particle smoother (%d bootstrap particle filters of %d particles %s; worst: %s%s): the proposal may be stuck in one mode of a multimodal state, so the chains' state marginals are not the posterior's; likely cause: a state whose sign or mode the data do not identify, which one Gaussian proposal per step cannot cross; remedy: more --samples (particles) gives each sweep more chances to cross, and a model whose data identify the states' sign removes the cause",
		subject, list, len(o.bad), o.states, verb, o.filters, o.particles, at, o.worst, o.skippedText())
}

// skippedText says how many states were not compared ("" when none).
func (o *smoothOpinion) skippedText() string {
	if o.skipped == 0 {
		return ""
	}
	return fmt.Sprintf("; %d states not compared, at steps whose observations are too sharp for the filters' ESS to reach %d", o.skipped, smoothESS)
}

// note is the summary's note when the check found nothing but could not
// compare every state ("" otherwise).
func (o *smoothOpinion) note() string {
	if o == nil || len(o.bad) > 0 || o.skipped == 0 {
		return ""
	}
	return fmt.Sprintf("an independent particle smoother (%d bootstrap filters of %d particles) agrees with the chains' states, but %d of the %d states were not compared: at their steps the observations are too sharp for the filters' ESS to reach %d",
		o.filters, o.particles, o.skipped, o.states+o.skipped, smoothESS)
}
