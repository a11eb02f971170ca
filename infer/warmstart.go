package infer

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/optimize"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/stdlib"
)

// Warm start: each chain's q starts at a Laplace approximation, found from
// its own random initial point (uniform on [-2, 2] in unconstrained space,
// Stan's default), so that the CIS kernel proposes from near the posterior
// at once instead of climbing out of N(0, I) for thousands of iterations.
// Chains that start from different points and find different modes keep
// R-hat's power to see several modes. When there is no finite mode (a
// funnel, a centred hierarchy whose scale runs to 0), the optimiser does
// not converge, the mode is implausibly far out, or the curvature is not
// positive definite, the chain starts from q's default N(0, I) as before:
// the warm start changes the time to an answer, never the answer.
const (
	warmMaxDim   = 400  // above this the finite-difference Hessian costs too much
	warmMaxIters = 1000 // L-BFGS major iterations
	warmRestarts = 5    // L-BFGS restarts after a failed line search
	warmMaxAbs   = 15.0 // a mode this far out in unconstrained space is a boundary, not a mode
	// warmWiden scales the Laplace sds: q starts wider than the curvature
	// at the mode says. MSC shrinks a q that is too wide within about
	// 1/rho iterations (the CIS chain mixes and its draws are the
	// posterior's), but grows a q that is too narrow slowly (the chain
	// sticks in the tails q misses), and the inclusive-KL optimum is
	// usually wider than the Laplace approximation.
	warmWiden = 1.5
)

// warmStart is what the warm start did, for the summary's notes, and the
// distinct modes its searches found (best first), for the check of q.
type warmStart struct {
	tried, started bool
	reason         string // why the chains start at N(0, I) (when tried and not started)
	// dominant is the number of distinct modes the searches found when
	// the chains all start at the one that dominates them (0 otherwise)
	dominant int
	modes    []mode
	// peak is the highest log joint the searches evaluated, where (x nil
	// when none was finite): a mode's, or where a search climbed without
	// finding one
	peak mode
}

// mode is a mode of the log joint (unconstrained space) with its Laplace
// approximation: the inverse negative Hessian and the log of the mass
// log p(x*) + log sqrt(det(2 pi cov)).
type mode struct {
	x, cov        []float64
	logp, logMass float64
}

// modeSearches is the number of mode searches (from random points) in up
// to modeSearchDim dimensions: one per chain, and more so that a mode the
// chains' starts all miss is still found (the two modes of theta given
// theta^2 are missed by 4 random starts with probability 1/8, by 16 with
// 1/32768). Above, only the chains' own.
const (
	modeSearches  = 16
	modeSearchDim = 20
)

