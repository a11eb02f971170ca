package kalman

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

const log2Pi = 1.8378770664093454836

// Model is a time-invariant linear-Gaussian state-space model with K
// states and D observations per time step (see the package comment).
type Model struct {
	M0 *mat.VecDense // K: mean of x_1
	P0 *mat.SymDense // K x K: covariance of x_1
	F  *mat.Dense    // K x K: transition
	Q  *mat.SymDense // K x K: transition noise covariance
	H  *mat.Dense    // D x K: observation matrix
	R  *mat.SymDense // D x D: observation noise covariance
}

// ScalarModel is the model with K = D = 1: x_1 ~ N(m0, p0),
// x_t = f x_{t-1} + N(0, q), y_t = h x_t + N(0, r) (p0, q and r are
// variances).
func ScalarModel(m0, p0, f, q, h, r float64) Model {
	return Model{
		M0: mat.NewVecDense(1, []float64{m0}),
		P0: mat.NewSymDense(1, []float64{p0}),
		F:  mat.NewDense(1, 1, []float64{f}),
		Q:  mat.NewSymDense(1, []float64{q}),
		H:  mat.NewDense(1, 1, []float64{h}),
		R:  mat.NewSymDense(1, []float64{r}),
	}
}

// Dims returns the state dimension K and the observation dimension D.
func (m Model) Dims() (k, d int) {
	if m.H == nil {
		return 0, 0
	}
	d, k = m.H.Dims()
	return k, d
}

// Validate checks that the matrices are present and of matching sizes.
func (m Model) Validate() error {
	if m.M0 == nil || m.P0 == nil || m.F == nil || m.Q == nil || m.H == nil || m.R == nil {
		return errors.New("kalman: a model matrix is nil")
	}
	d, k := m.H.Dims()
	if k == 0 || d == 0 {
		return errors.New("kalman: empty model")
	}
	if m.M0.Len() != k || m.P0.SymmetricDim() != k || m.Q.SymmetricDim() != k {
		return fmt.Errorf("kalman: M0, P0 and Q must have dimension K = %d (the columns of H)", k)
	}
	if r, c := m.F.Dims(); r != k || c != k {
		return fmt.Errorf("kalman: F is %dx%d, want %dx%d", r, c, k, k)
	}
	if m.R.SymmetricDim() != d {
		return fmt.Errorf("kalman: R has dimension %d, want D = %d (the rows of H)", m.R.SymmetricDim(), d)
	}
	return nil
}

// scalar reports whether m is one-dimensional and returns its numbers.
func (m Model) scalar() (s scalarModel, ok bool) {
	if k, d := m.Dims(); k != 1 || d != 1 {
		return s, false
	}
	return scalarModel{m.M0.AtVec(0), m.P0.At(0, 0), m.F.At(0, 0), m.Q.At(0, 0), m.H.At(0, 0), m.R.At(0, 0)}, true
}

// Result holds the filter's and the smoother's output: index t-1 is time t.
type Result struct {
	LogLik     float64         // log p(y_1:T)
	PredMean   []*mat.VecDense // E[x_t | y_1:t-1]
	PredCov    []*mat.SymDense // Cov[x_t | y_1:t-1]
	FiltMean   []*mat.VecDense // E[x_t | y_1:t]
	FiltCov    []*mat.SymDense // Cov[x_t | y_1:t]
	SmoothMean []*mat.VecDense // E[x_t | y_1:T] (Smooth only)
	SmoothCov  []*mat.SymDense // Cov[x_t | y_1:T] (Smooth only)
}

// Scalar turns a scalar series into observations with D = 1.
func Scalar(y []float64) [][]float64 {
	out := make([][]float64, len(y))
	for t, v := range y {
		out[t] = []float64{v}
	}
	return out
}

