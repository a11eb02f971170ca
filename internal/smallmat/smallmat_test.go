package smallmat

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// TestAgainstGonum: each operation on a 3 x 3 example against gonum's
// dense algebra.
func TestAgainstGonum(t *testing.T) {
	const K = 3
	a := []float64{4, 1.2, -0.6, 1.2, 3, 0.4, -0.6, 0.4, 2.5} // symmetric positive definite
	x := []float64{0.3, -1.1, 0.7}
	var ch mat.Cholesky
	require.True(t, ch.Factorize(mat.NewSymDense(K, a)))
	var gl mat.TriDense
	ch.LTo(&gl)

	L := append([]float64(nil), a...)
	require.True(t, CholLower(L, K))
	for i := range K {
		for j := range K {
			require.InDelta(t, gl.At(i, j), L[i*K+j], 1e-12, "L[%d,%d]", i, j)
		}
	}
	require.False(t, CholLower([]float64{1, 2, 2, 1}, 2), "not positive definite")

	inv := make([]float64, K*K)
	logDet := InvLower(L, inv, K)
	require.InDelta(t, 0.5*ch.LogDet(), logDet, 1e-12)
	var li mat.Dense
	require.NoError(t, li.Inverse(&gl))
	gm := mat.NewDense(K, K, L)
	for i := range K {
		for j := range K {
			require.InDelta(t, li.At(i, j), inv[i*K+j], 1e-12, "inv[%d,%d]", i, j)
		}
	}

	got := make([]float64, K*K)
	var want mat.Dense
	LowerTL(L, got, K)
	want.Mul(gm.T(), gm)
	require.InDeltaSlice(t, want.RawMatrix().Data, got, 1e-12, "L'L")
	LowerLT(L, got, K)
	require.InDeltaSlice(t, a, got, 1e-12, "LL'")

	v := make([]float64, K)
	var wv mat.VecDense
	xv := mat.NewVecDense(K, x)
	LowerMulVec(L, x, v, K)
	wv.MulVec(gm, xv)
	require.InDeltaSlice(t, wv.RawVector().Data, v, 1e-12, "Lx")
	LowerTMulVec(L, x, v, K)
	wv.MulVec(gm.T(), xv)
	require.InDeltaSlice(t, wv.RawVector().Data, v, 1e-12, "L'x")
	SymMulVec(a, x, v, K)
	wv.MulVec(mat.NewSymDense(K, a), xv)
	require.InDeltaSlice(t, wv.RawVector().Data, v, 1e-12, "Sx")
	require.InDelta(t, 0.3*0.3+1.1*1.1+0.7*0.7, Dot(x, x), 1e-15)
	require.False(t, math.IsNaN(logDet))

	// general products, of a non-symmetric B
	b := []float64{0.5, -1.2, 2, 0.1, 0.9, -0.3, 1.4, 0.2, -0.8}
	gb := mat.NewDense(K, K, b)
	Mul(a, b, got, K)
	want.Mul(mat.NewDense(K, K, a), gb)
	require.InDeltaSlice(t, want.RawMatrix().Data, got, 1e-12, "AB")
	MulT(b, L, got, K)
	want.Mul(gb, gm.T())
	require.InDeltaSlice(t, want.RawMatrix().Data, got, 1e-12, "BL'")
	TMul(b, L, got, K)
	want.Mul(gb.T(), gm)
	require.InDeltaSlice(t, want.RawMatrix().Data, got, 1e-12, "B'L")
	MulVec(b, x, v, K)
	wv.MulVec(gb, xv)
	require.InDeltaSlice(t, wv.RawVector().Data, v, 1e-12, "Bx")
}
