package special

import (
	"math"
	"math/rand"
	"testing"
)

// lgammaRef are log Gamma(x) from mpmath.loggamma at 300 bits, to 25 digits.
var lgammaRef = []struct{ x, want float64 }{
	{1e-300, 690.7755278982137051803383},
	{1e-20, 46.05170185988091373520079},
	{1e-10, 23.02585092988273523726579},
	{1e-05, 11.51291969289582562561731},
	{0.001, 6.907178885383853661683681},
	{0.1, 2.252712651734205902006238},
	{0.2316, 1.368860917718122672496954},
	{0.5, 0.5723649429247000870717137},
	{0.7316, 0.2236966827013888329813226},
	{0.9, 0.06637623973474295442597111},
	{0.9999999, 5.772157468444192826317855e-8},
	{1 - 0x1p-40, 5.249745890089624390528066e-13},
	{1 + 0x1p-40, -5.249745890076017814837817e-13},
	{1.0000001, -5.772155829918507096963802e-8},
	{1.1, -0.04987244125983976178528914},
	{1.2316, -0.09388261556517420707903493},
	{1.4616321449683622, -0.1214862905358496080955146},
	{1.5, -0.1207822376352452223455184},
	{1.7316, -0.08882467976403754934787229},
	{1.99999, -0.000004227811104241673517612824},
	{2 - 0x1p-40, -3.845201127643793891685093e-13},
	{2 + 0x1p-40, 3.845201127649128661249811e-13},
	{2.00001, 0.00000422787559764835959689157},
	{2.5, 0.2846828704729191596324947},
	{3.25, 0.9358019311087253582584675},
	{4.999, 3.17654782334912369981438},
	{5.5, 3.957813967618716293877401},
	{6.75, 6.115915891431545415848974},
	{7.999999, 8.525159345424002631323582},
	{8.0, 8.525161361065414300165531},
	{8.000001, 8.52516337670695731577283},
	{9.5, 11.68933342079726848256944},
	{10.25, 13.36802367147604629543091},
	{17.0, 30.67186010608067280375837},
	{50.5, 146.5192554907206272218913},
	{101.0, 363.73937555556349014408},
	{1000.5, 5908.674175848677488683875},
	{12345.678, 103959.9199055460598243294},
	{999999.5, 12815497.66139270767796492},
	{1000000.0, 12815504.56914761165997697},
	{33000000.0, 538296590.2041443692201976},
	{10000000000.0, 220258509288.8105814700419},
	{1000000000000000.0, 33538776394910668.90982021},
	{2.5e+17, 9765059328193232904.261165},
	{1e+20, 4505170185988091368013.876},
	{1e+100, 2.292585092994045720635751e+102},
	{1e+300, 6.897755278982137414744009e+302},
}

// lgammaTol is the bound asked of Lgamma against a reference value
// want at x: 1e-14 relative, and 1e-15 absolute near the zeros 1 and 2.
func lgammaTol(x, want float64) float64 {
	tol := 1e-14 * math.Abs(want)
	if (x > 0.5 && x < 2.5) && tol < 1e-15 {
		tol = 1e-15
	}
	return tol
}

func TestLgammaFastReference(t *testing.T) {
	maxRel := 0.0
	for _, c := range lgammaRef {
		got := Lgamma(c.x)
		d := math.Abs(got - c.want)
		if d > lgammaTol(c.x, c.want) {
			t.Errorf("Lgamma(%v) = %v, want %v (error %.3g)", c.x, got, c.want, d)
		}
		maxRel = math.Max(maxRel, d/math.Abs(c.want))
	}
	t.Logf("max relative error against mpmath: %.3g", maxRel)
}

// lgammaPoints are x > 0 from a dense grid on (0, 20], integers and half
// integers to 1e5, points within a few ulps and 2**-40 of 1 and 2, and
// random points, uniform on (0, 10) and (0, 1e6) and log-uniform on
// (1e-300, 1e300).
func lgammaPoints() []float64 {
	var xs []float64
	for i := 1; i <= 200000; i++ {
		xs = append(xs, float64(i)*1e-4)
	}
	for i := 1; i <= 100000; i++ {
		xs = append(xs, float64(i), float64(i)-0.5)
	}
	for _, z := range []float64{1, 2, 8, 0.9, 0.2316, 1.2316, 1.7316, 0.7316} {
		x := z
		for k := 0; k < 64; k++ {
			xs = append(xs, x, z+float64(k)*0x1p-40, z-float64(k)*0x1p-40)
			x = math.Nextafter(x, 0)
		}
		x = z
		for k := 0; k < 64; k++ {
			x = math.Nextafter(x, 10)
			xs = append(xs, x)
		}
	}
	rng := rand.New(rand.NewSource(12))
	for i := 0; i < 300000; i++ {
		xs = append(xs, 10*(1-rng.Float64()), 1e6*(1-rng.Float64()), math.Pow(10, 600*rng.Float64()-300))
	}
	return xs
}

