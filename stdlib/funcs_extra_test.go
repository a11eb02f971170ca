package stdlib

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExtraElemFuncs: the values against the math package's or an
// independent form, the derivatives against central finite differences
// (away from the step functions' jumps, where they are 0).
func TestExtraElemFuncs(t *testing.T) {
	cases := []struct {
		name string
		ref  func(float64) float64
		xs   []float64
	}{
		{"logit", func(x float64) float64 { return -math.Log(1/x - 1) }, []float64{0.01, 0.3, 0.5, 0.9}},
		{"erf", func(x float64) float64 { return 1 - math.Erfc(x) }, []float64{-2, -0.3, 0.1, 1.5}},
		{"erfc", func(x float64) float64 { return 1 - math.Erf(x) }, []float64{-2, -0.3, 0.1, 1.5}},
		{"tgamma", func(x float64) float64 { l, s := math.Lgamma(x); return float64(s) * math.Exp(l) }, []float64{-1.5, 0.3, 2.5, 7}},
		{"log2", func(x float64) float64 { return math.Log(x) / math.Ln2 }, []float64{0.1, 1, 8, 100}},
		{"log10", func(x float64) float64 { return math.Log(x) / math.Ln10 }, []float64{0.1, 1, 8, 100}},
		{"exp2", func(x float64) float64 { return math.Pow(2, x) }, []float64{-3, 0, 0.5, 10}},
		{"cbrt", func(x float64) float64 { return math.Copysign(math.Pow(math.Abs(x), 1.0/3), x) }, []float64{-8, -0.2, 0.3, 27}},
		{"inv_sqrt", func(x float64) float64 { return math.Pow(x, -0.5) }, []float64{0.1, 1, 9}},
		{"inv_square", func(x float64) float64 { return math.Pow(x, -2) }, []float64{-2, 0.1, 3}},
		{"sin", func(x float64) float64 { return math.Cos(x - math.Pi/2) }, []float64{-2, 0.3, 4}},
		{"cos", func(x float64) float64 { return math.Sin(x + math.Pi/2) }, []float64{-2, 0.3, 4}},
		{"tan", func(x float64) float64 { return math.Sin(x) / math.Cos(x) }, []float64{-1.2, 0.3, 1}},
		{"asin", func(x float64) float64 { return math.Atan(x / math.Sqrt(1-x*x)) }, []float64{-0.9, 0.1, 0.6}},
		{"acos", func(x float64) float64 { return math.Pi/2 - math.Asin(x) }, []float64{-0.9, 0.1, 0.6}},
		{"atan", func(x float64) float64 { return math.Asin(x / math.Sqrt(1+x*x)) }, []float64{-3, 0.2, 5}},
		{"sinh", func(x float64) float64 { return (math.Exp(x) - math.Exp(-x)) / 2 }, []float64{-2, 0.3, 3}},
		{"cosh", func(x float64) float64 { return (math.Exp(x) + math.Exp(-x)) / 2 }, []float64{-2, 0.3, 3}},
		{"tanh", func(x float64) float64 { return math.Expm1(2*x) / (math.Exp(2*x) + 1) }, []float64{-2, 0.3, 3}},
		{"asinh", func(x float64) float64 { return math.Log(x + math.Sqrt(x*x+1)) }, []float64{-2, 0.3, 3}},
		{"acosh", func(x float64) float64 { return math.Log(x + math.Sqrt(x*x-1)) }, []float64{1.5, 3, 20}},
		{"atanh", func(x float64) float64 { return 0.5 * math.Log((1+x)/(1-x)) }, []float64{-0.9, 0.2, 0.7}},
		{"step", func(x float64) float64 { return b2f(x >= 0) }, []float64{-2, -0.1, 0.3, 5}},
		{"floor", func(x float64) float64 { return float64(int(x+100) - 100) }, []float64{-2.5, -0.1, 0.3, 5.7}},
		{"ceil", func(x float64) float64 { return -math.Floor(-x) }, []float64{-2.5, -0.1, 0.3, 5.7}},
		{"round", func(x float64) float64 { return math.Copysign(math.Floor(math.Abs(x)+0.5), x) }, []float64{-2.4, -0.1, 0.3, 5.7}},
		{"trunc", func(x float64) float64 { return float64(int(x)) }, []float64{-2.5, -0.1, 0.3, 5.7}},
	}
	for _, c := range cases {
		e, ok := lookupElem(c.name)
		require.True(t, ok, c.name)
		y, dx, dy := make([]float64, len(c.xs)), make([]float64, len(c.xs)), make([]float64, len(c.xs))
		e.Eval(y, c.xs)
		for i := range dy {
			dy[i] = 1
		}
		e.Deriv(dx, dy, y, c.xs)
		one := []float64{0}
		val := func(x float64) float64 { e.Eval(one, []float64{x}); return one[0] }
		for i, x := range c.xs {
			require.InDeltaf(t, c.ref(x), y[i], 1e-13*math.Max(1, math.Abs(y[i])), "%s(%g)", c.name, x)
			h := 1e-6 * math.Max(1, math.Abs(x))
			relClose(t, (val(x+h)-val(x-h))/(2*h), dx[i], 1e-6, "%s'(%g)", c.name, x)
		}
	}
}

