package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/mscppl/mscppl/infer/diag"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir/explain"
	"github.com/mscppl/mscppl/ir/lower"
	"github.com/mscppl/mscppl/lang"
)

// KhatMax is the largest Pareto k-hat at which the PSIS-weighted draws of q
// are trusted as posterior estimates (Vehtari et al. 2024: above 0.7 the
// importance-sampling estimates are unreliable whatever the sample size).
const KhatMax = 0.7

// importance is the PSIS check of a fitted q: M draws of q in each
// latent's own space, their smoothed normalised weights, k-hat, and the
// evidence estimate the same weights give.
type importance struct {
	x, u       [][]float64 // M rows, constrained and unconstrained
	lr         []float64   // log ratios
	lp         []float64   // log joints (NaN or +Inf recorded as -Inf)
	w          []float64   // smoothed, normalised
	uniform    []float64   // 1/M each: q's own marginals
	khat, ess  float64
	logZ, seZ  float64
	nonFinite  int    // draws whose log joint was NaN
	firstNaN   string // the model statement that produced it
	draws      int
	proposal   string    // "" for q itself
	qMean, qSD []float64 // q's exact moments (unconstrained)
	// weightsOnly: the log joints alone, no constrained rows x
	weightsOnly bool
}

// drawsOf draws M samples from q in each latent's own space, unweighted.
func drawsOf(rng *rand.Rand, comp *lower.Compiled, q msc.Sampler, M int) *importance {
	d := comp.Dim()
	im := &importance{x: make([][]float64, M), uniform: make([]float64, M), draws: M, khat: math.NaN(),
		qMean: make([]float64, d), qSD: make([]float64, d)}
	q.Moments(im.qMean, im.qSD)
	z, eps := make([]float64, d), make([]float64, d)
	xd := comp.Model.XDim
	xs := make([]float64, M*xd) // the rows, allocated at once
	for i := range im.x {
		q.Sample(rng, z, eps)
		im.x[i] = xs[i*xd : (i+1)*xd : (i+1)*xd]
		comp.Constrain(z, im.x[i])
		im.uniform[i] = 1 / float64(M)
	}
	return im
}

// importanceSample draws M samples from q, weighs them by
// p(z, x) / q(z) and smooths the weights by PSIS.
func importanceSample(rng *rand.Rand, comps []*lower.Compiled, q proposal, M int) (*importance, error) {
	return sampleInto(&importance{}, rng, comps, q, M)
}

// importanceWeights is importanceSample for a caller that reads the
// weights alone (k-hat): the draws' constrained values, the derived
// quantities among them, are not computed (x stays empty).
func importanceWeights(rng *rand.Rand, comps []*lower.Compiled, q proposal, M int) (*importance, error) {
	return sampleInto(&importance{weightsOnly: true}, rng, comps, q, M)
}

func sampleInto(im *importance, rng *rand.Rand, comps []*lower.Compiled, q proposal, M int) (*importance, error) {
	d := comps[0].Dim()
	im.qMean, im.qSD = make([]float64, d), make([]float64, d)
	q.Moments(im.qMean, im.qSD)
	// the first chunk alone first: when every one of its draws is ruled
	// out, the rest would be too, at the cost of their evaluation (a
	// failed ODE solve may take thousands of steps); drawn in the same
	// chunks from the same stream, the draws are those of one call
	first := min(M, drawChunk)
	im.draw(rng, comps, q, first)
	if !allZero(im.lr) {
		im.draw(rng, comps, q, M-first)
	}
	if allZero(im.lr) && len(im.u) > 0 {
		// no draw of q has positive density: say which statement rules
		// out the first one
		return im, zeroDensityError(comps[0], im.u[0], fmt.Sprintf("all %d draws of q", len(im.lr)))
	}
	return im, im.smooth()
}

// zeroDensityError explains why the draws (what: "all 400 draws of q")
// have zero posterior density, at the first of them, z: the statement
// whose log density is -Inf there and why.
func zeroDensityError(c *lower.Compiled, z []float64, what string) error {
	const why = "the model's data or constraints rule them out; check the supports of the distributions against the data and the declared bounds"
	if pos, text, overflow, reason, ok := explain.ZeroDensity(c, z); ok {
		if reason != "" {
			return lang.Errorf(pos, "%s have zero posterior density: at the first, %s", what, reason)
		}
		if overflow != "" {
			e := lang.Errorf(pos, "%s have log density -Inf: at the first, `%s` has log density -Inf; %s", what, text, overflow)
			e.Hint = "rescale the data (divide them by a power of ten or standardize them) so that they and the parameters are of moderate size"
			return lang.ErrorList{e}
		}
		return lang.Errorf(pos, "%s have zero posterior density: at the first, `%s` has log density -Inf; %s", what, text, why)
	}
	return fmt.Errorf("%s have zero posterior density; %s", what, why)
}

