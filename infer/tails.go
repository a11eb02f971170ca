package infer

import (
	"fmt"
	"github.com/mscppl/mscppl/internal/coordt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/lower"
)

// Tails. A Gaussian q (or its refinement by the PSIS moments) thins out
// faster than many posteriors: the log of a scale whose posterior reaches
// down to zero has an exponential tail, a funnel's neck is a region q's
// draws visit too rarely for k-hat to see (k-hat 0.4-0.6 on a non-centred
// hierarchy whose 5% quantile of tau PSIS put at 0.21-0.28 against
// 0.108). Two things follow. The summaries' draws come from a defensive
// mixture of the Gaussian with a heavy-tailed proposal of the same mean
// and covariance, so that the tails are drawn; and a second opinion,
// from the Gaussian mixed with a different heavy-tailed proposal, is
// compared with them: where the two disagree by more than their Monte
// Carlo errors allow, the run is not converged, whatever its k-hat.
const (
	// tailsDF and tailsWiden shape the summaries' heavy-tailed component
	// (a coordT: whitened coordinates Student-t's with tailsDF degrees of
	// freedom and tailsWiden times the Gaussian's sds).
	tailsDF    = 3
	tailsWiden = 1.2
	// secondDF and secondWiden shape the second opinion's: a multivariate
	// Student-t, whose draws in the tails are far out in every direction
	// at once (a posterior whose tails are heavy in all directions).
	secondDF    = 3.0
	secondWiden = 1.5
	// tailsMixWeight is the Gaussian's weight in both mixtures.
	tailsMixWeight = 0.5
)

// withTails returns im's draws (of p) together with n draws of the coordT
// of p's mean and covariance, all weighted against the mixture of the two
// in proportion to their numbers (multiple importance sampling with the
// balance heuristic: Veach and Guibas 1995; Owen and Zhou 2000), so that
// im's draws are used again and only the heavy-tailed ones cost log
// joints; and that mixture, for more draws. nil when p's covariance is
// not positive definite or too large to factorise.
func withTails(rng *rand.Rand, comps []*lower.Compiled, im *importance, p msc.Sampler, n int) (*importance, *defensive, error) {
	d := p.Dim()
	if d > msc.Defaults.FullRankLimit || len(im.lp) != len(im.lr) {
		return nil, nil, nil
	}
	mean, sd, cov := make([]float64, d), make([]float64, d), make([]float64, d*d)
	p.Moments(mean, sd)
	p.Cov(cov)
	t := coordt.New(mean, cov, tailsDF, tailsWiden)
	if t == nil {
		return nil, nil, nil
	}
	a := float64(len(im.lr)) / float64(len(im.lr)+n)
	mix := newMixture([]component{p, t}, []float64{math.Log(a), math.Log1p(-a)})
	out := &importance{x: slices.Clone(im.x), u: slices.Clone(im.u), lp: slices.Clone(im.lp),
		lr: make([]float64, len(im.lr)), qMean: make([]float64, d), qSD: make([]float64, d),
		nonFinite: im.nonFinite, firstNaN: im.firstNaN}
	mix.Moments(out.qMean, out.qSD)
	for i, u := range im.u {
		out.lr[i] = im.lp[i] - mix.LogQ(u)
		if math.IsNaN(out.lr[i]) || math.IsInf(out.lr[i], 1) {
			out.lr[i] = math.Inf(-1)
		}
	}
	out.draw(rng, comps, drawnFrom{t, mix}, n)
	if err := out.smooth(); err != nil {
		return nil, nil, err
	}
	return out, mix, nil
}

// drawnFrom draws from one component of a mixture and weighs the draws
// against the whole mixture.
type drawnFrom struct {
	c   component
	mix *defensive
}

func (s drawnFrom) Dim() int                                { return s.c.Dim() }
func (s drawnFrom) Sample(rng *rand.Rand, z, eps []float64) { s.c.Sample(rng, z, eps) }
func (s drawnFrom) LogQNoise(z, _ []float64) float64        { return s.mix.LogQ(z) }
func (s drawnFrom) Moments(mean, sd []float64)              { s.mix.Moments(mean, sd) }