// startAtLaplace sets each chain's q to the Laplace approximation found from
// the chain's own random point, when every chain finds one and they all
// find the same mode (within 0.05 of its sds). Chains that find different
// modes (a mixture's collapsed components, say) all start from q's default:
// a narrow q on a minor mode would hold the chain there.
func startAtLaplace(seed uint64, chains []msc.Chain) warmStart {
	w := warmStart{tried: true}
	modes, covs := make([][]float64, len(chains)), make([][]float64, len(chains))
	gts := make([]msc.GradTarget, len(chains))
	qs := make([]msc.Sampler, len(chains))
	for i, c := range chains {
		q, isS := c.Q.(msc.Sampler)
		if c.Problem.Grad == nil || !isS {
			return warmStart{}
		}
		gts[i], qs[i] = c.Problem.Grad, q
	}
	// the searches run in parallel, search k on chain k mod C's model with
	// its own random stream (bounded by the cores, as the chains are)
	C := len(chains)
	n := C
	if gts[0].Dim() <= modeSearchDim {
		n = max(C, modeSearches)
	}
	all := make([]mode, n)
	ok := make([]bool, n)
	// first the chains' own searches, then the others, which stop early
	// (finding the same mode again) once they are within an sd of a mode
	// the chains' found: only a search that reaches another mode runs to
	// the end
	search := func(lo, hi int, known []mode) {
		var wg sync.WaitGroup
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		for i, gt := range gts {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				for k := lo + i; k < hi; k += C {
					all[k], ok[k] = laplace(NewRand(seed, streamWarm+uint64(k)), gt, known)
				}
			}()
		}
		wg.Wait()
	}
	// chain 1's search first, then the other chains', which stop once
	// they are within an sd of the mode it found and take that mode (its
	// curvature is not computed again); a chain that reaches another mode
	// runs to the end. The order is fixed, so the modes do not depend on
	// the number of cores.
	search(0, 1, nil)
	search(1, C, distinctModes(all[:1], ok[:1]))
	if n > C {
		search(C, n, distinctModes(all[:C], ok[:C]))
	}
	w.modes = distinctModes(all, ok)
	for _, m := range all {
		if m.x != nil && (w.peak.x == nil || m.logp > w.peak.logp) {
			w.peak = m
		}
	}
	found := ok[:C]
	for i := range C {
		if found[i] {
			modes[i] = all[i].x
			covs[i] = make([]float64, len(all[i].cov))
			for j, v := range all[i].cov {
				covs[i][j] = v * warmWiden * warmWiden
			}
		}
	}
	for _, ok := range found {
		if !ok {
			w.reason = "no finite mode with a positive definite curvature was found"
			return w
		}
	}
	d := len(modes[0])
	for i := 1; i < len(modes) && w.reason == ""; i++ {
		for j := 0; j < d; j++ {
			if math.Abs(modes[i][j]-modes[0][j]) > 0.05*math.Sqrt(covs[0][j*d+j]) {
				w.reason = fmt.Sprintf("the chains' random starting points led to different modes (chains 1 and %d)", i+1)
				break
			}
		}
	}
	if w.reason != "" {
		// one mode holding all but a negligible share of the Laplace mass
		// of the modes found (the others are not comparable, and the
		// modes check weighs them no more): every chain starts there, as
		// NUTS's chains would all end there (posteriordb's Lotka-Volterra:
		// a chain's search from a random start ends at a mode of an ODE
		// fit that does not oscillate)
		cm := comparableModes(w.modes)
		if len(cm) != 1 {
			return w
		}
		w.reason, w.dominant = "", len(w.modes)
		for i := range modes {
			modes[i] = cm[0].x
			covs[i] = make([]float64, len(cm[0].cov))
			for j, v := range cm[0].cov {
				covs[i][j] = v * warmWiden * warmWiden
			}
		}
	}
	for i, q := range qs {
		if q.Clone().(msc.Sampler).SetMoments(modes[i], covs[i]) != nil {
			w.reason = "q could not take the Laplace covariance"
			return w
		}
	}
	for i, q := range qs {
		_ = q.SetMoments(modes[i], covs[i]) // succeeded on a clone
	}
	w.started = true
	return w
}

// distinctModes keeps one of each mode found (the highest), best first:
// two searches found the same mode when they are within half an sd of
// each other in every component.
func distinctModes(all []mode, ok []bool) []mode {
	var out []mode
	for k, m := range all {
		if !ok[k] {
			continue
		}
		same := -1
		for j, o := range out {
			d := len(o.x)
			near := true
			for i := range d {
				if math.Abs(m.x[i]-o.x[i]) > 0.5*math.Sqrt(o.cov[i*d+i]) {
					near = false
					break
				}
			}
			if near {
				same = j
				break
			}
		}
		switch {
		case same < 0:
			out = append(out, m)
		case m.logp > out[same].logp:
			out[same] = m
		}
	}
	slices.SortStableFunc(out, func(a, b mode) int { return cmp.Compare(b.logMass, a.logMass) })
	return out
}

