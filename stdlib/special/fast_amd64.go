//go:build !purego && !amd64.v3

package special

import (
	"math/bits"

	"golang.org/x/sys/cpu"
)

// AVX2 versions of the slice kernels (fast_amd64.s), for LogPhiSlice and
// Log1pExpSlice.
//
// Each kernel does the whole computation of the Go kernels (fast.go) on
// 4 elements per ymm register: the range test, the segment lookup, the
// Estrin polynomial, the exact split of -x^2/2 and fastExp, in four
// short passes over the block (segment; polynomial; reduced argument of
// exp; table lookup and result), through buffers in the kernel's frame.
// The 11 coefficients of the 4 rows are read with 128-bit loads and
// transposed with VINSERTF128 and VUNPCK[LH]PD, the entries of
// fastExp2Tab with scalar loads, all addressed from general registers.
// The kernels perform the same IEEE operations in the same order as the
// Go code, with separate multiplies and adds (no FMA, as the Go compiler
// does for GOAMD64 < v3), so the results are the same to the bit as the
// pure-Go path; fast_asm_test.go checks this on millions of arguments,
// the segment boundaries, special values, all tail lengths and dst = x.
//
// The Go side below feeds the kernels blocks of at most 64 elements (a
// multiple of 4; the last len % 4 elements go to the Go loops). A kernel
// writes x[i] unchanged for an element outside the fast range (or NaN)
// and returns the mask of those elements, whose value then comes from
// the slow path, as in the Go loops; dst may therefore be x.
//
// The Go compiler fuses a*b + c into FMA for GOAMD64=v3 and later, so
// that the Go kernels round differently: those builds (build tag
// amd64.v3) and the purego tag use the Go loops (fast_other.go).
//
// useAVX2 is off when the CPU lacks AVX2; tests switch it off to compare
// both paths.
var useAVX2 = cpu.X86.HasAVX2

//go:noescape
func twoSidedAVX2(dst, x []float64, tab *[2 * fastNSeg][fastDeg + 2]float64, sign float64) uint64

//go:noescape
func log1pExpAVX2(dst, x []float64) uint64

// fastSlowMask replaces dst[i] by slow(dst[i]) for the bits i of out.
func fastSlowMask(dst []float64, out uint64, slow func(float64) float64) {
	for out != 0 {
		i := bits.TrailingZeros64(out)
		dst[i] = slow(dst[i])
		out &= out - 1
	}
}

// fastTwoSidedArch does fastTwoSidedSlice on the first len(x) &^ 3
// elements with AVX2 and returns their number (0 without AVX2).
func fastTwoSidedArch(dst, x []float64, tab *[2 * fastNSeg][fastDeg + 2]float64, sign float64, slow func(float64) float64) int {
	return fastBlocksAVX2(dst, x, func(d, xb []float64) uint64 { return twoSidedAVX2(d, xb, tab, sign) }, slow)
}

// fastBlocksAVX2 runs kernel on the blocks of the first len(x) &^ 3
// elements, takes the elements it reports from slow, and returns their
// number (0 without AVX2).
func fastBlocksAVX2(dst, x []float64, kernel func(d, x []float64) uint64, slow func(float64) float64) int {
	if !useAVX2 {
		return 0
	}
	n := len(x) &^ 3
	dst = dst[:n]
	for i := 0; i < n; i += fastBlock {
		j := min(i+fastBlock, n)
		d := dst[i:j]
		if out := kernel(d, x[i:j]); out != 0 {
			fastSlowMask(d, out, slow)
		}
	}
	return n
}

// fastLog1pExpArch is fastTwoSidedArch for Log1pExpSlice.
func fastLog1pExpArch(dst, x []float64) int {
	return fastBlocksAVX2(dst, x, log1pExpAVX2, log1pExpSlow)
}
