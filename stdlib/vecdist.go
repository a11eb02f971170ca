package stdlib

import (
	"math"

	"github.com/mscppl/mscppl/stdlib/special"
)

// Multivariate log densities as tape ops (method set of autodiff.Op,
// returned as a VecOp): each writes one scalar, out[0], and Backward
// accumulates the adjoints of its inputs. Forward and Backward allocate
// nothing; the ops keep scratch space, so one op per tape node (no sharing
// between goroutines). Like Stan's _lpdf functions they include every
// normalising constant.

// ---------------------------------------------------------------- dirichlet

// DirichletLpdf is Stan's dirichlet_lpdf(theta | alpha).
type DirichletLpdf struct{ k int }

// NewDirichletLpdf returns the op in = [theta (k, a simplex), alpha (k or
// 1, broadcast)] -> out[0] = lgamma(sum alpha) - sum lgamma(alpha_i) + sum
// (alpha_i - 1) log theta_i. The density is a function of all k entries of
// theta (the simplex constraint is not checked, as the op must not fail):
// a theta_i outside [0, 1] gives -Inf, a non-positive alpha NaN. A term
// with alpha_i = 1 is 0 even where theta_i = 0.
func NewDirichletLpdf(k int) VecOp { return &DirichletLpdf{k: k} }

// Name is "dirichlet".
func (o *DirichletLpdf) Name() string { return "dirichlet" }

// Forward writes the log density into out[0].
func (o *DirichletLpdf) Forward(out []float64, in [][]float64) {
	theta, alpha := in[0], in[1]
	sa, lp := 0.0, 0.0
	for i := 0; i < o.k; i++ {
		a, t := bc(alpha, i), theta[i]
		if !(a > 0) {
			out[0] = math.NaN()
			return
		}
		if !(t >= 0 && t <= 1) {
			out[0] = math.Inf(-1)
			return
		}
		sa += a
		lg, _ := math.Lgamma(a)
		lp -= lg
		if a != 1 {
			lp += (a - 1) * math.Log(t)
		}
	}
	lg, _ := math.Lgamma(sa)
	out[0] = lp + lg
}

// Backward: d/dtheta_i = (alpha_i - 1)/theta_i, d/dalpha_i =
// digamma(sum alpha) - digamma(alpha_i) + log theta_i. Nothing is
// accumulated where the density is not finite.
func (o *DirichletLpdf) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	g := dout[0]
	if g == 0 || math.IsNaN(out[0]) || math.IsInf(out[0], 0) {
		return
	}
	theta, alpha := in[0], in[1]
	dt, da := din[0], din[1]
	if dt != nil {
		for i := 0; i < o.k; i++ {
			if a := bc(alpha, i); a != 1 {
				dt[i] += g * (a - 1) / theta[i]
			}
		}
	}
	if da != nil {
		sa := 0.0
		for i := 0; i < o.k; i++ {
			sa += bc(alpha, i)
		}
		ds := special.Digamma(sa)
		for i := 0; i < o.k; i++ {
			accum(da, i, g*(ds-special.Digamma(bc(alpha, i))+math.Log(theta[i])))
		}
	}
}

// ---------------------------------------------------------------- multi_normal

// MultiNormalLpdf is Stan's multi_normal_lpdf(y | mu, Sigma).
type MultiNormalLpdf struct {
	n       int
	l, lbar []float64
	r, z, w []float64
}

// NewMultiNormalLpdf returns the op in = [y (n), mu (n or 1, broadcast),
// Sigma (n*n, symmetric positive definite)] -> out[0] = the multivariate
// normal log density, computed through the Cholesky factor of Sigma. As
// for NewCholesky, the factor is that of the symmetric part (Sigma +
// Sigma^T)/2, and Sigma's adjoint is symmetric: d/dSigma = (w w^T -
// Sigma^{-1})/2 with w = Sigma^{-1}(y - mu). A Sigma that is not positive
// definite gives -Inf (and no adjoints).
func NewMultiNormalLpdf(n int) VecOp {
	return &MultiNormalLpdf{n: n, l: make([]float64, n*n), lbar: make([]float64, n*n),
		r: make([]float64, n), z: make([]float64, n), w: make([]float64, n)}
}

// Name is "multi_normal".
func (o *MultiNormalLpdf) Name() string { return "multi_normal" }

// Forward writes the log density into out[0].
func (o *MultiNormalLpdf) Forward(out []float64, in [][]float64) {
	if !CholeskyLower(in[2], o.n, o.l) {
		out[0] = math.Inf(-1)
		return
	}
	out[0], _ = mvnChol(o.n, in[0], in[1], o.l, o.r, o.z)
}

// Backward accumulates the adjoints of y, mu and Sigma: the adjoint of the
// Cholesky factor (as in MultiNormalCholeskyLpdf) pulled back through the
// Cholesky reverse sweep.
func (o *MultiNormalLpdf) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	g := dout[0]
	n := o.n
	if g == 0 || n == 0 || !CholeskyLower(in[2], n, o.l) {
		return
	}
	l := o.l
	if _, ok := mvnChol(n, in[0], in[1], l, o.r, o.z); !ok {
		return
	}
	backSubstT(l, n, o.z, o.w)
	meanAdjoints(din, n, g, o.w)
	if ds := din[2]; ds != nil {
		for i := 0; i < n; i++ {
			gw := g * o.w[i]
			for j := 0; j < i; j++ {
				o.lbar[i*n+j] = gw * o.z[j]
			}
			o.lbar[i*n+i] = gw*o.z[i] - g/l[i*n+i]
		}
		choleskyAdjoint(l, o.lbar, n, ds)
	}
}

