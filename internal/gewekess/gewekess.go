// Package gewekess is the state-space model of the one-step Geweke tests
// of the kernels outside infer/msc (infer/lgssm's kalman kernel,
// infer/pmcis's particle-marginal kernels): the local level (K = 1) and a
// VAR(1) with a 2-dimensional state, both with two statics sq, sr ~
// half-normal(0, a),
//
//	x_1 ~ N(m0, s0^2 I),  x_t ~ N(m0 + A (x_{t-1} - m0), sq^2 I),
//	y_t ~ N(x_t, sr^2 I),
//
// A = 1 for K = 1 and [[0.7, 0.2], [-0.1, 0.5]] for K = 2; z = (log sq,
// log sr, x_1, ..., x_T), x_t's components adjacent. At unit scale (a = 1,
// m0 = 0, s0 = 1) and at the scale of real data (a = 50, m0 = 1000,
// s0 = 100). Sample draws (theta, x, y) exactly from the joint; OneStep
// runs the test: when a kernel leaves p(theta, x | y) invariant, its
// latents after some steps from an exact draw are again a draw from the
// prior, so each test function's mean change is 0 with an iid standard
// error over independent replicates.
package gewekess

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/infer/msc"
)

// Scale is a scale of the model: the statics' half-normal scale A0, the
// state's level M0 and the first state's sd S0.
type Scale struct {
	Name       string
	A0, M0, S0 float64
}

// Scales are the unit scale and the scale of real data (a series around
// 1000, sds around 50).
var Scales = []Scale{{"unit", 1, 0, 1}, {"scale1000", 50, 1000, 100}}

// Model is the model: a Target over z, a StaticStateSpace and (as its
// own Given) the Gaussian state space given the statics last set.
type Model struct {
	Scale
	T, K   int
	A      []float64 // K x K
	Y      []float64 // T x K, overwritten per replicate
	sq, sr float64
	mu     []float64 // scratch: a transition mean
}

func NewModel(sc Scale, T, K int) *Model {
	A := []float64{1}
	if K == 2 {
		A = []float64{0.7, 0.2, -0.1, 0.5}
	}
	return &Model{Scale: sc, T: T, K: K, A: A, Y: make([]float64, T*K), sq: sc.A0, sr: sc.A0, mu: make([]float64, K)}
}

func normLog(x, m, s float64) float64 {
	d := (x - m) / s
	return -0.5*d*d - math.Log(s) - 0.9189385332046727
}

// mean writes the transition's mean at step t given prev (K values).
func (m *Model) mean(t int, prev, out []float64) {
	for i := range m.K {
		out[i] = m.M0
		if t > 0 {
			for j := range m.K {
				out[i] += m.A[i*m.K+j] * (prev[j] - m.M0)
			}
		}
	}
}

func (m *Model) Dim() int    { return 2 + m.T*m.K }
func (m *Model) Reserve(int) {}
func (m *Model) LogJoint(z, out []float64) {
	d, K := m.Dim(), m.K
	mu := m.mu
	for b := range out {
		row := z[b*d : (b+1)*d]
		sq, sr := math.Exp(row[0]), math.Exp(row[1])
		lp := -0.5*(sq*sq+sr*sr)/(m.A0*m.A0) + row[0] + row[1]
		x := row[2:]
		for t := range m.T {
			s := sq
			if t == 0 {
				s = m.S0
			}
			m.mean(t, x[max(t-1, 0)*K:], mu)
			for i := range K {
				lp += normLog(x[t*K+i], mu[i], s) + normLog(m.Y[t*K+i], x[t*K+i], sr)
			}
		}
		out[b] = lp
	}
}

func (m *Model) Statics() []int { return []int{0, 1} }
func (m *Model) States() []int {
	s := make([]int, m.T*m.K)
	for i := range s {
		s[i] = 2 + i
	}
	return s
}
func (m *Model) SetStatics(th []float64)      { m.sq, m.sr = math.Exp(th[0]), math.Exp(th[1]) }
func (m *Model) Given() msc.GeneralStateSpace { return m }
func (m *Model) Len() int                     { return m.T }
func (m *Model) StateDim() int                { return m.K }
func (m *Model) Index(t, k int) int           { return t*m.K + k }
func (m *Model) ReserveParticles(int)         {}

func (m *Model) sd(t int) float64 {
	if t == 0 {
		return m.S0
	}
	return m.sq
}

// prevOf is particle p's previous state (none at the first step, where
// the sweeps pass no previous states).
func (m *Model) prevOf(t int, prev []float64, p int) []float64 {
	if t == 0 {
		return nil
	}
	return prev[p*m.K:]
}

func (m *Model) Transition(t int, prev, mean, chol []float64) {
	K := m.K
	for p := 0; p < len(mean)/K; p++ {
		m.mean(t, m.prevOf(t, prev, p), mean[p*K:(p+1)*K])
		c := chol[p*K*K : (p+1)*K*K]
		clear(c)
		for i := range K {
			c[i*K+i] = m.sd(t)
		}
	}
}

func (m *Model) TransitionLogDensity(t int, prev, cur, out []float64) {
	K := m.K
	mu := m.mu
	for p := range out {
		m.mean(t, m.prevOf(t, prev, p), mu)
		out[p] = 0
		for i := range K {
			out[p] += normLog(cur[p*K+i], mu[i], m.sd(t))
		}
	}
}

func (m *Model) ObsLogDensity(t int, cur, out []float64) {
	K := m.K
	for p := range out {
		out[p] = 0
		for i := range K {
			out[p] += normLog(m.Y[t*K+i], cur[p*K+i], m.sr)
		}
	}
}

