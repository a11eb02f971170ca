package stdlib

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/mscppl/mscppl/autodiff"
)

var _ autodiff.Op = VecOp(nil) // VecOp has autodiff.Op's method set

// vbCases are the transforms and sizes the tests run over.
var vbCases = []struct {
	name string
	ks   []int
}{
	{"simplex", []int{1, 2, 3, 5, 8}},
	{"ordered", []int{1, 2, 3, 5, 8}},
	{"positive_ordered", []int{1, 2, 3, 5, 8}},
	{"cholesky_factor_corr", []int{1, 2, 3, 4, 5}},
}

func eachVB(t *testing.T, f func(t *testing.T, b VecBijection)) {
	for _, c := range vbCases {
		mk, ok := LookupVecBijection(c.name)
		require.True(t, ok, c.name)
		for _, k := range c.ks {
			b := mk(k)
			t.Run(b.Name()+"["+itoa(k)+"]", func(t *testing.T) { f(t, b) })
		}
	}
}

// eachVBStacked is eachVB and arrays of transforms (array[N] simplex[K],
// StackVec), for the tests that do not look at the transform's name.
func eachVBStacked(t *testing.T, f func(t *testing.T, b VecBijection)) {
	eachVB(t, f)
	for _, c := range []struct {
		name string
		k, n int
	}{{"simplex", 3, 2}, {"simplex", 2, 3}, {"simplex", 4, 2}} {
		mk, _ := LookupVecBijection(c.name)
		b := StackVec(mk(c.k), c.n)
		t.Run("array["+itoa(c.n)+"] "+b.Name()+"["+itoa(c.k)+"]", func(t *testing.T) { f(t, b) })
	}
}

func itoa(k int) string {
	if k < 10 {
		return string(rune('0' + k))
	}
	return itoa(k/10) + itoa(k%10)
}

// freeCoords are the coordinates of x that u parametrises one to one: the
// first K-1 of a simplex, the strictly lower triangle (row by row) of a
// Cholesky factor, all of an ordered vector.
func freeCoords(b VecBijection, x []float64) []float64 {
	if s, ok := b.(Stacked); ok {
		var f []float64
		xl := s.B.XLen()
		for i := 0; i < s.N; i++ {
			f = append(f, freeCoords(s.B, x[i*xl:(i+1)*xl])...)
		}
		return f
	}
	switch b.Name() {
	case "simplex":
		return append([]float64(nil), x[:b.UDim()]...)
	case "cholesky_factor_corr":
		n := b.K()
		var f []float64
		for i := 1; i < n; i++ {
			f = append(f, x[i*n:i*n+i]...)
		}
		return f
	}
	return append([]float64(nil), x...)
}

func constrain(b VecBijection, u []float64) ([]float64, float64) {
	x := make([]float64, b.XLen())
	lj := b.Constrain(u, x)
	return x, lj
}

// unconstrained test points: standard normal at two scales, uniform on
// [-20, 20], and all +20, all -20, alternating +-20.
func testUs(b VecBijection, rng *rand.Rand) [][]float64 {
	d := b.UDim()
	var us [][]float64
	for rep := 0; rep < 20; rep++ {
		for _, draw := range []func() float64{
			rng.NormFloat64,
			func() float64 { return 4 * rng.NormFloat64() },
			func() float64 { return 40 * (rng.Float64() - 0.5) },
		} {
			u := make([]float64, d)
			for i := range u {
				u[i] = draw()
			}
			us = append(us, u)
		}
	}
	for _, pat := range []func(i int) float64{
		func(int) float64 { return 20 },
		func(int) float64 { return -20 },
		func(i int) float64 { return float64(1-2*(i%2)) * 20 },
		func(i int) float64 { return float64(2*(i%2)-1) * 20 },
	} {
		u := make([]float64, d)
		for i := range u {
			u[i] = pat(i)
		}
		us = append(us, u)
	}
	return us
}

