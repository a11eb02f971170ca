package stdlib

import (
	"fmt"
	"math"

	"github.com/mscppl/mscppl/stdlib/special"
)

// VecBijection is a vector-valued constraining transform, as in the
// "Constraint transforms" chapter of Stan's reference manual: it maps an
// unconstrained u in R^UDim() onto a constrained x of length XLen() (a
// K-vector, or a K x K matrix stored row-major), and gives the log of the
// absolute Jacobian determinant of the map from u to the free coordinates of
// x (the Jacobian adjustment added to the log joint).
//
//	simplex[K]              UDim K-1         XLen K    (free coordinates x_1..x_{K-1})
//	ordered[K]              UDim K           XLen K
//	positive_ordered[K]     UDim K           XLen K
//	cholesky_factor_corr[K] UDim K(K-1)/2    XLen K*K  (free coordinates: strictly lower triangle)
//
// A VecBijection holds no mutable state; its methods allocate nothing and
// may be called concurrently.
type VecBijection interface {
	// Name is the declared type: simplex, ordered, positive_ordered or
	// cholesky_factor_corr.
	Name() string
	// K is the declared size.
	K() int
	// UDim is the length of the unconstrained vector u.
	UDim() int
	// XLen is the length of the constrained value x (K*K for matrices).
	XLen() int
	// Constrain writes x = T(u) (len(u) == UDim(), len(x) == XLen()) and
	// returns log |det J|, the Jacobian adjustment.
	Constrain(u, x []float64) (logJac float64)
	// Unconstrain writes u = T^{-1}(x), after checking that x satisfies the
	// constraint strictly (no finite u maps onto the boundary).
	Unconstrain(x, u []float64) error
	// Op is the transform as a tape operation: in[0] is u, the output is x
	// followed by log |det J| (length XLen()+1).
	Op() VecOp
}

// VecOp has the method set of autodiff.Op (stdlib does not import autodiff).
type VecOp interface {
	Name() string
	Forward(out []float64, in [][]float64)
	Backward(out, dout []float64, in [][]float64, din [][]float64)
	// Clone is the op for another copy of the tape (autodiff.Graph.Clone,
	// one per chain): the op itself when it keeps no state between calls,
	// else a fresh op as its constructor makes it (clone.go).
	Clone() VecOp
}

// simplexTol is the tolerance on the sum of a simplex and on the squared
// length of the rows of a Cholesky factor of a correlation matrix (Stan's
// CONSTRAINT_TOLERANCE).
const simplexTol = 1e-8

var vecBijections = map[string]func(K int) VecBijection{
	"simplex":              func(K int) VecBijection { return Simplex{N: K} },
	"ordered":              func(K int) VecBijection { return Ordered{N: K} },
	"positive_ordered":     func(K int) VecBijection { return Ordered{N: K, Positive: true} },
	"cholesky_factor_corr": func(K int) VecBijection { return CholeskyCorr{N: K} },
}

// LookupVecBijection returns the constructor of the vector transform with
// the given declared type name.
func LookupVecBijection(name string) (func(K int) VecBijection, bool) {
	f, ok := vecBijections[name]
	return f, ok
}

// checkLens panics on slices of the wrong length (a caller's bug). It takes
// no interface so that Constrain allocates nothing.
func checkLens(name string, k, udim, xlen int, u, x []float64) {
	if len(u) != udim || len(x) != xlen {
		panic(fmt.Sprintf("%s[%d]: u has length %d (want %d), x has length %d (want %d)",
			name, k, len(u), udim, len(x), xlen))
	}
}

func checkFinite(name string, k int, x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s[%d]: element %d is %g, not finite", name, k, i+1, v)
		}
	}
	return nil
}

// vecOp adapts a VecBijection with a vector-Jacobian product to VecOp.
type vecOp struct {
	b interface {
		VecBijection
		vjp(u, out, dout, du []float64)
	}
}

func (o vecOp) Name() string { return o.b.Name() }

// Forward writes x and then log |det J| into out.
func (o vecOp) Forward(out []float64, in [][]float64) {
	n := o.b.XLen()
	out[n] = o.b.Constrain(in[0], out[:n])
}

// Backward accumulates din[0][i] += sum_k dout[k] d out[k] / d u[i].
func (o vecOp) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	if din[0] == nil {
		return
	}
	o.b.vjp(in[0], out, dout, din[0])
}

