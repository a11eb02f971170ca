package autodiff

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/stretchr/testify/require"
)

// TestMatMulT checks the blocked kernel against the definition on shapes
// that exercise every remainder (odd rows, batches not a multiple of 4),
// without an offset, with a shared one and with one per batch element.
func TestMatMulT(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	for _, sh := range [][3]int{{1, 1, 1}, {2, 3, 4}, {7, 5, 9}, {8, 35, 10}, {351, 35, 10}, {3, 20, 3}} {
		rows, cols, batch := sh[0], sh[1], sh[2]
		m, v, c := make([]float64, rows*cols), make([]float64, batch*cols), make([]float64, batch)
		for i := range m {
			m[i] = rng.NormFloat64()
		}
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		for i := range c {
			c[i] = 10 * rng.NormFloat64()
		}
		for _, c := range [][]float64{nil, c[:1], c} {
			y := make([]float64, batch*rows)
			matMulT(y, m, v, c, rows, cols, batch)
			for b := 0; b < batch; b++ {
				for i := 0; i < rows; i++ {
					s := 0.0
					switch len(c) {
					case 1:
						s = c[0]
					case batch:
						s = c[b]
					}
					for j := 0; j < cols; j++ {
						s += m[i*cols+j] * v[b*cols+j]
					}
					require.InDeltaf(t, s, y[b*rows+i], 1e-12, "shape %v, %d offsets, row %d, batch %d", sh, len(c), i, b)
				}
			}
		}
	}
}

// matMulBenchShapes: Ionosphere's design matrix and the 100000-row probit's,
// each against a batch of 10.
var matMulBenchShapes = []struct {
	name              string
	rows, cols, batch int
}{
	{"351x35x10", 351, 35, 10},
	{"100000x20x10", 100000, 20, 10},
}

func benchOperands(rows, cols, batch int) (m, v, y []float64) {
	m, v, y = make([]float64, rows*cols), make([]float64, batch*cols), make([]float64, batch*rows)
	for i := range m {
		m[i] = float64(i%7) - 3
	}
	for i := range v {
		v[i] = float64(i%5) - 2
	}
	return m, v, y
}

// BenchmarkMatMulT: the kernel matVecBatch runs (AVX2 where the CPU has it).
func BenchmarkMatMulT(b *testing.B) {
	for _, sh := range matMulBenchShapes {
		b.Run(sh.name, func(b *testing.B) {
			m, v, y := benchOperands(sh.rows, sh.cols, sh.batch)
			vT := make([]float64, matMulTScratch(sh.cols, sh.batch))
			b.ReportAllocs()
			for b.Loop() {
				mulMatT(y, m, v, nil, vT, sh.rows, sh.cols, sh.batch)
			}
		})
	}
}

// BenchmarkMatMulTGo: the pure-Go fallback.
func BenchmarkMatMulTGo(b *testing.B) {
	for _, sh := range matMulBenchShapes {
		b.Run(sh.name, func(b *testing.B) {
			m, v, y := benchOperands(sh.rows, sh.cols, sh.batch)
			b.ReportAllocs()
			for b.Loop() {
				matMulT(y, m, v, nil, sh.rows, sh.cols, sh.batch)
			}
		})
	}
}

func BenchmarkMatMulTDdot(b *testing.B) {
	for _, sh := range matMulBenchShapes {
		b.Run(sh.name, func(b *testing.B) {
			rows, cols, batch := sh.rows, sh.cols, sh.batch
			m, v, y := benchOperands(rows, cols, batch)
			impl := blas64.Implementation()
			for b.Loop() {
				for bb := 0; bb < batch; bb++ {
					vb := v[bb*cols : (bb+1)*cols]
					yb := y[bb*rows : (bb+1)*rows]
					for i := range yb {
						yb[i] = impl.Ddot(cols, m[i*cols:(i+1)*cols], 1, vb, 1)
					}
				}
			}
		})
	}
}