// TestExtraNaryFuncs: values against independent forms, partial
// derivatives against finite differences, and the edge conventions.
func TestExtraNaryFuncs(t *testing.T) {
	lg := func(x float64) float64 { l, _ := math.Lgamma(x); return l }
	cases := []struct {
		name string
		ref  func(a []float64) float64
		at   [][]float64
	}{
		{"lbeta", func(a []float64) float64 { return lg(a[0]) + lg(a[1]) - lg(a[0]+a[1]) }, [][]float64{{2, 3}, {0.3, 7.5}, {40, 2}}},
		{"lchoose", func(a []float64) float64 { return math.Log(binom(a[0], a[1])) }, [][]float64{{5, 2}, {10, 7}, {30, 15}}},
		{"lmultiply", func(a []float64) float64 { return math.Log(math.Pow(a[1], a[0])) }, [][]float64{{2, 3}, {0.5, 0.1}}},
		{"log_diff_exp", func(a []float64) float64 { return math.Log(math.Exp(a[0]) - math.Exp(a[1])) }, [][]float64{{2, 1}, {0, -3}, {-1, -1.01}}},
		{"hypot", func(a []float64) float64 { return math.Sqrt(a[0]*a[0] + a[1]*a[1]) }, [][]float64{{3, 4}, {-1, 0.2}}},
		{"fdim", func(a []float64) float64 { return math.Max(0, a[0]-a[1]) }, [][]float64{{3, 1}, {1, 3}}},
		{"atan2", func(a []float64) float64 { return math.Atan(a[0] / a[1]) }, [][]float64{{1, 2}, {-0.5, 3}}},
		{"fma", func(a []float64) float64 { return a[0]*a[1] + a[2] }, [][]float64{{1.5, 2, -3}, {0.1, 7, 2}}},
	}
	for _, c := range cases {
		f, ok := lookupNary(c.name)
		require.True(t, ok, c.name)
		for _, a := range c.at {
			relClose(t, c.ref(a), f.Eval(a), 1e-12, "%s%v", c.name, a)
			fdNary(t, f, append([]float64(nil), a...), 1e-6)
		}
	}
	lm, _ := lookupNary("lmultiply")
	d := make([]float64, 2)
	require.Equal(t, 0.0, lm.Grad([]float64{0, 0}, d), "0 log 0 is 0")
	ld, _ := lookupNary("log_diff_exp")
	require.Equal(t, 2.0, ld.Eval([]float64{2, math.Inf(-1)}))
	require.True(t, math.IsInf(ld.Eval([]float64{1, 1}), -1))
}

func binom(n, k float64) float64 {
	r := 1.0
	for i := 1.0; i <= k; i++ {
		r *= (n - k + i) / i
	}
	return r
}
