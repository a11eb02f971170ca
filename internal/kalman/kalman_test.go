package kalman

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// dense computes log p(y), E[x | y] and Cov[x | y] for a state-space model
// from the joint Gaussian of (x_1:T, y_1:T): x has mean F^(t-1) M0 at time
// t and covariances Cov(x_t, x_s) = F^(t-s) Cov(x_s) for t >= s, with
// Cov(x_s) = F Cov(x_{s-1}) F' + Q; y = H x + v. Missing (NaN) entries of
// y are dropped from the conditioning. The returned mean is indexed
// [t][i] and the covariance [t][i][j] (the diagonal blocks only).
func dense(m Model, y [][]float64) (ll float64, mean [][]float64, cov [][][]float64) {
	k, d := m.Dims()
	T := len(y)
	n := T * k
	mx := mat.NewVecDense(n, nil)
	sx := mat.NewDense(n, n, nil)
	// Marginal means and covariances.
	mt := mat.VecDenseCopyOf(m.M0)
	pt := mat.DenseCopyOf(m.P0)
	margCov := make([]*mat.Dense, T)
	for t := range T {
		if t > 0 {
			var nm mat.VecDense
			nm.MulVec(m.F, mt)
			mt = &nm
			var fp, fpf mat.Dense
			fp.Mul(m.F, pt)
			fpf.Mul(&fp, m.F.T())
			fpf.Add(&fpf, m.Q)
			pt = &fpf
		}
		margCov[t] = mat.DenseCopyOf(pt)
		for i := range k {
			mx.SetVec(t*k+i, mt.AtVec(i))
		}
	}
	// Cross covariances Cov(x_t, x_s) = F^(t-s) Cov(x_s), t >= s.
	for s := range T {
		c := mat.DenseCopyOf(margCov[s])
		for t := s; t < T; t++ {
			if t > s {
				var nc mat.Dense
				nc.Mul(m.F, c)
				c = &nc
			}
			for i := range k {
				for j := range k {
					sx.Set(t*k+i, s*k+j, c.At(i, j))
					sx.Set(s*k+j, t*k+i, c.At(i, j))
				}
			}
		}
	}
	// Observed entries: rows of the stacked H and R.
	type obs struct{ t, i int }
	var os []obs
	for t := range T {
		for i := range d {
			if !math.IsNaN(y[t][i]) {
				os = append(os, obs{t, i})
			}
		}
	}
	no := len(os)
	mean = make([][]float64, T)
	cov = make([][][]float64, T)
	if no == 0 { // nothing observed: the prior
		for t := range T {
			mean[t] = make([]float64, k)
			cov[t] = make([][]float64, k)
			for i := range k {
				mean[t][i] = mx.AtVec(t*k + i)
				cov[t][i] = make([]float64, k)
				for j := range k {
					cov[t][i][j] = sx.At(t*k+i, t*k+j)
				}
			}
		}
		return 0, mean, cov
	}
	hb := mat.NewDense(no, n, nil)
	rb := mat.NewDense(no, no, nil)
	yv := mat.NewVecDense(no, nil)
	for a, o := range os {
		for j := range k {
			hb.Set(a, o.t*k+j, m.H.At(o.i, j))
		}
		for b, p := range os {
			if p.t == o.t {
				rb.Set(a, b, m.R.At(o.i, p.i))
			}
		}
		yv.SetVec(a, y[o.t][o.i])
	}
	var my mat.VecDense
	my.MulVec(hb, mx)
	var sxy mat.Dense // Cov(x, y) = Sx H'
	sxy.Mul(sx, hb.T())
	var syy mat.Dense
	syy.Mul(hb, &sxy)
	syy.Add(&syy, rb)
	sy := mat.NewSymDense(no, nil)
	symmetrize(sy, &syy)
	var chol mat.Cholesky
	if !chol.Factorize(sy) {
		panic("dense: Cov(y) not positive definite")
	}
	var r mat.VecDense
	r.SubVec(yv, &my)
	var sr mat.VecDense
	if err := chol.SolveVecTo(&sr, &r); err != nil {
		panic(err)
	}
	ll = -0.5 * (float64(no)*log2Pi + chol.LogDet() + mat.Dot(&r, &sr))
	var pm mat.VecDense
	pm.MulVec(&sxy, &sr)
	pm.AddVec(&pm, mx)
	var sinv mat.Dense // Syy^-1 Syx
	if err := chol.SolveTo(&sinv, sxy.T()); err != nil {
		panic(err)
	}
	var corr mat.Dense
	corr.Mul(&sxy, &sinv)
	var pc mat.Dense
	pc.Sub(sx, &corr)
	for t := range T {
		mean[t] = make([]float64, k)
		cov[t] = make([][]float64, k)
		for i := range k {
			mean[t][i] = pm.AtVec(t*k + i)
			cov[t][i] = make([]float64, k)
			for j := range k {
				cov[t][i][j] = pc.At(t*k+i, t*k+j)
			}
		}
	}
	return ll, mean, cov
}

