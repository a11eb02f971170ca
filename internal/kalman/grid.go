package kalman

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
)

// Axis is one parameter's grid: the midpoints u_i = Lo + (i + 1/2) h,
// h = (Hi - Lo) / N, of a variable u with theta = Transform(u).
type Axis struct {
	Name   string
	Lo, Hi float64
	N      int
	// Transform maps u to the parameter and returns log |d theta / d u|;
	// it must be increasing (the quantiles are mapped through it). nil is
	// the identity.
	Transform func(u float64) (theta, logJac float64)
}

func (a Axis) at(i int) (u, theta, logJac float64) {
	h := (a.Hi - a.Lo) / float64(a.N)
	u = a.Lo + (float64(i)+0.5)*h
	if a.Transform == nil {
		return u, u, 0
	}
	theta, logJac = a.Transform(u)
	return u, theta, logJac
}

// Grid is the exact posterior of one or two static parameters of a
// linear-Gaussian state-space model by the midpoint rule.
type Grid struct {
	Axes []Axis // one or two
	// Model returns the state-space model at theta (one value per axis).
	Model func(theta []float64) (Model, error)
	// LogPrior is the log prior density of theta, up to a constant, on
	// theta's own scale (the grid adds the transforms' log-Jacobians).
	LogPrior func(theta []float64) float64
	// Probs are the quantile levels; nil means 0.05, 0.5, 0.95.
	Probs []float64
	// NoStates skips the states' moments (the smoother runs at every cell
	// with weight above 1e-16 of the largest otherwise).
	NoStates bool
}

// ParamSummary is a parameter's posterior summary.
type ParamSummary struct {
	Name      string
	Mean, SD  float64
	Quantiles []float64 // at Posterior.Probs
	// Theta and Prob are the grid's marginal: the parameter at each
	// midpoint and the probability of its cell.
	Theta, Prob []float64
	// EdgeLo and EdgeHi are the probabilities of the marginal's first and
	// last cells: the grid covers the posterior when they are tiny, or
	// when the edge is the end of the parameter's support.
	EdgeLo, EdgeHi float64
}

// Posterior is a grid's result.
type Posterior struct {
	Params []ParamSummary
	Probs  []float64
	// StateMean[t][i] and StateSD[t][i]: E[x_t[i] | y] and sd[x_t[i] | y]
	// (index t-1 is time t), averaged over theta.
	StateMean, StateSD [][]float64
	// LogEvidence is log p(y) = log of the integral of p(y | theta)
	// p(theta) by the midpoint rule (exact up to LogPrior's constant).
	LogEvidence float64
	// SkippedMass bounds the probability of the cells whose states were
	// not smoothed (weights below 1e-16 of the largest).
	SkippedMass float64
}

const skipRel = 1e-16

