package stdlib

import "math"

//go:generate python3 internal/fastgen/gen.py fast_tables.go testdata/fast_ref.txt

// Fast special functions (issue 12): LogPhi, Phi, InvMills,
// LogPhiAndMills and Log1pExp, and their slice versions
//
//	LogPhiSlice(dst, x)          dst[i] = LogPhi(x[i])
//	PhiSlice(dst, x)             dst[i] = Phi(x[i])
//	InvMillsSlice(dst, x)        dst[i] = InvMills(x[i])
//	LogPhiAndMillsSlice(l, m, x) l[i], m[i] = LogPhiAndMills(x[i])
//	Log1pExpSlice(dst, x)        dst[i] = Log1pExp(x[i])
//
// (dst may be x itself; each panics if a destination is shorter than x;
// none allocates), are evaluated without a call to math.Exp or math.Log
// and without a data-dependent branch for |x| < 37.5 (63 for Log1pExp
// and the left side of LogPhi and InvMills): the value is exp(A + P)
// with
//
//   - A exact: -x^2/2 (x split in two halves so that x^2 = xh^2 + rest
//     with xh^2 exact), -|x| or 0, and
//   - P a polynomial of degree fastDeg (9) in x - c on one of 96 segments
//     per side of 0 (1/16 wide near 0, 2 wide near 60), looked up by the
//     bits of |x| + 1, with coefficients from fast_tables.go (generated
//     by internal/fastgen/gen.py with mpmath, see there),
//
// and exp is fastExp: a 256-entry table of 2^(j/256) and a degree-4
// polynomial, with the argument reduction done on A and P separately so
// that an A of -700 costs no accuracy. The rare arguments outside those
// ranges, NaN and ±Inf take the slower paths of the reference formulas.
//
// Accuracy (testdata/fast_ref.txt, 80-digit mpmath values): a few ulps,
// below 1e-15 relative, over the whole real line; see fast_test.go.

const (
	// fastExpL1 + fastExpL2 is ln2/256; fastExpL1 has 32 significant bits
	// so k*fastExpL1 is exact for |k| < 2^21.
	fastExpL1    = 0x1.62e42fee00000p-1 / 256
	fastExpL2    = 1.9082149292705877e-10 / 256
	fastExpInvL  = 256 / math.Ln2
	fastExpShift = 0x1.8p52
)

// fastExp is exp(a + b) for -708 < a + b < 709, a + b not NaN: with
// k = round((a + b) 256/ln2) and r = a + b - k ln2/256 (|r| <= 0.00136),
// exp(a + b) = 2^(k/256) exp(r), 2^(k/256) from fastExp2Tab and 2^(k>>8)
// and exp(r) - 1 to degree 4 (the next term is below 3.8e-17). a is
// subtracted from k ln2/256 before b is added, so that a large a (-x^2/2,
// exact) costs no accuracy. The kernels below write it out (the compiler
// does not inline it, and a call spills every register).
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

// fastPoly is the polynomial of row at x (Estrin's scheme); the kernels
// below write it out.
func fastPoly(row *[fastDeg + 2]float64, x float64) float64 {
	d := x - row[0]
	d2 := d * d
	d4 := d2 * d2
	q0 := (row[1] + row[2]*d) + (row[3]+row[4]*d)*d2
	q1 := (row[5] + row[6]*d) + (row[7]+row[8]*d)*d2
	return (q0 + q1*d4) + (row[9]+row[10]*d)*(d4*d4)
}

