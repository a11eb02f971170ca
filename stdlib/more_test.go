package stdlib

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mscppl/mscppl/stdlib/special"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// The families of dist_more.go join the reference cases, so that
// TestLogPdfAgainstReference and TestGradientsAgainstFiniteDifferences
// check their log densities and gradients.
func init() {
	refCases = append(refCases, []struct {
		family string
		params [][]float64
		xs     []float64
		ref    func(x float64, p []float64) float64
	}{
		{"inv_gamma", [][]float64{{2, 1}, {0.5, 3}, {30, 0.2}}, []float64{1e-3, 0.3, 4, 500},
			func(x float64, p []float64) float64 { return distuv.InverseGamma{Alpha: p[0], Beta: p[1]}.LogProb(x) }},
		{"logistic", [][]float64{{0, 1}, {2, 0.1}, {-3, 5}}, []float64{-30, -1, 0.3, 2, 25},
			func(x float64, p []float64) float64 {
				// closed form (distuv.Logistic's LogProb ignores Mu and S)
				z := (x - p[0]) / p[1]
				return -z - math.Log(p[1]) - 2*math.Log(1+math.Exp(-z))
			}},
		{"double_exponential", [][]float64{{0, 1}, {2, 0.1}, {-3, 5}}, []float64{-30, -1, 0.3, 2.5, 25},
			func(x float64, p []float64) float64 { return distuv.Laplace{Mu: p[0], Scale: p[1]}.LogProb(x) }},
		{"weibull", [][]float64{{1.5, 2}, {0.5, 1}, {1, 3}, {7, 0.4}}, []float64{1e-2, 0.3, 1, 4.5},
			func(x float64, p []float64) float64 { return distuv.Weibull{K: p[0], Lambda: p[1]}.LogProb(x) }},
		{"poisson_log", [][]float64{{1}, {-4}, {6}}, []float64{0, 1, 5, 480},
			func(x float64, p []float64) float64 { return distuv.Poisson{Lambda: math.Exp(p[0])}.LogProb(x) }},
		{"binomial_logit", [][]float64{{10, 0.3}, {1, -2}, {100, 4}}, []float64{0, 1, 7},
			func(x float64, p []float64) float64 {
				if x > p[0] {
					return math.Inf(-1)
				}
				return distuv.Binomial{N: p[0], P: 1 / (1 + math.Exp(-p[1]))}.LogProb(x)
			}},
	}...)
}

func TestMoreFamiliesEdgeCases(t *testing.T) {
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
	inf := math.Inf(-1)
	for _, c := range []struct {
		name string
		x    float64
		p    []float64
	}{
		{"inv_gamma", 0, []float64{1, 1}}, {"inv_gamma", -1, []float64{1, 1}}, {"inv_gamma", 1, []float64{0, 1}},
		{"inv_gamma", 1, []float64{1, -1}}, {"logistic", 0, []float64{0, 0}}, {"logistic", math.Inf(1), []float64{0, 1}},
		{"double_exponential", 0, []float64{0, -1}}, {"weibull", -1, []float64{1, 1}}, {"weibull", 1, []float64{0, 1}},
		{"weibull", 0, []float64{2, 1}}, {"poisson_log", -1, []float64{0}}, {"poisson_log", 0.5, []float64{0}},
		{"poisson_log", 1, []float64{inf}}, {"poisson_log", 1, []float64{math.Inf(1)}}, {"binomial_logit", 3, []float64{2, 0}},
		{"binomial_logit", 1, []float64{1.5, 0}}, {"binomial_logit", 1, []float64{2, math.Inf(1)}},
	} {
		require.Truef(t, math.IsInf(lp(c.name, c.x, c.p...), -1), "%s(%v) at %g", c.name, c.p, c.x)
	}
	require.True(t, math.IsNaN(lp("weibull", math.NaN(), 1, 1)))
	require.Equal(t, 0.0, lp("poisson_log", 0, inf))
	require.InDelta(t, -math.Log(3), lp("weibull", 0, 1, 3), 1e-15)
	// far tails, against closed forms that are exact there
	require.InDelta(t, -800-2*math.Exp(-800)-math.Log(2), lp("logistic", 1600, 0, 2), 1e-12)
	require.InDelta(t, -800-math.Log(2), lp("logistic", -1600, 0, 2), 1e-12)
	// binomial_logit keeps its precision where inv_logit rounds to 1
	require.InDelta(t, -5*math.Log1p(math.Exp(40)), lp("binomial_logit", 0, 5, 40), 1e-9)
	require.InDelta(t, -5*math.Log1p(math.Exp(-40)), lp("binomial_logit", 5, 5, 40), 1e-25)
	// poisson_log with a huge log rate has no NaN
	require.False(t, math.IsNaN(lp("poisson_log", 3, 800)))
}

