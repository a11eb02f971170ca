package infer

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/mscppl/mscppl/infer/lgssm"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/infer/pmcis"
	"github.com/mscppl/mscppl/internal/kalman"
)

// var2Exact is log prior + log-Jacobian of internal/kalman case (e) (the
// VAR(1) with sq, sr latent) at u = (log sq, log sr), and its Kalman
// model, built as internal/kalman's var2.go builds it.
func var2Exact(u []float64) (float64, kalman.Model) {
	sq, sr := math.Exp(u[0]), math.Exp(u[1])
	q, r := sq*sq, sr*sr
	mod := kalman.Model{
		M0: mat.NewVecDense(2, nil),
		P0: mat.NewSymDense(2, []float64{9, 0, 0, 9}),
		F:  mat.NewDense(2, 2, []float64{0.8, 0.3, -0.1, 0.6}),
		Q:  mat.NewSymDense(2, []float64{q, 0, 0, q}),
		H:  mat.NewDense(1, 2, []float64{1, 0}),
		R:  mat.NewSymDense(1, []float64{r}),
	}
	return normLPDF(sq, 0, 1) + normLPDF(sr, 0, 1) + u[0] + u[1], mod
}

// var2Forms are var2.msc as written (x: matrix[T, 2]), as two vectors,
// as an array[T] vector[2] drawn element by element, and drawn a row at a
// time by multi_normal and by multi_normal_cholesky.
func var2Forms(t testing.TB) map[string][]byte {
	src, err := os.ReadFile(kalmanDir + "var2.msc")
	require.NoError(t, err)
	multi := func(dist, cov string) []byte {
		out := strings.NewReplacer("data { y: vector[T] }",
			"data {\n  y: vector[T]\n  F: matrix[2, 2] = rep_matrix(0, 2, 2)\n  F[1, 1] = 0.8\n  F[1, 2] = 0.3\n  F[2, 1] = -0.1\n  F[2, 2] = 0.6\n}",
			"x: matrix[T, 2]", "x: array[T] vector[2]",
			"x[1, 1] ~ normal(0, 3)\n  x[1, 2] ~ normal(0, 3)", "x[1] ~ "+dist+"(rep_vector(0, 2), diag_matrix(rep_vector("+cov+"(9), 2)))",
			"x[t, 1] ~ normal(0.8 * x[t-1, 1] + 0.3 * x[t-1, 2], sq)\n    x[t, 2] ~ normal(-0.1 * x[t-1, 1] + 0.6 * x[t-1, 2], sq)",
			"x[t] ~ "+dist+"(F * x[t-1], diag_matrix(rep_vector("+cov+"(sq^2), 2)))",
			"y ~ normal(col(x, 1), sr)", "for t in 1..T { y[t] ~ normal(x[t, 1], sr) }").Replace(string(src))
		require.NotContains(t, out, "x[t, 2] ~", "the replacements apply")
		return []byte(out)
	}
	replace := func(r *strings.Replacer) []byte {
		out := r.Replace(string(src))
		require.NotEqual(t, string(src), out, "the replacements apply")
		return []byte(out)
	}
	return map[string][]byte{
		"vectors": replace(strings.NewReplacer("x: matrix[T, 2]", "a: vector[T]\n  b: vector[T]",
			"x[1, 1]", "a[1]", "x[1, 2]", "b[1]", "x[t, 1]", "a[t]", "x[t, 2]", "b[t]",
			"x[t-1, 1]", "a[t-1]", "x[t-1, 2]", "b[t-1]", "col(x, 1)", "a")),
		"array": replace(strings.NewReplacer("x: matrix[T, 2]", "x: array[T] vector[2]",
			"y ~ normal(col(x, 1), sr)", "for t in 1..T { y[t] ~ normal(x[t, 1], sr) }")),
		"matrix":                src,
		"multi_normal":          multi("multi_normal", ""),
		"multi_normal_cholesky": multi("multi_normal_cholesky", "sqrt"),
	}
}

// trendLatent is internal/kalman's local linear trend with the level's sd
// sl and the observations' sd so latent (half-normal(0, 1) priors): a
// state of two vectors, level and slope.
const trendLatent = `data { y: vector[T] }
latent {
  sl: real<lower=0>
  so: real<lower=0>
  level: vector[T]
  slope: vector[T]
}
model {
  sl ~ normal(0, 1)
  so ~ normal(0, 1)
  level[1] ~ normal(y[1], 10)
  slope[1] ~ normal(0, 1)
  for t in 2..T {
    level[t] ~ normal(level[t-1] + slope[t-1], sl)
    slope[t] ~ normal(slope[t-1], 0.05)
  }
  y ~ normal(level, so)
}
`

