package adam

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStep: the first step moves each coordinate by lr in the gradient's
// sign (mhat / sqrt(vhat) = g / |g|), whatever its scale, even at a
// gradient whose square would overflow; a NaN component stays put; ascent
// on -(x - 3)^2 converges to 3.
func TestStep(t *testing.T) {
	a := New(4)
	x := []float64{0, 0, 0, 5}
	require.True(t, a.Step(x, []float64{2, -1e-3, 1e200, math.NaN()}, 0.1))
	require.InDeltaSlice(t, []float64{0.1, -0.1, 0.1, 5}, x, 1e-6)
	require.False(t, New(1).Step([]float64{1}, []float64{0}, 0.1), "a zero gradient does not move x")

	y := []float64{0}
	b := New(1)
	for range 5000 {
		b.Step(y, []float64{-2 * (y[0] - 3)}, 0.05)
	}
	require.InDelta(t, 3, y[0], 1e-3)
}
