package special

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The AVX2 slice kernels (fast_amd64.s) against the pure-Go loops of
// fast.go, bit for bit: useAVX2 is switched off for the reference.

// fastSliceFuncs are the slice functions with an AVX2 kernel.
var fastSliceFuncs = []struct {
	name string
	f    func(dst, x []float64)
}{
	{"LogPhi", LogPhiSlice},
	{"Log1pExp", Log1pExpSlice},
}

func skipNoAVX2(t *testing.T) {
	t.Helper()
	if !useAVX2 {
		t.Skip("no AVX2 kernels on this CPU or build: nothing to compare")
	}
}

// withGo runs f with the AVX2 kernels switched off.
func withGo(f func()) {
	useAVX2 = false
	defer func() { useAVX2 = true }()
	f()
}

// fastSliceRef is f(x) by the pure-Go path.
func fastSliceRef(f func(dst, x []float64), x []float64) []float64 {
	want := make([]float64, len(x))
	withGo(func() { f(want, x) })
	return want
}

// checkSame compares the AVX2 and Go paths of f on x, dst apart from x.
func checkSame(t *testing.T, name string, f func(dst, x []float64), x []float64) {
	t.Helper()
	want := fastSliceRef(f, x)
	got := make([]float64, len(x))
	f(got, x)
	bad := 0
	for i := range x {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			if bad < 5 {
				t.Errorf("%s(%v) [%d of %d] = %v (%#x), Go path %v (%#x)", name, x[i], i, len(x),
					got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d differ", name, bad, len(x))
	}
}

func fastAsmSpecials() []float64 {
	xs := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1),
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0x1p-1022, -0x1p-1022,
		0x1p-1030, -0x1p-1030, math.MaxFloat64, -math.MaxFloat64, 1e300, -1e300}
	for _, c := range []float64{-63, 37.5, 63, -37.5, 37, -37, 30, -30, 40, -40} {
		v := c
		for range 8 {
			xs = append(xs, v)
			v = math.Nextafter(v, math.Inf(1))
		}
		v = c
		for range 8 {
			v = math.Nextafter(v, math.Inf(-1))
			xs = append(xs, v)
		}
		for _, d := range []float64{1e-12, 1e-9, 1e-6, 1e-3, 0.01, 0.1, 0.5} {
			xs = append(xs, c-d, c+d)
		}
	}
	return xs
}

// fastAsmBoundaries are the segment boundaries of the tables (the u with
// u + 1 a multiple of 2^fastSegShift in bits) on both sides and their
// neighbours, and a dense grid around 0.
func fastAsmBoundaries() []float64 {
	var xs []float64
	for s := 0; s <= fastNSeg; s++ {
		u := math.Float64frombits(uint64(s+fastSegBias)<<fastSegShift) - 1
		for _, v := range []float64{u, math.Nextafter(u, 0), math.Nextafter(u, 100)} {
			for k := -3; k <= 3; k++ {
				w := v + float64(k)*1e-13*max(1, v)
				xs = append(xs, w, -w)
			}
			xs = append(xs, v, -v)
		}
	}
	for i := -20000; i <= 20000; i++ {
		xs = append(xs, float64(i)*1e-4)
	}
	for e := -1074; e < 10; e++ {
		xs = append(xs, math.Ldexp(1, e), -math.Ldexp(1, e), math.Ldexp(1.5, e), -math.Ldexp(1.7, e))
	}
	return xs
}

func TestFastAsmBitIdentical(t *testing.T) {
	skipNoAVX2(t)
	r := rand.New(rand.NewPCG(12, 34))
	n := 3_000_000
	if testing.Short() {
		n = 300_000
	}
	random := make([]float64, n)
	for i := range random {
		random[i] = -70 + 115*r.Float64()
	}
	normal := make([]float64, 100_000)
	for i := range normal {
		normal[i] = 3 * r.NormFloat64()
	}
	inputs := []struct {
		name string
		x    []float64
	}{
		{"random(-70,45)", random},
		{"N(0,3)", normal},
		{"specials", fastAsmSpecials()},
		{"boundaries", fastAsmBoundaries()},
	}
	for _, in := range inputs {
		for _, fn := range fastSliceFuncs {
			t.Run(in.name+"/"+fn.name, func(t *testing.T) {
				checkSame(t, fn.name, fn.f, in.x)
			})
		}
	}
}

// TestFastAsmLengths covers the tails (len % 4), the block edges and dst
// = x, with slow-path elements at every position.
func TestFastAsmLengths(t *testing.T) {
	skipNoAVX2(t)
	r := rand.New(rand.NewPCG(5, 6))
	var lengths []int
	for n := 0; n <= 20; n++ {
		lengths = append(lengths, n)
	}
	lengths = append(lengths, 63, 64, 65, 127, 128, 129, 1000)
	special := fastAsmSpecials()
	for _, n := range lengths {
		x := make([]float64, n)
		for i := range x {
			switch r.IntN(4) {
			case 0:
				x[i] = special[r.IntN(len(special))]
			default:
				x[i] = -70 + 115*r.Float64()
			}
		}
		for _, fn := range fastSliceFuncs {
			checkSame(t, fn.name, fn.f, x)
		}
		// dst = x
		for _, fn := range fastSliceFuncs {
			want := fastSliceRef(fn.f, x)
			got := append([]float64(nil), x...)
			fn.f(got, got)
			for i := range x {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Errorf("%s in place, len %d: [%d] x=%v: %v, Go path %v", fn.name, n, i, x[i], got[i], want[i])
				}
			}
		}
	}
}

// TestFastAsmScalar checks the slice functions against the scalar ones.
func TestFastAsmScalar(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	x := make([]float64, 10000)
	for i := range x {
		x[i] = -70 + 115*r.Float64()
	}
	x = append(x, fastAsmSpecials()...)
	for _, c := range []struct {
		name   string
		f      func(dst, x []float64)
		scalar func(float64) float64
	}{{"LogPhi", LogPhiSlice, LogPhi}, {"Log1pExp", Log1pExpSlice, Log1pExp}} {
		got := make([]float64, len(x))
		c.f(got, x)
		for i, v := range x {
			if w := c.scalar(v); math.Float64bits(got[i]) != math.Float64bits(w) && !(math.IsNaN(w) && math.IsNaN(got[i])) {
				t.Errorf("%sSlice(%v) = %v, %s %v", c.name, v, got[i], c.name, w)
			}
		}
	}
}

// Benchmarks of the slice functions on 256 values from N(0, 3), with the
// AVX2 kernels (asm) and without (go); ns/elem is the time per element:
//
//	go test -run xxx -bench 'SliceN03' -cpu 1 -count 3 ./stdlib/special
func benchSliceN03(b *testing.B, f func(dst, x []float64)) {
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, 256)
	for i := range x {
		x[i] = 3 * r.NormFloat64()
	}
	dst := make([]float64, len(x))
	for _, path := range []string{"asm", "go"} {
		b.Run(path, func(b *testing.B) {
			if path == "asm" && !useAVX2 {
				b.Skip("no AVX2 kernels")
			}
			if path == "go" && useAVX2 {
				useAVX2 = false
				defer func() { useAVX2 = true }()
			}
			b.ReportAllocs()
			for b.Loop() {
				f(dst, x)
			}
			benchSink = dst[0]
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(x)), "ns/elem")
		})
	}
}

func BenchmarkLogPhiSliceN03(b *testing.B)   { benchSliceN03(b, LogPhiSlice) }
func BenchmarkLog1pExpSliceN03(b *testing.B) { benchSliceN03(b, Log1pExpSlice) }