// ---------------------------------------------------------------- ordered

// Ordered is ordered[K] (x_1 = u_1, x_k = x_{k-1} + exp(u_k); log J =
// sum_{k>=2} u_k) or, with Positive, positive_ordered[K] (x_1 = exp(u_1);
// log J = sum_k u_k).
type Ordered struct {
	N        int
	Positive bool
}

func (b Ordered) Name() string {
	if b.Positive {
		return "positive_ordered"
	}
	return "ordered"
}
func (b Ordered) K() int    { return b.N }
func (b Ordered) UDim() int { return b.N }
func (b Ordered) XLen() int { return b.N }
func (b Ordered) Op() VecOp { return vecOp{b} }

func (b Ordered) Constrain(u, x []float64) float64 {
	checkLens(b.Name(), b.N, b.UDim(), b.XLen(), u, x)
	if b.N == 0 {
		return 0
	}
	lj := 0.0
	if b.Positive {
		x[0] = math.Exp(u[0])
		lj = u[0]
	} else {
		x[0] = u[0]
	}
	for k := 1; k < b.N; k++ {
		x[k] = x[k-1] + math.Exp(u[k])
		lj += u[k]
	}
	return lj
}

func (b Ordered) Unconstrain(x, u []float64) error {
	checkLens(b.Name(), b.N, b.UDim(), b.XLen(), u, x)
	if err := checkFinite(b.Name(), b.N, x); err != nil {
		return err
	}
	if b.N == 0 {
		return nil
	}
	if b.Positive {
		if !(x[0] > 0) {
			return fmt.Errorf("%s[%d]: element 1 is %g, not positive", b.Name(), b.N, x[0])
		}
	}
	for k := 1; k < b.N; k++ {
		if !(x[k] > x[k-1]) {
			return fmt.Errorf("%s[%d]: element %d (%g) is not above element %d (%g)", b.Name(), b.N, k+1, x[k], k, x[k-1])
		}
	}
	if b.Positive {
		u[0] = math.Log(x[0])
	} else {
		u[0] = x[0]
	}
	for k := 1; k < b.N; k++ {
		u[k] = math.Log(x[k] - x[k-1])
	}
	return nil
}

// vjp: d x_k / d u_j = exp(u_j) for j <= k (j >= 2, or j = 1 when
// positive), 1 for j = 1 when not positive; d log J / d u_j = 1 for the
// u_j in the sum.
func (b Ordered) vjp(u, out, dout, du []float64) {
	n := b.N
	if n == 0 {
		return
	}
	gl := dout[n]
	s := 0.0 // sum_{k >= j} dout[k]
	for j := n - 1; j >= 1; j-- {
		s += dout[j]
		du[j] += s*math.Exp(u[j]) + gl
	}
	s += dout[0]
	if b.Positive {
		du[0] += s*math.Exp(u[0]) + gl
	} else {
		du[0] += s
	}
}

// ---------------------------------------------------------------- simplex

// Simplex is simplex[K] by Stan's stick-breaking transform: for k = 1..K-1,
// z_k = inv_logit(u_k - log(K-k)), x_k = r_k z_k with the remaining stick
// r_1 = 1, r_{k+1} = r_k (1 - z_k), and x_K = r_K. log J = sum_{k<K}
// log(z_k (1 - z_k) r_k): the map u -> (x_1..x_{K-1}) is triangular with
// diagonal r_k z_k (1 - z_k). Everything is computed in log space (log z_k
// = log inv_logit(a_k), log(1 - z_k) = log inv_logit(-a_k), log r_k =
// sum_{k'<k} log(1 - z_k')), so small pieces of stick keep their relative
// precision.
type Simplex struct{ N int }

func (b Simplex) Name() string { return "simplex" }
func (b Simplex) K() int       { return b.N }
func (b Simplex) UDim() int {
	if b.N == 0 {
		return 0
	}
	return b.N - 1
}
func (b Simplex) XLen() int { return b.N }
func (b Simplex) Op() VecOp { return vecOp{b} }

// offset is log(K-k) for the 0-based index k (Stan's log(1/(K-k)) with
// 1-based k, negated), which centres u = 0 on the uniform simplex.
func (b Simplex) offset(k int) float64 { return math.Log(float64(b.N - 1 - k)) }

