package stdlib

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestForwardBatchMatchesForward: the batch loop of the normal density
// gives Forward's values element by element, to the bit, edge cases
// included, with each input batched or shared.
func TestForwardBatchMatchesForward(t *testing.T) {
	f, _ := Lookup("normal")
	op := NewSumLogDensity(f)
	vals := []float64{0, -1.5, 2.25, 1e-300, 1e300, math.Inf(1), math.Inf(-1), math.NaN(), -0.0, 7}
	sds := []float64{1, 0.3, 0, -1, 1e-300, 1e300, math.Inf(1), math.NaN(), 2.5, 1e-160}
	n := len(vals)
	for mask := 0; mask < 8; mask++ {
		in := make([][]float64, 3)
		for j := range in {
			src := vals
			if j == 2 {
				src = sds
			}
			if mask&(1<<j) != 0 {
				in[j] = src[3*j%n : 3*j%n+1] // shared
			} else {
				in[j] = append(append([]float64(nil), src[3*j%n:]...), src[:3*j%n]...)
			}
		}
		out := make([]float64, n)
		require.True(t, op.ForwardBatch(out, in))
		for b := range out {
			one := make([][]float64, 3)
			for j := range in {
				if len(in[j]) == 1 {
					one[j] = in[j]
				} else {
					one[j] = in[j][b : b+1]
				}
			}
			var want [1]float64
			op.Forward(want[:], one)
			if !(math.IsNaN(want[0]) && math.IsNaN(out[b])) {
				require.Equal(t, math.Float64bits(want[0]), math.Float64bits(out[b]), "mask %d element %d: %v", mask, b, one)
			}
		}
	}
	other, _ := Lookup("student_t")
	require.False(t, NewSumLogDensity(other).ForwardBatch(make([]float64, 2), [][]float64{{1, 2}, {3}, {0}, {1}}))
}