// validX draws a random x that satisfies b's constraint.
func validX(b VecBijection, rng *rand.Rand) []float64 {
	k := b.K()
	x := make([]float64, b.XLen())
	switch b.Name() {
	case "simplex":
		s := 0.0
		for i := range x {
			x[i] = rng.ExpFloat64() + 1e-3
			s += x[i]
		}
		for i := range x {
			x[i] /= s
		}
	case "ordered", "positive_ordered":
		prev := 3 * rng.NormFloat64()
		if b.Name() == "positive_ordered" {
			prev = 0
		}
		for i := range x {
			prev += rng.ExpFloat64() + 1e-3
			x[i] = prev
		}
	case "cholesky_factor_corr":
		for i := 0; i < k; i++ {
			row := x[i*k : i*k+k]
			s := 0.0
			for j := 0; j <= i; j++ {
				row[j] = rng.NormFloat64()
				if j == i {
					row[j] = math.Abs(row[j]) + 0.05
				}
				s += row[j] * row[j]
			}
			for j := 0; j <= i; j++ {
				row[j] /= math.Sqrt(s)
			}
		}
	}
	return x
}

func TestVecBijectionRegistry(t *testing.T) {
	for _, c := range []struct {
		name          string
		k, udim, xlen int
	}{
		{"simplex", 4, 3, 4},
		{"simplex", 1, 0, 1},
		{"ordered", 4, 4, 4},
		{"positive_ordered", 4, 4, 4},
		{"cholesky_factor_corr", 4, 6, 16},
		{"cholesky_factor_corr", 1, 0, 1},
	} {
		mk, ok := LookupVecBijection(c.name)
		require.True(t, ok, c.name)
		b := mk(c.k)
		require.Equal(t, c.name, b.Name())
		require.Equal(t, c.k, b.K())
		require.Equal(t, c.udim, b.UDim(), c.name)
		require.Equal(t, c.xlen, b.XLen(), c.name)
		require.Equal(t, c.name, b.Op().Name())
	}
	_, ok := LookupVecBijection("unit_vector")
	require.False(t, ok)
	require.Equal(t, []string{"cholesky_factor_corr", "ordered", "positive_ordered", "simplex"}, slices.Sorted(maps.Keys(vecBijections)))
}

// orderedUnresolvable reports whether some gap exp(u_k) of an ordered or
// positive_ordered x is below 1e-12 |x_k|: then x_k - x_{k-1} is not
// representable in float64 (x can even tie, as in Stan) and u cannot be
// recovered; the tests skip such points for the strict checks.
func orderedUnresolvable(b VecBijection, u, x []float64) bool {
	if b.Name() != "ordered" && b.Name() != "positive_ordered" {
		return false
	}
	for k := 1; k < len(u); k++ {
		if math.Exp(u[k]) < 1e-12*math.Abs(x[k]) {
			return true
		}
	}
	return false
}

// Unconstrain(Constrain(u)) = u. ordered and positive_ordered lose
// precision inherently when a gap exp(u_k) is small next to |x_k| (x_k -
// x_{k-1} cancels), so their tolerance is scaled by that condition number,
// and points where the gap is below float64 resolution are skipped (at
// most a third of them); simplex and cholesky_factor_corr hold 1e-10
// absolutely, even at |u| = 20.
func TestVecBijectionRoundTripU(t *testing.T) {
	eachVBStacked(t, func(t *testing.T, b VecBijection) {
		rng := rand.New(rand.NewPCG(11, uint64(b.K())))
		us := testUs(b, rng)
		skipped := 0
		for _, u := range us {
			x, lj := constrain(b, u)
			require.False(t, math.IsNaN(lj) || math.IsInf(lj, 0), "log J %g at u=%v", lj, u)
			if orderedUnresolvable(b, u, x) {
				skipped++
				continue
			}
			u2 := make([]float64, b.UDim())
			require.NoError(t, b.Unconstrain(x, u2), "u=%v x=%v", u, x)
			for i := range u {
				tol := 1e-10
				if b.Name() == "ordered" || b.Name() == "positive_ordered" {
					scale := math.Abs(x[i])
					if i > 0 {
						scale += math.Abs(x[i-1])
					}
					gap := x[i]
					if i > 0 {
						gap -= x[i-1]
					}
					if i > 0 || b.Name() == "positive_ordered" {
						tol += 4 * 0x1p-52 * scale / gap
					} else {
						tol += 4 * 0x1p-52 * scale
					}
				}
				require.InDelta(t, u[i], u2[i], tol, "coordinate %d of u=%v (x=%v)", i, u, x)
			}
		}
		require.Less(t, skipped, len(us)/3)
	})
}

// Constrain(Unconstrain(x)) = x for valid x.
func TestVecBijectionRoundTripX(t *testing.T) {
	eachVB(t, func(t *testing.T, b VecBijection) {
		rng := rand.New(rand.NewPCG(12, uint64(b.K())))
		for rep := 0; rep < 50; rep++ {
			x := validX(b, rng)
			u := make([]float64, b.UDim())
			require.NoError(t, b.Unconstrain(x, u), "x=%v", x)
			x2, _ := constrain(b, u)
			for i := range x {
				require.InDelta(t, x[i], x2[i], 1e-12*math.Max(1, math.Abs(x[i])), "element %d of x=%v", i, x)
			}
		}
	})
}