// fastTwoSided is exp(-m x^2/2 + P(x)) for -63 < x < 37.5 from a
// two-sided table, m = 1 for x >= 0 and 0 for x < 0: x = xh + xl with xh
// of 26 significant bits, so that -m xh^2/2 is exact and goes to the exp
// apart from P - m xl (x + xh)/2. It is fastSeg, fastPoly and fastExp
// written out.
func fastTwoSided(tab *[2 * fastNSeg][fastDeg + 2]float64, x float64) float64 {
	bx := math.Float64bits(x)
	right := 1 - int(bx>>63)
	u1 := math.Float64frombits(bx&^(1<<63)) + 1
	row := &tab[int(math.Float64bits(u1)>>fastSegShift)-fastSegBias+fastNSeg*right]
	// P
	d := x - row[0]
	d2 := d * d
	d4 := d2 * d2
	q0 := (row[1] + row[2]*d) + (row[3]+row[4]*d)*d2
	q1 := (row[5] + row[6]*d) + (row[7]+row[8]*d)*d2
	P := (q0 + q1*d4) + (row[9]+row[10]*d)*(d4*d4)
	// a = -m xh^2/2 exact, b = P - m xl (x + xh)/2
	hm := -0.5 * float64(right)
	xh := math.Float64frombits(bx &^ (1<<27 - 1))
	a := hm * xh * xh
	b := P + hm*(x-xh)*(x+xh)
	// exp(a + b)
	kf := (a+b)*fastExpInvL + fastExpShift
	k := int32(uint32(math.Float64bits(kf)))
	kd := kf - fastExpShift
	r := ((a - kd*fastExpL1) + b) - kd*fastExpL2
	r2 := r * r
	p := r + r2*((0.5+r*(1.0/6))+r2*(1.0/24))
	t := fastExp2Tab[k&255]
	return (t + t*p) * math.Float64frombits(uint64(int64(k>>8)+1023)<<52)
}

// fastLogPhi is LogPhi for -63 < x < 37.5.
func fastLogPhi(x float64) float64 { return -fastTwoSided(&logPhiTab, x) }

// fastInvMills is InvMills for -63 < x < 37.5.
func fastInvMills(x float64) float64 { return fastTwoSided(&invMillsTab, x) }

// fastLogPhiAndMills is LogPhiAndMills for -63 < x < 37.5: fastTwoSided
// on both tables with one lookup.
func fastLogPhiAndMills(x float64) (float64, float64) {
	bx := math.Float64bits(x)
	right := 1 - int(bx>>63)
	u1 := math.Float64frombits(bx&^(1<<63)) + 1
	i := int(math.Float64bits(u1)>>fastSegShift) - fastSegBias + fastNSeg*right
	hm := -0.5 * float64(right)
	xh := math.Float64frombits(bx &^ (1<<27 - 1))
	a := hm * xh * xh
	c := hm * (x - xh) * (x + xh)
	// log Phi
	row := &logPhiTab[i]
	d := x - row[0]
	d2 := d * d
	d4 := d2 * d2
	q0 := (row[1] + row[2]*d) + (row[3]+row[4]*d)*d2
	q1 := (row[5] + row[6]*d) + (row[7]+row[8]*d)*d2
	b := (q0 + q1*d4) + (row[9]+row[10]*d)*(d4*d4) + c
	kf := (a+b)*fastExpInvL + fastExpShift
	k := int32(uint32(math.Float64bits(kf)))
	kd := kf - fastExpShift
	r := ((a - kd*fastExpL1) + b) - kd*fastExpL2
	r2 := r * r
	p := r + r2*((0.5+r*(1.0/6))+r2*(1.0/24))
	t := fastExp2Tab[k&255]
	l := -(t + t*p) * math.Float64frombits(uint64(int64(k>>8)+1023)<<52)
	// mills, the same on the other table
	row = &invMillsTab[i]
	d = x - row[0]
	q0 = (row[1] + row[2]*d) + (row[3]+row[4]*d)*d2
	q1 = (row[5] + row[6]*d) + (row[7]+row[8]*d)*d2
	b = (q0 + q1*d4) + (row[9]+row[10]*d)*(d4*d4) + c
	kf = (a+b)*fastExpInvL + fastExpShift
	k = int32(uint32(math.Float64bits(kf)))
	kd = kf - fastExpShift
	r = ((a - kd*fastExpL1) + b) - kd*fastExpL2
	r2 = r * r
	p = r + r2*((0.5+r*(1.0/6))+r2*(1.0/24))
	t = fastExp2Tab[k&255]
	return l, (t + t*p) * math.Float64frombits(uint64(int64(k>>8)+1023)<<52)
}