// momentCase is a family's parameters and its exact mean and variance.
type momentCase struct {
	family   string
	p        []float64
	mean, vr float64
}

// checkRandMoments checks each sampler's mean and variance against the
// exact moments within 5 Monte Carlo standard errors of 200000 draws (the
// variance's standard error from the sample's fourth central moment).
func checkRandMoments(t *testing.T, rng *rand.Rand, cases []momentCase) {
	t.Helper()
	const n = 200000
	xs := make([]float64, n)
	for _, tc := range cases {
		f, ok := Lookup(tc.family)
		require.True(t, ok, tc.family)
		s := 0.0
		for i := range xs {
			xs[i] = f.Rand(rng, tc.p)
			s += xs[i]
		}
		m := s / n
		var m2, m4 float64
		for _, x := range xs {
			d := (x - m) * (x - m)
			m2 += d
			m4 += d * d
		}
		m2 /= n
		m4 /= n
		require.InDeltaf(t, tc.mean, m, 5*math.Sqrt(tc.vr/n), "%s mean", tc.family)
		require.InDeltaf(t, tc.vr, m2, 5*math.Sqrt((m4-m2*m2)/n), "%s variance", tc.family)
	}
}

// TestRandMomentsMore checks the samplers of dist.go and dist_more.go (see
// checkRandMoments).
func TestRandMomentsMore(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	g := func(x float64) float64 { return math.Gamma(x) }
	ql := special.InvLogit(0.4)
	w1, w2 := 2*g(1+1/1.5), 4*(g(1+2/1.5)-g(1+1/1.5)*g(1+1/1.5))
	ln := struct{ m, v float64 }{math.Exp(0.2 + 0.08), (math.Exp(0.16) - 1) * math.Exp(0.4+0.16)}
	cases := []momentCase{
		{"inv_gamma", []float64{6, 2}, 0.4, 0.04},
		{"logistic", []float64{1, 2}, 1, 4 * math.Pi * math.Pi / 3},
		{"double_exponential", []float64{-1, 0.5}, -1, 0.5},
		{"weibull", []float64{1.5, 2}, w1, w2},
		{"poisson_log", []float64{math.Log(4)}, 4, 4},
		{"binomial_logit", []float64{20, 0.4}, 20 * ql, 20 * ql * (1 - ql)},
		{"binomial", []float64{10, 0.3}, 3, 2.1},
		{"student_t", []float64{10, 1, 2}, 1, 5},
		{"lognormal", []float64{0.2, 0.4}, ln.m, ln.v},
		{"beta", []float64{2, 3}, 0.4, 6.0 / (25 * 6)},
		{"gamma", []float64{3, 2}, 1.5, 0.75},
		{"exponential", []float64{2}, 0.5, 0.25},
	}
	checkRandMoments(t, rng, cases)
	const n = 200000
	// cauchy has no moments: the fraction below loc + scale is 3/4
	f, _ := Lookup("cauchy")
	c := 0
	for i := 0; i < n; i++ {
		if f.Rand(rng, []float64{1, 2}) < 3 {
			c++
		}
	}
	require.InDelta(t, 0.75, float64(c)/n, 5*math.Sqrt(0.75*0.25/n))
}

