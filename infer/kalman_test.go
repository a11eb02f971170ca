package infer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/mscppl/mscppl/infer/lgssm"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/internal/kalman"
)

const kalmanDir = "../internal/kalman/testdata/"

// readY reads the column y of a case's data file.
func readY(t *testing.T, path string) []float64 {
	t.Helper()
	y, err := kalman.ReadData(path)
	require.NoError(t, err)
	return y
}

// normLPDF is log N(x; m, s) with its constant.
func normLPDF(x, m, s float64) float64 {
	d := (x - m) / s
	return -0.5*d*d - math.Log(s) - 0.5*math.Log(2*math.Pi)
}

// levelExact is log p(theta, y) of a local level case at the
// unconstrained statics u = (log sq, log sr), by internal/kalman: the
// half-normal(0, prior) priors (as normal_lpdf), the log-Jacobians u and
// the Kalman log-likelihood.
func levelExact(m0, p0, prior float64) func(u []float64, y [][]float64) (float64, kalman.Model) {
	return func(u []float64, y [][]float64) (float64, kalman.Model) {
		sq, sr := math.Exp(u[0]), math.Exp(u[1])
		mod := kalman.ScalarModel(m0, p0, 1, sq*sq, 1, sr*sr)
		return normLPDF(sq, 0, prior) + normLPDF(sr, 0, prior) + u[0] + u[1], mod
	}
}

// ar1Exact is log p(theta, y) of the AR(1) plus noise at u = (logit((phi +
// 1) / 2), log s): uniform(-1, 1), half-normal(0, 1) and the Jacobians.
func ar1Exact(u []float64, y [][]float64) (float64, kalman.Model) {
	sig := 1 / (1 + math.Exp(-u[0]))
	phi, s := 2*sig-1, math.Exp(u[1])
	mod := kalman.ScalarModel(0, s*s/(1-phi*phi), phi, s*s, 1, 1)
	return math.Log(0.5) + normLPDF(s, 0, 1) + math.Log(2*sig*(1-sig)) + u[1], mod
}

// kalmanCases are the cases of internal/kalman with statics, the exact
// prior part of log p(theta, y) with the Kalman model at theta, and a
// centre of the unconstrained statics near the posterior.
var kalmanCases = []struct {
	name   string
	exact  func(u []float64, y [][]float64) (float64, kalman.Model)
	centre []float64
}{
	{"local_level", levelExact(0, 100, 1), []float64{math.Log(0.33), math.Log(1)}},
	{"local_level_1000", levelExact(1000, 500*500, 200), []float64{math.Log(56), math.Log(100)}},
	{"ar1_noise", ar1Exact, []float64{2.2, math.Log(0.66)}},
}

// TestKalmanTargetExact: the kalman kernel's target, log p(theta, y) by
// the probed Kalman filter (the log joint at the filtered means less the
// step terms there, plus the filter's log marginal), equals log prior +
// log-Jacobian + internal/kalman.Filter's log-likelihood at random statics
// (near the posterior and far from it) to 1e-9 relative; the states'
// conditional density log p(x | theta, y) of an FFBS draw closes the
// identity log p(theta, x, y) - log p(x | theta, y) = log p(theta, y).
func TestKalmanTargetExact(t *testing.T) {
	for _, c := range kalmanCases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Load(kalmanDir+c.name+".msc", kalmanDir+c.name+".csv")
			require.NoError(t, err)
			p := m.Problem()
			require.True(t, p.Linear, "%v", p.NotLinear)
			lg, err := lgssm.NewLinearGaussian(p)
			require.NoError(t, err)
			y := kalman.Scalar(readY(t, kalmanDir+c.name+".csv"))
			rng := rand.New(rand.NewPCG(7, 1))
			checkTargetIdentity(t, p, lg, rng, y, c.centre, func(u []float64) (float64, kalman.Model) { return c.exact(u, y) })
		})
	}
}