// Filter runs the Kalman filter on y (y[t-1] is y_t, of length D; NaN
// entries are missing).
func Filter(m Model, y [][]float64) (*Result, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	k, d := m.Dims()
	for t, yt := range y {
		if len(yt) != d {
			return nil, fmt.Errorf("kalman: y[%d] has %d values, want D = %d", t, len(yt), d)
		}
	}
	if s, ok := m.scalar(); ok {
		return s.result(y, false)
	}
	T := len(y)
	res := &Result{
		PredMean: make([]*mat.VecDense, T), PredCov: make([]*mat.SymDense, T),
		FiltMean: make([]*mat.VecDense, T), FiltCov: make([]*mat.SymDense, T),
	}
	for t := range T {
		mp := mat.NewVecDense(k, nil)
		pp := mat.NewSymDense(k, nil)
		if t == 0 {
			mp.CopyVec(m.M0)
			pp.CopySym(m.P0)
		} else {
			mp.MulVec(m.F, res.FiltMean[t-1])
			var fp mat.Dense
			fp.Mul(m.F, res.FiltCov[t-1])
			var fpf mat.Dense
			fpf.Mul(&fp, m.F.T())
			fpf.Add(&fpf, m.Q)
			symmetrize(pp, &fpf)
		}
		res.PredMean[t], res.PredCov[t] = mp, pp
		mf, pf, ll, err := condition(m, mp, pp, y[t])
		if err != nil {
			return nil, fmt.Errorf("kalman: time %d: %v", t+1, err)
		}
		res.FiltMean[t], res.FiltCov[t] = mf, pf
		res.LogLik += ll
	}
	return res, nil
}

// condition conditions N(mp, pp) on the observed entries of yt and returns
// the filtered moments and log p(y_t observed | past).
func condition(m Model, mp *mat.VecDense, pp *mat.SymDense, yt []float64) (*mat.VecDense, *mat.SymDense, float64, error) {
	k, _ := m.Dims()
	var obs []int
	for i, v := range yt {
		if !math.IsNaN(v) {
			obs = append(obs, i)
		}
	}
	mf := mat.NewVecDense(k, nil)
	pf := mat.NewSymDense(k, nil)
	if len(obs) == 0 {
		mf.CopyVec(mp)
		pf.CopySym(pp)
		return mf, pf, 0, nil
	}
	n := len(obs)
	h := mat.NewDense(n, k, nil)
	r := mat.NewSymDense(n, nil)
	v := mat.NewVecDense(n, nil)
	for a, i := range obs {
		h.SetRow(a, mat.Row(nil, i, m.H))
		for b, j := range obs {
			r.SetSym(a, b, m.R.At(i, j))
		}
		v.SetVec(a, yt[i])
	}
	// Innovation v = y - H mp, its covariance S = H pp H' + R.
	var hm mat.VecDense
	hm.MulVec(h, mp)
	v.SubVec(v, &hm)
	var ph mat.Dense // pp H'
	ph.Mul(pp, h.T())
	var hph mat.Dense
	hph.Mul(h, &ph)
	hph.Add(&hph, r)
	s := mat.NewSymDense(n, nil)
	symmetrize(s, &hph)
	var chol mat.Cholesky
	if !chol.Factorize(s) {
		return nil, nil, 0, errors.New("innovation covariance is not positive definite")
	}
	var sv mat.VecDense
	if err := chol.SolveVecTo(&sv, v); err != nil {
		return nil, nil, 0, err
	}
	ll := -0.5 * (float64(n)*log2Pi + chol.LogDet() + mat.Dot(v, &sv))
	// mf = mp + pp H' S^-1 v; pf = pp - pp H' S^-1 H pp.
	mf.MulVec(&ph, &sv)
	mf.AddVec(mf, mp)
	var sinvhp mat.Dense // S^-1 H pp
	if err := chol.SolveTo(&sinvhp, ph.T()); err != nil {
		return nil, nil, 0, err
	}
	var corr mat.Dense
	corr.Mul(&ph, &sinvhp)
	var p mat.Dense
	p.Sub(pp, &corr)
	symmetrize(pf, &p)
	return mf, pf, ll, nil
}