func TestElemFuncsMore(t *testing.T) {
	cases := []struct {
		name string
		ref  func(float64) float64
		xs   []float64
	}{
		{"inv", func(x float64) float64 { return 1 / x }, []float64{-3, -0.1, 0.5, 7}},
		{"Phi_approx", func(x float64) float64 { return 1 / (1 + math.Exp(-(0.07056*x*x*x + 1.5976*x))) }, []float64{-4, -1, 0, 0.7, 3}},
		{"inv_cloglog", func(x float64) float64 { return 1 - math.Exp(-math.Exp(x)) }, []float64{-3, -0.5, 0, 1, 2}},
		{"log1m", func(x float64) float64 { return math.Log(1 - x) }, []float64{-5, -0.2, 0, 0.3, 0.99}},
		{"log1m_exp", func(x float64) float64 { return math.Log(1 - math.Exp(x)) }, []float64{-20, -2, -0.7, -0.6, -0.01}},
		{"log1m_inv_logit", func(x float64) float64 { return -x - math.Log1p(math.Exp(-x)) }, []float64{-10, -1, 0, 2, 15}},
		{"digamma", nil, []float64{-2.5, -0.3, 0.1, 1, 3.7, 40}},
		{"abs", math.Abs, []float64{-2, 0.4}},
		{"square", func(x float64) float64 { return x * x }, []float64{-2, 0.4}},
		{"lgamma", func(x float64) float64 { v, _ := math.Lgamma(x); return v }, []float64{0.3, 2, 50}},
		{"log_inv_logit", func(x float64) float64 { return math.Log(1 / (1 + math.Exp(-x))) }, []float64{-10, 0, 3}},
	}
	for _, c := range cases {
		e, ok := lookupElem(c.name)
		require.True(t, ok, c.name)
		y := make([]float64, len(c.xs))
		e.Eval(y, c.xs)
		dx := make([]float64, len(c.xs))
		dy := make([]float64, len(c.xs))
		for i := range dy {
			dy[i] = 1
		}
		e.Deriv(dx, dy, y, c.xs)
		one := []float64{0}
		val := func(x float64) float64 {
			e.Eval(one, []float64{x})
			return one[0]
		}
		for i, x := range c.xs {
			if c.ref != nil {
				relClose(t, c.ref(x), y[i], 1e-12, "%s(%g)", c.name, x)
			}
			h := 1e-6 * math.Max(1, math.Abs(x))
			fd := (val(x+h) - val(x-h)) / (2 * h)
			relClose(t, fd, dx[i], 1e-6, "%s'(%g)", c.name, x)
		}
		allocs := testing.AllocsPerRun(10, func() { e.Eval(y, c.xs); e.Deriv(dx, dy, y, c.xs) })
		require.Zero(t, allocs, c.name)
	}
	// accuracy where the naive forms lose it
	require.InDelta(t, math.Exp(-40), special.InvCloglog(-40), 1e-30)
	require.InDelta(t, math.Log(1e-12), special.Log1mExp(-1e-12), 1e-9)
	require.InDelta(t, -math.Exp(-50), special.Log1mExp(-50), 1e-35)
	require.True(t, math.IsNaN(special.Log1mExp(0.1)))
	require.True(t, math.IsInf(special.Log1mExp(0), -1))
	// digamma and trigamma at known values
	const euler = 0.57721566490153286061
	require.InDelta(t, -euler, digamma(1), 1e-14)
	require.InDelta(t, -euler-2*math.Ln2, digamma(0.5), 1e-14)
	require.InDelta(t, -euler-2*math.Ln2+2, digamma(-0.5), 1e-14) // psi(x+1) = psi(x) + 1/x
	require.InDelta(t, 1-euler+1/2.0+1/3.0, digamma(4), 1e-14)
	for _, x := range []float64{-7.3, -0.9, 1e-3, 0.7, 6.5, 9.99, 10, 10.01, 123.4, 1e6} {
		require.InDeltaf(t, mathext.Digamma(x), digamma(x), 1e-10*math.Max(1, math.Abs(digamma(x))), "digamma(%g)", x)
	}
	require.True(t, math.IsNaN(digamma(-2)))
	for _, r := range []struct{ x, want float64 }{
		{1, math.Pi * math.Pi / 6}, {0.5, math.Pi * math.Pi / 2}, {-0.5, math.Pi*math.Pi/2 + 4},
		{2, math.Pi*math.Pi/6 - 1}, {1e-3, 1e6 + math.Pi*math.Pi/6 - 2*1.2020569031595942e-3 + 3*1.0823232337111382e-6}, {100, 0.010050166663333571395},
	} {
		relClose(t, r.want, special.Trigamma(r.x), 1e-12, "trigamma(%g)", r.x)
	}
}

// fdNary checks the partial derivatives of f at x in every argument
// against central finite differences and its value against Eval (fdArgs).
func fdNary(t *testing.T, f *NaryFunc, x []float64, tol float64) {
	t.Helper()
	all := make([]int, len(x))
	for j := range all {
		all[j] = j
	}
	fdArgs(t, f, x, all, tol)
}

