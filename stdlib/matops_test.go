package stdlib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// randSPD returns a well-conditioned symmetric positive definite n x n
// matrix B B^T / n + I (row-major).
func randSPD(r *rand.Rand, n int) []float64 {
	b := make([]float64, n*n)
	for i := range b {
		b[i] = r.NormFloat64()
	}
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += b[i*n+k] * b[j*n+k]
			}
			a[i*n+j] = s / float64(n)
		}
		a[i*n+i] += 1
	}
	return a
}

// randLower returns a lower triangular n x n matrix with diagonal in
// [1, 2] and off-diagonal entries in [-0.5, 0.5], zeros above.
func randLower(r *rand.Rand, n int) []float64 {
	l := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			l[i*n+j] = r.Float64() - 0.5
		}
		l[i*n+i] = 1 + r.Float64()
	}
	return l
}

func randVec(r *rand.Rand, n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*r.Float64()
	}
	return v
}

func cloneIns(in [][]float64) [][]float64 {
	c := make([][]float64, len(in))
	for i, v := range in {
		c[i] = append([]float64(nil), v...)
	}
	return c
}

// fdCheck compares Backward with central finite differences of the random
// linear functional f(in) = sum_k c_k out_k(in), for every input in wrt
// (nil: all). An input index listed in sym (with its matrix size) is
// perturbed symmetrically, A + h (E_ij + E_ji)/2, and compared with the
// symmetric part of its adjoint, (din_ij + din_ji)/2; the adjoint is also
// required to be symmetric.
func fdCheck(t *testing.T, r *rand.Rand, op VecOp, in [][]float64, nout int, wrt []int, sym map[int]int, tol float64) {
	t.Helper()
	c := randVec(r, nout, -1, 1)
	out := make([]float64, nout)
	f := func(x [][]float64) float64 {
		op.Forward(out, x)
		s := 0.0
		for k, v := range out {
			s += c[k] * v
		}
		return s
	}
	if wrt == nil {
		for j := range in {
			wrt = append(wrt, j)
		}
	}
	din := make([][]float64, len(in))
	for _, j := range wrt {
		din[j] = make([]float64, len(in[j]))
	}
	op.Forward(out, in)
	require.False(t, math.IsNaN(out[0]) || math.IsInf(out[0], 0), "forward %v", out)
	op.Backward(out, c, in, din)
	x := cloneIns(in)
	for _, j := range wrt {
		if n, ok := sym[j]; ok {
			for p := 0; p < n; p++ {
				for q := 0; q <= p; q++ {
					require.InDelta(t, din[j][p*n+q], din[j][q*n+p], 1e-10*(1+math.Abs(din[j][p*n+q])), "adjoint of input %d not symmetric at (%d,%d)", j, p, q)
					h := 1e-5 * (1 + math.Abs(x[j][p*n+q]))
					set := func(d float64) {
						if p == q {
							x[j][p*n+p] = in[j][p*n+p] + d
						} else {
							x[j][p*n+q] = in[j][p*n+q] + d/2
							x[j][q*n+p] = in[j][q*n+p] + d/2
						}
					}
					set(h)
					fp := f(x)
					set(-h)
					fm := f(x)
					set(0)
					fd := (fp - fm) / (2 * h)
					an := din[j][p*n+q]
					if p != q {
						an = 0.5 * (din[j][p*n+q] + din[j][q*n+p])
					}
					require.InDelta(t, fd, an, tol*(1+math.Abs(fd)), "input %d (%d,%d): fd %g, backward %g", j, p, q, fd, an)
				}
			}
			continue
		}
		for i := range x[j] {
			h := 1e-5 * (1 + math.Abs(x[j][i]))
			x[j][i] = in[j][i] + h
			fp := f(x)
			x[j][i] = in[j][i] - h
			fm := f(x)
			x[j][i] = in[j][i]
			fd := (fp - fm) / (2 * h)
			require.InDelta(t, fd, din[j][i], tol*(1+math.Abs(fd)), "input %d element %d: fd %g, backward %g", j, i, fd, din[j][i])
		}
	}
	// Backward accumulates: a second call doubles the adjoints.
	d1 := cloneIns(din)
	op.Forward(out, in)
	op.Backward(out, c, in, din)
	for _, j := range wrt {
		for i := range din[j] {
			require.InDelta(t, 2*d1[j][i], din[j][i], 1e-12*(1+math.Abs(d1[j][i])), "Backward does not accumulate")
		}
	}
}

// noAllocs requires Forward and Backward (with all adjoints wanted) to
// allocate nothing.
func noAllocs(t *testing.T, op VecOp, in [][]float64, nout int) {
	t.Helper()
	out := make([]float64, nout)
	dout := make([]float64, nout)
	for i := range dout {
		dout[i] = 1
	}
	din := make([][]float64, len(in))
	for j := range in {
		din[j] = make([]float64, len(in[j]))
	}
	a := testing.AllocsPerRun(20, func() {
		op.Forward(out, in)
		op.Backward(out, dout, in, din)
	})
	require.Zero(t, a, "%s allocates", op.Name())
}

