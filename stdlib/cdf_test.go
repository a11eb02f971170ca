package stdlib

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestLogCDFs: each NAME_lcdf and NAME_lccdf against gonum's CDF (or a
// closed form), its partial derivatives against finite differences, and
// the values below the support and outside the parameters' domains.
func TestLogCDFs(t *testing.T) {
	cases := []struct {
		name string
		cdf  func(a []float64) float64
		at   [][]float64
	}{
		{"std_normal", func(a []float64) float64 { return distuv.UnitNormal.CDF(a[0]) }, [][]float64{{-3}, {0.2}, {2.5}}},
		{"exponential", func(a []float64) float64 { return distuv.Exponential{Rate: a[1]}.CDF(a[0]) }, [][]float64{{0.3, 2}, {4, 0.5}}},
		{"weibull", func(a []float64) float64 { return distuv.Weibull{K: a[1], Lambda: a[2]}.CDF(a[0]) }, [][]float64{{0.5, 1.5, 2}, {3, 0.7, 1}}},
		{"lognormal", func(a []float64) float64 { return distuv.LogNormal{Mu: a[1], Sigma: a[2]}.CDF(a[0]) }, [][]float64{{0.5, 0.2, 1}, {4, 1, 0.5}}},
		{"logistic", func(a []float64) float64 { return 1 / (1 + math.Exp(-(a[0]-a[1])/a[2])) }, [][]float64{{-2, 0, 1}, {3, 1, 0.5}}},
		{"gumbel", func(a []float64) float64 { return distuv.GumbelRight{Mu: a[1], Beta: a[2]}.CDF(a[0]) }, [][]float64{{-1, 0, 1}, {4, 1, 2}}},
		{"cauchy", func(a []float64) float64 { return 0.5 + math.Atan((a[0]-a[1])/a[2])/math.Pi }, [][]float64{{-3, 0, 1}, {2, 1, 0.5}}},
		{"rayleigh", func(a []float64) float64 { return distuv.Weibull{K: 2, Lambda: a[1] * math.Sqrt2}.CDF(a[0]) }, [][]float64{{0.4, 1}, {3, 1.5}}},
		{"pareto", func(a []float64) float64 { return distuv.Pareto{Xm: a[1], Alpha: a[2]}.CDF(a[0]) }, [][]float64{{1.5, 1, 2}, {10, 2, 0.7}}},
	}
	for _, c := range cases {
		lcdf, ok := lookupNary(c.name + "_lcdf")
		require.True(t, ok, c.name)
		lccdf, ok := lookupNary(c.name + "_lccdf")
		require.True(t, ok, c.name)
		for _, a := range c.at {
			p := c.cdf(a)
			relClose(t, math.Log(p), lcdf.Eval(a), 1e-12, "%s_lcdf%v", c.name, a)
			relClose(t, math.Log1p(-p), lccdf.Eval(a), 1e-9, "%s_lccdf%v", c.name, a)
			fdNary(t, lcdf, append([]float64(nil), a...), 1e-6)
			fdNary(t, lccdf, append([]float64(nil), a...), 1e-6)
		}
	}
	get := func(name string) *NaryFunc { f, _ := lookupNary(name); return f }
	d := make([]float64, 3)
	require.True(t, math.IsInf(get("exponential_lcdf").Grad([]float64{-1, 2}, d), -1), "below the support")
	require.Equal(t, 0.0, get("exponential_lccdf").Grad([]float64{-1, 2}, d))
	require.Equal(t, 0.0, get("pareto_lccdf").Eval([]float64{0.5, 1, 2}))
	require.True(t, math.IsInf(get("weibull_lcdf").Grad([]float64{1, -1, 1}, d), -1), "a shape below 0")
	require.Equal(t, []float64{0, 0, 0}, d)
	require.True(t, math.IsNaN(get("logistic_lcdf").Eval([]float64{math.NaN(), 0, 1})))
	// far tails stay finite where the CDF itself would round to 0 or 1
	require.InDelta(t, -1e4, get("exponential_lccdf").Eval([]float64{1e4, 1}), 1e-9)
	require.InDelta(t, -40, get("logistic_lcdf").Eval([]float64{-40, 0, 1}), 1e-12)
}
