package stdlib

import (
	"math"
	"testing"
)

// TestFastKernelsAreTheirParts: the kernels write fastSeg, fastPoly and
// fastExp out by hand (a call would spill every register); composed, the
// parts give the kernels' values, to within one ulp (the kernels scale by
// 2^k before the last add, fastExp after it: the same in the normal
// range).
func TestFastKernelsAreTheirParts(t *testing.T) {
	composed := func(tab *[2 * fastNSeg][fastDeg + 2]float64, x float64) float64 {
		bx := math.Float64bits(x)
		right := 1 - int(bx>>63)
		row := &tab[fastSeg(math.Abs(x))+fastNSeg*right]
		hm := -0.5 * float64(right)
		xh := math.Float64frombits(bx &^ (1<<27 - 1))
		return fastExp(hm*xh*xh, fastPoly(row, x)+hm*(x-xh)*(x+xh))
	}
	for x := -62.9; x < 37.5; x += 0.0137 {
		for _, c := range []struct {
			name string
			tab  *[2 * fastNSeg][fastDeg + 2]float64
		}{{"logPhi", &logPhiTab}, {"invMills", &invMillsTab}} {
			got, want := fastTwoSided(c.tab, x), composed(c.tab, x)
			if want < 1e-300 {
				continue // below the normal range the two roundings may differ
			}
			if d := math.Abs(got-want) / want; d > 2.3e-16 {
				t.Fatalf("%s at %g: kernel %g, composed %g (relative %g)", c.name, x, got, want, d)
			}
		}
	}
}