// The constrained value satisfies its constraint for extreme u: strictly
// for |u| <= 20, and up to ties / underflow (never violated) for |u| up to
// 300.
func TestVecBijectionConstraintHolds(t *testing.T) {
	eachVB(t, func(t *testing.T, b VecBijection) {
		rng := rand.New(rand.NewPCG(13, uint64(b.K())))
		us := testUs(b, rng)
		for _, m := range []float64{50, 300} {
			for rep := 0; rep < 10; rep++ {
				u := make([]float64, b.UDim())
				for i := range u {
					u[i] = m * (2*rng.Float64() - 1)
					if rep%3 == 0 {
						u[i] = m * float64(1-2*(i%2))
					}
				}
				us = append(us, u)
			}
		}
		k := b.K()
		for _, u := range us {
			strict := true
			for _, v := range u {
				if math.Abs(v) > 20 {
					strict = false
				}
			}
			x, _ := constrain(b, u)
			for _, v := range x {
				require.False(t, math.IsNaN(v) || math.IsInf(v, 0), "x=%v at u=%v", x, u)
			}
			if orderedUnresolvable(b, u, x) {
				strict = false
			}
			switch b.Name() {
			case "simplex":
				s := 0.0
				for _, v := range x {
					require.GreaterOrEqual(t, v, 0.0)
					if strict {
						require.Greater(t, v, 0.0, "u=%v", u)
					}
					s += v
				}
				require.InDelta(t, 1, s, 1e-13, "sum of x=%v at u=%v", x, u)
			case "ordered", "positive_ordered":
				if b.Name() == "positive_ordered" {
					require.GreaterOrEqual(t, x[0], 0.0)
					if strict {
						require.Greater(t, x[0], 0.0)
					}
				}
				for i := 1; i < k; i++ {
					require.GreaterOrEqual(t, x[i], x[i-1])
					if strict {
						require.Greater(t, x[i], x[i-1], "u=%v", u)
					}
				}
			case "cholesky_factor_corr":
				for i := 0; i < k; i++ {
					s := 0.0
					for j := 0; j < k; j++ {
						v := x[i*k+j]
						if j > i {
							require.Equal(t, 0.0, v)
						}
						s += v * v
					}
					require.InDelta(t, 1, s, 1e-13, "row %d of x=%v at u=%v", i, x, u)
					require.GreaterOrEqual(t, x[i*k+i], 0.0)
					if strict {
						require.Greater(t, x[i*k+i], 0.0, "u=%v", u)
					}
				}
			}
			if strict {
				u2 := make([]float64, b.UDim())
				require.NoError(t, b.Unconstrain(x, u2))
			}
		}
	})
}

// fdU draws a coordinate of u for the finite-difference tests: normal with
// scale 0.5, 1 or 2 by rep, clipped to [-6, 6]. Further out the Jacobians
// are too ill-conditioned (entries e^{-2|u|} next to entries of order 1)
// for a finite-difference determinant to be accurate to 1e-6; the extreme
// values are covered by the round-trip and constraint tests.
func fdU(rng *rand.Rand, rep int) float64 {
	v := 0.5 * float64(int(1)<<(rep%3)) * rng.NormFloat64()
	return math.Max(-6, math.Min(6, v))
}

// log J against log |det| of the central-difference Jacobian of u -> the
// free coordinates of x.
func TestVecBijectionLogJacobian(t *testing.T) {
	eachVBStacked(t, func(t *testing.T, b VecBijection) {
		d := b.UDim()
		if d == 0 {
			_, lj := constrain(b, nil)
			require.Equal(t, 0.0, lj)
			return
		}
		rng := rand.New(rand.NewPCG(14, uint64(b.K())))
		for rep := 0; rep < 20; rep++ {
			u := make([]float64, d)
			for i := range u {
				u[i] = fdU(rng, rep)
			}
			_, lj := constrain(b, u)
			J := mat.NewDense(d, d, nil)
			for j := 0; j < d; j++ {
				// five-point central difference
				const h = 1e-3
				old := u[j]
				at := func(s float64) []float64 {
					u[j] = old + s*h
					x, _ := constrain(b, u)
					u[j] = old
					return freeCoords(b, x)
				}
				f2, f1, m1, m2 := at(2), at(1), at(-1), at(-2)
				for i := 0; i < d; i++ {
					J.Set(i, j, (-f2[i]+8*f1[i]-8*m1[i]+m2[i])/(12*h))
				}
			}
			ld, sign := mat.LogDet(J)
			require.NotZero(t, sign)
			require.InDelta(t, ld, lj, 1e-6, "u=%v", u)
		}
	})
}