// checkTargetIdentity checks, at 8 statics u drawn about centre (sd 1,
// then 2), that lg's log marginal equals exact's log prior plus
// internal/kalman.Filter's log-likelihood to 1e-9 relative, that an FFBS
// draw's log density is lg.LogDensity's, and that log p(theta, x, y) -
// log p(x | theta, y) = log p(theta, y). It returns the last u, the
// latent vector z of the last draw and the FFBS scratch.
func checkTargetIdentity(t *testing.T, p *msc.Problem, lg *lgssm.LinearGaussian, rng *rand.Rand, y [][]float64, centre []float64, exact func(u []float64) (float64, kalman.Model)) (u, z, eps []float64) {
	t.Helper()
	u = make([]float64, len(centre))
	z = make([]float64, p.Dim)
	eps = make([]float64, len(p.Statics.States()))
	var lj [1]float64
	for i := range 8 {
		for j := range u {
			u[j] = centre[j] + float64(1+i/4)*rng.NormFloat64()
		}
		prior, mod := exact(u)
		res, err := kalman.Filter(mod, y)
		require.NoError(t, err)
		want := prior + res.LogLik
		got, err := lg.LogMarginal(u)
		require.NoError(t, err)
		require.InDelta(t, want, got, 1e-9*(1+math.Abs(want)), "u = %v", u)
		// a draw of the states, and its conditional density
		for j, pos := range p.Statics.Statics() {
			z[pos] = u[j]
		}
		_, err = lg.Filter(u)
		require.NoError(t, err)
		lq := lg.FFBS(rng, z, eps)
		require.InDelta(t, lq, lg.LogDensity(z), 1e-9*(1+math.Abs(lq)))
		p.Target.LogJoint(z, lj[:])
		require.InDelta(t, want, lj[0]-lq, 1e-8*(1+math.Abs(lj[0])), "u = %v", u)
	}
	return u, z, eps
}

// TestFFBSMatchesSmoother: 4000 FFBS draws of the local level's states at
// fixed statics have the Kalman smoother's means and variances
// (internal/kalman.Smooth), within 4.5 Monte Carlo sds at every step
// (sd/sqrt(N) for a mean, var sqrt(2/N) for a variance).
func TestFFBSMatchesSmoother(t *testing.T) {
	m, err := Load(kalmanDir+"local_level.msc", kalmanDir+"local_level.csv")
	require.NoError(t, err)
	p := m.Problem()
	lg, err := lgssm.NewLinearGaussian(p)
	require.NoError(t, err)
	y := kalman.Scalar(readY(t, kalmanDir+"local_level.csv"))
	u := []float64{math.Log(0.4), math.Log(0.9)}
	_, mod := levelExact(0, 100, 1)(u, y)
	ref, err := kalman.Smooth(mod, y)
	require.NoError(t, err)
	_, err = lg.Filter(u)
	require.NoError(t, err)
	const N = 4000
	T := len(y)
	s1, s2 := make([]float64, T), make([]float64, T)
	z, eps := make([]float64, p.Dim), make([]float64, T)
	rng := rand.New(rand.NewPCG(3, 4))
	states := p.Statics.States()
	for range N {
		lg.FFBS(rng, z, eps)
		for k, pos := range states {
			s1[k] += z[pos]
			s2[k] += z[pos] * z[pos]
		}
	}
	for k := range T {
		mean := s1[k] / N
		vr := s2[k]/N - mean*mean
		em, ev := ref.SmoothMean[k].AtVec(0), ref.SmoothCov[k].At(0, 0)
		require.InDelta(t, em, mean, 4.5*math.Sqrt(ev/N), "x[%d]'s mean", k+1)
		require.InDelta(t, ev, vr, 4.5*ev*math.Sqrt(2.0/N), "x[%d]'s variance", k+1)
	}
}

// TestKalmanTwoObservations: two observations of each state (y_t ~
// N(x_t, sr), w_t ~ N(2 x_t, 3)) are one quadratic per step; the target
// equals the prior and internal/kalman's two-dimensional filter.
func TestKalmanTwoObservations(t *testing.T) {
	src := `data { y: vector[T]
  w: vector[T] }
latent {
  sq: real<lower=0>
  sr: real<lower=0>
  x: vector[T]
}
model {
  sq ~ normal(0, 1)
  sr ~ normal(0, 1)
  x[1] ~ normal(0, 10)
  for t in 2..T {
    x[t] ~ normal(x[t-1], sq)
  }
  y ~ normal(x, sr)
  w ~ normal(2 * x, 3)
}
`
	yv := readY(t, kalmanDir+"local_level.csv")
	rng := rand.New(rand.NewPCG(5, 6))
	path := t.TempDir() + "/yw.csv"
	b := []byte("y,w\n")
	obs := make([][]float64, len(yv))
	for i, v := range yv {
		w := 2*v + 3*rng.NormFloat64()
		obs[i] = []float64{v, w}
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, w, 'g', -1, 64)
		b = append(b, '\n')
	}
	require.NoError(t, os.WriteFile(path, b, 0o644))
	m, err := LoadSource("two.msc", []byte(src), path)
	require.NoError(t, err)
	p := m.Problem()
	require.True(t, p.Linear, "%v", p.NotLinear)
	lg, err := lgssm.NewLinearGaussian(p)
	require.NoError(t, err)
	for i := range 4 {
		u := []float64{math.Log(0.3) + 0.5*float64(i)*rng.NormFloat64(), 0.5 * float64(i) * rng.NormFloat64()}
		prior, mod := levelExact(0, 100, 1)(u, nil)
		sr := math.Exp(u[1])
		mod.H = kalmanH2()
		mod.R = kalmanR2(sr*sr, 9)
		res, err := kalman.Filter(mod, obs)
		require.NoError(t, err)
		got, err := lg.LogMarginal(u)
		require.NoError(t, err)
		want := prior + res.LogLik
		require.InDelta(t, want, got, 1e-9*(1+math.Abs(want)))
	}
}

