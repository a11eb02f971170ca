package stdlib

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// The families of dist_extra.go join the reference cases (log density
// against gonum or an independent closed form, gradient against finite
// differences).
func init() {
	nb := func(x, mu, phi float64) float64 { // through the success probability
		q := phi / (mu + phi)
		lg := func(v float64) float64 { l, _ := math.Lgamma(v); return l }
		return lg(x+phi) - lg(phi) - lg(x+1) + phi*math.Log(q) + x*math.Log1p(-q)
	}
	refCases = append(refCases, []struct {
		family string
		params [][]float64
		xs     []float64
		ref    func(x float64, p []float64) float64
	}{
		{"std_normal", [][]float64{{}}, []float64{-30, -1.5, 0, 0.3, 4},
			func(x float64, _ []float64) float64 { return distuv.UnitNormal.LogProb(x) }},
		{"uniform", [][]float64{{0, 1}, {-3, 10}, {2, 2.5}}, []float64{0.2, 0.7, 2.2, 2.4},
			func(x float64, p []float64) float64 { return distuv.Uniform{Min: p[0], Max: p[1]}.LogProb(x) }},
		{"neg_binomial_2", [][]float64{{3, 2}, {0.5, 10}, {40, 0.7}}, []float64{0, 1, 4, 60},
			func(x float64, p []float64) float64 { return nb(x, p[0], p[1]) }},
		{"neg_binomial_2_log", [][]float64{{1, 2}, {-2, 10}, {4, 0.7}}, []float64{0, 1, 4, 60},
			func(x float64, p []float64) float64 { return nb(x, math.Exp(p[0]), p[1]) }},
		{"beta_binomial", [][]float64{{10, 2, 3}, {1, 0.5, 0.5}, {40, 7, 1.5}}, []float64{0, 1, 6},
			func(x float64, p []float64) float64 {
				if x > p[0] {
					return math.Inf(-1)
				}
				lc := -math.Log(p[0]+1) - mathext.Lbeta(p[0]-x+1, x+1)
				return lc + mathext.Lbeta(x+p[1], p[0]-x+p[2]) - mathext.Lbeta(p[1], p[2])
			}},
		{"chi_square", [][]float64{{1}, {3}, {25}}, []float64{0.01, 0.8, 4, 40},
			func(x float64, p []float64) float64 { return distuv.ChiSquared{K: p[0]}.LogProb(x) }},
		{"inv_chi_square", [][]float64{{1}, {3}, {25}}, []float64{0.01, 0.8, 4, 40},
			func(x float64, p []float64) float64 {
				return distuv.InverseGamma{Alpha: p[0] / 2, Beta: 0.5}.LogProb(x)
			}},
		{"scaled_inv_chi_square", [][]float64{{1, 1}, {3, 0.5}, {25, 2}}, []float64{0.01, 0.8, 4, 40},
			func(x float64, p []float64) float64 {
				return distuv.InverseGamma{Alpha: p[0] / 2, Beta: p[0] * p[1] * p[1] / 2}.LogProb(x)
			}},
		{"gumbel", [][]float64{{0, 1}, {2, 0.3}, {-5, 4}}, []float64{-6, -1, 0.4, 3, 20},
			func(x float64, p []float64) float64 { return distuv.GumbelRight{Mu: p[0], Beta: p[1]}.LogProb(x) }},
		{"pareto", [][]float64{{1, 2}, {0.3, 0.5}, {2, 7}}, []float64{0.35, 1.5, 2.5, 40},
			func(x float64, p []float64) float64 { return distuv.Pareto{Xm: p[0], Alpha: p[1]}.LogProb(x) }},
		{"frechet", [][]float64{{1, 1}, {3, 0.5}, {0.7, 4}}, []float64{0.05, 0.8, 3, 50},
			func(x float64, p []float64) float64 { // 1/X is Weibull(alpha, 1/sigma)
				return distuv.Weibull{K: p[0], Lambda: 1 / p[1]}.LogProb(1/x) - 2*math.Log(x)
			}},
		{"rayleigh", [][]float64{{1}, {0.3}, {5}}, []float64{0.01, 0.4, 2, 15},
			func(x float64, p []float64) float64 {
				return distuv.Weibull{K: 2, Lambda: p[0] * math.Sqrt2}.LogProb(x)
			}},
	}...)
}

