package special

import "math"

//go:generate python3 internal/fastgen/gen.py fast_tables.go testdata/fast_ref.txt

// Fast special functions (issue 12): LogPhi, Phi, InvMills and Log1pExp,
// and the slice versions of the two that the log densities of
// bernoulli_probit and bernoulli_logit apply to whole vectors (package
// stdlib, op.go)
//
//	LogPhiSlice(dst, x)          dst[i] = LogPhi(x[i])
//	Log1pExpSlice(dst, x)        dst[i] = Log1pExp(x[i])
//
// (dst may be x itself; each panics if dst is shorter than x; neither
// allocates), are evaluated without a call to math.Exp or math.Log
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
// that an A of -700 costs no accuracy. The kernels below write out the
// segment lookup, the polynomial and fastExp (the compiler does not inline
// them, and a call spills every register); fast_kernel_test.go has the
// three as functions (fastSeg, fastPoly, fastExp) and checks that the
// kernels compose them. The rare arguments outside those
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

// fastTwoSided is exp(-m x^2/2 + P(x)) for -63 < x < 37.5 from a
// two-sided table, m = 1 for x >= 0 and 0 for x < 0: x = xh + xl with xh
// of 26 significant bits, so that -m xh^2/2 is exact and goes to the exp
// apart from P - m xl (x + xh)/2.
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
	t := fastExp2Tab[k&255] * math.Float64frombits(uint64(int64(k>>8)+1023)<<52)
	return t + t*p
}

// fastLogPhi is LogPhi for -63 < x < 37.5.
func fastLogPhi(x float64) float64 { return -fastTwoSided(&logPhiTab, x) }

// fastInvMills is InvMills for -63 < x < 37.5.
func fastInvMills(x float64) float64 { return fastTwoSided(&invMillsTab, x) }

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

// The slice versions work on blocks of fastBlock elements in two passes:
// the first (fastArgs*) looks up the segment and evaluates the polynomial
// into a and b, the second (fastExpBlock) takes dst[i] = c[i] + m[i]
// exp(a[i] + b[i]). Each pass has a short dependency chain per element, so
// the processor overlaps many more elements than in one pass of the whole
// kernel (LogPhiSlice about 7.5 ns per element against 10 for a loop of
// LogPhi, in thread CPU time on a loaded machine). The arithmetic is that of
// the scalar kernels above, so the results are the same to the bit. An
// element outside the fast range gets a = b = 0 in the first pass and its
// value from the slow path at the end of the block.

const fastBlock = 64

// fastSlow lists the elements of a block outside the fast range.
type fastSlow struct {
	n   int
	at  [fastBlock]int32
	val [fastBlock]float64
}

func (s *fastSlow) add(i int, v float64) { s.at[s.n], s.val[s.n] = int32(i), v; s.n++ }

func (s *fastSlow) apply(dst []float64) {
	for j := 0; j < s.n; j++ {
		dst[s.at[j]] = s.val[j]
	}
	s.n = 0
}

// fastArgsTwoSided sets a, b for fastTwoSided(tab, x[i]); an x[i]
// outside (-63, 37.5) goes to sl with the value slow(x[i]) and is taken
// as 0 here.
func fastArgsTwoSided(tab *[2 * fastNSeg][fastDeg + 2]float64, a, b, x []float64, sl *fastSlow, slow func(float64) float64) {
	a, b = a[:len(x)], b[:len(x)]
	for i, x := range x {
		if !(x > -63 && x < 37.5) {
			sl.add(i, slow(x))
			x = 0
		}
		bx := math.Float64bits(x)
		right := 1 - int(bx>>63)
		u1 := math.Float64frombits(bx&^(1<<63)) + 1
		row := &tab[int(math.Float64bits(u1)>>fastSegShift)-fastSegBias+fastNSeg*right]
		d := x - row[0]
		d2 := d * d
		d4 := d2 * d2
		q0 := (row[1] + row[2]*d) + (row[3]+row[4]*d)*d2
		q1 := (row[5] + row[6]*d) + (row[7]+row[8]*d)*d2
		P := (q0 + q1*d4) + (row[9]+row[10]*d)*(d4*d4)
		hm := -0.5 * float64(right)
		xh := math.Float64frombits(bx &^ (1<<27 - 1))
		a[i] = hm * xh * xh
		b[i] = P + hm*(x-xh)*(x+xh)
	}
}

