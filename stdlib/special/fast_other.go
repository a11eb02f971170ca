//go:build !amd64 || purego || amd64.v3

package special

// Without the AVX2 kernels of fast_amd64.s (other architectures, the
// purego tag, and GOAMD64=v3 or later, where the Go kernels use FMA and
// round differently), the slice versions of the fast functions run the
// Go loops of fast.go on the whole slice.

// useAVX2 is a variable, as on amd64, for the tests.
var useAVX2 = false

func fastTwoSidedArch(dst, x []float64, tab *[2 * fastNSeg][fastDeg + 2]float64, sign float64, slow func(float64) float64) int {
	return 0
}

func fastLog1pExpArch(dst, x []float64) int { return 0 }
