package special

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// fastRef is one line of testdata/fast_ref.txt: x and the 80-digit
// mpmath values of LogPhi, Phi, InvMills and Log1pExp there, rounded to
// float64 (internal/fastgen/gen.py).
type fastRef struct{ x, logPhi, phi, mills, log1pExp float64 }

func readFastRef(t testing.TB) []fastRef {
	f, err := os.Open("testdata/fast_ref.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fastRef
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 5 {
			t.Fatalf("bad line %q", line)
		}
		var v [5]float64
		for i, s := range fs {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, fastRef{v[0], v[1], v[2], v[3], v[4]})
	}
	if len(out) < 4000 {
		t.Fatalf("only %d reference points", len(out))
	}
	return out
}

// fastTol is the relative accuracy the fast functions must have against
// the exact values (a float64 rounding of the exact value is itself 1.1e-16
// off): 1e-14 everywhere, the bar of issue 12.
const fastTol = 1e-14

// TestFastAgainstMpmath compares every fast function, its slice version
// and (as a report, and as a bound: the new must not be worse than 1e-14
// nor than the old) the old implementation with the 80-digit values.
func TestFastAgainstMpmath(t *testing.T) {
	refs := readFastRef(t)
	xs := make([]float64, len(refs))
	for i, r := range refs {
		xs[i] = r.x
	}
	n := len(xs)
	lp, l1 := make([]float64, n), make([]float64, n)
	LogPhiSlice(lp, xs)
	Log1pExpSlice(l1, xs)
	type stat struct {
		name        string
		worst, oldW float64
		at, oldAt   float64
		newF, oldF  func(float64) float64
		want        func(fastRef) float64
		slice       []float64 // nil for the functions without a slice version
	}
	stats := []*stat{
		{name: "LogPhi", newF: LogPhi, oldF: oldLogPhi, want: func(r fastRef) float64 { return r.logPhi }, slice: lp},
		{name: "Phi", newF: Phi, oldF: oldPhi, want: func(r fastRef) float64 { return r.phi }},
		{name: "InvMills", newF: InvMills, oldF: oldInvMills, want: func(r fastRef) float64 { return r.mills }},
		{name: "Log1pExp", newF: Log1pExp, oldF: oldLog1pExp, want: func(r fastRef) float64 { return r.log1pExp }, slice: l1},
	}
	for i, r := range refs {
		for _, s := range stats {
			want := s.want(r)
			got := s.newF(r.x)
			if s.slice != nil && relErr(s.slice[i], got) != 0 {
				t.Fatalf("%s slice at %v: %v, scalar %v", s.name, r.x, s.slice[i], got)
			}
			e := relErr(got, want)
			if e > s.worst {
				s.worst, s.at = e, r.x
			}
			if eo := relErr(s.oldF(r.x), want); eo > s.oldW {
				s.oldW, s.oldAt = eo, r.x
			}
			if e > fastTol {
				t.Errorf("%s(%v) = %v, want %v (rel %.3g; old %v, rel %.3g)", s.name, r.x, got, want, e,
					s.oldF(r.x), relErr(s.oldF(r.x), want))
			}
		}
	}
	for _, s := range stats {
		t.Logf("%-22s worst relative error %.3g at x = %v (old: %.3g at x = %v)", s.name, s.worst, s.at, s.oldW, s.oldAt)
	}
}

// TestFastAgainstGonum compares with gonum's UnitNormal (math.Erfc based)
// where that is accurate: |x| <= 5, where the rounding of x/sqrt(2) moves
// erfc by at most x^2 ulps.
func TestFastAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := distuv.UnitNormal
	for i := 0; i < 200000; i++ {
		x := -5 + 10*rng.Float64()
		tol := 4e-15 + x*x*0x1p-52
		if e := relErr(Phi(x), n.CDF(x)); e > tol {
			t.Fatalf("Phi(%v) = %v, gonum %v (rel %g)", x, Phi(x), n.CDF(x), e)
		}
		if e := relErr(LogPhi(x), math.Log(n.CDF(x))); e > tol+2e-16 && x < 1 {
			// log of a CDF near 1 is not accurate in gonum: only x < 1
			t.Fatalf("LogPhi(%v) = %v, gonum %v (rel %g)", x, LogPhi(x), math.Log(n.CDF(x)), e)
		}
		want := n.Prob(x) / n.CDF(x)
		if e := relErr(InvMills(x), want); e > tol+4e-16 {
			t.Fatalf("InvMills(%v) = %v, gonum %v (rel %g)", x, InvMills(x), want, e)
		}
	}
}