// sample draws (theta, x) into z and y from the joint.
func (m *Model) Sample(rng *rand.Rand, z []float64) {
	K := m.K
	z[0] = math.Log(m.A0 * math.Abs(rng.NormFloat64()))
	z[1] = math.Log(m.A0 * math.Abs(rng.NormFloat64()))
	sq, sr := math.Exp(z[0]), math.Exp(z[1])
	x := z[2:]
	mu := m.mu
	for t := range m.T {
		s := sq
		if t == 0 {
			s = m.S0
		}
		m.mean(t, x[max(t-1, 0)*K:], mu)
		for i := range K {
			x[t*K+i] = mu[i] + s*rng.NormFloat64()
			m.Y[t*K+i] = x[t*K+i] + sr*rng.NormFloat64()
		}
	}
}

type Stat struct {
	Name string
	G    func(z []float64) float64
}

// stats are the test functions: the statics (log scale, natural scale,
// squared, an indicator at the half-normal's median) and the first, middle
// and last states (value, square about m0, an indicator at m0, the squared
// residual against y, the last squared increment); y is fixed during the
// steps, so functions of it are fair test functions, and the residuals and
// increments see the spread of x given (theta, y) without the prior's.
func (m *Model) Stats() []Stat {
	med := 0.6744897501960817 * m.A0
	ind := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	out := []Stat{
		{"log sq", func(z []float64) float64 { return z[0] }},
		{"log sr", func(z []float64) float64 { return z[1] }},
		{"sq", func(z []float64) float64 { return math.Exp(z[0]) }},
		{"sr^2", func(z []float64) float64 { return math.Exp(2 * z[1]) }},
		{"sq<med", func(z []float64) float64 { return ind(math.Exp(z[0]) < med) }},
		{"sr<med", func(z []float64) float64 { return ind(math.Exp(z[1]) < med) }},
	}
	for _, t := range []int{0, m.T / 2, m.T - 1} {
		for i := range m.K {
			p := 2 + t*m.K + i
			out = append(out,
				Stat{fmt.Sprintf("x[%d,%d]", t, i), func(z []float64) float64 { return z[p] }},
				Stat{fmt.Sprintf("x[%d,%d]^2", t, i), func(z []float64) float64 { d := z[p] - m.M0; return d * d }},
				Stat{fmt.Sprintf("x[%d,%d]<m0", t, i), func(z []float64) float64 { return ind(z[p] < m.M0) }},
				Stat{fmt.Sprintf("(x-y)[%d,%d]^2", t, i), func(z []float64) float64 { d := z[p] - m.Y[p-2]; return d * d }})
			if t > 0 {
				st := Stat{fmt.Sprintf("dx[%d,%d]^2", t, i), func(z []float64) float64 { d := z[p] - z[p-m.K]; return d * d }}
				out = append(out, st)
			}
		}
	}
	return out
}

// ZMax bounds a one-step z-score: |z| <= ZMax when the kernel is invariant
// (about 1e-5 two-sided per score, a few dozen scores per test).
const ZMax = 4.5

// OneStep runs reps replicates: each draws (theta, x, y) exactly, hands z
// (theta, x) to step, which moves the kernel from there and returns its
// latents, and it returns each test function's z-score of E[g(after) -
// g(before)] against 0.
func OneStep(m *Model, rng *rand.Rand, reps int, step func(z []float64) []float64) map[string]float64 {
	stats := m.Stats()
	z := make([]float64, m.Dim())
	before := make([]float64, len(stats))
	sum, sq := make([]float64, len(stats)), make([]float64, len(stats))
	for range reps {
		m.Sample(rng, z)
		for i, s := range stats {
			before[i] = s.G(z)
		}
		after := step(z)
		for i, s := range stats {
			d := s.G(after) - before[i]
			sum[i] += d
			sq[i] += d * d
		}
	}
	out := map[string]float64{}
	r := float64(reps)
	for i, s := range stats {
		mean := sum[i] / r
		out[s.Name] = mean / math.Sqrt((sq[i]/r-mean*mean)/r)
	}
	return out
}

// T is what Check needs of a *testing.T.
type T interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
}

// Check logs each test function's z-score of scores, reports an error for
// each beyond ZMax (or NaN), naming kernel, and logs the largest.
func Check(t T, m *Model, scores map[string]float64, kernel string) {
	t.Helper()
	for _, s := range m.Stats() {
		z := scores[s.Name]
		t.Logf("%-10s z = %+.2f", s.Name, z)
		if math.Abs(z) > ZMax || math.IsNaN(z) {
			t.Errorf("one-step z-score %.2f for %s (|z| <= %.1f when the %s leaves p(theta, x | y) invariant)", z, s.Name, ZMax, kernel)
		}
	}
	worst, at := Worst(scores)
	t.Logf("largest |z|: %+.2f (%s)", worst, at)
}

// QMoments are the mean and covariance of a q(theta) over (log sq, log sr)
// a little off the prior's log-scale moments (mean log a - 0.6, sd 1.1):
// the tests' fixed q.
func (m *Model) QMoments() (mean, cov []float64) {
	la := math.Log(m.A0)
	return []float64{la - 0.3, la - 0.9}, []float64{1.2, 0.3, 0.3, 1}
}

// Worst is the z-score of largest size among scores and its test function.
func Worst(scores map[string]float64) (float64, string) {
	worst, at := 0.0, ""
	for name, z := range scores {
		if math.Abs(z) > math.Abs(worst) || math.IsNaN(z) || (math.Abs(z) == math.Abs(worst) && name < at) {
			worst, at = z, name
		}
	}
	return worst, at
}