// laplace returns the mode of the log joint with its Laplace
// approximation (the inverse of the negative Hessian there, row-major), or
// ok false. The start is drawn from rng. A search that comes within
// knownBasin sds of a known mode in every component stops there and
// returns that mode: it is finding it again.
func laplace(rng *rand.Rand, t msc.GradTarget, known []mode) (m mode, ok bool) {
	d := t.Dim()
	if d == 0 || d > warmMaxDim {
		return mode{}, false
	}
	x0 := make([]float64, d)
	for i := range x0 {
		x0[i] = -2 + 4*rng.Float64()
	}
	// Func and Grad are called at the same points: Func keeps the gradient
	// it computes, and Grad reuses it (half the evaluations)
	grad, lastX := make([]float64, d), make([]float64, d)
	lastV, have := 0.0, false
	bad := false
	// the highest log joint the search evaluated, where: a search that
	// finds no mode because the density keeps rising (a funnel's neck)
	// returns it
	top := mode{logp: math.Inf(-1)}
	eval := func(x []float64) float64 {
		if !have || !slices.Equal(x, lastX) {
			lastV = t.GradLogJoint(x, grad)
			copy(lastX, x)
			have = true
			if lastV > top.logp && !math.IsInf(lastV, 1) {
				top.logp, top.x = lastV, append(top.x[:0], x...)
			}
		}
		return lastV
	}
	p := optimize.Problem{
		Func: func(x []float64) float64 {
			v := -eval(x)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return math.Inf(1) // the line search backs off
			}
			return v
		},
		Grad: func(g, x []float64) {
			v := eval(x)
			for i := range g {
				g[i] = -grad[i]
				if math.IsNaN(g[i]) || math.IsInf(g[i], 0) || math.IsInf(v, 0) {
					bad = true
				}
			}
		},
	}
	// The gradient threshold is absolute, so on a large data set (a log
	// joint of order 1e5) L-BFGS reaches the mode but cannot meet it: its
	// line search then fails for want of a decrease. A failed line search
	// is accepted like a convergence; the Newton-step test below decides
	// whether the point is a mode. One that failed far from a mode restarts
	// from where it got to, a few times.
	conv := &basinConverge{FunctionConverge: optimize.FunctionConverge{Absolute: 1e-10, Relative: 1e-10, Iterations: 20}, known: known, hit: -1}
	var res *optimize.Result
	for try := 0; try < warmRestarts; try++ {
		r, err := optimize.Minimize(p, x0, &optimize.Settings{
			GradientThreshold: 1e-6,
			MajorIterations:   warmMaxIters,
			Converger:         conv,
		}, &optimize.LBFGS{})
		if conv.hit >= 0 {
			return known[conv.hit], true
		}
		if r == nil || bad || (err != nil && r.Status != optimize.Failure) {
			return top, false
		}
		if res != nil && r.Status == optimize.Failure && !(r.F < res.F) {
			break // no progress since the last restart: judge where it stands
		}
		res = r
		if r.Status != optimize.Failure {
			break
		}
		x0 = r.X
	}
	switch res.Status {
	case optimize.GradientThreshold, optimize.FunctionConvergence, optimize.Failure:
	default:
		return top, false
	}
	x := res.X
	for _, v := range x {
		if !(math.Abs(v) < warmMaxAbs) {
			return top, false
		}
	}
	// the gradient must vanish at the mode, relative to the curvature: a
	// function convergence on a slope (a density that keeps rising towards
	// a boundary) is not a mode
	logp := t.GradLogJoint(x, grad)
	// H = -d grad / dx by forward differences from the gradient at the
	// mode (d gradients, not the 2d of central differences: the step is a
	// ten-thousandth of the scale, so the O(step) error is far below what
	// warmWiden changes), symmetrised
	h := make([]float64, d*d)
	xp := append([]float64(nil), x...)
	gp := make([]float64, d)
	for j := 0; j < d; j++ {
		step := 1e-4 * math.Max(1, math.Abs(x[j]))
		xp[j] = x[j] + step
		t.GradLogJoint(xp, gp)
		xp[j] = x[j]
		for i := 0; i < d; i++ {
			h[i*d+j] = -(gp[i] - grad[i]) / step
		}
	}
	for i := 0; i < d; i++ {
		for j := 0; j < i; j++ {
			v := 0.5 * (h[i*d+j] + h[j*d+i])
			h[i*d+j], h[j*d+i] = v, v
		}
		if !(h[i*d+i] > 0) || math.IsInf(h[i*d+i], 0) {
			return top, false
		}
		// a Newton step from the mode must be small against the curvature's
		// scale (|g_i| / H_ii well below one sd)
		if math.Abs(grad[i])/math.Sqrt(h[i*d+i]) > 0.05 {
			return top, false
		}
	}
	cov, ok := invSPD(h, d)
	if !ok {
		return top, false
	}
	// log sqrt(det(2 pi cov)) = -log det(L_H) + d/2 log(2 pi)
	l := make([]float64, d*d)
	stdlib.CholeskyLower(h, d, l)
	logMass := logp + 0.5*float64(d)*math.Log(2*math.Pi)
	for i := range d {
		logMass -= math.Log(l[i*d+i])
	}
	return mode{x: x, cov: cov, logp: logp, logMass: logMass}, true
}