// TestFastSpecialValues checks NaN, the infinities, the signed zeros, the
// edges of the fast ranges and the limits against the old functions.
func TestFastSpecialValues(t *testing.T) {
	xs := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e-310, -1e-310,
		5e-324, -5e-324, 1e-20, -1e-20, -63, 63, -37.5, 37.5, 38, 38.5, 39, 40, 1e3, -1e3, 1e200, -1e200,
		math.MaxFloat64, -math.MaxFloat64, -62.999999, 37.499999, 62.999999, -37.499999}
	n := len(xs)
	for i := 0; i < n; i++ {
		xs = append(xs, math.Nextafter(xs[i], math.Inf(1)), math.Nextafter(xs[i], math.Inf(-1)))
	}
	for _, x := range xs {
		check := func(name string, got, want float64, tol float64) {
			t.Helper()
			if math.IsNaN(want) != math.IsNaN(got) || relErr(got, want) > tol {
				t.Errorf("%s(%v) = %v, old %v", name, x, got, want)
			}
			if want == 0 && math.Signbit(got) != math.Signbit(want) && (math.IsInf(x, 0) || math.IsNaN(x)) {
				t.Errorf("%s(%v) = %v, old %v: sign of zero", name, x, got, want)
			}
		}
		check("Phi", Phi(x), oldPhi(x), 1e-13)
		check("LogPhi", LogPhi(x), oldLogPhi(x), 1e-13)
		check("InvMills", InvMills(x), oldInvMills(x), 1e-13)
		check("Log1pExp", Log1pExp(x), oldLog1pExp(x), 1e-13)
		for _, f := range []func(float64) float64{Phi, LogPhi, InvMills, Log1pExp} {
			if v := f(x); math.IsNaN(v) != math.IsNaN(x) {
				t.Errorf("NaN in or out at %v: %v", x, v)
			}
		}
	}
}

// TestFastDenseAgainstOld runs a dense grid and random points through the
// new and the old functions: besides checking the tails against mpmath,
// this catches a wrong coefficient anywhere in a segment. The tolerance
// allows for the old functions' own error, which reaches x^2 ulps in the
// tails (the rounding of x/sqrt(2) before erfc) and 2.5e-12 in InvMills
// near x = -20 (refTol, millsTol).
func TestFastDenseAgainstOld(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	xs := make([]float64, 0, 2000000)
	for i := -700000; i <= 700000; i++ {
		xs = append(xs, float64(i)*1e-4)
	}
	for i := 0; i < 600000; i++ {
		xs = append(xs, -70+140*rng.Float64())
	}
	dst := make([]float64, len(xs))
	type fn struct {
		name     string
		new, old func(float64) float64
		slice    func(dst, x []float64) // nil if there is none
	}
	for _, f := range []fn{
		{"LogPhi", LogPhi, oldLogPhi, LogPhiSlice},
		{"Phi", Phi, oldPhi, nil},
		{"InvMills", InvMills, oldInvMills, nil},
		{"Log1pExp", Log1pExp, oldLog1pExp, Log1pExpSlice},
	} {
		if f.slice != nil {
			f.slice(dst, xs)
		}
		worst, at := 0.0, 0.0
		for i, x := range xs {
			got := f.new(x)
			if f.slice != nil && relErr(dst[i], got) != 0 {
				t.Fatalf("%s slice at %v: %v, scalar %v", f.name, x, dst[i], got)
			}
			e := relErr(got, f.old(x))
			if e > worst {
				worst, at = e, x
			}
			if e > max(refTol(x), millsTol(x)) {
				t.Fatalf("%s(%v) = %v, old %v (rel %g)", f.name, x, got, f.old(x), e)
			}
		}
		t.Logf("%-9s worst relative difference from the old %.3g at x = %v", f.name, worst, at)
	}
}

func TestFastSlicesInPlaceAndShort(t *testing.T) {
	x := []float64{-3, -0.5, 0, 0.5, 3}
	want := make([]float64, len(x))
	for i, v := range x {
		want[i] = LogPhi(v)
	}
	y := append([]float64(nil), x...)
	LogPhiSlice(y, y)
	for i := range y {
		if y[i] != want[i] {
			t.Fatalf("in place: %v, want %v", y, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a short destination")
		}
	}()
	LogPhiSlice(make([]float64, 2), x)
}

func TestFastNoAllocs(t *testing.T) {
	x := benchPoints()
	d := make([]float64, len(x))
	a := testing.AllocsPerRun(10, func() {
		LogPhiSlice(d, x)
		Log1pExpSlice(d, x)
	})
	if a != 0 {
		t.Fatalf("%v allocations", a)
	}
}
