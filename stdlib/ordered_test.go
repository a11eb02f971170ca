package stdlib

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOrderedLogistic: the probabilities of the K categories sum to 1 and
// match the plain formula; the derivatives in eta and the cutpoints match
// central finite differences; y out of range or cutpoints out of order at
// y give -Inf.
func TestOrderedLogistic(t *testing.T) {
	op := NewOrderedLogisticLpmf(3)
	lp := func(y, eta float64, c []float64) float64 {
		out := []float64{0}
		op.Forward(out, [][]float64{{y}, {eta}, c})
		return out[0]
	}
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	for _, tc := range []struct {
		eta float64
		c   []float64
	}{{0.3, []float64{-1, 0.5, 2}}, {-4, []float64{-0.2, 0, 3}}, {6, []float64{-2, 1, 1.5}}} {
		total := 0.0
		for y := 1; y <= 4; y++ {
			v := lp(float64(y), tc.eta, tc.c)
			total += math.Exp(v)
			var want float64
			switch y {
			case 1:
				want = 1 - sig(tc.eta-tc.c[0])
			case 4:
				want = sig(tc.eta - tc.c[2])
			default:
				want = sig(tc.eta-tc.c[y-2]) - sig(tc.eta-tc.c[y-1])
			}
			relClose(t, math.Log(want), v, 1e-10, "y=%d eta=%g", y, tc.eta)
			// gradient against finite differences
			deta, dc := []float64{0}, make([]float64, 3)
			op.Backward(nil, []float64{1}, [][]float64{{float64(y)}, {tc.eta}, tc.c}, [][]float64{nil, deta, dc})
			h := 1e-6
			relClose(t, (lp(float64(y), tc.eta+h, tc.c)-lp(float64(y), tc.eta-h, tc.c))/(2*h), deta[0], 1e-6, "d/deta y=%d", y)
			for i := range tc.c {
				cp, cm := append([]float64(nil), tc.c...), append([]float64(nil), tc.c...)
				cp[i] += h
				cm[i] -= h
				relClose(t, (lp(float64(y), tc.eta, cp)-lp(float64(y), tc.eta, cm))/(2*h), dc[i], 1e-6, "d/dc%d y=%d", i+1, y)
			}
		}
		require.InDelta(t, 1, total, 1e-12)
	}
	require.True(t, math.IsInf(lp(0, 0, []float64{-1, 0, 1}), -1))
	require.True(t, math.IsInf(lp(2.5, 0, []float64{-1, 0, 1}), -1))
	require.True(t, math.IsInf(lp(2, 0, []float64{1, 0, 2}), -1), "cutpoints out of order at y")
}