// The op's Backward against central differences of a random linear
// functional c . out(u); Backward must add to din (not overwrite), skip a
// nil din, and neither Forward nor Backward may allocate. The same op on an
// autodiff graph (batch of 2) gives the same gradient.
func TestVecBijectionOpBackward(t *testing.T) {
	eachVBStacked(t, func(t *testing.T, b VecBijection) {
		d, n := b.UDim(), b.XLen()+1
		op := b.Op()
		rng := rand.New(rand.NewPCG(15, uint64(b.K())))
		for rep := 0; rep < 10; rep++ {
			u := make([]float64, d)
			for i := range u {
				u[i] = fdU(rng, rep)
			}
			c := make([]float64, n)
			for i := range c {
				c[i] = rng.NormFloat64()
			}
			out := make([]float64, n)
			f := func() float64 {
				op.Forward(out, [][]float64{u})
				s := 0.0
				for i := range out {
					s += c[i] * out[i]
				}
				return s
			}
			f()
			x, lj := constrain(b, u)
			require.Equal(t, x, out[:n-1])
			require.Equal(t, lj, out[n-1])
			prior := make([]float64, d)
			din := make([]float64, d)
			for i := range din {
				prior[i] = rng.NormFloat64()
				din[i] = prior[i]
			}
			op.Backward(out, c, [][]float64{u}, [][]float64{din})
			op.Backward(out, c, [][]float64{u}, [][]float64{nil})
			for j := 0; j < d; j++ {
				const h = 1e-3
				old := u[j]
				at := func(s float64) float64 {
					u[j] = old + s*h
					v := f()
					u[j] = old
					return v
				}
				num := (-at(2) + 8*at(1) - 8*at(-1) + at(-2)) / (12 * h)
				require.InDelta(t, num, din[j]-prior[j], 1e-6*math.Max(1, math.Abs(num)), "d/du[%d] at u=%v", j, u)
			}
			f()
			grad := make([]float64, d)
			for j := range grad {
				grad[j] = din[j] - prior[j]
			}
			in, dins := [][]float64{u}, [][]float64{din}
			require.Zero(t, testing.AllocsPerRun(10, func() { op.Forward(out, in) }))
			require.Zero(t, testing.AllocsPerRun(10, func() { op.Backward(out, c, in, dins) }))

			// on the tape
			g := autodiff.New()
			un := g.Input(d)
			y := g.Custom(op, n, un)
			obj := g.Dot(y, g.Const(c))
			g.Alloc(2)
			for bt := 0; bt < 2; bt++ {
				copy(g.Value(un, bt), u)
			}
			g.Forward(2)
			g.Backward(obj, 2)
			for bt := 0; bt < 2; bt++ {
				require.InDelta(t, f(), g.Value(obj, bt)[0], 1e-12*math.Max(1, math.Abs(f())))
				gr := g.Grad(un, bt)
				for j := 0; j < d; j++ {
					require.InDelta(t, grad[j], gr[j], 1e-12*math.Max(1, math.Abs(gr[j])))
				}
			}
		}
	})
}

