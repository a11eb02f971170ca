package infer

import (
	"math"
	"slices"
	"sort"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/stdlib"
)

// MarginalsInput is what a finished run left for the marginal densities of
// its latents (what mscppl run --out DIR writes).
type MarginalsInput struct {
	// Names and Draws are the latent components' names (w[3]) and their
	// draws in their own space, one slice per component (draws.csv).
	Names []string
	Draws [][]float64
	// Model is the run's model; nil when unknown: then the densities are
	// estimated in the draws' own space and the prior is not drawn.
	Model *Model
	// Summary is the run's summary (nil when unknown): it says whether the
	// draws are q's or resampled by the PSIS weights.
	Summary *Summary
	// Variational is the run's variational.json ("" for none). When the
	// draws are q's and q is Gaussian, the curve is q's exact marginal
	// density instead of an estimate from the draws.
	Variational string
	// Max is the largest number of components estimated (0: all).
	Max int
}

// Point is a point of a density curve.
type Point struct{ X, Density float64 }

// Marginal is the density of one latent component in its own space, on
// 200 points spanning the bulk of its draws inside its support.
type Marginal struct {
	Name string
	// Constraint is the component's constant-bound constraint, such as
	// <lower=0>, when the model is known ("" for none).
	Constraint string
	// Posterior is the density of the draws (q's exact density when Exact).
	Posterior []Point
	// Prior is the density of the model's prior (nil when it is not drawn).
	Prior []Point
}

// Marginals are the densities of a run's latent components.
type Marginals struct {
	Components []Marginal
	// Exact reports that the posterior curves are q's exact (Gaussian)
	// marginal densities.
	Exact bool
	// ModelChanged reports that the model's latents are not the draws'
	// components (the model was edited since the run), so their
	// constraints are unknown and the prior is not drawn.
	ModelChanged bool
	// NoPrior reports that the model's prior cannot be sampled.
	NoPrior bool
}

// EstimateMarginals estimates the density of each latent component (up to
// in.Max) from its draws, and that of its prior from
// Defaults.PriorDraws draws of the model's prior. A density is a Gaussian
// kernel density estimate with Silverman's bandwidth; for draws resampled
// by the PSIS weights the bandwidth is that of the weights' effective
// sample size, since resampled draws repeat. With a constant-bound
// constraint both densities are estimated in q's unconstrained space and
// carried back with the Jacobian, so they stay on the latent's support.
// When the draws are q's own and q is Gaussian, the posterior curve is q's
// exact marginal density carried back the same way.
func EstimateMarginals(in MarginalsInput) *Marginals {
	out := &Marginals{}
	comps := map[string]transform{}
	var prior [][]float64
	var qMean, qSD []float64
	if m := in.Model; m != nil {
		names := m.IR.LatentNames()
		if len(names) != len(in.Names) {
			out.ModelChanged = true
		} else {
			prior = PriorDraws(m, Defaults.PriorDraws, Defaults.Seed)
			out.NoPrior = prior == nil
			for _, v := range m.IR.Latents {
				if v.Special() {
					continue
				}
				for i := 0; i < v.Type.Len(); i++ {
					comps[names[v.XOffset+i]] = transform{bij: v.Bij, known: true, u: v.Offset + i}
				}
			}
			if in.Summary != nil && in.Summary.SummarySource == SourceQ && in.Variational != "" {
				if q, err := ReadVariational(in.Variational, m); err == nil && q.Dim() == m.IR.LatentDim {
					qMean, qSD = gaussianMoments(q)
				}
			}
		}
	}
	neff := 0.0
	if in.Summary != nil && in.Summary.SummarySource == SourcePSIS {
		neff = float64(in.Summary.Diagnostics.ESSBulkMin)
	}
	for j, name := range in.Names {
		if in.Max > 0 && j >= in.Max {
			break
		}
		tr := comps[name]
		mg := Marginal{Name: name}
		if tr.known && !tr.bij.Identity() {
			mg.Constraint = tr.bij.String()
		}
		lo, hi := tr.plotRange(in.Draws[j])
		if tr.known && qMean != nil {
			mg.Posterior = tr.gaussian(qMean[tr.u], qSD[tr.u], lo, hi)
			out.Exact = true
		} else {
			mg.Posterior = tr.density(in.Draws[j], neff, lo, hi)
		}
		if prior != nil {
			mg.Prior = tr.density(prior[j], 0, lo, hi)
		}
		out.Components = append(out.Components, mg)
	}
	return out
}

// isGaussian reports whether q is a Gaussian (its family's registration
// says so): its marginals are then the Gaussians of its Moments.
func isGaussian(q msc.Family) bool { return msc.FamilyOf(q).Gaussian }

// gaussianMoments are the means and sds of q's marginals in the
// unconstrained space when q is Gaussian (nil otherwise).
func gaussianMoments(q msc.Family) (mean, sd []float64) {
	s, ok := q.(msc.Sampler)
	if !ok || !isGaussian(q) {
		return nil, nil
	}
	mean, sd = make([]float64, s.Dim()), make([]float64, s.Dim())
	s.Moments(mean, sd)
	return mean, sd
}

// transform carries densities between a latent component's own space and
// q's unconstrained space, where it is component u (the identity without a
// known constant-bound constraint).
type transform struct {
	bij   stdlib.Bijection
	known bool
	u     int
}

// unconstrain maps x to q's space (false on or outside a bound).
func (tr transform) unconstrain(x float64) (float64, bool) {
	if tr.known {
		var err error
		if x, err = tr.bij.Unconstrain(x); err != nil {
			return 0, false
		}
	}
	return x, !math.IsInf(x, 0) && !math.IsNaN(x)
}

