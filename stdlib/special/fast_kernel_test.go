package special

import (
	"math"
	"testing"
)

// The parts of the kernels of fast.go, which write them out.

// fastExp is exp(a + b) for -708 < a + b < 709, a + b not NaN: with
// k = round((a + b) 256/ln2) and r = a + b - k ln2/256 (|r| <= 0.00136),
// exp(a + b) = 2^(k/256) exp(r), 2^(k/256) from fastExp2Tab and 2^(k>>8)
// and exp(r) - 1 to degree 4 (the next term is below 3.8e-17). a is
// subtracted from k ln2/256 before b is added, so that a large a (-x^2/2,
// exact) costs no accuracy. The kernels of fast.go write it out.
func fastExp(a, b float64) float64 {
	kf := (a+b)*fastExpInvL + fastExpShift
	k := int32(uint32(math.Float64bits(kf)))
	kd := kf - fastExpShift
	r := ((a - kd*fastExpL1) + b) - kd*fastExpL2
	r2 := r * r
	p := r + r2*((0.5+r*(1.0/6))+r2*(1.0/24))
	t := fastExp2Tab[k&255]
	return (t + t*p) * math.Float64frombits(uint64(int64(k>>8)+1023)<<52)
}

// fastSeg is the segment of u = |x| (0 <= u < 63) in a table's side.
func fastSeg(u float64) int {
	return int(math.Float64bits(u+1)>>fastSegShift) - fastSegBias
}

// fastPoly is the polynomial of row at x (Estrin's scheme).
func fastPoly(row *[fastDeg + 2]float64, x float64) float64 {
	d := x - row[0]
	d2 := d * d
	d4 := d2 * d2
	q0 := (row[1] + row[2]*d) + (row[3]+row[4]*d)*d2
	q1 := (row[5] + row[6]*d) + (row[7]+row[8]*d)*d2
	return (q0 + q1*d4) + (row[9]+row[10]*d)*(d4*d4)
}

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
