package stdlib

import "math"

// Matrix operations as tape ops (each has the method set of autodiff.Op,
// returned as a VecOp). Matrices are row-major flat slices; the shapes are
// fixed when an op is constructed. Forward and Backward allocate nothing;
// the ops keep scratch space, so an op must not be shared between
// goroutines (make one per tape node). Backward never relies on state left
// by Forward: the tape may run Forward on several batch elements before
// running Backward on them.

// ---------------------------------------------------------------- gp_exp_quad_cov

// GPExpQuadCov is Stan's gp_exp_quad_cov(x, alpha, rho) for n real inputs.
type GPExpQuadCov struct{ n int }

// NewGPExpQuadCov returns the squared-exponential kernel op: in = [x (n),
// alpha (1), rho (1)], out (n*n) K_ij = alpha^2 exp(-(x_i - x_j)^2 / (2
// rho^2)). Backward gives the adjoints of x, alpha and rho.
func NewGPExpQuadCov(n int) VecOp { return &GPExpQuadCov{n: n} }

// Name is "gp_exp_quad_cov".
func (o *GPExpQuadCov) Name() string { return "gp_exp_quad_cov" }

// Forward writes the n x n kernel matrix into out.
func (o *GPExpQuadCov) Forward(out []float64, in [][]float64) {
	n := o.n
	x, a, rho := in[0], in[1][0], in[2][0]
	a2 := a * a
	c := -0.5 / (rho * rho)
	for i := 0; i < n; i++ {
		out[i*n+i] = a2
		for j := 0; j < i; j++ {
			d := x[i] - x[j]
			k := a2 * math.Exp(c*d*d)
			out[i*n+j] = k
			out[j*n+i] = k
		}
	}
}

// Backward accumulates the adjoints of x, alpha and rho.
func (o *GPExpQuadCov) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	n := o.n
	x, a, rho := in[0], in[1][0], in[2][0]
	dx, da, dr := din[0], din[1], din[2]
	c := -0.5 / (rho * rho)
	ga, gr := 0.0, 0.0
	for i := 0; i < n; i++ {
		ga += 2 * a * dout[i*n+i]
		for j := 0; j < i; j++ {
			g := dout[i*n+j] + dout[j*n+i]
			if g == 0 {
				continue
			}
			d := x[i] - x[j]
			e := math.Exp(c * d * d)
			ga += g * 2 * a * e
			k := a * a * e
			gr += g * k * d * d / (rho * rho * rho)
			if dx != nil {
				// dK/dx_i = -K d / rho^2, dK/dx_j = +K d / rho^2
				v := g * k * d / (rho * rho)
				dx[i] -= v
				dx[j] += v
			}
		}
	}
	if da != nil {
		da[0] += ga
	}
	if dr != nil {
		dr[0] += gr
	}
}

// ---------------------------------------------------------------- diag_matrix, rep_vector

// DiagMatrix is Stan's diag_matrix(v).
type DiagMatrix struct{ n int }

// NewDiagMatrix returns the op in = [v (n)] -> out (n*n) with v on the
// diagonal and zeros elsewhere.
func NewDiagMatrix(n int) VecOp { return &DiagMatrix{n: n} }

// Name is "diag_matrix".
func (o *DiagMatrix) Name() string { return "diag_matrix" }

// Forward writes diag(v) into out.
func (o *DiagMatrix) Forward(out []float64, in [][]float64) {
	for i := range out {
		out[i] = 0
	}
	v := in[0]
	for i := 0; i < o.n; i++ {
		out[i*o.n+i] = v[i]
	}
}

// Backward accumulates the diagonal of dout into din[0].
func (o *DiagMatrix) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	if din[0] == nil {
		return
	}
	for i := 0; i < o.n; i++ {
		din[0][i] += dout[i*o.n+i]
	}
}

// RepVector is Stan's rep_vector(s, n).
type RepVector struct{ n int }

// NewRepVector returns the op in = [s (1)] -> out (n), n copies of s.
func NewRepVector(n int) VecOp { return &RepVector{n: n} }

// Name is "rep_vector".
func (o *RepVector) Name() string { return "rep_vector" }

// Forward writes n copies of in[0][0].
func (o *RepVector) Forward(out []float64, in [][]float64) {
	s := in[0][0]
	for i := range out[:o.n] {
		out[i] = s
	}
}

// Backward accumulates the sum of dout into din[0][0].
func (o *RepVector) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	if din[0] == nil {
		return
	}
	s := 0.0
	for _, d := range dout[:o.n] {
		s += d
	}
	din[0][0] += s
}

// ---------------------------------------------------------------- cholesky_decompose