// simulate draws y from m (T steps), then blanks the entries listed.
func simulate(m Model, T int, seed uint64, missing [][2]int) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	k, d := m.Dims()
	draw := func(mu *mat.VecDense, c *mat.SymDense) *mat.VecDense {
		var ch mat.Cholesky
		z := mat.NewVecDense(c.SymmetricDim(), nil)
		for i := range z.Len() {
			z.SetVec(i, rng.NormFloat64())
		}
		out := mat.NewVecDense(c.SymmetricDim(), nil)
		if ch.Factorize(c) {
			var l mat.TriDense
			ch.LTo(&l)
			out.MulVec(&l, z)
		} else { // a zero covariance in the tests
			out.Zero()
		}
		if mu != nil {
			out.AddVec(out, mu)
		}
		return out
	}
	x := draw(m.M0, m.P0)
	y := make([][]float64, T)
	for t := range T {
		if t > 0 {
			var fx mat.VecDense
			fx.MulVec(m.F, x)
			x = draw(&fx, m.Q)
		}
		var hx mat.VecDense
		hx.MulVec(m.H, x)
		v := draw(&hx, m.R)
		y[t] = make([]float64, d)
		for i := range d {
			y[t][i] = v.AtVec(i)
		}
	}
	_ = k
	for _, ti := range missing {
		y[ti[0]][ti[1]] = math.NaN()
	}
	return y
}

func sym(n int, v ...float64) *mat.SymDense { return mat.NewSymDense(n, v) }

func denseCases() []struct {
	name    string
	m       Model
	T       int
	missing [][2]int
} {
	return []struct {
		name    string
		m       Model
		T       int
		missing [][2]int
	}{
		{"scalar AR(1) plus noise", ScalarModel(0.5, 2, 0.8, 0.3, 1, 1.5), 12, nil},
		{"scalar, missing and h != 1", ScalarModel(-1, 0.7, -0.6, 1.1, 2.5, 0.4), 9, [][2]int{{0, 0}, {4, 0}, {5, 0}, {8, 0}}},
		{"scalar random walk", ScalarModel(0, 100, 1, 0.2, 1, 1), 10, nil},
		{"local linear trend", Model{
			M0: mat.NewVecDense(2, []float64{1, 0.2}),
			P0: sym(2, 4, 0.3, 0.3, 1),
			F:  mat.NewDense(2, 2, []float64{1, 1, 0, 1}),
			Q:  sym(2, 0.1, 0, 0, 0.01),
			H:  mat.NewDense(1, 2, []float64{1, 0}),
			R:  sym(1, 0.5),
		}, 10, [][2]int{{3, 0}}},
		{"3 states, 2 correlated observations, partly missing", Model{
			M0: mat.NewVecDense(3, []float64{0.1, -0.2, 0.3}),
			P0: sym(3, 1, 0.2, 0, 0.2, 1.5, 0.1, 0, 0.1, 0.8),
			F:  mat.NewDense(3, 3, []float64{0.9, 0.1, 0, -0.2, 0.7, 0.1, 0.05, 0, 0.5}),
			Q:  sym(3, 0.3, 0.05, 0, 0.05, 0.2, 0.02, 0, 0.02, 0.4),
			H:  mat.NewDense(2, 3, []float64{1, 0, 0.5, 0, 1, -1}),
			R:  sym(2, 0.6, 0.2, 0.2, 0.9),
		}, 8, [][2]int{{1, 0}, {2, 0}, {2, 1}, {6, 1}}},
	}
}