func TestNaryFuncs(t *testing.T) {
	get := func(name string) *NaryFunc {
		f, ok := lookupNary(name)
		require.True(t, ok, name)
		return f
	}
	pow := get("pow")
	for _, xy := range [][2]float64{{2, 3}, {0.5, -1.5}, {3, 0.5}, {-2, 3}, {7, 0}} {
		x := xy[:]
		relClose(t, math.Pow(x[0], x[1]), pow.Eval(x), 1e-15, "pow")
		if x[0] > 0 {
			fdNary(t, pow, x, 1e-6)
		}
	}
	d := make([]float64, 2)
	require.Equal(t, -8.0, pow.Grad([]float64{-2, 3}, d))
	require.InDelta(t, 12, d[0], 1e-12)
	require.Equal(t, 0.0, pow.Grad([]float64{0, 2}, d))
	require.Equal(t, []float64{0, 0}, d)
	require.Equal(t, 0.0, pow.Grad([]float64{0, 1}, d))
	require.Equal(t, []float64{1, 0}, d)

	fmin, fmax := get("fmin"), get("fmax")
	nan := math.NaN()
	require.Equal(t, 1.0, fmin.Eval([]float64{1, 2}))
	require.Equal(t, 2.0, fmax.Eval([]float64{1, 2}))
	require.Equal(t, 2.0, fmin.Eval([]float64{nan, 2}))
	require.Equal(t, 1.0, fmax.Eval([]float64{1, nan}))
	require.Equal(t, 1.0, fmin.Grad([]float64{1, 2}, d))
	require.Equal(t, []float64{1, 0}, d)
	require.Equal(t, 2.0, fmax.Grad([]float64{1, 2}, d))
	require.Equal(t, []float64{0, 1}, d)
	fdNary(t, fmin, []float64{-3, 4}, 1e-9)
	fdNary(t, fmax, []float64{-3, 4}, 1e-9)
	fdNary(t, fmin, []float64{5, 4}, 1e-9)

	lse := LogSumExp2Func
	for _, ab := range [][]float64{{0, 0}, {-3, 2}, {700, 710}, {-1000, -1001}} {
		relClose(t, special.LogSumExp(ab), lse.Eval(ab), 1e-15, "log_sum_exp%v", ab)
		fdNary(t, lse, ab, 1e-6)
	}

	mix := get("log_mix")
	for _, a := range [][]float64{{0.3, -1, -2}, {0.9, 2, -5}, {0.5, 0, 0}, {0.01, -3, 1}} {
		want := math.Log(a[0]*math.Exp(a[1]) + (1-a[0])*math.Exp(a[2]))
		relClose(t, want, mix.Eval(a), 1e-14, "log_mix%v", a)
		fdNary(t, mix, a, 1e-6)
	}
	// far below exp's range
	relClose(t, -1000+math.Log(0.3+0.7*math.Exp(-1)), LogMix(0.3, -1000, -1001), 1e-14, "log_mix stable")
	fdNary(t, mix, []float64{0.3, -1000, -1001}, 1e-6)
	require.Equal(t, -1.0, LogMix(1, -1, math.Inf(-1)))
	require.True(t, math.IsInf(LogMix(1.5, 0, 0), -1))
	require.True(t, math.IsInf(LogMix(0.5, math.Inf(-1), math.Inf(-1)), -1))
	d3 := make([]float64, 3)
	mix.Grad([]float64{0.5, math.Inf(-1), math.Inf(-1)}, d3)
	require.Equal(t, []float64{0, 0, 0}, d3)
	// theta at the edge: the derivative in theta is still finite
	mix.Grad([]float64{0, -1, -2}, d3)
	require.InDelta(t, math.Exp(1)-1, d3[0], 1e-12)
}

// logPhiRef is log Phi(z) from an independent computation: math.Erfc where
// it does not underflow, else the asymptotic series to 12 terms.
func logPhiRef(z float64) float64 {
	if z > -37 {
		if z > 5 {
			return math.Log1p(-0.5 * math.Erfc(z/math.Sqrt2))
		}
		return math.Log(0.5 * math.Erfc(-z/math.Sqrt2))
	}
	// Phi(z) = phi(z)/(-z) * sum_k (-1)^k (2k-1)!! / z^(2k)
	s, term := 1.0, 1.0
	for k := 1; k <= 12; k++ {
		term *= -float64(2*k-1) / (z * z)
		s += term
	}
	return -0.5*z*z - 0.5*math.Log(2*math.Pi) - math.Log(-z) + math.Log(s)
}

