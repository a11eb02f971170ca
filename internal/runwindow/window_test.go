package runwindow

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWindowAverages: after any number of iterations, the window's
// average of a statistic equal to the iteration number is exactly the
// mean of the iterations it says it covers, and it starts within 1/64 of
// the run of the requested start.
func TestWindowAverages(t *testing.T) {
	for _, n := range []int{1, 7, 128, 129, 1000, 12345} {
		w := NewWindow(1, 0, 1)
		for it := 1; it <= n; it++ {
			w.Add(it, it%3 == 0, []float64{float64(it)}, nil, []float64{float64(it)})
		}
		from := n - n/2 + 1
		stats, zm, zs := make([]float64, 1), make([]float64, 1), make([]float64, 1)
		first, cnt := w.Mean(from, stats, nil, zm, zs)
		require.Equal(t, n-first+1, cnt, "n=%d", n)
		require.InDelta(t, float64(first+n)/2, stats[0], 1e-9, "n=%d", n)
		require.InDelta(t, float64(first+n)/2, zm[0], 1e-9)
		// the sd of first..n is that of a uniform on cnt integers
		require.InDelta(t, math.Sqrt(float64(cnt*cnt-1)/12), zs[0], 1e-6*float64(n))
		require.LessOrEqual(t, math.Abs(float64(first-from)), float64(n)/64+1, "n=%d", n)
		require.LessOrEqual(t, len(w.blocks), maxBlocks)
	}
}