// TestKalmanTransitionConstant: an AR(1) about a latent level mu
// (x_t ~ N(mu + phi (x_{t-1} - mu), s)), whose transition mean has a
// constant, against internal/kalman's filter of y - mu (the state x - mu).
func TestKalmanTransitionConstant(t *testing.T) {
	src := `data { y: vector[T] }
latent {
  phi: real<lower=-1, upper=1>
  s: real<lower=0>
  mu: real
  x: vector[T]
}
model {
  phi ~ uniform(-1, 1)
  s ~ normal(0, 1)
  mu ~ normal(0, 10)
  x[1] ~ normal(mu, s / sqrt(1 - phi^2))
  for t in 2..T {
    x[t] ~ normal(mu + phi * (x[t-1] - mu), s)
  }
  y ~ normal(x, 1)
}
`
	yv := readY(t, kalmanDir+"ar1_noise.csv")
	for i := range yv {
		yv[i] += 3
	}
	m, err := LoadSource("mu.msc", []byte(src), writeSeries(t, yv))
	require.NoError(t, err)
	p := m.Problem()
	require.True(t, p.Linear, "%v", p.NotLinear)
	lg, err := lgssm.NewLinearGaussian(p)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(9, 9))
	y := make([][]float64, len(yv))
	for i := range 6 {
		u := []float64{2 + rng.NormFloat64(), math.Log(0.6) + 0.5*rng.NormFloat64(), 3 + float64(i)*rng.NormFloat64()}
		prior, mod := ar1Exact(u[:2], nil)
		mu := u[2]
		for k, v := range yv {
			y[k] = []float64{v - mu}
		}
		res, err := kalman.Filter(mod, y)
		require.NoError(t, err)
		want := prior + normLPDF(mu, 0, 10) + res.LogLik
		got, err := lg.LogMarginal(u)
		require.NoError(t, err)
		require.InDelta(t, want, got, 1e-9*(1+math.Abs(want)), "u = %v", u)
	}
}

// TestKalmanNotTaken: models whose state does not enter linearly and
// Gaussian given the statics keep particle Gibbs, and check says why.
func TestKalmanNotTaken(t *testing.T) {
	head := "data { y: vector[T] }\nlatent {\n  phi: real<lower=-1, upper=1>\n  s: real<lower=0>\n  x: vector[T]\n}\nmodel {\n  phi ~ uniform(-1, 1)\n  s ~ normal(0, 1)\n  x[1] ~ normal(0, 1)\n  for t in 2..T {\n"
	for _, c := range []struct{ name, body, reason string }{
		{"stochastic volatility", "    x[t] ~ normal(phi * x[t-1], s)\n  }\n  y ~ normal(0, exp(x / 2))\n}\n", "not a quadratic in the state"},
		{"transition mean x^2", "    x[t] ~ normal(phi * x[t-1]^2, s)\n  }\n  y ~ normal(x, 1)\n}\n", "mean is not affine"},
		{"transition sd of x", "    x[t] ~ normal(phi * x[t-1], s * (1 + x[t-1]^2))\n  }\n  y ~ normal(x, 1)\n}\n", "sd depends on the previous state"},
		{"student-t observations", "    x[t] ~ normal(phi * x[t-1], s)\n  }\n  y ~ student_t(4, x, 1)\n}\n", "not a quadratic in the state"},
		{"convex observations", "    x[t] ~ normal(phi * x[t-1], s)\n  }\n  y ~ normal(x, 1)\n  for t in 1..T {\n    target += 0.6 * square(x[t])\n  }\n}\n", "convex, not concave"},
		{"student-t transition", "    x[t] ~ student_t(5, phi * x[t-1], s)\n  }\n  y ~ normal(x, 1)\n}\n", "transition is not Gaussian"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := LoadSource("m.msc", []byte(head+c.body), kalmanDir+"ar1_noise.csv")
			require.NoError(t, err)
			p := m.Problem()
			require.NotNil(t, p.Statics)
			require.False(t, p.Linear)
			require.ErrorContains(t, p.NotLinear, c.reason)
			k, err := msc.ChooseKernel("msc", p, msc.KernelOptions{})
			require.NoError(t, err)
			require.Equal(t, "pgpm", k.Name)
			require.Contains(t, StateSpacePath(m.Comp), "particle Gibbs (CSMC for the state given the statics, CIS for them given it) or pseudo-marginal CIS (pmcis: the statics weighed by a particle filter's likelihood), whichever a pilot of 512 particle Gibbs steps at each chain's start measures cheaper per independent draw of the statics (the run's notes give both measurements; --kernel pg or pmcis forces one); the Kalman marginal does not apply: ")
		})
	}
	// and the cases that qualify take the kalman kernel
	m, err := Load(kalmanDir+"ar1_noise.msc", kalmanDir+"ar1_noise.csv")
	require.NoError(t, err)
	k, err := msc.ChooseKernel("msc", m.Problem(), msc.KernelOptions{})
	require.NoError(t, err)
	require.True(t, k.Marginal, k.Name)
	require.Contains(t, StateSpacePath(m.Comp), "Kalman marginal over 2 statics")
}