func TestNormalLcdfTails(t *testing.T) {
	lcdf, ok := lookupNary("normal_lcdf")
	require.True(t, ok)
	lccdf, ok := lookupNary("normal_lccdf")
	require.True(t, ok)
	const mu, sigma = 3.0, 2.0
	for _, z := range []float64{-40, -38, -36, -20, -5, -1, 0, 0.5, 2, 5, 8, 20, 36, 38, 40} {
		x := mu + z*sigma
		wl, wu := logPhiRef(z), logPhiRef(-z)
		relClose(t, wl, NormalLcdf(x, mu, sigma), 1e-12, "normal_lcdf z=%g", z)
		relClose(t, wu, NormalLccdf(x, mu, sigma), 1e-12, "normal_lccdf z=%g", z)
		if z > 5 {
			require.InDeltaf(t, wl, NormalLcdf(x, mu, sigma), 1e-12*math.Abs(wl)+1e-300, "normal_lcdf z=%g", z)
		}
		if z < -5 {
			require.InDeltaf(t, wu, NormalLccdf(x, mu, sigma), 1e-12*math.Abs(wu)+1e-300, "normal_lccdf z=%g", z)
		}
		if math.Abs(z) <= 36 {
			// partial derivatives where the finite differences have
			// digits to spare (beyond, the values are 0 or huge but the
			// asymptotic series below checks the slope)
			fdNary(t, lcdf, []float64{x, mu, sigma}, 1e-5)
			fdNary(t, lccdf, []float64{x, mu, sigma}, 1e-5)
		}
	}
	// the slopes at x - mu = -40 sigma and +40 sigma from the series
	d := make([]float64, 3)
	lcdf.Grad([]float64{mu - 40*sigma, mu, sigma}, d)
	fdNary(t, lcdf, []float64{mu - 40*sigma, mu, sigma}, 1e-5)
	h := 1e-4
	slope := (logPhiRef(-40+h) - logPhiRef(-40-h)) / (2 * h) // d/dz
	relClose(t, slope/sigma, d[0], 1e-7, "d normal_lcdf/dx at -40 sigma")
	relClose(t, -slope/sigma, d[1], 1e-7, "d normal_lcdf/dmu at -40 sigma")
	relClose(t, slope*40/sigma, d[2], 1e-7, "d normal_lcdf/dsigma at -40 sigma")
	lccdf.Grad([]float64{mu + 40*sigma, mu, sigma}, d)
	fdNary(t, lccdf, []float64{mu + 40*sigma, mu, sigma}, 1e-5)
	relClose(t, -slope/sigma, d[0], 1e-7, "d normal_lccdf/dx at +40 sigma")
	relClose(t, slope/sigma, d[1], 1e-7, "d normal_lccdf/dmu at +40 sigma")
	relClose(t, slope*40/sigma, d[2], 1e-7, "d normal_lccdf/dsigma at +40 sigma")
	// domain
	require.True(t, math.IsInf(NormalLcdf(0, 0, 0), -1))
	require.True(t, math.IsInf(NormalLccdf(0, 0, -1), -1))
	require.Equal(t, 0.0, NormalLcdf(math.Inf(1), 0, 1))
	require.True(t, math.IsInf(NormalLcdf(math.Inf(-1), 0, 1), -1))
	require.True(t, math.IsNaN(NormalLcdf(math.NaN(), 0, 1)))
}