// Posterior evaluates the grid on y (as in Filter).
func (g Grid) Posterior(y [][]float64) (*Posterior, error) {
	if len(g.Axes) < 1 || len(g.Axes) > 2 {
		return nil, errors.New("kalman: a grid has one or two axes")
	}
	if g.Model == nil || g.LogPrior == nil {
		return nil, errors.New("kalman: the grid needs Model and LogPrior")
	}
	dims := make([]int, 2)
	dims[1] = 1
	for i, a := range g.Axes {
		if a.N < 2 || !(a.Hi > a.Lo) {
			return nil, fmt.Errorf("kalman: axis %q: need N >= 2 and Hi > Lo", a.Name)
		}
		dims[i] = a.N
	}
	probs := g.Probs
	if probs == nil {
		probs = []float64{0.05, 0.5, 0.95}
	}
	ncell := dims[0] * dims[1]
	// theta and the log-Jacobian at cell c = i*dims[1] + j.
	cellTheta := func(c int) ([]float64, float64) {
		th := make([]float64, len(g.Axes))
		lj := 0.0
		idx := []int{c / dims[1], c % dims[1]}
		for a, ax := range g.Axes {
			_, t, l := ax.at(idx[a])
			th[a] = t
			lj += l
		}
		return th, lj
	}
	// Pass 1: the log posterior at every cell (in parallel; each cell's
	// value does not depend on the schedule).
	lp := make([]float64, ncell)
	err := parallel(ncell, func(lo, hi int, buf *scratch) error {
		for c := lo; c < hi; c++ {
			th, lj := cellTheta(c)
			m, err := g.Model(th)
			if err != nil {
				return fmt.Errorf("kalman: model at %v: %v", th, err)
			}
			ll, err := buf.logLik(m, y)
			if err != nil {
				return fmt.Errorf("kalman: at %v: %v", th, err)
			}
			lp[c] = ll + g.LogPrior(th) + lj
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	mx := math.Inf(-1)
	for _, v := range lp {
		mx = math.Max(mx, v)
	}
	if math.IsInf(mx, 0) || math.IsNaN(mx) {
		return nil, fmt.Errorf("kalman: the log posterior's largest value on the grid is %g", mx)
	}
	w := make([]float64, ncell)
	sum := 0.0
	for c, v := range lp {
		w[c] = math.Exp(v - mx)
		sum += w[c]
	}
	cellVol := 1.0
	for _, a := range g.Axes {
		cellVol *= (a.Hi - a.Lo) / float64(a.N)
	}
	post := &Posterior{Probs: probs, LogEvidence: mx + math.Log(sum*cellVol)}
	for c := range w {
		w[c] /= sum
	}
	// Marginals, means, sds and quantiles.
	for a, ax := range g.Axes {
		ps := ParamSummary{Name: ax.Name, Theta: make([]float64, ax.N), Prob: make([]float64, ax.N)}
		for c, wc := range w {
			i := c / dims[1]
			if a == 1 {
				i = c % dims[1]
			}
			ps.Prob[i] += wc
		}
		var m1, m2 float64
		for i := range ax.N {
			_, th, _ := ax.at(i)
			ps.Theta[i] = th
			m1 += ps.Prob[i] * th
			m2 += ps.Prob[i] * th * th
		}
		ps.Mean = m1
		ps.SD = math.Sqrt(math.Max(0, m2-m1*m1))
		ps.EdgeLo, ps.EdgeHi = ps.Prob[0], ps.Prob[ax.N-1]
		for _, p := range probs {
			ps.Quantiles = append(ps.Quantiles, ax.quantile(ps.Prob, p))
		}
		post.Params = append(post.Params, ps)
	}
	if g.NoStates {
		return post, nil
	}
	// Pass 2: the states' moments, in fixed chunks summed in order.
	wmax := 0.0
	for _, v := range w {
		wmax = math.Max(wmax, v)
	}
	th0, _ := cellTheta(0)
	m0, err := g.Model(th0)
	if err != nil {
		return nil, err
	}
	k, _ := m0.Dims()
	T := len(y)
	nchunk := min(ncell, 64)
	type acc struct {
		m1, m2 []float64 // [t*k+i]
		skip   float64
	}
	accs := make([]acc, nchunk)
	err = parallel(nchunk, func(lo, hi int, buf *scratch) error {
		for ch := lo; ch < hi; ch++ {
			a := acc{m1: make([]float64, T*k), m2: make([]float64, T*k)}
			for c := ch * ncell / nchunk; c < (ch+1)*ncell/nchunk; c++ {
				if w[c] < skipRel*wmax {
					a.skip += w[c]
					continue
				}
				th, _ := cellTheta(c)
				m, err := g.Model(th)
				if err != nil {
					return err
				}
				mean, vr, err := buf.smooth(m, y)
				if err != nil {
					return fmt.Errorf("kalman: at %v: %v", th, err)
				}
				for i, v := range mean {
					a.m1[i] += w[c] * v
					a.m2[i] += w[c] * (vr[i] + v*v)
				}
			}
			accs[ch] = a
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	m1 := make([]float64, T*k)
	m2 := make([]float64, T*k)
	skipped := 0.0
	for _, a := range accs {
		skipped += a.skip
		for i := range m1 {
			m1[i] += a.m1[i]
			m2[i] += a.m2[i]
		}
	}
	post.SkippedMass = skipped
	post.StateMean = make([][]float64, T)
	post.StateSD = make([][]float64, T)
	for t := range T {
		post.StateMean[t] = make([]float64, k)
		post.StateSD[t] = make([]float64, k)
		for i := range k {
			e := m1[t*k+i]
			post.StateMean[t][i] = e
			post.StateSD[t][i] = math.Sqrt(math.Max(0, m2[t*k+i]-e*e))
		}
	}
	return post, nil
}

// quantile inverts the marginal's CDF and maps the result through the
// transform. Within cell i the density in u is taken linear, f_i + s_i (u
// - u_i), with f_i = q_i / h its midpoint value (so the cell keeps its
// mass q_i) and s_i the central difference of the neighbours' (limited so
// that the density stays non-negative), so the CDF is quadratic in the
// cell; the CDF at the cell's left edge is corrected for the midpoint
// rule's error. Both errors are then O(h^3) or smaller.
func (a Axis) quantile(prob []float64, p float64) float64 {
	h := (a.Hi - a.Lo) / float64(a.N)
	n := len(prob)
	at := func(i int) float64 {
		if i < 0 || i >= n {
			return 0
		}
		return prob[i]
	}
	// edge(i): the CDF at the left edge of cell i, the sum of the masses
	// before it plus the Euler-Maclaurin correction h^2 f'/24 of the
	// midpoint rule's partial sums, f' by a difference of the cells'.
	cum := 0.0
	edge := func(i int) float64 { return cum + (at(i)-at(i-1))/24 }
	u := a.Hi
	for i, q := range prob {
		if p < edge(i)+q+(at(i+1)-at(i))/24 || i == n-1 {
			f := q / h
			sl := (at(i+1) - at(i-1)) / (2 * h * h)
			sl = math.Max(-2*f/h, math.Min(2*f/h, sl))
			// Solve (sl/2) z^2 + (f - sl h/2) z = r for z in [0, h].
			r := math.Max(0, p-edge(i))
			b := f - sl*h/2
			z := h
			if d := b + math.Sqrt(math.Max(0, b*b+2*sl*r)); d > 0 {
				z = 2 * r / d
			}
			u = a.Lo + float64(i)*h + math.Min(h, z)
			break
		}
		cum += q
	}
	if a.Transform == nil {
		return u
	}
	th, _ := a.Transform(u)
	return th
}

// scratch holds one worker's buffers.
type scratch struct {
	ys, mean, vr, pm, pv []float64
}

func (s *scratch) grow(T int) {
	if len(s.mean) < T {
		s.ys = make([]float64, T)
		s.mean = make([]float64, T)
		s.vr = make([]float64, T)
		s.pm = make([]float64, T)
		s.pv = make([]float64, T)
	}
}

func (s *scratch) logLik(m Model, y [][]float64) (float64, error) {
	if sm, ok := m.scalar(); ok {
		s.grow(len(y))
		ys := s.ys[:len(y)]
		for t, yt := range y {
			if len(yt) != 1 {
				return 0, fmt.Errorf("y[%d] has %d values, want 1", t, len(yt))
			}
			ys[t] = yt[0]
		}
		return sm.run(ys, s.mean, s.vr, s.pm, s.pv, false)
	}
	res, err := Filter(m, y)
	if err != nil {
		return 0, err
	}
	return res.LogLik, nil
}

// smooth returns the smoothed means and variances, flattened [t*k+i]
// (valid until the next call).
func (s *scratch) smooth(m Model, y [][]float64) (mean, vr []float64, err error) {
	if sm, ok := m.scalar(); ok {
		s.grow(len(y))
		ys := s.ys[:len(y)]
		for t, yt := range y {
			ys[t] = yt[0]
		}
		if _, err := sm.run(ys, s.mean, s.vr, s.pm, s.pv, true); err != nil {
			return nil, nil, err
		}
		return s.mean[:len(y)], s.vr[:len(y)], nil
	}
	res, err := Smooth(m, y)
	if err != nil {
		return nil, nil, err
	}
	k, _ := m.Dims()
	mean = make([]float64, len(y)*k)
	vr = make([]float64, len(y)*k)
	for t := range y {
		for i := range k {
			mean[t*k+i] = res.SmoothMean[t].AtVec(i)
			vr[t*k+i] = res.SmoothCov[t].At(i, i)
		}
	}
	return mean, vr, nil
}

// parallel runs f on contiguous blocks of 0..n-1, one block per worker,
// and returns the first error.
func parallel(n int, f func(lo, hi int, buf *scratch) error) error {
	workers := min(runtime.GOMAXPROCS(0), n)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for wk := range workers {
		wg.Go(func() {
			errs[wk] = f(wk*n/workers, (wk+1)*n/workers, &scratch{})
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