// secondOpinion draws M times from p mixed with a multivariate Student-t
// of p's mean and secondWiden^2 times its covariance, and returns where
// its estimates disagree with im's, the summaries' ("" when they agree,
// or when there is no such Student-t).
func secondOpinion(rng *rand.Rand, comps []*lower.Compiled, p msc.Sampler, im *importance, M int, names []string) string {
	t := studentTOf(p, secondDF, secondWiden)
	if t == nil {
		return ""
	}
	mix := newMixture([]component{p, t}, []float64{math.Log(tailsMixWeight), math.Log(1 - tailsMixWeight)})
	second, err := importanceSample(rng, comps, mix, M)
	if err != nil {
		return "" // no draw with positive density: the first check has said so
	}
	if second.khat > KhatMax {
		return fmt.Sprintf("the second opinion's weights have k-hat %.2f, against %.2f for the summaries' draws: its Student-t draws found posterior mass that the summaries' draws are too rare to show", second.khat, im.khat)
	}
	return tailsDisagreement(im, second, names)
}

const (
	// tailsAlpha is the chance that the comparison fails when both
	// samples estimate the same posterior: each difference is judged
	// against its Monte Carlo error at the Bonferroni level tailsAlpha/K
	// for the K figures compared.
	tailsAlpha = 0.01
	// tailsMean, tailsSD and tailsQuantile are how large a difference must
	// be to count (in posterior sds, as a fraction of the sd, in posterior
	// sds): both detectable and material. The sizes are the accuracy the
	// project asks of a summary (0.1 sd, 10%; a tail quantile twice that,
	// as its Monte Carlo error is about twice the mean's): two estimates
	// further apart cannot both meet it.
	tailsMean     = 0.1
	tailsSD       = 0.1
	tailsQuantile = 0.2
)

// tailsDisagreement compares the estimates of two importance samples of
// the same posterior and returns what disagrees most ("" when nothing
// does). The Monte Carlo errors are the delta method's for self-normalised
// weights (sum w_i^2 (h_i - E h)^2), which a few dominant weights inflate
// as they should; a quantile is compared on the probability scale: the
// mass that b puts below a's quantile against the quantile's level.
//
// A name that is "" is not compared (continuousNames).
func tailsDisagreement(a, b *importance, names []string) string {
	ma, mb := a.allMarginals(a.w), b.allMarginals(b.w)
	K := 0
	for j, n := range names {
		if varies(ma[j]) && n != "" {
			K += 4
		}
	}
	if K == 0 {
		return ""
	}
	z := distuv.UnitNormal.Quantile(1 - tailsAlpha/float64(2*K))
	worst, what := 0.0, ""
	consider := func(diff, se, size, floor float64, text string) {
		if !(se > 0) || math.IsNaN(diff) || math.Abs(diff) <= z*se || size <= floor {
			return
		}
		if r := math.Abs(diff) / se; r > worst {
			worst, what = r, text
		}
	}
	colA, colB := make([]float64, len(a.x)), make([]float64, len(b.x))
	for j, n := range names {
		x, y := ma[j], mb[j]
		if !varies(x) || n == "" {
			continue // a constant (or a 0/1 quantity that does not vary), or not compared
		}
		for i, r := range a.x {
			colA[i] = r[j]
		}
		for i, r := range b.x {
			colB[i] = r[j]
		}
		sd := x.SD
		va, vb := momentErrors(colA, a.w, x, a.ess), momentErrors(colB, b.w, y, b.ess)
		consider(x.Mean-y.Mean, math.Hypot(va[0], vb[0]), math.Abs(x.Mean-y.Mean), tailsMean*sd,
			fmt.Sprintf("%s's mean (%.4g against %.4g)", n, x.Mean, y.Mean))
		consider(x.SD-y.SD, math.Hypot(va[1], vb[1]), math.Abs(x.SD-y.SD), tailsSD*sd,
			fmt.Sprintf("%s's sd (%.4g against %.4g)", n, x.SD, y.SD))
		for _, qq := range []struct {
			p      float64
			qa, qb Figure
			label  string
		}{{0.05, x.Q05, y.Q05, "5%"}, {0.95, x.Q95, y.Q95, "95%"}} {
			pb, seb := massBelow(colB, b.w, float64(qq.qa), qq.p, b.ess)
			_, sea := massBelow(colA, a.w, float64(qq.qa), qq.p, a.ess)
			consider(pb-qq.p, math.Hypot(sea, seb), math.Abs(float64(qq.qa-qq.qb)), tailsQuantile*sd,
				fmt.Sprintf("%s's %s quantile (%.4g against %.4g)", n, qq.label, float64(qq.qa), float64(qq.qb)))
		}
	}
	if what == "" {
		return ""
	}
	return fmt.Sprintf("%s, %.0f standard errors apart", what, worst)
}