func TestLogDensityFunc(t *testing.T) {
	for _, c := range []struct {
		name, fn string
		args     [][]float64
	}{
		{"normal", "normal_lpdf", [][]float64{{0.3, 1, 2}, {-4, 0, 0.5}}},
		{"student_t", "student_t_lpdf", [][]float64{{0.3, 4, 1, 2}, {-40, 2, 0, 0.5}}},
		{"poisson", "poisson_lpmf", [][]float64{{3, 2.5}, {0, 0.1}}},
		{"binomial_logit", "binomial_logit_lpmf", [][]float64{{3, 10, 0.2}, {0, 4, -1}}},
	} {
		fam, _ := Lookup(c.name)
		f, ok := LogDensityFunc(c.name)
		require.True(t, ok, c.name)
		f2, ok := LogDensityFunc(c.fn)
		require.True(t, ok, c.fn)
		f3, ok := lookupNary(c.fn)
		require.True(t, ok, c.fn)
		require.Same(t, f, f2)
		require.Same(t, f, f3)
		require.Equal(t, c.fn, f.Name)
		require.Equal(t, 1+len(fam.Params), f.Arity)
		for _, a := range c.args {
			d := make([]float64, f.Arity)
			require.Equal(t, fam.LogPdf(a[0], a[1:]), f.Grad(a, d))
			dp := make([]float64, len(fam.Params))
			_, dx := fam.Grad(a[0], a[1:], dp)
			if fam.Discrete {
				dx = 0
			}
			require.Equal(t, append([]float64{dx}, dp...), d)
			// finite differences in the continuous arguments
			for j := range a {
				if (j == 0 && fam.Discrete) || (j > 0 && fam.Params[j-1].Domain == NonNegInt) {
					require.Zero(t, d[j])
					continue
				}
				old := a[j]
				h := 1e-6 * math.Max(1, math.Abs(old))
				a[j] = old + h
				fp := f.Eval(a)
				a[j] = old - h
				fm := f.Eval(a)
				a[j] = old
				relClose(t, (fp-fm)/(2*h), d[j], 1e-6, "%s%v d/dx%d", f.Name, a, j)
			}
		}
	}
	_, ok := LogDensityFunc("normal_lpmf")
	require.False(t, ok)
	_, ok = LogDensityFunc("poisson_lpdf")
	require.False(t, ok)
	_, ok = LogDensityFunc("nosuch")
	require.False(t, ok)
	// every scalar family has one, no multivariate one
	for _, n := range FamilyNames() {
		f, _ := Lookup(n)
		_, ok := LogDensityFunc(n)
		require.Equal(t, f.Scalar(), ok, n)
	}
}

func TestNaryOpBroadcastAndGradient(t *testing.T) {
	f, _ := LogDensityFunc("normal")
	op := NewNaryOp(f)
	require.Equal(t, "normal_lpdf", op.Name())
	in := [][]float64{{0.1, -0.5, 2}, {1}, {0.5, 2, 3}}
	out := make([]float64, 3)
	op.Forward(out, in)
	for i := range out {
		relClose(t, normalLogPdf(in[0][i], []float64{1, in[2][i]}), out[i], 1e-15, "forward %d", i)
	}
	din := [][]float64{make([]float64, 3), make([]float64, 1), nil}
	dout := []float64{1, 2, -1}
	op.Backward(out, dout, in, din)
	// against finite differences of sum_i dout_i out_i
	obj := func() float64 {
		o := make([]float64, 3)
		op.Forward(o, in)
		s := 0.0
		for i := range o {
			s += dout[i] * o[i]
		}
		return s
	}
	for j := 0; j < 2; j++ {
		for i := range in[j] {
			old := in[j][i]
			h := 1e-6
			in[j][i] = old + h
			fp := obj()
			in[j][i] = old - h
			fm := obj()
			in[j][i] = old
			relClose(t, (fp-fm)/(2*h), din[j][i], 1e-6, "din[%d][%d]", j, i)
		}
	}
	allocs := testing.AllocsPerRun(20, func() {
		op.Forward(out, in)
		op.Backward(out, dout, in, din)
	})
	require.Zero(t, allocs)
	mix := NewNaryOp(LogMixFunc)
	mixIn := [][]float64{{0.3}, {-1, -2, -3}, {0.5}}
	mixDin := [][]float64{make([]float64, 1), make([]float64, 3), nil}
	allocs = testing.AllocsPerRun(20, func() {
		mix.Forward(out, mixIn)
		mix.Backward(out, dout, mixIn, mixDin)
	})
	require.Zero(t, allocs)
}
func TestLogDensityFuncsAllocateNothing(t *testing.T) {
	for _, n := range FamilyNames() {
		f, ok := LogDensityFunc(n)
		if !ok {
			continue // multivariate
		}
		op := NewNaryOp(f)
		in := make([][]float64, f.Arity)
		din := make([][]float64, f.Arity)
		for j := range in {
			in[j] = []float64{1, 1}
			din[j] = make([]float64, 2)
		}
		out := make([]float64, 2)
		a := testing.AllocsPerRun(10, func() { op.Forward(out, in); op.Backward(out, []float64{1, 1}, in, din) })
		if a != 0 {
			t.Errorf("%s: %g allocs", n, a)
		}
	}
}
