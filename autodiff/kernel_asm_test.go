package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// asmOperands fills a matrix and a batch of vectors with values of mixed
// magnitudes (1e-300 to 1e300, so that some sums overflow or underflow), and,
// when special, a few NaNs and infinities.
func asmOperands(rng *rand.Rand, rows, cols, batch int, special bool) (m, v []float64) {
	draw := func() float64 {
		x := rng.NormFloat64()
		switch u := rng.IntN(100); {
		case u < 5:
			x *= 1e300
		case u < 10:
			x *= 1e-300
		case u < 20:
			x *= 1e8
		case u < 30:
			x *= 1e-8
		case u < 35:
			x = 0
		case special && u == 99:
			x = math.NaN()
		case special && u == 98:
			x = math.Inf(1)
		case special && u == 97:
			x = math.Inf(-1)
		}
		return x
	}
	m, v = make([]float64, rows*cols), make([]float64, batch*cols)
	for i := range m {
		m[i] = draw()
	}
	for i := range v {
		v[i] = draw()
	}
	return m, v
}

// sameBits: x and y have the same bits, or are both NaN. (Which NaN an
// operation on two NaNs returns depends on the order of its operands in the
// instruction, which Go leaves to the compiler's register allocation: the
// pure-Go matMulT itself multiplies m*v for some accumulators and v*m for
// others.)
func sameBits(x, y float64) bool {
	return math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y)
}

// TestMatMulTAVX2 checks the AVX2 kernel against the pure-Go matMulT bit for
// bit (NaNs only as NaNs), on every combination of row, column and batch
// remainders, without offsets, with a shared one and with one per batch
// element (Affine's).
func TestMatMulTAVX2(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 on this CPU: matMulT is pure Go")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, rows := range []int{1, 2, 3, 4, 5, 7, 8, 351, 1000} {
		for _, cols := range []int{1, 2, 3, 20, 35, 64} {
			for _, batch := range []int{1, 2, 3, 4, 5, 9, 10, 11, 12, 13, 16, 25} {
				for _, special := range []bool{false, true} {
					m, v := asmOperands(rng, rows, cols, batch, special)
					// the offsets: none, one shared, one per batch element
					_, c := asmOperands(rng, 0, 1, batch, special)
					for _, c := range [][]float64{nil, c[:1], c} {
						name := fmt.Sprintf("%dx%dx%d/special=%v/offsets=%d", rows, cols, batch, special, len(c))
						want := make([]float64, batch*rows)
						matMulT(want, m, v, c, rows, cols, batch)
						got := make([]float64, batch*rows+1)
						got[batch*rows] = 42 // a canary past the end
						vT := make([]float64, matMulTScratch(cols, batch))
						for i := range vT {
							vT[i] = math.NaN() // stale scratch must not matter
						}
						matMulTAVX2(got, m, v, c, vT, rows, cols, batch)
						if got[batch*rows] != 42 {
							t.Fatalf("%s: wrote past the end", name)
						}
						for k, w := range want {
							if !sameBits(got[k], w) {
								t.Fatalf("%s: y[%d] (batch %d, row %d) = %v (%#x), pure Go %v (%#x)",
									name, k, k/rows, k%rows, got[k], math.Float64bits(got[k]), w, math.Float64bits(w))
							}
						}
					}
				}
			}
		}
	}
}

// TestMatVecBatchPaths evaluates a graph's batched matrix-vector product
// with and without the AVX2 kernel: the same bits.
func TestMatVecBatchPaths(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 on this CPU: matMulT is pure Go")
	}
	defer func(u bool) { useAVX2 = u }(useAVX2)
	const rows, cols, batch = 351, 35, 10
	rng := rand.New(rand.NewPCG(13, 14))
	mv, _ := asmOperands(rng, rows, cols, 1, false)
	run := func(avx bool) []float64 {
		useAVX2 = avx
		g := New()
		x := g.Input(cols)
		y := g.MatVec(g.ConstMatrix(rows, cols, mv), x)
		g.Alloc(batch)
		r := rand.New(rand.NewPCG(15, 16))
		for b := 0; b < batch; b++ {
			for j := range g.Value(x, b) {
				g.Value(x, b)[j] = r.NormFloat64()
			}
		}
		g.Forward(batch)
		var out []float64
		for b := 0; b < batch; b++ {
			out = append(out, g.Value(y, b)...)
		}
		return out
	}
	asm, pure := run(true), run(false)
	for i := range asm {
		if math.Float64bits(asm[i]) != math.Float64bits(pure[i]) {
			t.Fatalf("y[%d]: AVX2 %v, pure Go %v", i, asm[i], pure[i])
		}
	}
}