var matSizes = []int{1, 2, 5}

func TestGPExpQuadCov(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range matSizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			x := randVec(r, n, -2, 2)
			alpha, rho := 0.5+r.Float64(), 0.5+r.Float64()
			in := [][]float64{x, {alpha}, {rho}}
			op := NewGPExpQuadCov(n)
			out := make([]float64, n*n)
			op.Forward(out, in)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					d := x[i] - x[j]
					want := alpha * alpha * math.Exp(-d*d/(2*rho*rho))
					require.InDelta(t, want, out[i*n+j], 1e-14)
				}
			}
			fdCheck(t, r, op, in, n*n, nil, nil, 1e-7)
			noAllocs(t, op, in, n*n)
		})
	}
}

func TestDiagRep(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range matSizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			v := randVec(r, n, -1, 1)
			op := NewDiagMatrix(n)
			out := make([]float64, n*n)
			for i := range out {
				out[i] = 7 // Forward must clear the off-diagonal
			}
			op.Forward(out, [][]float64{v})
			require.Equal(t, mat.NewDiagDense(n, v), diagOf(out, n))
			fdCheck(t, r, op, [][]float64{v}, n*n, nil, nil, 1e-8)
			noAllocs(t, op, [][]float64{v}, n*n)

			rop := NewRepVector(n)
			rout := make([]float64, n)
			rop.Forward(rout, [][]float64{{2.5}})
			for _, y := range rout {
				require.Equal(t, 2.5, y)
			}
			fdCheck(t, r, rop, [][]float64{{2.5}}, n, nil, nil, 1e-8)
			noAllocs(t, rop, [][]float64{{2.5}}, n)
		})
	}
}

// diagOf checks that m is diagonal and returns it as a DiagDense.
func diagOf(m []float64, n int) *mat.DiagDense {
	d := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j && m[i*n+j] != 0 {
				return nil
			}
		}
		d[i] = m[i*n+i]
	}
	return mat.NewDiagDense(n, d)
}

func TestCholesky(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range matSizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			a := randSPD(r, n)
			op := NewCholesky(n)
			out := make([]float64, n*n)
			for i := range out {
				out[i] = 9 // Forward must clear the upper triangle
			}
			op.Forward(out, [][]float64{a})
			var ch mat.Cholesky
			require.True(t, ch.Factorize(mat.NewSymDense(n, a)))
			var lt mat.TriDense
			ch.LTo(&lt)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					require.InDelta(t, lt.At(i, j), out[i*n+j], 1e-12, "L[%d,%d]", i, j)
				}
			}
			fdCheck(t, r, op, [][]float64{a}, n*n, nil, map[int]int{0: n}, 1e-6)
			noAllocs(t, op, [][]float64{a}, n*n)
		})
	}
	// Not positive definite: NaN, and Backward leaves the adjoint alone.
	a := []float64{1, 2, 2, 1}
	out := make([]float64, 4)
	op := NewCholesky(2)
	op.Forward(out, [][]float64{a})
	for _, v := range out {
		require.True(t, math.IsNaN(v))
	}
	da := make([]float64, 4)
	op.Backward(out, []float64{1, 1, 1, 1}, [][]float64{a}, [][]float64{da})
	require.Equal(t, make([]float64, 4), da)
	require.False(t, CholeskyLower([]float64{-1}, 1, out[:1]))
}

func TestMultiNormalCholeskyLpdf(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range matSizes {
		for _, scalarMu := range []bool{false, true} {
			t.Run(fmt.Sprint(n, scalarMu), func(t *testing.T) {
				l := randLower(r, n)
				y := randVec(r, n, -2, 2)
				mu := randVec(r, n, -1, 1)
				if scalarMu {
					mu = mu[:1]
				}
				in := [][]float64{y, mu, l}
				op := NewMultiNormalCholeskyLpdf(n)
				out := make([]float64, 1)
				op.Forward(out, in)
				require.InDelta(t, gonumNormalLogProb(t, y, mu, l, n), out[0], 1e-10)
				fdCheck(t, r, op, in, 1, nil, nil, 1e-6)
				noAllocs(t, op, in, 1)
			})
		}
	}
	op := NewMultiNormalCholeskyLpdf(2)
	out := make([]float64, 1)
	op.Forward(out, [][]float64{{0, 0}, {0}, {1, 0, 0.5, 0}})
	require.Equal(t, math.Inf(-1), out[0])
	op.Forward(out, [][]float64{{0, 0}, {0}, {-1, 0, 0.5, 1}})
	require.Equal(t, math.Inf(-1), out[0])
}