// CholeskyLower writes into l (n*n, row-major) the lower Cholesky factor L
// of the symmetric part (A + A^T)/2 of a (n*n), with zeros above the
// diagonal, and reports whether it exists (A positive definite). On
// failure l holds NaN everywhere. a and l may not overlap. It allocates
// nothing.
func CholeskyLower(a []float64, n int, l []float64) bool {
	for i := 0; i < n; i++ {
		li := l[i*n : i*n+n]
		j := 0
		// four entries of row i together: their common terms k < j as four
		// independent sums, then the rest in order, so each entry's sum is
		// the same as alone
		for ; j+4 <= i; j += 4 {
			l0, l1, l2, l3 := l[j*n:j*n+j+4], l[(j+1)*n:(j+1)*n+j+4], l[(j+2)*n:(j+2)*n+j+4], l[(j+3)*n:(j+3)*n+j+4]
			s0 := 0.5 * (a[i*n+j] + a[j*n+i])
			s1 := 0.5 * (a[i*n+j+1] + a[(j+1)*n+i])
			s2 := 0.5 * (a[i*n+j+2] + a[(j+2)*n+i])
			s3 := 0.5 * (a[i*n+j+3] + a[(j+3)*n+i])
			for k, x := range li[:j] {
				s0 -= x * l0[k]
				s1 -= x * l1[k]
				s2 -= x * l2[k]
				s3 -= x * l3[k]
			}
			x0 := s0 / l0[j]
			s1 -= x0 * l1[j]
			x1 := s1 / l1[j+1]
			s2 -= x0 * l2[j]
			s2 -= x1 * l2[j+1]
			x2 := s2 / l2[j+2]
			s3 -= x0 * l3[j]
			s3 -= x1 * l3[j+1]
			s3 -= x2 * l3[j+2]
			li[j], li[j+1], li[j+2], li[j+3] = x0, x1, x2, s3/l3[j+3]
		}
		for ; j <= i; j++ {
			s := 0.5 * (a[i*n+j] + a[j*n+i])
			lj := l[j*n : j*n+j+1]
			for k, x := range li[:j] {
				s -= x * lj[k]
			}
			if i == j {
				if !(s > 0) || math.IsInf(s, 0) {
					fillNaN(l[:n*n])
					return false
				}
				li[i] = math.Sqrt(s)
			} else {
				li[j] = s / lj[j]
			}
		}
		clear(li[i+1:])
	}
	return true
}

func fillNaN(x []float64) {
	for i := range x {
		x[i] = math.NaN()
	}
}

// choleskyAdjoint is the reverse mode of CholeskyLower: given L and its
// adjoint lbar (lower triangle; overwritten as scratch), it accumulates
// into da the adjoint of A under the convention of CholeskyLower (the
// factor is of (A + A^T)/2, so da receives the symmetric part: off the
// diagonal each of da_ij and da_ji gets half of the adjoint of the lower
// entry a_ij). It is the scalar reverse sweep of the unblocked
// (Cholesky-Banachiewicz) algorithm, as in Murray (2016), "Differentiation
// of the Cholesky decomposition", section 3 (O(n^3), no allocation).
func choleskyAdjoint(l, lbar []float64, n int, da []float64) {
	for i := n - 1; i >= 0; i-- {
		for j := i; j >= 0; j-- {
			var sbar float64
			if i == j {
				sbar = 0.5 * lbar[i*n+i] / l[i*n+i]
				da[i*n+i] += sbar
			} else {
				ljj := l[j*n+j]
				sbar = lbar[i*n+j] / ljj
				lbar[j*n+j] -= lbar[i*n+j] * l[i*n+j] / ljj
				da[i*n+j] += 0.5 * sbar
				da[j*n+i] += 0.5 * sbar
			}
			if sbar == 0 {
				continue
			}
			for k := 0; k < j; k++ {
				lbar[i*n+k] -= sbar * l[j*n+k]
				lbar[j*n+k] -= sbar * l[i*n+k]
			}
		}
	}
}

// Cholesky is Stan's cholesky_decompose(A).
type Cholesky struct {
	n    int
	lbar []float64
}

// NewCholesky returns the op in = [A (n*n, symmetric positive definite)]
// -> out = L (n*n, lower triangular with zeros above the diagonal, L L^T =
// A). The factor is that of the symmetric part (A + A^T)/2 (only the
// lower triangle matters when A is symmetric), so Backward gives A the
// symmetric part of the adjoint, as Stan does: for a symmetric A the
// result is the gradient along symmetric perturbations A + h (E_ij +
// E_ji)/2. If A is not positive definite, out is all NaN (the caller
// reports it) and Backward does nothing.
func NewCholesky(n int) VecOp { return &Cholesky{n: n, lbar: make([]float64, n*n)} }

// Name is "cholesky_decompose".
func (o *Cholesky) Name() string { return "cholesky_decompose" }

// Forward writes L into out.
func (o *Cholesky) Forward(out []float64, in [][]float64) {
	CholeskyLower(in[0], o.n, out)
}