// plotRange is where the density is drawn: the bulk of the draws (1% to
// 99% quantiles, widened by 10%; a heavy tail would squash the rest), taken
// in the unconstrained space so that it stays inside the support; without a
// known constraint, no further than the draws reach.
func (tr transform) plotRange(x []float64) (float64, float64) {
	s := make([]float64, 0, len(x))
	for _, v := range x {
		if u, ok := tr.unconstrain(v); ok {
			s = append(s, u)
		}
	}
	if len(s) == 0 {
		return 0, 1
	}
	sort.Float64s(s)
	q := func(p float64) float64 { return s[int(p*float64(len(s)-1))] }
	a, b := q(0.01), q(0.99)
	w := b - a
	if w <= 0 {
		w = math.Max(math.Abs(a)*0.1, 1e-3)
	}
	lo, hi := a-0.1*w, b+0.1*w
	if !tr.known {
		return math.Max(lo, s[0]), math.Min(hi, s[len(s)-1])
	}
	lo, hi = tr.bij.Constrain(lo), tr.bij.Constrain(hi)
	if lo > hi { // upper bound only: x decreases with u
		lo, hi = hi, lo
	}
	return lo, hi
}

// gridPoints is the number of points of a density curve.
const gridPoints = 200

// grid is gridPoints points of [lo, hi] with each one's place in q's space
// and the log Jacobian log |dx/du| there, in increasing order of x. For a
// constrained component the points are evenly spaced in q's space, so
// that they are dense where the density is steep near a bound (a scale
// near zero, whose density in x is the log's divided by x).
func (tr transform) grid(lo, hi float64, each func(x, u, logJac float64) float64) []Point {
	const n = gridPoints
	out := make([]Point, 0, n)
	ulo, okLo := tr.unconstrain(lo)
	uhi, okHi := tr.unconstrain(hi)
	inU := tr.known && !tr.bij.Identity() && okLo && okHi && uhi != ulo
	for i := 0; i < n; i++ {
		x := lo + (hi-lo)*float64(i)/(n-1)
		if inU {
			x = tr.bij.Constrain(ulo + (uhi-ulo)*float64(i)/(n-1))
		}
		u, ok := tr.unconstrain(x)
		if !ok {
			continue // on a bound, by rounding
		}
		logJac := 0.0
		if tr.known {
			logJac = tr.bij.LogJacobian(u)
		}
		out = append(out, Point{X: x, Density: each(x, u, logJac)})
	}
	if len(out) > 1 && out[0].X > out[len(out)-1].X { // x decreases with u
		slices.Reverse(out)
	}
	return out
}

// gaussian is the density of x when u is N(mean, sd^2).
func (tr transform) gaussian(mean, sd, lo, hi float64) []Point {
	return tr.grid(lo, hi, func(_, u, logJac float64) float64 {
		d := (u - mean) / sd
		return math.Exp(-0.5*d*d-logJac) / (sd * math.Sqrt(2*math.Pi))
	})
}

// density estimates the density of the draws x on the grid of [lo, hi]: a
// Gaussian kernel density estimate in the unconstrained space, with
// Silverman's bandwidth for neff draws (len(x) when neff is 0), carried to
// x's space by the Jacobian of the constraint.
func (tr transform) density(x []float64, neff, lo, hi float64) []Point {
	u := make([]float64, 0, len(x))
	for _, v := range x {
		if v, ok := tr.unconstrain(v); ok {
			u = append(u, v)
		}
	}
	if !(neff > 1 && neff <= float64(len(u))) { // NaN too: no ESS in the summary
		neff = float64(len(u))
	}
	if len(u) == 0 {
		return tr.grid(lo, hi, func(_, _, _ float64) float64 { return 0 })
	}
	h := silverman(u, neff)
	return tr.grid(lo, hi, func(_, ut, logJac float64) float64 {
		s := 0.0
		for _, v := range u {
			d := (ut - v) / h
			s += math.Exp(-0.5 * d * d)
		}
		return s / (float64(len(u)) * h * math.Sqrt(2*math.Pi)) * math.Exp(-logJac)
	})
}

// KDE is the Gaussian kernel density estimate of the draws xs with
// Silverman's bandwidth, on n >= 2 points from the smallest draw to the
// largest (so it stays on the draws' support; 3 bandwidths either side of
// draws that are all equal). The trace plot's densities.
func KDE(xs []float64, n int) []Point {
	h := silverman(xs, float64(len(xs)))
	lo, hi := slices.Min(xs), slices.Max(xs)
	if hi == lo {
		lo, hi = lo-3*h, hi+3*h
	}
	out := make([]Point, n)
	norm := 1 / (float64(len(xs)) * h * math.Sqrt(2*math.Pi))
	for i := range out {
		x := lo + (hi-lo)*float64(i)/float64(n-1)
		d := 0.0
		for _, v := range xs {
			z := (x - v) / h
			d += math.Exp(-0.5 * z * z)
		}
		out[i] = Point{X: x, Density: d * norm}
	}
	return out
}

// silverman is Silverman's rule of thumb, 0.9 min(sd, IQR/1.34) n^(-1/5).
func silverman(u []float64, n float64) float64 {
	_, sd := MeanSD(u)
	s := append([]float64(nil), u...)
	sort.Float64s(s)
	spread := sd
	if len(s) > 3 {
		if iqr := (s[3*len(s)/4] - s[len(s)/4]) / 1.34; iqr > 0 && iqr < sd {
			spread = iqr
		}
	}
	h := 0.9 * spread * math.Pow(n, -0.2)
	if !(h > 0) {
		h = 1e-3 * math.Max(1, math.Abs(s[len(s)/2]))
	}
	return h
}