// fastExpBlockSign sets dst[i] = sign exp(a[i] + b[i]) (fastExp).
func fastExpBlockSign(dst, a, b []float64, sign float64) {
	n := len(dst)
	a, b = a[:n], b[:n]
	for i := range dst {
		a, b := a[i], b[i]
		kf := (a+b)*fastExpInvL + fastExpShift
		k := int32(uint32(math.Float64bits(kf)))
		kd := kf - fastExpShift
		r := ((a - kd*fastExpL1) + b) - kd*fastExpL2
		r2 := r * r
		p := r + r2*((0.5+r*(1.0/6))+r2*(1.0/24))
		t := fastExp2Tab[k&255] * math.Float64frombits(uint64(int64(k>>8)+1023)<<52)
		dst[i] = sign * (t + t*p)
	}
}

// fastExpBlock sets dst[i] = c[i] + m[i] exp(a[i] + b[i]) (fastExp).
func fastExpBlock(dst, a, b, c, m []float64) {
	n := len(dst)
	a, b, c, m = a[:n], b[:n], c[:n], m[:n]
	for i := range dst {
		a, b := a[i], b[i]
		kf := (a+b)*fastExpInvL + fastExpShift
		k := int32(uint32(math.Float64bits(kf)))
		kd := kf - fastExpShift
		r := ((a - kd*fastExpL1) + b) - kd*fastExpL2
		r2 := r * r
		p := r + r2*((0.5+r*(1.0/6))+r2*(1.0/24))
		t := fastExp2Tab[k&255] * math.Float64frombits(uint64(int64(k>>8)+1023)<<52)
		dst[i] = c[i] + m[i]*(t+t*p)
	}
}

// fastTwoSidedSlice is the slice version of fastTwoSided(tab, x) times
// sign, with slow outside the fast range: LogPhiSlice's (sign -1, slow
// logPhiSlow).
func fastTwoSidedSlice(dst, x []float64, tab *[2 * fastNSeg][fastDeg + 2]float64, sign float64, slow func(float64) float64) {
	dst = dst[:len(x)]
	if n := fastTwoSidedArch(dst, x, tab, sign, slow); n > 0 {
		dst, x = dst[n:], x[n:]
	}
	var a, b [fastBlock]float64
	var sl fastSlow
	for len(x) > 0 {
		n := min(len(x), fastBlock)
		fastArgsTwoSided(tab, a[:n], b[:n], x[:n], &sl, slow)
		fastExpBlockSign(dst[:n], a[:n], b[:n], sign)
		sl.apply(dst)
		x, dst = x[n:], dst[n:]
	}
}

// LogPhiSlice sets dst[i] = LogPhi(x[i]); dst may be x (but not overlap
// it otherwise).
func LogPhiSlice(dst, x []float64) { fastTwoSidedSlice(dst, x, &logPhiTab, -1, logPhiSlow) }

// Log1pExpSlice sets dst[i] = Log1pExp(x[i]); dst may be x (but not
// overlap it otherwise).
func Log1pExpSlice(dst, x []float64) {
	dst = dst[:len(x)]
	if n := fastLog1pExpArch(dst, x); n > 0 {
		dst, x = dst[n:], x[n:]
	}
	var a, b, c, m [fastBlock]float64
	var sl fastSlow
	for len(x) > 0 {
		n := min(len(x), fastBlock)
		for i, v := range x[:n] {
			if !(v > -63 && v < 63) {
				sl.add(i, log1pExpSlow(v))
				v = 0
			}
			bx := math.Float64bits(v)
			u := math.Float64frombits(bx &^ (1 << 63))
			row := &log1pExpTab[int(math.Float64bits(u+1)>>fastSegShift)-fastSegBias]
			d := u - row[0]
			d2 := d * d
			d4 := d2 * d2
			q0 := (row[1] + row[2]*d) + (row[3]+row[4]*d)*d2
			q1 := (row[5] + row[6]*d) + (row[7]+row[8]*d)*d2
			a[i] = -u
			b[i] = (q0 + q1*d4) + (row[9]+row[10]*d)*(d4*d4)
			c[i], m[i] = float64(1-int(bx>>63))*v, 1
		}
		fastExpBlock(dst[:n], a[:n], b[:n], c[:n], m[:n])
		sl.apply(dst)
		x, dst = x[n:], dst[n:]
	}
}
