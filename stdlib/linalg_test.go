package stdlib

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// TestMatMulTranspose: the product and the transpose against gonum, and
// their adjoints against central finite differences of a random linear
// functional of the output.
func TestMatMulTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	rnd := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	for _, sz := range [][3]int{{1, 1, 1}, {2, 3, 4}, {3, 1, 2}} {
		r, k, c := sz[0], sz[1], sz[2]
		a, b := rnd(r*k), rnd(k*c)
		out := make([]float64, r*c)
		NewMatMul(r, k, c).Forward(out, [][]float64{a, b})
		var want mat.Dense
		want.Mul(mat.NewDense(r, k, a), mat.NewDense(k, c, b))
		require.InDeltaSlice(t, want.RawMatrix().Data, out, 1e-12)
		tr := make([]float64, r*k)
		NewTranspose(r, k).Forward(tr, [][]float64{a})
		require.Equal(t, mat.DenseCopyOf(mat.NewDense(r, k, a).T()).RawMatrix().Data, tr)

		for _, op := range []struct {
			o  VecOp
			in [][]float64
			n  int
		}{{NewMatMul(r, k, c), [][]float64{a, b}, r * c}, {NewTranspose(r, k), [][]float64{a}, r * k}} {
			w := rnd(op.n)
			f := func() float64 {
				o := make([]float64, op.n)
				op.o.Forward(o, op.in)
				s := 0.0
				for i := range o {
					s += w[i] * o[i]
				}
				return s
			}
			din := make([][]float64, len(op.in))
			for j := range din {
				din[j] = make([]float64, len(op.in[j]))
			}
			o := make([]float64, op.n)
			op.o.Forward(o, op.in)
			op.o.Backward(o, w, op.in, din)
			for j := range op.in {
				for i := range op.in[j] {
					x := op.in[j][i]
					op.in[j][i] = x + 1e-6
					up := f()
					op.in[j][i] = x - 1e-6
					dn := f()
					op.in[j][i] = x
					require.InDelta(t, (up-dn)/2e-6, din[j][i], 1e-6)
				}
			}
		}
	}
}