// trendExact is log prior + log-Jacobian of trendLatent at u = (log sl,
// log so), and its Kalman model.
func trendExact(y [][]float64) func(u []float64) (float64, kalman.Model) {
	return func(u []float64) (float64, kalman.Model) {
		sl, so := math.Exp(u[0]), math.Exp(u[1])
		mod := kalman.Model{
			M0: mat.NewVecDense(2, []float64{y[0][0], 0}),
			P0: mat.NewSymDense(2, []float64{100, 0, 0, 1}),
			F:  mat.NewDense(2, 2, []float64{1, 1, 0, 1}),
			Q:  mat.NewSymDense(2, []float64{sl * sl, 0, 0, 0.05 * 0.05}),
			H:  mat.NewDense(1, 2, []float64{1, 0}),
			R:  mat.NewSymDense(1, []float64{so * so}),
		}
		return normLPDF(sl, 0, 1) + normLPDF(so, 0, 1) + u[0] + u[1], mod
	}
}

// TestKalmanVAR2TargetExact: for a state of K = 2 components (the VAR(1)
// of internal/kalman case (e) in each of its forms and with correlated
// transition noise, and the local linear trend with two sds latent, two
// vectors), detection takes the Kalman
// path, and its target log p(theta, y) equals log prior + log-Jacobian +
// internal/kalman.Filter's log-likelihood at random statics (near the
// posterior and far from it) to 1e-9 relative; an FFBS draw's log p(x |
// theta, y) closes log p(theta, x, y) - log p(x | theta, y) = log p(theta,
// y). The filter and FFBS allocate nothing.
func TestKalmanVAR2TargetExact(t *testing.T) {
	type tc struct {
		src    []byte
		data   string
		exact  func(u []float64) (float64, kalman.Model)
		centre []float64
	}
	cases := map[string]tc{}
	for name, src := range var2Forms(t) {
		cases["var2_"+name] = tc{src, kalmanDir + "var2.csv", var2Exact, []float64{math.Log(0.54), math.Log(0.66)}}
	}
	// the transition noise correlated (0.5), by multi_normal's full covariance
	corr := strings.NewReplacer("F[2, 2] = 0.6\n", "F[2, 2] = 0.6\n  R: matrix[2, 2] = rep_matrix(0.5, 2, 2)\n  R[1, 1] = 1\n  R[2, 2] = 1\n",
		"diag_matrix(rep_vector((sq^2), 2))", "sq^2 * R").Replace(string(cases["var2_multi_normal"].src))
	require.Contains(t, corr, "sq^2 * R")
	cases["var2_correlated"] = tc{[]byte(corr), kalmanDir + "var2.csv", func(u []float64) (float64, kalman.Model) {
		prior, mod := var2Exact(u)
		q := mod.Q.At(0, 0)
		mod.Q = mat.NewSymDense(2, []float64{q, 0.5 * q, 0.5 * q, q})
		return prior, mod
	}, []float64{math.Log(0.54), math.Log(0.66)}}
	ly := kalman.Scalar(readY(t, kalmanDir+"local_linear_trend.csv"))
	cases["trend_latent"] = tc{[]byte(trendLatent), kalmanDir + "local_linear_trend.csv", trendExact(ly), []float64{math.Log(0.3), 0}}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			y := kalman.Scalar(readY(t, c.data))
			m, err := LoadSource(name+".msc", c.src, c.data)
			require.NoError(t, err)
			p := m.Problem()
			require.NotNil(t, p.Statics)
			require.Equal(t, 2, p.Statics.Given().StateDim())
			require.True(t, p.Linear, "%v", p.NotLinear)
			require.Contains(t, lgssm.Path(p), "Kalman marginal over 2 statics with a 2-dimensional state, not particle Gibbs")
			lg, err := lgssm.NewLinearGaussian(p)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(7, 2))
			u, z, eps := checkTargetIdentity(t, p, lg, rng, y, c.centre, c.exact)
			require.Zero(t, testing.AllocsPerRun(5, func() {
				_, _ = lg.Filter(u)
				lg.FFBS(rng, z, eps)
			}), "the filter and FFBS allocate")
		})
	}
}

// TestFFBSVAR2MatchesSmoother: 4000 FFBS draws of the VAR(1)'s states at
// fixed statics have the Kalman smoother's means and variances
// (internal/kalman.Smooth) for both components, within 4.5 Monte Carlo
// sds at every step; Smooth's moments are the smoother's to 1e-9.
func TestFFBSVAR2MatchesSmoother(t *testing.T) {
	m, err := Load(kalmanDir+"var2.msc", kalmanDir+"var2.csv")
	require.NoError(t, err)
	p := m.Problem()
	lg, err := lgssm.NewLinearGaussian(p)
	require.NoError(t, err)
	y := kalman.Scalar(readY(t, kalmanDir+"var2.csv"))
	u := []float64{math.Log(0.6), math.Log(0.5)}
	_, mod := var2Exact(u)
	ref, err := kalman.Smooth(mod, y)
	require.NoError(t, err)
	_, err = lg.Filter(u)
	require.NoError(t, err)
	const N = 4000
	states := p.Statics.States()
	n := len(states)
	sm, sv := make([]float64, n), make([]float64, n)
	lg.Smooth(sm, sv)
	s1, s2 := make([]float64, n), make([]float64, n)
	z, eps := make([]float64, p.Dim), make([]float64, n)
	rng := rand.New(rand.NewPCG(3, 5))
	for range N {
		lg.FFBS(rng, z, eps)
		for i, pos := range states {
			s1[i] += z[pos]
			s2[i] += z[pos] * z[pos]
		}
	}
	for i := range n {
		tt, k := i/2, i%2
		em, ev := ref.SmoothMean[tt].AtVec(k), ref.SmoothCov[tt].At(k, k)
		require.InDelta(t, em, sm[i], 1e-9*(1+math.Abs(em)), "Smooth: x[%d,%d]'s mean", tt+1, k+1)
		require.InDelta(t, ev, sv[i], 1e-9*(1+ev), "Smooth: x[%d,%d]'s variance", tt+1, k+1)
		mean := s1[i] / N
		vr := s2[i]/N - mean*mean
		require.InDelta(t, em, mean, 4.5*math.Sqrt(ev/N), "x[%d,%d]'s mean", tt+1, k+1)
		require.InDelta(t, ev, vr, 4.5*ev*math.Sqrt(2.0/N), "x[%d,%d]'s variance", tt+1, k+1)
	}
}