// allZero reports whether every log ratio is -Inf.
func allZero(lr []float64) bool {
	for _, v := range lr {
		if !math.IsInf(v, -1) {
			return false
		}
	}
	return true
}

// drawChunk is the number of draws sampled at a time; at most
// maxDrawBatch of them go to one compiled model at a time (fewer when the
// model's batched values are large: drawBatchFor). Both depend on the
// model alone, so the random stream and the values do not depend on the
// number of cores.
const drawChunk, maxDrawBatch = 400, 100

// drawBatchBytes bounds the value arena that a batch of draws takes on
// each compiled model (a log joint over 100000 rows has about 0.8 MB per
// draw and node; the adjoints are laid out for the one row a gradient
// takes, not the batch): 100 draws of a 100000 x 10 logistic regression
// took 320 MB on each of the models with their adjoints.
const drawBatchBytes = 32 << 20

// drawBatchFor is the number of draws evaluated together on c: as many as
// fit drawBatchBytes (8 bytes per batched value), between 4 (a batch of 4
// shares each load of the data in the matrix-vector kernels) and
// maxDrawBatch, and at least the batch c already holds room for (a
// chain's model, reserved for the kernel's S samples: 10 draws of a
// 10^6-row regression load its data matrix once in the kernels, where 4
// loaded it 2.5 times as often, for no memory more).
func drawBatchFor(c *lower.Compiled) int {
	per := 8 * max(1, c.Graph().RowFloats())
	return max(4, min(maxDrawBatch, max(drawBatchBytes/per, lower.Reserved(c))))
}

// draw adds n draws of q with their log ratios. The draws are sampled in
// order from rng; their log joints and constrained values are computed in
// parallel on the compiled models comps (copies of one model, one per
// core used: the chains' own), each row's value the same on any of them.
// The rows of the n draws live in two flat arrays allocated once per call:
// nothing is allocated per draw.
func (im *importance) draw(rng *rand.Rand, comps []*lower.Compiled, q proposal, n int) {
	if n <= 0 {
		return
	}
	comp := comps[0]
	d, xd := comp.Dim(), comp.Model.XDim
	W := max(1, min(len(comps), runtime.GOMAXPROCS(0)))
	if lower.UsesRNG(comp) {
		W = 1 // derived _rng quantities: one random stream, consumed in order
	}
	batch := drawBatchFor(comp)
	for _, c := range comps[:W] {
		c.Reserve(batch)
	}
	base := len(im.lr)
	if im.weightsOnly {
		xd = 0
	}
	us, xs := make([]float64, n*d), make([]float64, n*xd)
	im.lr, im.lp = slices.Grow(im.lr, n)[:base+n], slices.Grow(im.lp, n)[:base+n]
	im.u = slices.Grow(im.u, n)
	if !im.weightsOnly {
		im.x = slices.Grow(im.x, n)
	}
	for i := 0; i < n; i++ {
		im.u = append(im.u, us[i*d:(i+1)*d:(i+1)*d])
		if !im.weightsOnly {
			im.x = append(im.x, xs[i*xd:(i+1)*xd:(i+1)*xd])
		}
	}
	eps := make([]float64, min(n, drawChunk)*d)
	// eval computes the log joints and constrained values of rows lo..hi-1
	// (of this call's) on c
	// (the values the log joint computed, a transformed quantity's ODE
	// solve, are read, not computed again, when ConstrainJoint can)
	eval := func(c *lower.Compiled, lo, hi int) {
		c.LogJoint(us[lo*d:hi*d], im.lp[base+lo:base+hi])
		if im.weightsOnly {
			return
		}
		if lower.ConstrainJoint(c, us[lo*d:hi*d], xs[lo*xd:hi*xd], hi-lo) {
			return
		}
		for i := lo; i < hi; i++ {
			c.Constrain(us[i*d:(i+1)*d], xs[i*xd:(i+1)*xd])
		}
	}
	for done := 0; done < n; done += drawChunk {
		b := min(drawChunk, n-done)
		q.Sample(rng, us[done*d:(done+b)*d], eps[:b*d])
		evalParallel(comps[:W], batch, eval, done, done+b)
		for i := done; i < done+b; i++ {
			row := us[i*d : (i+1)*d]
			lj := im.lp[base+i]
			v := lj - q.LogQNoise(row, eps[(i-done)*d:(i-done+1)*d])
			if math.IsNaN(v) || math.IsInf(v, 1) {
				lj = math.Inf(-1)
				if im.nonFinite == 0 {
					if err := explain.Diagnose(comp, row); err != nil {
						im.firstNaN = err.Error()
					}
				}
				im.nonFinite++
				v = math.Inf(-1)
			}
			im.lr[base+i], im.lp[base+i] = v, lj
		}
	}
	im.draws = len(im.lr)
}

