//go:build !amd64

package autodiff

// Without amd64 there is no assembly kernel: matMulT is pure Go.
var (
	haveAVX2 = false
	useAVX2  = false
)

func matMulTAVX2(y, m, v, c, vT []float64, rows, cols, batch int) {
	matMulT(y, m, v, c, rows, cols, batch)
}