// TestKalmanVAR2NotLinear: VAR(1) models of K = 2 whose state does not
// enter linearly and Gaussian given the statics keep particle Gibbs, and
// detection says why.
func TestKalmanVAR2NotLinear(t *testing.T) {
	src, err := os.ReadFile(kalmanDir + "var2.msc")
	require.NoError(t, err)
	for _, c := range []struct{ name, from, to, reason string }{
		{"mean", "0.3 * x[t-1, 2]", "0.3 * sin(x[t-1, 2])", "the transition's mean is not affine in the previous state"},
		{"sd", "x[t, 2] ~ normal(-0.1 * x[t-1, 1] + 0.6 * x[t-1, 2], sq)", "x[t, 2] ~ normal(-0.1 * x[t-1, 1] + 0.6 * x[t-1, 2], sq * exp(0.1 * x[t-1, 1]))", "the transition's covariance depends on the previous state"},
		{"observations", "y ~ normal(col(x, 1), sr)", "y ~ student_t(4, col(x, 1), sr)", "not a quadratic in the state"},
		{"convex", "y ~ normal(col(x, 1), sr)", "for t in 1..T {\n    y[t] ~ normal(x[t, 1], sr)\n    target += 0.5 * x[t, 2]^2\n  }", "convex, not concave"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := strings.Replace(string(src), c.from, c.to, 1)
			require.NotEqual(t, string(src), out)
			m, err := LoadSource(c.name+".msc", []byte(out), kalmanDir+"var2.csv")
			require.NoError(t, err)
			p := m.Problem()
			require.NotNil(t, p.Statics)
			require.False(t, p.Linear)
			require.ErrorContains(t, p.NotLinear, c.reason)
			require.Contains(t, pmcis.Path(p), "state space: particle Gibbs (CSMC for the state given the statics, CIS for them given it; the pseudo-marginal kernel pmcis takes a scalar state, this one has 2 components)")
			_, err = lgssm.NewKalmanFamily(p, msc.NewFullRank(2))
			require.NoError(t, err)
		})
	}
}

// TestKalmanVAR2KernelSteps: the kalman kernel on the VAR(1) (K = 2)
// takes steps that allocate nothing, and its retained states are finite.
func TestKalmanVAR2KernelSteps(t *testing.T) {
	m, err := Load(kalmanDir+"var2.msc", kalmanDir+"var2.csv")
	require.NoError(t, err)
	p := m.Problem()
	q, err := lgssm.NewKalmanFamily(p, msc.NewFullRank(2))
	require.NoError(t, err)
	require.NoError(t, q.SetMoments([]float64{math.Log(0.54), math.Log(0.66)}, []float64{0.02, 0, 0, 0.02}))
	k, err := lgssm.NewKalmanCIS(p, q, 10)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(11, 12))
	require.NoError(t, k.Init(rng))
	for range 5 {
		_, err := k.Step(rng)
		require.NoError(t, err)
	}
	require.Zero(t, testing.AllocsPerRun(5, func() { _, _ = k.Step(rng) }), "a step allocates")
	for _, pos := range p.Statics.States() {
		require.False(t, math.IsNaN(k.Retained()[pos]) || math.IsInf(k.Retained()[pos], 0))
	}
}

// BenchmarkKalmanVAR2Target is one evaluation of log p(theta, y) on the
// VAR(1) (K = 2, T = 150): the probes, the matrix filter and the log joint.
func BenchmarkKalmanVAR2Target(b *testing.B) {
	m, err := Load(kalmanDir+"var2.msc", kalmanDir+"var2.csv")
	require.NoError(b, err)
	lg, err := lgssm.NewLinearGaussian(m.Problem())
	require.NoError(b, err)
	u := []float64{math.Log(0.54), math.Log(0.66)}
	for b.Loop() {
		if _, err := lg.LogMarginal(u); err != nil {
			b.Fatal(err)
		}
	}
}
