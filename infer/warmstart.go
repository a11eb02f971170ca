package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
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

// warmStart is what the warm start did, for the summary's notes.
type warmStart struct {
	tried, started bool
	reason         string // why the chains start at N(0, I) (when tried and not started)
}

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
	// the chains' searches run in parallel, each on its own model and
	// random stream (bounded by the cores, as the chains are)
	found := make([]bool, len(chains))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, gt := range gts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			modes[i], covs[i], found[i] = laplace(NewRand(seed, streamWarm+uint64(i)), gt)
		}()
	}
	wg.Wait()
	for _, ok := range found {
		if !ok {
			w.reason = "no finite mode with a positive definite curvature was found"
			return w
		}
	}
	d := len(modes[0])
	for i := 1; i < len(modes); i++ {
		for j := 0; j < d; j++ {
			if math.Abs(modes[i][j]-modes[0][j]) > 0.05*math.Sqrt(covs[0][j*d+j]) {
				w.reason = fmt.Sprintf("the chains' random starting points led to different modes (chains 1 and %d)", i+1)
				return w
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

// laplace returns the mode of the log joint and the inverse of the negative
// Hessian there (row-major), or ok false. The start is drawn from rng.
func laplace(rng *rand.Rand, t msc.GradTarget) (mode, cov []float64, ok bool) {
	d := t.Dim()
	if d == 0 || d > warmMaxDim {
		return nil, nil, false
	}
	x0 := make([]float64, d)
	for i := range x0 {
		x0[i] = -2 + 4*rng.Float64()
	}
	grad := make([]float64, d)
	bad := false
	p := optimize.Problem{
		Func: func(x []float64) float64 {
			v := -t.GradLogJoint(x, grad)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return math.Inf(1) // the line search backs off
			}
			return v
		},
		Grad: func(g, x []float64) {
			v := t.GradLogJoint(x, g)
			for i := range g {
				g[i] = -g[i]
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
	var res *optimize.Result
	for try := 0; try < warmRestarts; try++ {
		r, err := optimize.Minimize(p, x0, &optimize.Settings{
			GradientThreshold: 1e-6,
			MajorIterations:   warmMaxIters,
			Converger:         &optimize.FunctionConverge{Absolute: 1e-10, Relative: 1e-10, Iterations: 20},
		}, &optimize.LBFGS{})
		if r == nil || bad || (err != nil && r.Status != optimize.Failure) {
			return nil, nil, false
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
		return nil, nil, false
	}
	mode = res.X
	for _, v := range mode {
		if !(math.Abs(v) < warmMaxAbs) {
			return nil, nil, false
		}
	}
	// the gradient must vanish at the mode, relative to the curvature: a
	// function convergence on a slope (a density that keeps rising towards
	// a boundary) is not a mode
	t.GradLogJoint(mode, grad)
	// H = -d grad / dx by central differences, symmetrised
	h := make([]float64, d*d)
	xp := append([]float64(nil), mode...)
	gp, gm := make([]float64, d), make([]float64, d)
	for j := 0; j < d; j++ {
		step := 1e-4 * math.Max(1, math.Abs(mode[j]))
		xp[j] = mode[j] + step
		t.GradLogJoint(xp, gp)
		xp[j] = mode[j] - step
		t.GradLogJoint(xp, gm)
		xp[j] = mode[j]
		for i := 0; i < d; i++ {
			h[i*d+j] = -(gp[i] - gm[i]) / (2 * step)
		}
	}
	for i := 0; i < d; i++ {
		for j := 0; j < i; j++ {
			v := 0.5 * (h[i*d+j] + h[j*d+i])
			h[i*d+j], h[j*d+i] = v, v
		}
		if !(h[i*d+i] > 0) || math.IsInf(h[i*d+i], 0) {
			return nil, nil, false
		}
		// a Newton step from the mode must be small against the curvature's
		// scale (|g_i| / H_ii well below one sd)
		if math.Abs(grad[i])/math.Sqrt(h[i*d+i]) > 0.05 {
			return nil, nil, false
		}
	}
	cov, ok = invSPD(h, d)
	if !ok {
		return nil, nil, false
	}
	for i := range cov {
		cov[i] *= warmWiden * warmWiden
	}
	return mode, cov, true
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
