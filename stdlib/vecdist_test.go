package stdlib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

func randSimplex(r *rand.Rand, k int) []float64 {
	v := randVec(r, k, 0.2, 1)
	s := 0.0
	for _, x := range v {
		s += x
	}
	for i := range v {
		v[i] /= s
	}
	return v
}

func TestDirichletLpdf(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, k := range []int{1, 2, 3, 5} {
		for _, scalar := range []bool{false, true} {
			t.Run(fmt.Sprint(k, scalar), func(t *testing.T) {
				theta := randSimplex(r, k)
				alpha := randVec(r, k, 0.5, 3)
				if scalar {
					alpha = alpha[:1]
				}
				in := [][]float64{theta, alpha}
				op := NewDirichletLpdf(k)
				out := make([]float64, 1)
				op.Forward(out, in)
				// Direct formula.
				sa, want := 0.0, 0.0
				for i := 0; i < k; i++ {
					a := bc(alpha, i)
					sa += a
					lg, _ := math.Lgamma(a)
					want += (a-1)*math.Log(theta[i]) - lg
				}
				lg, _ := math.Lgamma(sa)
				want += lg
				require.InDelta(t, want, out[0], 1e-12)
				if k == 2 {
					// dirichlet([t, 1-t] | a, b) = beta(t | a, b)
					b := distuv.Beta{Alpha: alpha[0], Beta: bc(alpha, 1)}
					require.InDelta(t, b.LogProb(theta[0]), out[0], 1e-12)
				}
				fdCheck(t, r, op, in, 1, nil, nil, 1e-6)
				noAllocs(t, op, in, 1)
			})
		}
	}
	op := NewDirichletLpdf(2)
	out := make([]float64, 1)
	op.Forward(out, [][]float64{{0, 1}, {1}})
	require.InDelta(t, 0, out[0], 1e-15) // uniform on the simplex: density 1
	op.Forward(out, [][]float64{{-0.1, 1.1}, {2}})
	require.Equal(t, math.Inf(-1), out[0])
	op.Forward(out, [][]float64{{0.5, 0.5}, {0}})
	require.True(t, math.IsNaN(out[0]))
}

func TestMultiNormalLpdf(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range matSizes {
		for _, scalarMu := range []bool{false, true} {
			t.Run(fmt.Sprint(n, scalarMu), func(t *testing.T) {
				sigma := randSPD(r, n)
				y := randVec(r, n, -2, 2)
				mu := randVec(r, n, -1, 1)
				if scalarMu {
					mu = mu[:1]
				}
				in := [][]float64{y, mu, sigma}
				op := NewMultiNormalLpdf(n)
				out := make([]float64, 1)
				op.Forward(out, in)
				require.InDelta(t, gonumMVN(t, y, mu, mat.NewSymDense(n, append([]float64(nil), sigma...)), n), out[0], 1e-10)
				fdCheck(t, r, op, in, 1, nil, map[int]int{2: n}, 1e-6)
				noAllocs(t, op, in, 1)

				// The Sigma adjoint is (w w^T - Sigma^{-1})/2.
				din := [][]float64{nil, nil, make([]float64, n*n)}
				op.Backward(out, []float64{1}, in, din)
				var inv mat.Dense
				require.NoError(t, inv.Inverse(mat.NewDense(n, n, sigma)))
				res := mat.NewVecDense(n, nil)
				for i := 0; i < n; i++ {
					res.SetVec(i, y[i]-bc(mu, i))
				}
				var w mat.VecDense
				w.MulVec(&inv, res)
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						want := 0.5 * (w.AtVec(i)*w.AtVec(j) - inv.At(i, j))
						require.InDelta(t, want, din[2][i*n+j], 1e-10)
					}
				}
			})
		}
	}
	op := NewMultiNormalLpdf(2)
	out := make([]float64, 1)
	op.Forward(out, [][]float64{{0, 0}, {0}, {1, 2, 2, 1}})
	require.Equal(t, math.Inf(-1), out[0])
}