func TestLgammaFastVsMath(t *testing.T) {
	maxRel, maxAbsNearZeros := 0.0, 0.0
	bad := 0
	for _, x := range lgammaPoints() {
		got := Lgamma(x)
		want, _ := math.Lgamma(x)
		d := math.Abs(got - want)
		if d > lgammaTol(x, want) {
			if bad++; bad <= 10 {
				t.Errorf("Lgamma(%v) = %v, math.Lgamma %v (difference %.3g)", x, got, want, d)
			}
		}
		if x > 0.5 && x < 2.5 && math.Abs(want) < 0.1 {
			maxAbsNearZeros = math.Max(maxAbsNearZeros, d)
		} else if want != 0 {
			maxRel = math.Max(maxRel, d/math.Abs(want))
		}
	}
	if bad > 10 {
		t.Errorf("... %d points out of tolerance in all", bad)
	}
	t.Logf("against math.Lgamma: max relative difference %.3g, max absolute near 1 and 2 (|lgamma| < 0.1) %.3g", maxRel, maxAbsNearZeros)
}

// TestLgammaFastSpecial: the cases that go to math.Lgamma give its very
// results, and lgamma(1) = lgamma(2) = 0 exactly.
func TestLgammaFastSpecial(t *testing.T) {
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
		-0.5, -1, -2, -2.5, -1e-300, -1e300, 5e-324, 1e-310, 0x1p-70, 0x1p-71, 1 << 58, 1e300,
		math.MaxFloat64, 1, 2} {
		got := Lgamma(x)
		want, _ := math.Lgamma(x)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("Lgamma(%v) = %v, math.Lgamma %v", x, got, want)
		}
	}
	if Lgamma(1) != 0 || Lgamma(2) != 0 {
		t.Errorf("Lgamma(1), Lgamma(2) = %v, %v, want 0, 0", Lgamma(1), Lgamma(2))
	}
}

// TestLgfLog: the table-driven log is within 2 ulps of math.Log on normal
// x away from 1 (it is never called near 1).
func TestLgfLog(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 1000000; i++ {
		x := math.Pow(2, 2040*rng.Float64()-1020)
		if i%4 == 0 {
			x = 1e3 * rng.Float64()
		}
		if math.Abs(x-1) < 0.05 {
			continue
		}
		got, want := lgfLog(x), math.Log(x)
		if math.Abs(got-want) > 4.5e-16*math.Abs(want) {
			t.Fatalf("lgfLog(%v) = %v, math.Log %v", x, got, want)
		}
	}
}

// lgammaBenchSets are the inputs of the benchmarks: uniform on (0, 1e6),
// uniform on (0, 10) (shapes and degrees of freedom), and counts + 1.
func lgammaBenchSets() []struct {
	name string
	xs   []float64
} {
	rng := rand.New(rand.NewSource(5))
	u, s, c := make([]float64, 1024), make([]float64, 1024), make([]float64, 1024)
	for i := range u {
		u[i] = 1e6 * (1 - rng.Float64())
		s[i] = 10 * (1 - rng.Float64())
		c[i] = float64(1 + rng.Intn(50))
	}
	return []struct {
		name string
		xs   []float64
	}{{"uniform1e6", u}, {"uniform10", s}, {"counts50", c}}
}

var lgammaSink float64

func BenchmarkLgammaFast(b *testing.B) {
	for _, set := range lgammaBenchSets() {
		b.Run(set.name, func(b *testing.B) {
			xs, s := set.xs, 0.0
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				s += Lgamma(xs[i&1023])
			}
			lgammaSink = s
		})
	}
}

func BenchmarkLgammaMath(b *testing.B) {
	for _, set := range lgammaBenchSets() {
		b.Run(set.name, func(b *testing.B) {
			xs, s := set.xs, 0.0
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				v, _ := math.Lgamma(xs[i&1023])
				s += v
			}
			lgammaSink = s
		})
	}
}