// gonumNormalLogProb is the multivariate normal log density at y with
// mean mu (broadcast) and covariance Sigma = L L^T, computed with gonum's
// mat.Cholesky of the mat.SymDense Sigma (log det and a solve). gonum's
// stat/distmv would pull in golang.org/x/tools, which is not in go.sum.
func gonumNormalLogProb(t *testing.T, y, mu, l []float64, n int) float64 {
	t.Helper()
	lm := mat.NewDense(n, n, append([]float64(nil), l...))
	var s mat.Dense
	s.Mul(lm, lm.T())
	sym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			sym.SetSym(i, j, 0.5*(s.At(i, j)+s.At(j, i)))
		}
	}
	return gonumMVN(t, y, mu, sym, n)
}

func gonumMVN(t *testing.T, y, mu []float64, sigma *mat.SymDense, n int) float64 {
	t.Helper()
	var ch mat.Cholesky
	require.True(t, ch.Factorize(sigma))
	r := mat.NewVecDense(n, nil)
	for i := 0; i < n; i++ {
		r.SetVec(i, y[i]-bc(mu, i))
	}
	var x mat.VecDense
	require.NoError(t, ch.SolveVecTo(&x, r))
	return -0.5*float64(n)*math.Log(2*math.Pi) - 0.5*ch.LogDet() - 0.5*mat.Dot(r, &x)
}

// TestGPChain runs the model of posteriordb's gp_pois_regr-gp_regr by hand
// (K = gp_exp_quad_cov(x, alpha, rho) + diag_matrix(rep_vector(sigma, N)),
// L = cholesky_decompose(K), multi_normal_cholesky_lpdf(y | 0, L)) through
// the ops' Forward and Backward, and compares the gradient in (alpha, rho,
// sigma) with central finite differences of the whole chain.
func TestGPChain(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, n := range []int{1, 2, 5, 11} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			x := randVec(r, n, -3, 3)
			y := randVec(r, n, -2, 2)
			gp, rep, diag := NewGPExpQuadCov(n), NewRepVector(n), NewDiagMatrix(n)
			chol, lpdf := NewCholesky(n), NewMultiNormalCholeskyLpdf(n)
			k, s, d, l := make([]float64, n*n), make([]float64, n), make([]float64, n*n), make([]float64, n*n)
			lp := make([]float64, 1)
			f := func(p []float64) float64 {
				gp.Forward(k, [][]float64{x, p[0:1], p[1:2]})
				rep.Forward(s, [][]float64{p[2:3]})
				diag.Forward(d, [][]float64{s})
				for i := range k {
					k[i] += d[i]
				}
				chol.Forward(l, [][]float64{k})
				lpdf.Forward(lp, [][]float64{y, {0}, l})
				return lp[0]
			}
			p := []float64{1.3, 0.8, 0.4} // alpha, rho, sigma
			f(p)
			dl, dk, ds, dd := make([]float64, n*n), make([]float64, n*n), make([]float64, n), make([]float64, n*n)
			dp := make([]float64, 3)
			lpdf.Backward(lp, []float64{1}, [][]float64{y, {0}, l}, [][]float64{nil, nil, dl})
			chol.Backward(l, dl, [][]float64{k}, [][]float64{dk})
			copy(dd, dk)
			diag.Backward(d, dd, [][]float64{s}, [][]float64{ds})
			rep.Backward(s, ds, [][]float64{p[2:3]}, [][]float64{dp[2:3]})
			gp.Backward(k, dk, [][]float64{x, p[0:1], p[1:2]}, [][]float64{nil, dp[0:1], dp[1:2]})
			for j := range p {
				h := 1e-6
				q := append([]float64(nil), p...)
				q[j] = p[j] + h
				fp := f(q)
				q[j] = p[j] - h
				fm := f(q)
				fd := (fp - fm) / (2 * h)
				require.InDelta(t, fd, dp[j], 1e-6*(1+math.Abs(fd)), "parameter %d", j)
			}
		})
	}
}

// TestCholeskyLowerSameBits: the four-entry blocks of CholeskyLower give the
// bits of the plain Cholesky-Banachiewicz loop (each entry's sum in the
// order k = 0, 1, ...), at sizes on both sides of the blocks.
func TestCholeskyLowerSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 3, 4, 5, 8, 9, 13, 35} {
		a := randSPD(r, n)
		want := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				s := 0.5 * (a[i*n+j] + a[j*n+i])
				for k := 0; k < j; k++ {
					s -= want[i*n+k] * want[j*n+k]
				}
				if i == j {
					want[i*n+i] = math.Sqrt(s)
				} else {
					want[i*n+j] = s / want[j*n+j]
				}
			}
		}
		got := make([]float64, n*n)
		for i := range got {
			got[i] = 7 // the upper triangle must be cleared
		}
		require.True(t, CholeskyLower(a, n, got))
		require.Equal(t, want, got, "n=%d", n)
	}
}