// momentErrors are the standard errors of the weighted mean and sd m of x
// under the normalised weights w, whose effective sample size is ess: the
// larger of the delta method's (sum w_i^2 (h_i - E h)^2) and the one an
// independent sample of size ess would have (the delta method alone
// understates the error when the sample lacks the large weights it would
// need: on Ionosphere's 35 dimensions, at an ESS of 350-560, by a factor
// of 2).
func momentErrors(x, w []float64, m Moments, ess float64) [2]float64 {
	v := m.SD * m.SD
	var sm, sv, m4 float64
	for i, xi := range x {
		d := xi - m.Mean
		w2 := w[i] * w[i]
		sm += w2 * d * d
		sv += w2 * (d*d - v) * (d*d - v)
		m4 += w[i] * d * d * d * d
	}
	if !(m.SD > 0) || !(ess > 0) {
		return [2]float64{}
	}
	kurt := math.Max(1, m4/(v*v))
	return [2]float64{
		math.Max(math.Sqrt(sm), m.SD/math.Sqrt(ess)),
		math.Max(math.Sqrt(sv)/(2*m.SD), m.SD*math.Sqrt((kurt-1)/(4*ess))),
	}
}

// massBelow is the weighted mass of x at or below t and its standard
// error were that mass p0 (under the hypothesis that t is the p0 quantile:
// with the observed mass instead, a sample that puts too little mass in a
// tail would also understate its own error), the larger of the delta
// method's and an independent sample's of size ess.
func massBelow(x, w []float64, t, p0, ess float64) (p, se float64) {
	for i, xi := range x {
		if xi <= t {
			p += w[i]
		}
	}
	var s float64
	for i, xi := range x {
		ind := 0.0
		if xi <= t {
			ind = 1
		}
		s += w[i] * w[i] * (ind - p0) * (ind - p0)
	}
	return p, math.Max(math.Sqrt(s), math.Sqrt(p0*(1-p0)/ess))
}

// varies reports whether a component's posterior sd is more than
// rounding.
func varies(m Moments) bool { return m.SD > 1e-12*(1+math.Abs(m.Mean)) }

// continuousNames names the latent values the second opinion compares:
// m's latents, transformed and derived quantities, with the integer-valued
// ones left "" (a generated int such as a Viterbi path: its quantiles jump
// between integers, so the comparison on the probability scale cannot
// judge them, and Stan's practice is that such outputs are reported, not
// diagnosed).
func continuousNames(m *ir.Model) []string {
	names := m.LatentNames()
	for _, v := range m.Latents {
		t := v.Type
		if v.Derived != nil {
			t = v.Derived.Type() // a derived quantity's value: an int local's
		}
		if t.Kind == ir.Int || t.IntElems {
			for i := range v.Type.Len() {
				names[v.XOffset+i] = ""
			}
		}
	}
	return names
}