func (b Simplex) Constrain(u, x []float64) float64 {
	checkLens(b.Name(), b.N, b.UDim(), b.XLen(), u, x)
	if b.N == 0 {
		return 0
	}
	lr, lj := 0.0, 0.0
	for k := 0; k < b.N-1; k++ {
		a := u[k] - b.offset(k)
		lz, l1z := special.LogInvLogit(a), special.LogInvLogit(-a)
		x[k] = math.Exp(lr + lz)
		lj += lz + l1z + lr
		lr += l1z
	}
	x[b.N-1] = math.Exp(lr)
	return lj
}

// Unconstrain uses z_k = x_k / r_k with r_k = sum_{j>=k} x_j (summed from
// the end, which is exact for small pieces), so u_k = logit(z_k) + log(K-k)
// = log x_k - log sum_{j>k} x_j + log(K-k). This is invariant to the scale
// of x, so a sum within the tolerance of 1 is normalised.
func (b Simplex) Unconstrain(x, u []float64) error {
	checkLens(b.Name(), b.N, b.UDim(), b.XLen(), u, x)
	if err := checkFinite(b.Name(), b.N, x); err != nil {
		return err
	}
	if b.N == 0 {
		return nil
	}
	s := 0.0
	for i, v := range x {
		if v < 0 {
			return fmt.Errorf("simplex[%d]: element %d is %g, negative", b.N, i+1, v)
		}
		if v == 0 {
			return fmt.Errorf("simplex[%d]: element %d is 0, on the boundary (no finite unconstrained value)", b.N, i+1)
		}
		s += v
	}
	if math.Abs(s-1) > simplexTol {
		return fmt.Errorf("simplex[%d]: elements sum to %.17g, not 1", b.N, s)
	}
	tail := x[b.N-1]
	for k := b.N - 2; k >= 0; k-- {
		u[k] = math.Log(x[k]) - math.Log(tail) + b.offset(k)
		tail += x[k]
	}
	return nil
}

// vjp by reverse accumulation through x_k = r_k z_k, r_{k+1} = r_k (1 -
// z_k): with gr the adjoint of r_{k+1}, du_k = r_k z_k (1 - z_k) (gx_k -
// gr) = x_k (1 - z_k) (gx_k - gr) and the adjoint of r_k is gx_k z_k + gr
// (1 - z_k). d log J / d u_k = (1 - z_k) - z_k - (K - 2 - k) z_k (0-based
// k) = 1 - (K - k) z_k, the last term from the log r_j, j > k.
func (b Simplex) vjp(u, out, dout, du []float64) {
	n := b.N
	if n <= 1 {
		return
	}
	gl := dout[n]
	gr := dout[n-1]
	for k := n - 2; k >= 0; k-- {
		a := u[k] - b.offset(k)
		z, z1 := special.InvLogit(a), special.InvLogit(-a)
		du[k] += out[k]*z1*(dout[k]-gr) + gl*(1-float64(n-k)*z)
		gr = dout[k]*z + gr*z1
	}
}

// ---------------------------------------------------- cholesky_factor_corr

// CholeskyCorr is cholesky_factor_corr[K]: the K(K-1)/2 canonical partial
// correlations z = tanh(u) fill the lower triangle row by row (row 2: z_21;
// row 3: z_31, z_32; ...). L_11 = 1 and for row i > 1, with w_j = 1 -
// sum_{j'<j} L_ij'^2: L_ij = z_ij sqrt(w_j) (j < i), L_ii = sqrt(w_i).
// Since w_{j+1} = w_j (1 - z_ij^2), log w_j = sum_{j'<j} log(1 - z_ij'^2),
// and log(1 - tanh(u)^2) = log sech(u)^2 is computed from u directly, so
// nothing cancels for large |u|. log J = sum over all z of log(1 - z^2)
// (the tanh) + sum over rows i and 1 < j < i of (1/2) log w_j (the
// triangular map from z to the strictly lower triangle), as in Stan. x is
// the K x K matrix, row-major, with zeros above the diagonal.
type CholeskyCorr struct{ N int }

func (b CholeskyCorr) Name() string { return "cholesky_factor_corr" }
func (b CholeskyCorr) K() int       { return b.N }
func (b CholeskyCorr) UDim() int    { return b.N * (b.N - 1) / 2 }
func (b CholeskyCorr) XLen() int    { return b.N * b.N }
func (b CholeskyCorr) Op() VecOp    { return vecOp{b} }

