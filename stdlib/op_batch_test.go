package stdlib

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestForwardBatchMatchesForward: the batch loops of the normal and
// student_t densities give Forward's values element by element, to the
// bit, edge cases included, with each input batched or shared.
func TestForwardBatchMatchesForward(t *testing.T) {
	vals := []float64{0, -1.5, 2.25, 1e-300, 1e300, math.Inf(1), math.Inf(-1), math.NaN(), math.Copysign(0, -1), 7, 0.5, -3}
	pos := []float64{1, 0.3, 0, -1, 1e-300, 1e300, math.Inf(1), math.NaN(), 2.5, 1e-160, 4, 30}
	n := len(vals)
	for _, c := range []struct {
		name  string
		kinds []bool // true: a positive parameter
	}{{"normal", []bool{false, false, true}}, {"student_t", []bool{false, true, false, true}}} {
		f, _ := Lookup(c.name)
		op := NewSumLogDensity(f)
		k := len(c.kinds)
		for mask := 0; mask < 1<<k; mask++ {
			in := make([][]float64, k)
			for j, positive := range c.kinds {
				src := vals
				if positive {
					src = pos
				}
				r := 5 * j % n
				if mask&(1<<j) != 0 {
					in[j] = src[r : r+1] // shared
				} else {
					in[j] = append(append([]float64(nil), src[r:]...), src[:r]...)
				}
			}
			out := make([]float64, n)
			require.True(t, op.ForwardBatch(out, in))
			for b := range out {
				one := make([][]float64, k)
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
					require.Equal(t, math.Float64bits(want[0]), math.Float64bits(out[b]), "%s mask %d element %d: %v", c.name, mask, b, one)
				}
			}
		}
	}
	other, _ := Lookup("cauchy")
	require.False(t, NewSumLogDensity(other).ForwardBatch(make([]float64, 2), [][]float64{{1, 2}, {3}, {1}}))
}