// ---------------------------------------------------------------- lkj_corr_cholesky

// LKJCorrCholeskyLpdf is Stan's lkj_corr_cholesky_lpdf(L | eta).
type LKJCorrCholeskyLpdf struct{ k int }

// NewLKJCorrCholeskyLpdf returns the op in = [L (k*k, the Cholesky factor
// of a correlation matrix, row-major), eta (1)] -> out[0] = c(eta, k) +
// sum_{i=2..k} (k - i + 2 eta - 2) log L_ii, with Stan's normalising
// constant (Lewandowski, Kurowicka and Joe 2009, theorem 5)
//
//	c(eta, k) = (k-1) lgamma(eta + (k-1)/2) - sum_{j=1..k-1} [j/2 log pi + lgamma(eta + (k-1-j)/2)],
//
// used for every eta (Stan switches to an equal closed form at eta = 1).
// Only the diagonal of L is read (the constraint is not checked). A
// diagonal L_ii <= 0 (i >= 2) gives -Inf; eta <= 0 gives NaN. Backward
// gives adjoints to the diagonal of L and to eta.
func NewLKJCorrCholeskyLpdf(k int) VecOp { return &LKJCorrCholeskyLpdf{k: k} }

// Name is "lkj_corr_cholesky".
func (o *LKJCorrCholeskyLpdf) Name() string { return "lkj_corr_cholesky" }

// LKJConstant is c(eta, k), the log normalising constant of the LKJ
// density (see NewLKJCorrCholeskyLpdf), and its derivative in eta.
func LKJConstant(eta float64, k int) (c, dc float64) {
	if k <= 1 {
		return 0, 0
	}
	km1 := float64(k - 1)
	c, _ = math.Lgamma(eta + 0.5*km1)
	c *= km1
	dc = km1 * special.Digamma(eta+0.5*km1)
	for j := 1; j < k; j++ {
		lg, _ := math.Lgamma(eta + 0.5*(km1-float64(j)))
		c -= 0.5*float64(j)*math.Log(math.Pi) + lg
		dc -= special.Digamma(eta + 0.5*(km1-float64(j)))
	}
	return c, dc
}

// Forward writes the log density into out[0].
func (o *LKJCorrCholeskyLpdf) Forward(out []float64, in [][]float64) {
	l, eta := in[0], in[1][0]
	k := o.k
	if !(eta > 0) {
		out[0] = math.NaN()
		return
	}
	lp, _ := LKJConstant(eta, k)
	for i := 1; i < k; i++ {
		d := l[i*k+i]
		if !(d > 0) {
			out[0] = math.Inf(-1)
			return
		}
		lp += (float64(k-i-3) + 2*eta) * math.Log(d)
	}
	out[0] = lp
}

// Backward accumulates d/dL_ii = (k - i + 2 eta - 2)/L_ii and d/deta =
// c'(eta) + 2 sum_{i>=2} log L_ii.
func (o *LKJCorrCholeskyLpdf) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	g := dout[0]
	if g == 0 || math.IsNaN(out[0]) || math.IsInf(out[0], 0) {
		return
	}
	l, eta := in[0], in[1][0]
	k := o.k
	dl, de := din[0], din[1]
	s := 0.0
	for i := 1; i < k; i++ {
		d := l[i*k+i]
		if dl != nil {
			dl[i*k+i] += g * (float64(k-i-3) + 2*eta) / d
		}
		s += math.Log(d)
	}
	if de != nil {
		_, dc := LKJConstant(eta, k)
		de[0] += g * (dc + 2*s)
	}
}

// ---------------------------------------------------------------- categorical_logit

// CategoricalLogitLpmf is Stan's categorical_logit_lpmf(y | beta).
type CategoricalLogitLpmf struct{ k int }

// NewCategoricalLogitLpmf returns the op in = [y (1, an integer in 1..k),
// beta (k)] -> out[0] = beta_y - log_sum_exp(beta). A y that is not an
// integer in 1..k gives -Inf. Backward gives beta's adjoint (y has none).
func NewCategoricalLogitLpmf(k int) VecOp { return &CategoricalLogitLpmf{k: k} }

// Name is "categorical_logit".
func (o *CategoricalLogitLpmf) Name() string { return "categorical_logit" }

func (o *CategoricalLogitLpmf) index(y float64) (int, bool) {
	if !(y >= 1 && y <= float64(o.k)) || y != math.Trunc(y) {
		return 0, false
	}
	return int(y) - 1, true
}

// Forward writes the log probability into out[0].
func (o *CategoricalLogitLpmf) Forward(out []float64, in [][]float64) {
	j, ok := o.index(in[0][0])
	if !ok {
		out[0] = math.Inf(-1)
		return
	}
	beta := in[1][:o.k]
	out[0] = beta[j] - special.LogSumExp(beta)
}

// Backward accumulates d/dbeta_i = [i = y] - softmax(beta)_i.
func (o *CategoricalLogitLpmf) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	g := dout[0]
	db := din[1]
	j, ok := o.index(in[0][0])
	if g == 0 || db == nil || !ok {
		return
	}
	beta := in[1][:o.k]
	lse := special.LogSumExp(beta)
	for i, b := range beta {
		db[i] -= g * math.Exp(b-lse)
	}
	db[j] += g
}