// logSech2 is log(1 - tanh(u)^2) = 2 (log 2 - |u| - log1p(exp(-2|u|))).
func logSech2(u float64) float64 {
	a := math.Abs(u)
	return 2 * (math.Ln2 - a - math.Log1p(math.Exp(-2*a)))
}

func (b CholeskyCorr) Constrain(u, x []float64) float64 {
	checkLens(b.Name(), b.N, b.UDim(), b.XLen(), u, x)
	n := b.N
	if n == 0 {
		return 0
	}
	for i := range x {
		x[i] = 0
	}
	x[0] = 1
	lj := 0.0
	p := 0
	for i := 1; i < n; i++ {
		row := x[i*n : i*n+n]
		lw := 0.0 // log w_j
		for j := 0; j < i; j++ {
			if j > 0 {
				lj += 0.5 * lw
			}
			ls := logSech2(u[p])
			row[j] = math.Tanh(u[p]) * math.Exp(0.5*lw)
			lj += ls
			lw += ls
			p++
		}
		row[i] = math.Exp(0.5 * lw)
	}
	return lj
}

// Unconstrain uses w_j = sum_{j'>=j} L_ij'^2 (the rest of the unit row,
// summed from the diagonal, exact for small pieces) and
// atanh(L_ij / sqrt(w_j)) = sign(L_ij) (log(sqrt(w_j) + |L_ij|) - log
// w_{j+1} / 2), which stays accurate when z_ij rounds to +-1. Rows are
// normalised, so squared lengths within the tolerance of 1 are accepted.
func (b CholeskyCorr) Unconstrain(x, u []float64) error {
	checkLens(b.Name(), b.N, b.UDim(), b.XLen(), u, x)
	if err := checkFinite(b.Name(), b.N, x); err != nil {
		return err
	}
	n := b.N
	for i := 0; i < n; i++ {
		row := x[i*n : i*n+n]
		for j := i + 1; j < n; j++ {
			if row[j] != 0 {
				return fmt.Errorf("cholesky_factor_corr[%d]: element (%d, %d) is %g above the diagonal, not 0", n, i+1, j+1, row[j])
			}
		}
		if !(row[i] > 0) {
			return fmt.Errorf("cholesky_factor_corr[%d]: diagonal element (%d, %d) is %g, not positive", n, i+1, i+1, row[i])
		}
		ss := 0.0
		for j := 0; j <= i; j++ {
			ss += row[j] * row[j]
		}
		if math.Abs(ss-1) > simplexTol {
			return fmt.Errorf("cholesky_factor_corr[%d]: row %d has squared length %.17g, not 1", n, i+1, ss)
		}
	}
	p := b.UDim()
	for i := n - 1; i >= 1; i-- {
		row := x[i*n : i*n+n]
		w := row[i] * row[i] // w_{j+1}
		p -= i
		for j := i - 1; j >= 0; j-- {
			a := math.Abs(row[j])
			wj := w + a*a
			v := math.Log(math.Sqrt(wj)+a) - 0.5*math.Log(w)
			if row[j] < 0 {
				v = -v
			}
			u[p+j] = v
			w = wj
		}
	}
	return nil
}

// vjp, row by row (a row depends only on its own u). With z_j = tanh(u_j)
// and m = i the number of z in the row: d L_ij / d u_j = (1 - z_j^2)
// sqrt(w_j); d L_ik / d u_j = -z_j L_ik for k > j (including the diagonal
// k = m), because d log w_k / d u_j = -2 z_j; d log J / d u_j = -2 z_j -
// (m - 1 - j) z_j = -(m + 1 - j) z_j (0-based j).
func (b CholeskyCorr) vjp(u, out, dout, du []float64) {
	n := b.N
	gl := dout[n*n]
	p := 0
	for i := 1; i < n; i++ {
		row, g := out[i*n:i*n+n], dout[i*n:i*n+n]
		m := i
		s := g[m] * row[m] // sum_{k>j} g_k L_ik
		w := row[m] * row[m]
		for j := m - 1; j >= 0; j-- {
			w += row[j] * row[j] // w_j
			uj := u[p+j]
			z := math.Tanh(uj)
			du[p+j] += g[j]*math.Exp(logSech2(uj))*math.Sqrt(w) - z*s - gl*float64(m+1-j)*z
			s += g[j] * row[j]
		}
		p += m
	}
}