// Backward accumulates the symmetric adjoint of A.
func (o *Cholesky) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	n := o.n
	if din[0] == nil || n == 0 || math.IsNaN(out[0]) {
		return
	}
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			o.lbar[i*n+j] = dout[i*n+j]
		}
	}
	choleskyAdjoint(out, o.lbar, n, din[0])
}

// ---------------------------------------------------------------- triangular solves

// forwardSubst solves L z = r for z (L lower triangular, row-major n*n).
func forwardSubst(l []float64, n int, r, z []float64) {
	for i := 0; i < n; i++ {
		s := r[i]
		for k := 0; k < i; k++ {
			s -= l[i*n+k] * z[k]
		}
		z[i] = s / l[i*n+i]
	}
}

// backSubstT solves L^T w = z for w (L lower triangular, row-major n*n).
func backSubstT(l []float64, n int, z, w []float64) {
	for i := n - 1; i >= 0; i-- {
		s := z[i]
		for k := i + 1; k < n; k++ {
			s -= l[k*n+i] * w[k]
		}
		w[i] = s / l[i*n+i]
	}
}

// ---------------------------------------------------------------- multi_normal_cholesky

const log2Pi = 1.8378770664093454835606594728112 // log(2 pi)

// MultiNormalCholeskyLpdf is Stan's multi_normal_cholesky_lpdf(y | mu, L).
type MultiNormalCholeskyLpdf struct {
	n    int
	r, z []float64
	w    []float64
}

// NewMultiNormalCholeskyLpdf returns the op in = [y (n), mu (n or 1,
// broadcast), L (n*n lower triangular; the part above the diagonal is
// ignored)] -> out[0] = -n/2 log(2 pi) - sum_i log L_ii - 1/2 ||L^{-1}(y -
// mu)||^2. A diagonal entry L_ii <= 0 gives -Inf (and no adjoints).
// Backward gives adjoints to y, mu and the lower triangle of L.
func NewMultiNormalCholeskyLpdf(n int) VecOp {
	return &MultiNormalCholeskyLpdf{n: n, r: make([]float64, n), z: make([]float64, n), w: make([]float64, n)}
}

// Name is "multi_normal_cholesky".
func (o *MultiNormalCholeskyLpdf) Name() string { return "multi_normal_cholesky" }

// mvnChol returns the log density of y given mu and the lower factor l,
// leaving r = y - mu and z = L^{-1} r. ok is false when a diagonal entry
// of l is not positive.
func mvnChol(n int, y, mu, l, r, z []float64) (lp float64, ok bool) {
	ld := 0.0
	for i := 0; i < n; i++ {
		d := l[i*n+i]
		if !(d > 0) {
			if math.IsNaN(d) {
				return math.NaN(), false
			}
			return math.Inf(-1), false
		}
		ld += math.Log(d)
		r[i] = y[i] - bc(mu, i)
	}
	forwardSubst(l, n, r, z)
	q := 0.0
	for _, v := range z[:n] {
		q += v * v
	}
	return -0.5*float64(n)*log2Pi - ld - 0.5*q, true
}

// Forward writes the log density into out[0].
func (o *MultiNormalCholeskyLpdf) Forward(out []float64, in [][]float64) {
	out[0], _ = mvnChol(o.n, in[0], in[1], in[2], o.r, o.z)
}

// Backward: with z = L^{-1}(y - mu) and w = L^{-T} z, d/dy = -w, d/dmu =
// w, d/dL_ij = w_i z_j - [i = j]/L_ii (i >= j).
func (o *MultiNormalCholeskyLpdf) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	g := dout[0]
	n := o.n
	if g == 0 || n == 0 {
		return
	}
	l := in[2]
	if _, ok := mvnChol(n, in[0], in[1], l, o.r, o.z); !ok {
		return
	}
	backSubstT(l, n, o.z, o.w)
	meanAdjoints(din, n, g, o.w)
	if dl := din[2]; dl != nil {
		for i := 0; i < n; i++ {
			gw := g * o.w[i]
			for j := 0; j < i; j++ {
				dl[i*n+j] += gw * o.z[j]
			}
			dl[i*n+i] += gw*o.z[i] - g/l[i*n+i]
		}
	}
}

// meanAdjoints adds the adjoints of y and mu of a multivariate normal log
// density, -g w and +g w with w = Sigma^{-1}(y - mu) (mu may broadcast).
func meanAdjoints(din [][]float64, n int, g float64, w []float64) {
	if dy := din[0]; dy != nil {
		for i := 0; i < n; i++ {
			dy[i] -= g * w[i]
		}
	}
	if dmu := din[1]; dmu != nil {
		for i := 0; i < n; i++ {
			accum(dmu, i, g*w[i])
		}
	}
}