// kalmanH2 observes the scalar state twice, as x and as 2 x.
func kalmanH2() *mat.Dense { return mat.NewDense(2, 1, []float64{1, 2}) }

// kalmanR2 is the diagonal covariance of the two observations.
func kalmanR2(a, b float64) *mat.SymDense { return mat.NewSymDense(2, []float64{a, 0, 0, b}) }

// BenchmarkKalmanTarget is one evaluation of log p(theta, y) on the AR(1)
// plus noise (T = 200): the probes, the filter and the log joint.
func BenchmarkKalmanTarget(b *testing.B) {
	m, err := Load(kalmanDir+"ar1_noise.msc", kalmanDir+"ar1_noise.csv")
	require.NoError(b, err)
	lg, err := lgssm.NewLinearGaussian(m.Problem())
	require.NoError(b, err)
	u := []float64{2.2, math.Log(0.66)}
	for b.Loop() {
		if _, err := lg.LogMarginal(u); err != nil {
			b.Fatal(err)
		}
	}
}

// TestKalmanTargetAllocatesNothing: an evaluation of log p(theta, y) (the
// probes, the filter, the log joint) and an FFBS draw allocate nothing.
func TestKalmanTargetAllocatesNothing(t *testing.T) {
	m, err := Load(kalmanDir+"ar1_noise.msc", kalmanDir+"ar1_noise.csv")
	require.NoError(t, err)
	p := m.Problem()
	lg, err := lgssm.NewLinearGaussian(p)
	require.NoError(t, err)
	u := []float64{2.2, math.Log(0.66)}
	z, eps := make([]float64, p.Dim), make([]float64, len(p.Statics.States()))
	rng := rand.New(rand.NewPCG(1, 1))
	require.Zero(t, testing.AllocsPerRun(20, func() {
		if _, err := lg.LogMarginal(u); err != nil {
			t.Fatal(err)
		}
		lg.FFBS(rng, z, eps)
	}))
}

// TestKalmanRunReportsStates: a short run of the local level takes the
// kalman kernel and family over its 2 statics, and reports every state
// beside them, with the states' draws in draws of the fit; the same run
// is the same bits on one core and on two.
func TestKalmanRunReportsStates(t *testing.T) {
	m, err := Load(kalmanDir+"local_level.msc", kalmanDir+"local_level.csv")
	require.NoError(t, err)
	opt := Options{Seed: 3, Iters: 100, Fixed: true, Draws: 200}
	f, err := Fit(context.Background(), m, opt)
	require.NoError(t, err)
	s := f.Summary
	require.Equal(t, "kalman", s.Kernel)
	require.Equal(t, "kalman", s.Family)
	require.Equal(t, 2, f.Q.(*lgssm.KalmanFamily).Statics().Dim())
	require.Len(t, s.Latent, 102)
	for _, n := range []string{"sq", "sr", "x[1]", "x[50]", "x[100]"} {
		mo, ok := s.Latent[n]
		require.True(t, ok, n)
		require.False(t, math.IsNaN(mo.Mean) || math.IsNaN(mo.SD), n)
	}
	// the smoother's answer at the statics' posterior means, against the
	// states' summaries: close (the statics' spread adds a little)
	y := kalman.Scalar(readY(t, kalmanDir+"local_level.csv"))
	sm, err := kalman.Smooth(kalman.ScalarModel(0, 100, 1, math.Pow(s.Latent["sq"].Mean, 2), 1, math.Pow(s.Latent["sr"].Mean, 2)), y)
	require.NoError(t, err)
	for _, k := range []int{0, 49, 99} {
		got := s.Latent[fmt.Sprintf("x[%d]", k+1)]
		require.InDelta(t, sm.SmoothMean[k].AtVec(0), got.Mean, 0.2*got.SD, "x[%d]", k+1)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	m1, err := Load(kalmanDir+"local_level.msc", kalmanDir+"local_level.csv")
	require.NoError(t, err)
	f1, err := Fit(context.Background(), m1, opt)
	require.NoError(t, err)
	for n, mo := range s.Latent {
		require.Equal(t, mo, f1.Summary.Latent[n], n)
	}
}