// Change of variables: for an integrable f on the constrained set X,
// int_X f(x) dx = int_{R^d} f(T(u)) |det J_T(u)| du (x being the free
// coordinates). The right side is estimated by importance sampling with
// independent Student-t(3) proposals (heavier tails than every integrand
// here). A missing or wrong Jacobian term multiplies the integrand by a
// non-constant factor, which moves the integral far more than the
// Monte Carlo error allowed (4 standard errors, each under 1% of the
// answer):
//   - simplex[K], f = 1: the volume of {x_1..x_{K-1} >= 0, sum <= 1} is 1/(K-1)!;
//   - cholesky_factor_corr[K], f = 1: row i of the strictly lower triangle
//     ranges over the open unit ball in R^{i-1}, so the volume is the
//     product of the balls' volumes: 2 (K=2), 2 pi (K=3), 2 pi 4pi/3 (K=4);
//   - ordered[3], f = prod phi(x_k): P(X_1 < X_2 < X_3) for iid normals, 1/3! = 1/6;
//   - positive_ordered[3], f = prod exp(-x_k): likewise 1/6.
func TestVecBijectionVolume(t *testing.T) {
	one := func([]float64) float64 { return 1 }
	for _, c := range []struct {
		name  string
		k     int
		f     func(x []float64) float64
		want  float64
		scale float64
	}{
		{"simplex", 3, one, 0.5, 1.5},
		{"simplex", 4, one, 1.0 / 6, 1.5},
		{"cholesky_factor_corr", 2, one, 2, 1},
		{"cholesky_factor_corr", 3, one, 2 * math.Pi, 1},
		{"cholesky_factor_corr", 4, one, 2 * math.Pi * 4 * math.Pi / 3, 1},
		{"ordered", 3, func(x []float64) float64 {
			p := 1.0
			for _, v := range x {
				p *= math.Exp(-0.5*v*v) / math.Sqrt(2*math.Pi)
			}
			return p
		}, 1.0 / 6, 1.5},
		{"positive_ordered", 3, func(x []float64) float64 {
			s := 0.0
			for _, v := range x {
				s += v
			}
			return math.Exp(-s)
		}, 1.0 / 6, 1.5},
	} {
		mk, _ := LookupVecBijection(c.name)
		b := mk(c.k)
		rng := rand.New(rand.NewPCG(16, uint64(c.k)))
		d := b.UDim()
		u, x := make([]float64, d), make([]float64, b.XLen())
		const nu = 3.0
		lnorm := lgammaF((nu+1)/2) - lgammaF(nu/2) - 0.5*math.Log(nu*math.Pi) - math.Log(c.scale)
		const draws = 200000
		var s, s2 float64
		for it := 0; it < draws; it++ {
			lq := 0.0
			for i := range u {
				z := rng.NormFloat64()
				chi := 0.0
				for r := 0; r < int(nu); r++ {
					e := rng.NormFloat64()
					chi += e * e
				}
				tv := z / math.Sqrt(chi/nu)
				u[i] = c.scale * tv
				lq += lnorm - (nu+1)/2*math.Log1p(tv*tv/nu)
			}
			lj := b.Constrain(u, x)
			w := c.f(x) * math.Exp(lj-lq)
			s += w
			s2 += w * w
		}
		mean := s / draws
		se := math.Sqrt((s2/draws - mean*mean) / draws)
		require.Less(t, se, 0.01*c.want, "%s[%d]: standard error too large to test", c.name, c.k)
		require.InDelta(t, c.want, mean, 4*se, "%s[%d]: integral %g +- %g, want %g", c.name, c.k, mean, se, c.want)
	}
}

func lgammaF(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

func TestVecBijectionUnconstrainErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		name string
		k    int
		x    []float64
		msg  string
	}{
		{"simplex", 3, []float64{0.5, 0.6, -0.1}, "negative"},
		{"simplex", 3, []float64{0.2, 0.3, 0.4}, "sum"},
		{"simplex", 3, []float64{0.2, 0.3, 0.5 + 1e-7}, "sum"},
		{"simplex", 3, []float64{0.5, 0.5, 0}, "boundary"},
		{"simplex", 2, []float64{nan, 1}, "finite"},
		{"ordered", 3, []float64{1, 1, 2}, "not above"},
		{"ordered", 3, []float64{3, 2, 1}, "not above"},
		{"ordered", 2, []float64{-inf, 1}, "finite"},
		{"positive_ordered", 3, []float64{0, 1, 2}, "not positive"},
		{"positive_ordered", 3, []float64{-1, 1, 2}, "not positive"},
		{"positive_ordered", 3, []float64{1, 3, 2}, "not above"},
		{"cholesky_factor_corr", 2, []float64{1, 1e-3, 0.6, 0.8}, "above the diagonal"},
		{"cholesky_factor_corr", 2, []float64{1, 0, 0.6, -0.8}, "not positive"},
		{"cholesky_factor_corr", 2, []float64{1, 0, 1, 0}, "not positive"},
		{"cholesky_factor_corr", 2, []float64{1, 0, 0.6, 0.7}, "squared length"},
		{"cholesky_factor_corr", 2, []float64{0.9, 0, 0.6, 0.8}, "squared length"},
		{"cholesky_factor_corr", 2, []float64{1, 0, 0.6, nan}, "finite"},
	} {
		mk, _ := LookupVecBijection(c.name)
		b := mk(c.k)
		err := b.Unconstrain(c.x, make([]float64, b.UDim()))
		require.Error(t, err, "%s[%d] %v", c.name, c.k, c.x)
		require.Contains(t, err.Error(), c.msg)
	}
	// within the tolerances: accepted
	for _, c := range []struct {
		name string
		k    int
		x    []float64
	}{
		{"simplex", 3, []float64{0.2, 0.3, 0.5 + 1e-9}},
		{"cholesky_factor_corr", 2, []float64{1, 0, 0.6, 0.8 + 1e-9}},
	} {
		mk, _ := LookupVecBijection(c.name)
		b := mk(c.k)
		require.NoError(t, b.Unconstrain(c.x, make([]float64, b.UDim())))
	}
}