func TestExtraFamiliesEdgeCases(t *testing.T) {
	lp := func(name string, x float64, p ...float64) float64 {
		f, ok := Lookup(name)
		require.True(t, ok, name)
		dp := make([]float64, len(p))
		v, _ := f.Grad(x, p, dp)
		if w := f.LogPdf(x, p); !math.IsNaN(w) || !math.IsNaN(v) {
			require.Equal(t, w, v)
		}
		if math.IsInf(v, -1) {
			require.Equal(t, make([]float64, len(p)), dp, "%s: zero gradient at -Inf", name)
		}
		return v
	}
	inf := math.Inf(1)
	for _, c := range []struct {
		name string
		x    float64
		p    []float64
	}{
		{"uniform", -0.1, []float64{0, 1}}, {"uniform", 1.1, []float64{0, 1}}, {"uniform", 0.5, []float64{1, 0}},
		{"uniform", 0.5, []float64{0, inf}}, {"neg_binomial_2", -1, []float64{1, 1}}, {"neg_binomial_2", 1.5, []float64{1, 1}},
		{"neg_binomial_2", 1, []float64{0, 1}}, {"neg_binomial_2", 1, []float64{1, -1}}, {"neg_binomial_2_log", 1, []float64{inf, 1}},
		{"neg_binomial_2_log", 2, []float64{1, 0}}, {"beta_binomial", 4, []float64{3, 1, 1}}, {"beta_binomial", 1, []float64{3, 0, 1}},
		{"beta_binomial", 1, []float64{2.5, 1, 1}}, {"chi_square", 0, []float64{2}}, {"chi_square", 1, []float64{0}},
		{"inv_chi_square", -1, []float64{2}}, {"scaled_inv_chi_square", 1, []float64{2, 0}}, {"gumbel", 1, []float64{0, 0}},
		{"gumbel", inf, []float64{0, 1}}, {"pareto", 0.5, []float64{1, 2}}, {"pareto", 2, []float64{0, 2}},
		{"frechet", 0, []float64{1, 1}}, {"frechet", 1, []float64{-1, 1}}, {"rayleigh", 0, []float64{1}}, {"rayleigh", -1, []float64{1}},
	} {
		require.Truef(t, math.IsInf(lp(c.name, c.x, c.p...), -1), "%s(%v) at %g", c.name, c.p, c.x)
	}
	require.True(t, math.IsNaN(lp("uniform", math.NaN(), 0, 1)))
	require.Equal(t, -math.Log(4), lp("uniform", 3, 1, 5))
	require.Equal(t, -math.Log(4), lp("uniform", 1, 1, 5), "the support includes its ends")
	// neg_binomial_2_log with a huge log mean has no NaN and matches the
	// Poisson-like limit's order
	require.False(t, math.IsNaN(lp("neg_binomial_2_log", 3, 800, 2)))
	// a large dispersion approaches the Poisson
	require.InDelta(t, distuv.Poisson{Lambda: 3}.LogProb(2), lp("neg_binomial_2", 2, 3, 1e9), 1e-7)
}

// TestRandMomentsExtra checks the samplers of dist_extra.go (see
// checkRandMoments).
func TestRandMomentsExtra(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const euler = 0.5772156649015329
	cases := []momentCase{
		{"std_normal", nil, 0, 1},
		{"uniform", []float64{-1, 3}, 1, 16.0 / 12},
		{"neg_binomial_2", []float64{4, 2}, 4, 4 + 16.0/2},
		{"neg_binomial_2_log", []float64{math.Log(3), 5}, 3, 3 + 9.0/5},
		{"beta_binomial", []float64{10, 2, 3}, 4, 10 * 2 * 3 * (2 + 3 + 10) / (25.0 * 6)},
		{"chi_square", []float64{5}, 5, 10},
		{"inv_chi_square", []float64{9}, 1.0 / 7, 2.0 / (49 * 5)},
		{"scaled_inv_chi_square", []float64{9, 0.5}, 9 * 0.25 / 7, 2 * 81 * 0.0625 / (49 * 5)},
		{"gumbel", []float64{1, 2}, 1 + 2*euler, math.Pi * math.Pi * 4 / 6},
		{"pareto", []float64{2, 5}, 2.5, 4 * 5 / (16.0 * 3)},
		{"frechet", []float64{5, 2}, 2 * math.Gamma(0.8), 4 * (math.Gamma(0.6) - math.Gamma(0.8)*math.Gamma(0.8))},
		{"rayleigh", []float64{1.5}, 1.5 * math.Sqrt(math.Pi/2), (4 - math.Pi) / 2 * 2.25},
	}
	checkRandMoments(t, rng, cases)
}