// TestSmoothMatchesDenseGaussian checks the log-likelihood and the
// filtered and smoothed moments against the joint Gaussian of x and y:
// the smoothed moments at time t against E[x_t | y] and Cov[x_t | y], the
// filtered ones against the same computation on y_1:t.
func TestSmoothMatchesDenseGaussian(t *testing.T) {
	const tol = 1e-9
	for _, c := range denseCases() {
		t.Run(c.name, func(t *testing.T) {
			y := simulate(c.m, c.T, 11, c.missing)
			res, err := Smooth(c.m, y)
			if err != nil {
				t.Fatal(err)
			}
			ll, mean, cov := dense(c.m, y)
			if math.Abs(res.LogLik-ll) > tol*math.Max(1, math.Abs(ll)) {
				t.Errorf("log-likelihood %.12g, dense %.12g", res.LogLik, ll)
			}
			k, _ := c.m.Dims()
			for tt := range c.T {
				for i := range k {
					if d := res.SmoothMean[tt].AtVec(i) - mean[tt][i]; math.Abs(d) > tol {
						t.Errorf("E[x_%d[%d] | y]: %g, dense %g", tt+1, i, res.SmoothMean[tt].AtVec(i), mean[tt][i])
					}
					for j := range k {
						if d := res.SmoothCov[tt].At(i, j) - cov[tt][i][j]; math.Abs(d) > tol {
							t.Errorf("Cov[x_%d | y][%d,%d]: %g, dense %g", tt+1, i, j, res.SmoothCov[tt].At(i, j), cov[tt][i][j])
						}
					}
				}
				// Filtered moments: the dense posterior given y_1:t,
				// at its last time.
				llt, mt, ct := dense(c.m, y[:tt+1])
				_ = llt
				for i := range k {
					if d := res.FiltMean[tt].AtVec(i) - mt[tt][i]; math.Abs(d) > tol {
						t.Errorf("E[x_%d[%d] | y_1:%d]: %g, dense %g", tt+1, i, tt+1, res.FiltMean[tt].AtVec(i), mt[tt][i])
					}
					for j := range k {
						if d := res.FiltCov[tt].At(i, j) - ct[tt][i][j]; math.Abs(d) > tol {
							t.Errorf("Cov[x_%d | y_1:%d][%d,%d]: %g, dense %g", tt+1, tt+1, i, j, res.FiltCov[tt].At(i, j), ct[tt][i][j])
						}
					}
				}
			}
			// The filter alone gives the same log-likelihood.
			f, err := Filter(c.m, y)
			if err != nil {
				t.Fatal(err)
			}
			if f.LogLik != res.LogLik || f.SmoothMean != nil {
				t.Errorf("Filter: log-likelihood %g (Smooth %g), smoothed moments %v", f.LogLik, res.LogLik, f.SmoothMean != nil)
			}
		})
	}
}

// TestScalarPathMatchesMatrixPath runs the scalar models through the
// matrix code (as a 1x1 block of a 2-state model whose second state is
// unobserved and independent) and compares.
func TestScalarPathMatchesMatrixPath(t *testing.T) {
	for _, c := range denseCases()[:3] {
		s, _ := c.m.scalar()
		y := simulate(c.m, c.T, 5, c.missing)
		res, err := Smooth(c.m, y)
		if err != nil {
			t.Fatal(err)
		}
		m2 := Model{
			M0: mat.NewVecDense(2, []float64{s.m0, 0}),
			P0: sym(2, s.p0, 0, 0, 1),
			F:  mat.NewDense(2, 2, []float64{s.f, 0, 0, 0.5}),
			Q:  sym(2, s.q, 0, 0, 1),
			H:  mat.NewDense(1, 2, []float64{s.h, 0}),
			R:  sym(1, s.r),
		}
		res2, err := Smooth(m2, y)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.LogLik-res2.LogLik) > 1e-10 {
			t.Errorf("%s: log-likelihood %g, matrix path %g", c.name, res.LogLik, res2.LogLik)
		}
		for tt := range c.T {
			for _, p := range [][2]float64{
				{res.SmoothMean[tt].AtVec(0), res2.SmoothMean[tt].AtVec(0)},
				{res.SmoothCov[tt].At(0, 0), res2.SmoothCov[tt].At(0, 0)},
				{res.FiltMean[tt].AtVec(0), res2.FiltMean[tt].AtVec(0)},
				{res.PredCov[tt].At(0, 0), res2.PredCov[tt].At(0, 0)},
			} {
				if math.Abs(p[0]-p[1]) > 1e-10 {
					t.Errorf("%s: time %d: scalar %g, matrix %g", c.name, tt+1, p[0], p[1])
				}
			}
		}
	}
}

func TestModelErrors(t *testing.T) {
	good := ScalarModel(0, 1, 1, 1, 1, 1)
	bad := good
	bad.F = mat.NewDense(1, 2, []float64{1, 1})
	cases := []struct {
		name string
		m    Model
		y    [][]float64
	}{
		{"nil matrix", Model{}, Scalar([]float64{1})},
		{"F of the wrong size", bad, Scalar([]float64{1})},
		{"y of the wrong length", good, [][]float64{{1, 2}}},
		{"zero innovation variance", ScalarModel(0, 0, 1, 0, 1, 0), Scalar([]float64{1})},
	}
	for _, c := range cases {
		if _, err := Smooth(c.m, c.y); err == nil {
			t.Errorf("%s: no error", c.name)
		}
		if _, err := Filter(c.m, c.y); err == nil {
			t.Errorf("%s: Filter: no error", c.name)
		}
	}
}

func vec(v ...float64) *mat.VecDense { return mat.NewVecDense(len(v), v) }

// dmat is a dense matrix with c columns, filled row by row.
func dmat(c int, v ...float64) *mat.Dense { return mat.NewDense(len(v)/c, c, v) }