// All four Jacobians (u -> free coordinates) are lower triangular, which is
// how Stan derives log J. That lets log J be checked at larger |u| (up to
// 15 for simplex, 7 for cholesky_factor_corr, whose entries near +-1
// cannot resolve a step of h sech(u)^2 beyond that) than the full
// determinant allows: the finite-difference Jacobian must
// vanish above the diagonal and the sum of log |diagonal| must match log J
// (to 1e-6 relative: the diagonal entries are computed to relative
// accuracy even where they are e^{-30}). Only simplex and
// cholesky_factor_corr: for ordered vectors at this range a finite
// difference of x_k = x_{k-1} + exp(u_k) cannot resolve exp(u_k) next to a
// large x_{k-1}, and their log J (a sum of u) has no numerics to test.
func TestVecBijectionTriangularJacobian(t *testing.T) {
	eachVB(t, func(t *testing.T, b VecBijection) {
		if b.Name() == "ordered" || b.Name() == "positive_ordered" {
			return
		}
		d := b.UDim()
		span := 30.0
		if b.Name() == "cholesky_factor_corr" {
			span = 14 // L_ij near +-1 is held to absolute precision only
		}
		rng := rand.New(rand.NewPCG(17, uint64(b.K())))
		for rep := 0; rep < 20; rep++ {
			u := make([]float64, d)
			for i := range u {
				u[i] = span * (rng.Float64() - 0.5)
			}
			x, lj := constrain(b, u)
			x0 := freeCoords(b, x)
			sum := 0.0
			for j := 0; j < d; j++ {
				// a step relative to the scale on which coordinate j moves
				h := 1e-4 / (1 + math.Abs(u[j]))
				old := u[j]
				at := func(s float64) []float64 {
					u[j] = old + s*h
					x, _ := constrain(b, u)
					u[j] = old
					return freeCoords(b, x)
				}
				f2, f1, m1, m2 := at(2), at(1), at(-1), at(-2)
				for i := 0; i < j; i++ {
					require.True(t, f2[i] == x0[i] && f1[i] == x0[i] && m1[i] == x0[i] && m2[i] == x0[i], "J[%d][%d] at u=%v", i, j, u)
				}
				djj := (-f2[j] + 8*f1[j] - 8*m1[j] + m2[j]) / (12 * h)
				sum += math.Log(math.Abs(djj))
			}
			require.InDelta(t, sum, lj, 1e-6*math.Max(1, math.Abs(lj)), "u=%v", u)
		}
	})
}

// Far out (|u| = 1000, where inv_logit and 1 - tanh^2 underflow) log J stays
// finite and exact: for simplex[2], log J = log inv_logit(u) + log
// inv_logit(-u) = -|u| - 2 log1p(exp(-|u|)); for cholesky_factor_corr[2],
// log J = log(1 - tanh(u)^2) = 2 (log 2 - |u| - log1p(exp(-2|u|))).
func TestVecBijectionLogJacobianFarOut(t *testing.T) {
	for _, u := range []float64{-1000, -40, 40, 1000} {
		a := math.Abs(u)
		x := make([]float64, 2)
		lj := Simplex{N: 2}.Constrain([]float64{u}, x)
		require.InDelta(t, -a-2*math.Log1p(math.Exp(-a)), lj, 1e-9*a, "simplex[2] at %g", u)
		require.InDelta(t, 1, x[0]+x[1], 1e-15)
		xc := make([]float64, 4)
		lj = CholeskyCorr{N: 2}.Constrain([]float64{u}, xc)
		require.InDelta(t, 2*(math.Ln2-a-math.Log1p(math.Exp(-2*a))), lj, 1e-9*a, "cholesky_factor_corr[2] at %g", u)
	}
}