// knownBasin is how near (in the mode's sds, in every component) a search
// must come to a known mode to stop.
const knownBasin = 1.0

// warmDecrement: a search stops when the Newton decrement g' H^-1 g / 2
// (how far below the mode's log density it stands, in nats) is below it,
// with H^-1 estimated from the last step as L-BFGS scales its own (s'y /
// y'y): half a squared distance in sds, so 1e-10 is 1.4e-5 sd from the
// mode, whatever the size of the data. The absolute gradient threshold
// alone cannot be met at large n (a log joint of order 1e5), where the
// search ended only after its line searches failed for want of a
// decrease, at several times the cost (100000 rows: 40 gradients to the
// mode, 140 to the failures).
const warmDecrement = 1e-10

// basinConverge is FunctionConverge that also stops a search at the
// Newton-decrement criterion and in the basin of a known mode (setting hit
// to its index; -1 when none).
type basinConverge struct {
	optimize.FunctionConverge
	known        []mode
	hit          int
	prevX, prevG []float64
}

func (c *basinConverge) Converged(loc *optimize.Location) optimize.Status {
	if c.newtonDone(loc) {
		return optimize.FunctionConvergence
	}
	for k, m := range c.known {
		d := len(m.x)
		near := true
		for i := range d {
			if math.Abs(loc.X[i]-m.x[i]) > knownBasin*math.Sqrt(m.cov[i*d+i]) {
				near = false
				break
			}
		}
		if near {
			c.hit = k
			return optimize.FunctionConvergence
		}
	}
	return c.FunctionConverge.Converged(loc)
}

// newtonDone reports whether the Newton decrement at loc, with the inverse
// curvature estimated from the step since the previous location, is below
// warmDecrement.
func (c *basinConverge) newtonDone(loc *optimize.Location) bool {
	if loc.Gradient == nil {
		return false
	}
	done := false
	if c.prevX != nil {
		sy, yy, gg := 0.0, 0.0, 0.0
		for i, g := range loc.Gradient {
			si, yi := loc.X[i]-c.prevX[i], g-c.prevG[i]
			sy += si * yi
			yy += yi * yi
			gg += g * g
		}
		done = sy > 0 && yy > 0 && 0.5*gg*sy/yy < warmDecrement
	}
	c.prevX = append(c.prevX[:0], loc.X...)
	c.prevG = append(c.prevG[:0], loc.Gradient...)
	return done
}

// invSPD inverts a symmetric positive definite matrix through its Cholesky
// factor; ok is false when it is not positive definite.
func invSPD(a []float64, d int) ([]float64, bool) {
	l := make([]float64, d*d)
	if !stdlib.CholeskyLower(a, d, l) {
		return nil, false
	}
	inv := make([]float64, d*d)
	col := make([]float64, d)
	for j := 0; j < d; j++ {
		clear(col)
		col[j] = 1
		// L y = e_j, then L' x = y
		for i := 0; i < d; i++ {
			s := col[i]
			for k := 0; k < i; k++ {
				s -= l[i*d+k] * col[k]
			}
			col[i] = s / l[i*d+i]
		}
		for i := d - 1; i >= 0; i-- {
			s := col[i]
			for k := i + 1; k < d; k++ {
				s -= l[k*d+i] * col[k]
			}
			col[i] = s / l[i*d+i]
		}
		for i := 0; i < d; i++ {
			inv[i*d+j] = col[i]
		}
	}
	for _, v := range inv {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
	}
	return inv, true
}