// Smooth runs the filter and the Rauch-Tung-Striebel smoother.
func Smooth(m Model, y [][]float64) (*Result, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if s, ok := m.scalar(); ok {
		_, d := m.Dims()
		for t, yt := range y {
			if len(yt) != d {
				return nil, fmt.Errorf("kalman: y[%d] has %d values, want D = %d", t, len(yt), d)
			}
		}
		return s.result(y, true)
	}
	res, err := Filter(m, y)
	if err != nil {
		return nil, err
	}
	k, _ := m.Dims()
	T := len(y)
	res.SmoothMean = make([]*mat.VecDense, T)
	res.SmoothCov = make([]*mat.SymDense, T)
	if T == 0 {
		return res, nil
	}
	res.SmoothMean[T-1] = mat.VecDenseCopyOf(res.FiltMean[T-1])
	res.SmoothCov[T-1] = mat.NewSymDense(k, nil)
	res.SmoothCov[T-1].CopySym(res.FiltCov[T-1])
	for t := T - 2; t >= 0; t-- {
		// G = P_t F' Pp_{t+1}^-1, i.e. G' = Pp_{t+1}^-1 F P_t.
		var fp mat.Dense
		fp.Mul(m.F, res.FiltCov[t])
		var gt mat.Dense
		var chol mat.Cholesky
		if chol.Factorize(res.PredCov[t+1]) {
			if err := chol.SolveTo(&gt, &fp); err != nil {
				return nil, err
			}
		} else if err := gt.Solve(res.PredCov[t+1], &fp); err != nil {
			return nil, fmt.Errorf("kalman: smoother at time %d: predicted covariance is singular: %v", t+1, err)
		}
		g := gt.T()
		var dm mat.VecDense
		dm.SubVec(res.SmoothMean[t+1], res.PredMean[t+1])
		ms := mat.NewVecDense(k, nil)
		ms.MulVec(g, &dm)
		ms.AddVec(ms, res.FiltMean[t])
		var dp mat.Dense
		dp.Sub(res.SmoothCov[t+1], res.PredCov[t+1])
		var gdp, gdpg mat.Dense
		gdp.Mul(g, &dp)
		gdpg.Mul(&gdp, &gt)
		gdpg.Add(&gdpg, res.FiltCov[t])
		ps := mat.NewSymDense(k, nil)
		symmetrize(ps, &gdpg)
		res.SmoothMean[t], res.SmoothCov[t] = ms, ps
	}
	return res, nil
}

// symmetrize sets dst to (a + a')/2.
func symmetrize(dst *mat.SymDense, a mat.Matrix) {
	n := dst.SymmetricDim()
	for i := range n {
		for j := i; j < n; j++ {
			dst.SetSym(i, j, 0.5*(a.At(i, j)+a.At(j, i)))
		}
	}
}

// scalarModel is a model with K = D = 1 (variances p0, q, r).
type scalarModel struct{ m0, p0, f, q, h, r float64 }

// run filters y (NaN missing) and, when smooth, smooths in place: on
// return mean and vr hold the filtered moments, or the smoothed ones when
// smooth. pm and pv receive the predicted moments. It returns log p(y).
func (s scalarModel) run(y []float64, mean, vr, pm, pv []float64, smooth bool) (float64, error) {
	ll := 0.0
	m, p := s.m0, s.p0
	for t, yt := range y {
		if t > 0 {
			m = s.f * m
			p = s.f*s.f*p + s.q
		}
		pm[t], pv[t] = m, p
		if !math.IsNaN(yt) {
			sv := s.h*s.h*p + s.r
			if !(sv > 0) {
				return 0, fmt.Errorf("kalman: time %d: innovation variance %g is not positive", t+1, sv)
			}
			v := yt - s.h*m
			ll -= 0.5 * (log2Pi + math.Log(sv) + v*v/sv)
			g := p * s.h / sv
			m += g * v
			p -= g * s.h * p
		}
		mean[t], vr[t] = m, p
	}
	if !smooth {
		return ll, nil
	}
	for t := len(y) - 2; t >= 0; t-- {
		g := 0.0
		if pv[t+1] > 0 {
			g = vr[t] * s.f / pv[t+1]
		}
		mean[t] += g * (mean[t+1] - pm[t+1])
		vr[t] += g * g * (vr[t+1] - pv[t+1])
	}
	return ll, nil
}

func (s scalarModel) result(y [][]float64, smooth bool) (*Result, error) {
	T := len(y)
	buf := make([]float64, 6*T)
	fm, fv, pm, pv, sm, sv := buf[:T], buf[T:2*T], buf[2*T:3*T], buf[3*T:4*T], buf[4*T:5*T], buf[5*T:]
	ys := make([]float64, T)
	for t, yt := range y {
		ys[t] = yt[0]
	}
	ll, err := s.run(ys, fm, fv, pm, pv, false)
	if err != nil {
		return nil, err
	}
	res := &Result{LogLik: ll}
	vec := func(x []float64) []*mat.VecDense {
		out := make([]*mat.VecDense, T)
		for t, v := range x {
			out[t] = mat.NewVecDense(1, []float64{v})
		}
		return out
	}
	sym := func(x []float64) []*mat.SymDense {
		out := make([]*mat.SymDense, T)
		for t, v := range x {
			out[t] = mat.NewSymDense(1, []float64{v})
		}
		return out
	}
	res.PredMean, res.PredCov, res.FiltMean, res.FiltCov = vec(pm), sym(pv), vec(fm), sym(fv)
	if smooth {
		if _, err := s.run(ys, sm, sv, pm, pv, true); err != nil {
			return nil, err
		}
		res.SmoothMean, res.SmoothCov = vec(sm), sym(sv)
	}
	return res, nil
}