// lkjEta1 is Stan's closed form of the LKJ constant at eta = 1.
func lkjEta1(k int) float64 {
	km1 := k - 1
	c := 0.0
	for j := 1; j <= km1/2; j++ {
		lg, _ := math.Lgamma(2 * float64(j))
		c -= lg
	}
	K, Km1 := float64(k), float64(km1)
	if k%2 == 1 {
		lg, _ := math.Lgamma(0.5 * (K + 1))
		c -= 0.25*(K*K-1)*math.Log(math.Pi) - 0.25*Km1*Km1*math.Ln2 - Km1*lg
	} else {
		lg1, _ := math.Lgamma(0.5 * K)
		lg2, _ := math.Lgamma(K)
		c -= 0.25*K*(K-2)*math.Log(math.Pi) + 0.25*(3*K*K-4*K)*math.Ln2 + K*lg1 - Km1*lg2
	}
	return c
}

func lbeta(a, b float64) float64 {
	x, _ := math.Lgamma(a)
	y, _ := math.Lgamma(b)
	z, _ := math.Lgamma(a + b)
	return x + y - z
}

func TestLKJCorrCholeskyLpdf(t *testing.T) {
	// The constant at eta = 1 agrees with Stan's closed form.
	for k := 1; k <= 8; k++ {
		c, _ := LKJConstant(1, k)
		require.InDelta(t, lkjEta1(k), c, 1e-10, "k=%d", k)
	}
	// The density integrates to 1 over the free coordinates (the strictly
	// lower triangle): for k = 2 the integral is B(1/2, eta); for k = 3 it
	// is B(1/2, eta + 1/2) pi / eta.
	for _, eta := range []float64{0.5, 1, 2.5} {
		c2, _ := LKJConstant(eta, 2)
		require.InDelta(t, -lbeta(0.5, eta), c2, 1e-12)
		c3, _ := LKJConstant(eta, 3)
		require.InDelta(t, -(lbeta(0.5, eta+0.5) + math.Log(math.Pi/eta)), c3, 1e-12)
	}

	r := rand.New(rand.NewPCG(13, 14))
	cc := CholeskyCorr{}
	for _, k := range []int{1, 2, 3, 5} {
		for _, eta := range []float64{0.7, 1, 3} {
			t.Run(fmt.Sprint(k, eta), func(t *testing.T) {
				cc.N = k
				l := make([]float64, k*k)
				cc.Constrain(randVec(r, cc.UDim(), -1, 1), l)
				in := [][]float64{l, {eta}}
				op := NewLKJCorrCholeskyLpdf(k)
				out := make([]float64, 1)
				op.Forward(out, in)
				want, _ := LKJConstant(eta, k)
				for i := 2; i <= k; i++ {
					want += (float64(k-i) + 2*eta - 2) * math.Log(l[(i-1)*k+i-1])
				}
				require.InDelta(t, want, out[0], 1e-12)
				fdCheck(t, r, op, in, 1, nil, nil, 1e-6)
				noAllocs(t, op, in, 1)
			})
		}
	}
}

func TestCategoricalLogitLpmf(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, k := range []int{1, 2, 5} {
		for y := 1; y <= k; y++ {
			t.Run(fmt.Sprint(k, y), func(t *testing.T) {
				beta := randVec(r, k, -3, 3)
				in := [][]float64{{float64(y)}, beta}
				op := NewCategoricalLogitLpmf(k)
				out := make([]float64, 1)
				op.Forward(out, in)
				s := 0.0
				for _, b := range beta {
					s += math.Exp(b)
				}
				require.InDelta(t, math.Log(math.Exp(beta[y-1])/s), out[0], 1e-12)
				fdCheck(t, r, op, in, 1, []int{1}, nil, 1e-7)
				noAllocs(t, op, in, 1)
			})
		}
	}
	op := NewCategoricalLogitLpmf(3)
	out := make([]float64, 1)
	for _, y := range []float64{0, 4, 1.5, math.NaN()} {
		op.Forward(out, [][]float64{{y}, {0, 0, 0}})
		require.Equal(t, math.Inf(-1), out[0], "y=%g", y)
	}
}