// fastPhi is Phi for |x| < 37.5: Phi(-|x|) = exp(-x^2/2 + P(|x|)), and
// Phi(x) is that or 1 less it.
func fastPhi(x float64) float64 {
	bx := math.Float64bits(x)
	u := math.Float64frombits(bx &^ (1 << 63))
	row := &phiTab[int(math.Float64bits(u+1)>>fastSegShift)-fastSegBias]
	d := u - row[0]
	d2 := d * d
	d4 := d2 * d2
	q0 := (row[1] + row[2]*d) + (row[3]+row[4]*d)*d2
	q1 := (row[5] + row[6]*d) + (row[7]+row[8]*d)*d2
	P := (q0 + q1*d4) + (row[9]+row[10]*d)*(d4*d4)
	uh := math.Float64frombits(math.Float64bits(u) &^ (1<<27 - 1))
	a := -0.5 * uh * uh
	b := P - 0.5*(u-uh)*(u+uh)
	kf := (a+b)*fastExpInvL + fastExpShift
	k := int32(uint32(math.Float64bits(kf)))
	kd := kf - fastExpShift
	r := ((a - kd*fastExpL1) + b) - kd*fastExpL2
	r2 := r * r
	p := r + r2*((0.5+r*(1.0/6))+r2*(1.0/24))
	t := fastExp2Tab[k&255]
	e := (t + t*p) * math.Float64frombits(uint64(int64(k>>8)+1023)<<52) // Phi(-|x|)
	s := float64(1 - int(bx>>63))                                       // 1 for x >= 0
	return s + (1-2*s)*e
}

// fastLog1pExp is Log1pExp for |x| < 63: log1p(exp(-|x|)) =
// exp(-|x| + P(|x|)), plus x for x >= 0.
func fastLog1pExp(x float64) float64 {
	bx := math.Float64bits(x)
	u := math.Float64frombits(bx &^ (1 << 63))
	row := &log1pExpTab[int(math.Float64bits(u+1)>>fastSegShift)-fastSegBias]
	d := u - row[0]
	d2 := d * d
	d4 := d2 * d2
	q0 := (row[1] + row[2]*d) + (row[3]+row[4]*d)*d2
	q1 := (row[5] + row[6]*d) + (row[7]+row[8]*d)*d2
	b := (q0 + q1*d4) + (row[9]+row[10]*d)*(d4*d4)
	kf := (b-u)*fastExpInvL + fastExpShift
	k := int32(uint32(math.Float64bits(kf)))
	kd := kf - fastExpShift
	r := ((-u - kd*fastExpL1) + b) - kd*fastExpL2
	r2 := r * r
	p := r + r2*((0.5+r*(1.0/6))+r2*(1.0/24))
	t := fastExp2Tab[k&255]
	return float64(1-int(bx>>63))*x + (t+t*p)*math.Float64frombits(uint64(int64(k>>8)+1023)<<52)
}

// LogPhiSlice sets dst[i] = LogPhi(x[i]); dst may be x.
func LogPhiSlice(dst, x []float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		if v > -63 && v < 37.5 {
			dst[i] = fastLogPhi(v)
		} else {
			dst[i] = logPhiSlow(v)
		}
	}
}

// PhiSlice sets dst[i] = Phi(x[i]); dst may be x.
func PhiSlice(dst, x []float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		if v > -37.5 && v < 37.5 {
			dst[i] = fastPhi(v)
		} else {
			dst[i] = phiSlow(v)
		}
	}
}

// InvMillsSlice sets dst[i] = InvMills(x[i]); dst may be x.
func InvMillsSlice(dst, x []float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		if v > -63 && v < 37.5 {
			dst[i] = fastInvMills(v)
		} else {
			dst[i] = invMillsSlow(v)
		}
	}
}

// LogPhiAndMillsSlice sets logPhi[i], mills[i] = LogPhiAndMills(x[i]);
// either destination may be x.
func LogPhiAndMillsSlice(logPhi, mills, x []float64) {
	logPhi, mills = logPhi[:len(x)], mills[:len(x)]
	for i, v := range x {
		var l, m float64
		if v > -63 && v < 37.5 {
			l, m = fastLogPhiAndMills(v)
		} else {
			l, m = logPhiSlow(v), invMillsSlow(v)
		}
		logPhi[i], mills[i] = l, m
	}
}

// Log1pExpSlice sets dst[i] = Log1pExp(x[i]); dst may be x.
func Log1pExpSlice(dst, x []float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		if v > -63 && v < 63 {
			dst[i] = fastLog1pExp(v)
		} else {
			dst[i] = log1pExpSlow(v)
		}
	}
}