// evalParallel calls eval on the rows from to to of one chunk in batches of
// batch rows, batch k on model k mod len(comps), one goroutine per model
// (a few allocations per chunk, none per draw). On one model the batches
// run in order, on the calling goroutine (nothing allocated).
func evalParallel(comps []*lower.Compiled, batch int, eval func(c *lower.Compiled, lo, hi int), from, to int) {
	W := len(comps)
	if W == 1 {
		for lo := from; lo < to; lo += batch {
			eval(comps[0], lo, min(to, lo+batch))
		}
		return
	}
	var wg sync.WaitGroup
	for w := range W {
		wg.Go(func() {
			for lo := from + w*batch; lo < to; lo += W * batch {
				eval(comps[w], lo, min(to, lo+batch))
			}
		})
	}
	wg.Wait()
}

// smooth computes the PSIS weights of all draws so far, k-hat and the
// evidence.
func (im *importance) smooth() error {
	var ps diag.PSISResult
	if err := diag.PSIS(im.lr, &ps); err != nil {
		return fmt.Errorf("importance weights of q: %v", err)
	}
	M := len(im.lr)
	im.khat, im.ess = ps.Khat, ps.ESS
	im.w = make([]float64, M)
	im.uniform = make([]float64, M)
	sw2 := 0.0
	lo := -1
	for i, l := range ps.LogWeights {
		im.w[i] = math.Exp(l)
		im.uniform[i] = 1 / float64(M)
		sw2 += im.w[i] * im.w[i]
		if !math.IsInf(im.lr[i], -1) && (lo < 0 || im.lr[i] < im.lr[lo]) {
			lo = i
		}
	}
	// the smallest ratio is never smoothed: it fixes the normaliser
	// sum of the smoothed ratios, and so log p(x) = log(that sum / M)
	im.logZ = im.lr[lo] - ps.LogWeights[lo] - math.Log(float64(M))
	im.seZ = math.Sqrt(math.Max(0, float64(M)*sw2-1) / float64(M))
	return nil
}

// allMarginals summarises every component under weights w, the
// components shared out over the cores (each is computed alone, so the
// result does not depend on their number).
func (im *importance) allMarginals(w []float64) []Moments {
	d := 0
	if len(im.x) > 0 {
		d = len(im.x[0])
	}
	out := make([]Moments, d)
	workers := max(1, min(runtime.GOMAXPROCS(0), d))
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() {
			scratch, col := new(diag.QuantileScratch), make([]float64, len(im.x))
			for j := k; j < d; j += workers {
				out[j] = im.marginals(j, w, scratch, col)
			}
		})
	}
	wg.Wait()
	return out
}

// marginals summarises component j under weights w.
func (im *importance) marginals(j int, w []float64, scratch *diag.QuantileScratch, col []float64) Moments {
	col = col[:len(im.x)]
	for i, row := range im.x {
		col[i] = row[j]
	}
	var q [3]float64
	diag.WeightedQuantiles(col, w, []float64{0.05, 0.5, 0.95}, q[:], scratch)
	return Moments{
		Mean: diag.WeightedMean(col, w), SD: diag.WeightedSD(col, w),
		Q05: Figure(q[0]), Q50: Figure(q[1]), Q95: Figure(q[2]), MCSE: Figure(diag.MCSEMean(col, w)),
	}
}

// resample returns n rows of the weighted draws (rows of im.x, or of
// im.u when unconstrained), chosen by systematic resampling with weights w.
func (im *importance) resample(rng *rand.Rand, w []float64, n int, unconstrained bool) [][]float64 {
	idx := make([]int, n)
	diag.Resample(rng, w, idx)
	rows := im.x
	if unconstrained {
		rows = im.u
	}
	out := make([][]float64, n)
	for i, k := range idx {
		out[i] = append([]float64(nil), rows[k]...)
	}
	// systematic resampling returns the indices in order; shuffle so that
	// the rows read like independent draws
	rng.Shuffle(n, func(a, b int) { out[a], out[b] = out[b], out[a] })
	return out
}
