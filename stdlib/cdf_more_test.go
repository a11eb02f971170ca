package stdlib

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// fdArgs checks the partial derivatives of f at x in the arguments idx
// against central finite differences (the others, such as a discrete y
// or an integer N, must have derivative 0).
func fdArgs(t *testing.T, f *NaryFunc, x []float64, idx []int, tol float64) {
	t.Helper()
	d := make([]float64, f.Arity)
	v := f.Grad(x, d)
	relClose(t, f.Eval(x), v, 1e-15, "%s%v Grad's value", f.Name, x)
	for j := range x {
		if !containsInt(idx, j) {
			require.Zerof(t, d[j], "%s%v d/dx%d", f.Name, x, j)
			continue
		}
		old := x[j]
		h := 1e-6 * math.Abs(old)
		if old == 0 {
			h = 1e-7
		}
		x[j] = old + h
		fp := f.Eval(x)
		x[j] = old - h
		fm := f.Eval(x)
		x[j] = old
		relClose(t, (fp-fm)/(2*h), d[j], tol, "%s%v d/dx%d", f.Name, x, j)
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// pmfSum is the sum of exp(lp(k)) over k = lo..hi.
func pmfSum(lo, hi float64, lp func(k float64) float64) float64 {
	s := 0.0
	for k := lo; k <= hi; k++ {
		s += math.Exp(lp(k))
	}
	return s
}

func negBin2Ref(k, mu, phi float64) float64 {
	lc, _ := math.Lgamma(k + phi)
	lk, _ := math.Lgamma(k + 1)
	lp, _ := math.Lgamma(phi)
	return lc - lk - lp + phi*math.Log(phi/(mu+phi)) + k*math.Log(mu/(mu+phi))
}

func betaBinRef(k, n, a, b float64) float64 {
	lc := -math.Log(n+1) - mathext.Lbeta(n-k+1, k+1)
	return lc + mathext.Lbeta(k+a, n-k+b) - mathext.Lbeta(a, b)
}

// TestMoreCDFs: NAME_lcdf, NAME_lccdf and NAME_cdf of every family of
// cdf_more.go against an independent reference (gonum's distuv CDFs and
// survival functions, sums of a closed-form mass function), and their
// partial derivatives in every real argument against finite differences.
func TestMoreCDFs(t *testing.T) {
	type refFn func(a []float64) float64
	cases := []struct {
		name     string
		cdf, ccd refFn
		grad     []int // the real arguments
		at       [][]float64
	}{
		{"student_t", func(a []float64) float64 { return distuv.StudentsT{Mu: a[2], Sigma: a[3], Nu: a[1]}.CDF(a[0]) },
			func(a []float64) float64 { return distuv.StudentsT{Mu: a[2], Sigma: a[3], Nu: a[1]}.Survival(a[0]) },
			[]int{0, 1, 2, 3}, [][]float64{{0, 3, 0, 10}, {-2, 3, 0.5, 1.5}, {1.2, 0.7, 0, 1}, {4, 30, 1, 2}, {-25, 5, 0, 1}, {0.1, 200, 0, 1}, {-0.3, 2.5, 0, 1}}},
		{"gamma", func(a []float64) float64 { return distuv.Gamma{Alpha: a[1], Beta: a[2]}.CDF(a[0]) },
			func(a []float64) float64 { return distuv.Gamma{Alpha: a[1], Beta: a[2]}.Survival(a[0]) },
			[]int{0, 1, 2}, [][]float64{{0.5, 2, 1}, {3, 2, 1.5}, {0.01, 0.3, 2}, {12, 10, 1}, {50, 40, 1}}},
		{"inv_gamma", func(a []float64) float64 { return distuv.InverseGamma{Alpha: a[1], Beta: a[2]}.CDF(a[0]) },
			func(a []float64) float64 { return distuv.InverseGamma{Alpha: a[1], Beta: a[2]}.Survival(a[0]) },
			[]int{0, 1, 2}, [][]float64{{0.5, 2, 1}, {3, 2, 1.5}, {1, 0.4, 0.2}}},
		{"chi_square", func(a []float64) float64 { return distuv.ChiSquared{K: a[1]}.CDF(a[0]) },
			func(a []float64) float64 { return distuv.ChiSquared{K: a[1]}.Survival(a[0]) },
			[]int{0, 1}, [][]float64{{0.5, 3}, {7, 2.5}, {30, 20}}},
		{"inv_chi_square", func(a []float64) float64 { return distuv.InverseGamma{Alpha: a[1] / 2, Beta: 0.5}.CDF(a[0]) },
			func(a []float64) float64 { return distuv.InverseGamma{Alpha: a[1] / 2, Beta: 0.5}.Survival(a[0]) },
			[]int{0, 1}, [][]float64{{0.5, 3}, {0.1, 6}, {2, 1.5}}},
		{"scaled_inv_chi_square", func(a []float64) float64 {
			return distuv.InverseGamma{Alpha: a[1] / 2, Beta: a[1] * a[2] * a[2] / 2}.CDF(a[0])
		}, func(a []float64) float64 {
			return distuv.InverseGamma{Alpha: a[1] / 2, Beta: a[1] * a[2] * a[2] / 2}.Survival(a[0])
		}, []int{0, 1, 2}, [][]float64{{0.5, 3, 1}, {2, 5, 0.8}, {0.3, 1.5, 2}}},
		{"beta", func(a []float64) float64 { return distuv.Beta{Alpha: a[1], Beta: a[2]}.CDF(a[0]) },
			func(a []float64) float64 { return mathext.RegIncBeta(a[2], a[1], 1-a[0]) },
			[]int{0, 1, 2}, [][]float64{{0.3, 2, 3}, {0.8, 2, 3}, {0.05, 0.5, 0.5}, {0.6, 30, 12}}},
		{"double_exponential", func(a []float64) float64 { return distuv.Laplace{Mu: a[1], Scale: a[2]}.CDF(a[0]) },
			func(a []float64) float64 { return distuv.Laplace{Mu: a[1], Scale: a[2]}.Survival(a[0]) },
			[]int{0, 1, 2}, [][]float64{{-1, 0.5, 2}, {3, 1, 0.7}}},
		{"frechet", func(a []float64) float64 { return math.Exp(-math.Pow(a[0]/a[2], -a[1])) },
			func(a []float64) float64 { return -math.Expm1(-math.Pow(a[0]/a[2], -a[1])) },
			[]int{0, 1, 2}, [][]float64{{0.5, 2, 1}, {4, 1.5, 2}}},
		{"uniform", func(a []float64) float64 { return distuv.Uniform{Min: a[1], Max: a[2]}.CDF(a[0]) },
			func(a []float64) float64 { return distuv.Uniform{Min: a[1], Max: a[2]}.Survival(a[0]) },
			[]int{0, 1, 2}, [][]float64{{0.3, -1, 2}, {1.9, 0, 2}}},
		{"half_normal", func(a []float64) float64 { return math.Erf(a[0] / (a[1] * math.Sqrt2)) },
			func(a []float64) float64 { return math.Erfc(a[0] / (a[1] * math.Sqrt2)) },
			[]int{0, 1}, [][]float64{{0.1, 1}, {0.9, 0.5}, {3, 1.5}, {12, 1}}},
		{"bernoulli", func(a []float64) float64 { return distuv.Bernoulli{P: a[1]}.CDF(a[0]) },
			func(a []float64) float64 { return a[1] }, []int{1}, [][]float64{{0, 0.3}}},
		{"binomial", func(a []float64) float64 { return distuv.Binomial{N: a[1], P: a[2]}.CDF(a[0]) },
			func(a []float64) float64 { return 1 - distuv.Binomial{N: a[1], P: a[2]}.CDF(a[0]) },
			[]int{2}, [][]float64{{0, 5, 0.3}, {3, 10, 0.4}, {7, 10, 0.4}, {20, 100, 0.1}}},
		{"poisson", func(a []float64) float64 { return distuv.Poisson{Lambda: a[1]}.CDF(a[0]) },
			func(a []float64) float64 { return distuv.Poisson{Lambda: a[1]}.Survival(a[0]) },
			[]int{1}, [][]float64{{0, 2.5}, {3, 2.5}, {10, 4}, {40, 50}}},
		{"neg_binomial_2", func(a []float64) float64 {
			return pmfSum(0, a[0], func(k float64) float64 { return negBin2Ref(k, a[1], a[2]) })
		}, func(a []float64) float64 {
			return pmfSum(a[0]+1, 3000, func(k float64) float64 { return negBin2Ref(k, a[1], a[2]) })
		}, []int{1, 2}, [][]float64{{0, 3, 2}, {4, 3, 0.5}, {12, 8, 20}}},
		{"beta_binomial", func(a []float64) float64 {
			return pmfSum(0, a[0], func(k float64) float64 { return betaBinRef(k, a[1], a[2], a[3]) })
		}, func(a []float64) float64 {
			return pmfSum(a[0]+1, a[1], func(k float64) float64 { return betaBinRef(k, a[1], a[2], a[3]) })
		}, []int{2, 3}, [][]float64{{0, 5, 2, 3}, {3, 10, 0.5, 1.5}, {17, 20, 4, 2}}},
	}
	for _, c := range cases {
		fam, ok := Lookup(c.name)
		require.True(t, ok, c.name)
		require.NotNil(t, fam.LogCDF, c.name)
		require.Equal(t, c.name+"_cdf", fam.CDF.Name)
		for _, a := range c.at {
			p, q := c.cdf(a), c.ccd(a)
			relClose(t, math.Log(p), fam.LogCDF.Eval(a), 1e-10, "%s_lcdf%v", c.name, a)
			relClose(t, math.Log(q), fam.LogCCDF.Eval(a), 1e-9, "%s_lccdf%v", c.name, a)
			relClose(t, p, fam.CDF.Eval(a), 1e-10, "%s_cdf%v", c.name, a)
			for _, f := range []*NaryFunc{fam.LogCDF, fam.LogCCDF, fam.CDF} {
				fdArgs(t, f, append([]float64(nil), a...), c.grad, 2e-6)
			}
		}
	}
}

// TestMoreCDFTails: far in the tails, where 1 - cdf (or the cdf) rounds
// to 0 or 1, lcdf and lccdf against exact closed forms (student_t with
// nu = 1 and 2, gamma and chi-square with shape 1 and 2, ...), and the
// derivatives there against finite differences.
func TestMoreCDFTails(t *testing.T) {
	r2 := func(x float64) float64 { return math.Sqrt(2 + x*x) }
	cases := []struct {
		fn   string
		a    []float64
		want float64
		grad []int
	}{
		// student_t, nu = 2: F(t) = 1/(r (r - t)) for t < 0, r = sqrt(2 + t^2)
		{"student_t_lcdf", []float64{-1e8, 2, 0, 1}, -math.Log(r2(1e8) * (r2(1e8) + 1e8)), []int{0, 1, 2, 3}},
		{"student_t_lccdf", []float64{3e5, 2, 0, 1}, -math.Log(r2(3e5) * (r2(3e5) + 3e5)), []int{0, 1, 2, 3}},
		{"student_t_lcdf", []float64{1e6, 2, 0, 1}, math.Log1p(-1 / (r2(1e6) * (r2(1e6) + 1e6))), []int{0, 1, 2, 3}},
		// nu = 1 is the Cauchy: F(t) = atan(1/|t|)/pi for t < 0
		{"student_t_lcdf", []float64{-1e10, 1, 0, 1}, math.Log(math.Atan(1e-10) / math.Pi), []int{0, 1, 2, 3}},
		{"student_t_lccdf", []float64{0, 3, 0, 10}, -math.Ln2, []int{0, 1, 2, 3}},
		{"gamma_lccdf", []float64{1000, 1, 1}, -1000, []int{0, 1, 2}},
		{"gamma_lccdf", []float64{300, 2, 3}, -900 + math.Log1p(900), []int{0, 1, 2}},
		{"gamma_lcdf", []float64{1e-20, 1, 1}, math.Log(-math.Expm1(-1e-20)), []int{0, 1, 2}},
		{"chi_square_lccdf", []float64{2000, 2}, -1000, []int{0, 1}},
		{"inv_gamma_lcdf", []float64{1e-3, 1, 2}, -2000, []int{0, 1, 2}},
		{"inv_chi_square_lcdf", []float64{1e-4, 2}, -5000, []int{0, 1}},
		{"scaled_inv_chi_square_lcdf", []float64{1e-3, 2, 1.5}, -2250, []int{0, 1, 2}},
		{"beta_lccdf", []float64{0.999, 1, 3}, 3 * math.Log1p(-0.999), []int{0, 1, 2}},
		{"beta_lcdf", []float64{1e-100, 2.5, 1}, 250 * math.Log(0.1), []int{0, 1, 2}},
		{"double_exponential_lcdf", []float64{-800, 0, 1}, -800 - math.Ln2, []int{0, 1, 2}},
		{"double_exponential_lccdf", []float64{800, 0, 1}, -800 - math.Ln2, []int{0, 1, 2}},
		{"half_normal_lccdf", []float64{30, 1}, math.Log(math.Erfc(30 / math.Sqrt2)), []int{0, 1}},
		{"half_normal_lcdf", []float64{1e-10, 1}, math.Log(1e-10 * math.Sqrt(2/math.Pi)), []int{0, 1}},
		{"frechet_lcdf", []float64{1e-3, 2, 1}, -1e6, []int{0, 1, 2}},
		{"poisson_lcdf", []float64{0, 800}, -800, []int{1}},
		// log P(Y <= 60) for rate 2 is -P(Y > 60), about -1e-62
		{"poisson_lcdf", []float64{60, 2}, -pmfSum(61, 200, func(k float64) float64 { lk, _ := math.Lgamma(k + 1); return k*math.Ln2 - 2 - lk }), []int{1}},
		{"poisson_lccdf", []float64{60, 2}, math.Log(pmfSum(61, 200, func(k float64) float64 { lk, _ := math.Lgamma(k + 1); return k*math.Ln2 - 2 - lk })), []int{1}},
		{"poisson_lccdf", []float64{0, 1e-10}, math.Log(-math.Expm1(-1e-10)), []int{1}},
		{"binomial_lcdf", []float64{0, 1000, 0.9}, 1000 * math.Log1p(-0.9), []int{2}},
		{"binomial_lccdf", []float64{199, 200, 0.01}, 200 * math.Log(0.01), []int{2}},
		{"neg_binomial_2_lcdf", []float64{0, 1e4, 50}, 50 * math.Log(50/(1e4+50)), []int{1, 2}},
		{"beta_binomial_lcdf", []float64{0, 500, 3, 2}, mathext.Lbeta(3, 502) - mathext.Lbeta(3, 2), []int{2, 3}},
	}
	for _, c := range cases {
		f, ok := lookupNary(c.fn)
		require.True(t, ok, c.fn)
		// relative accuracy, even for values near 0 (log cdf where cdf ~ 1)
		require.InDeltaf(t, c.want, f.Eval(c.a), 1e-12*math.Abs(c.want), "%s%v", c.fn, c.a)
		fdArgs(t, f, append([]float64(nil), c.a...), c.grad, 1e-5)
	}
}

// TestMoreCDFEdges: below and above the support, parameters outside their
// domain, NaN, and NAME_cdf of a vector's element.
func TestMoreCDFEdges(t *testing.T) {
	get := func(name string) *NaryFunc { f, ok := lookupNary(name); require.True(t, ok, name); return f }
	d := make([]float64, 4)
	require.True(t, math.IsInf(get("gamma_lcdf").Eval([]float64{-1, 2, 1}), -1))
	require.Equal(t, 0.0, get("gamma_lccdf").Eval([]float64{-1, 2, 1}))
	require.Equal(t, 0.0, get("beta_lcdf").Eval([]float64{1, 2, 1}))
	require.True(t, math.IsInf(get("beta_lccdf").Eval([]float64{1.5, 2, 1}), -1))
	require.Equal(t, 0.0, get("binomial_lcdf").Eval([]float64{5, 5, 0.3}))
	require.True(t, math.IsInf(get("uniform_lccdf").Eval([]float64{3, 0, 2}), -1))
	require.True(t, math.IsInf(get("student_t_lcdf").Grad([]float64{1, -1, 0, 1}, d), -1), "nu below 0")
	require.Equal(t, []float64{0, 0, 0, 0}, d)
	require.True(t, math.IsNaN(get("poisson_lcdf").Eval([]float64{3, math.NaN()})))
	require.Equal(t, 0.0, get("student_t_cdf").Eval([]float64{math.Inf(-1), 3, 0, 1}))
	require.Equal(t, 0.5, get("student_t_cdf").Eval([]float64{2, 3, 2, 1}))
	require.InDelta(t, distuv.Normal{Mu: 1, Sigma: 2}.CDF(0.3), get("normal_cdf").Eval([]float64{0.3, 1, 2}), 1e-15)
	// poisson with rate 0 is 0 with probability 1
	require.Equal(t, 0.0, get("poisson_lcdf").Eval([]float64{0, 0}))
	require.True(t, math.IsInf(get("poisson_lccdf").Eval([]float64{0, 0}), -1))
}

// TestMoreCDFsAllocateNothing: every NAME_lcdf, NAME_lccdf and NAME_cdf,
// as a NaryOp on the tape, allocates nothing forward and backward.
func TestMoreCDFsAllocateNothing(t *testing.T) {
	for _, name := range FamilyNames() {
		fam := families[name]
		if fam.LogCDF == nil {
			continue
		}
		for _, f := range []*NaryFunc{fam.LogCDF, fam.LogCCDF, fam.CDF} {
			in := make([][]float64, f.Arity)
			din := make([][]float64, f.Arity)
			for i := range in {
				in[i] = []float64{0.5 + float64(i)}
				din[i] = []float64{0}
			}
			in[0][0] = 0.3
			op := NewNaryOp(f)
			out, dout := []float64{0}, []float64{1}
			allocs := testing.AllocsPerRun(20, func() {
				op.Forward(out, in)
				op.Backward(out, dout, in, din)
			})
			require.Zerof(t, allocs, "%s allocates", f.Name)
		}
	}
}

// TestCDFsOddInputs: every NAME_lcdf, NAME_lccdf and NAME_cdf on every
// combination of odd arguments (0, negative, huge, tiny, infinite) gives
// no NaN, value or derivative (NaN comes out only when NaN goes in), and
// lcdf and lccdf at most 0.
func TestCDFsOddInputs(t *testing.T) {
	odd := []float64{0, -1, 0.5, 1, 3, 1e-300, 1e15, 1e300, math.Inf(1), math.Inf(-1)}
	for _, name := range FamilyNames() {
		fam := families[name]
		if fam.LogCDF == nil {
			continue
		}
		for _, f := range []*NaryFunc{fam.LogCDF, fam.LogCCDF, fam.CDF} {
			a, d := make([]float64, f.Arity), make([]float64, f.Arity)
			var rec func(i int)
			rec = func(i int) {
				if i == len(a) {
					v := f.Grad(a, d)
					top := 0.0
					if f == fam.CDF {
						top = 1
					}
					if math.IsNaN(v) || v > top {
						t.Errorf("%s%v = %g", f.Name, a, v)
					}
					if !math.IsInf(v, 0) {
						for j := range d {
							if math.IsNaN(d[j]) {
								t.Errorf("%s%v d/dx%d = %g", f.Name, a, j, d[j])
							}
						}
					}
					return
				}
				for _, x := range odd {
					a[i] = x
					rec(i + 1)
				}
			}
			rec(0)
		}
	}
}
