package lgssm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/internal/testtier"
	"github.com/stretchr/testify/require"
)

// The one-step Geweke test of the kalman kernel (the design of
// infer/msc/geweke_onestep_test.go): each of many independent replicates
// draws (theta, x, y) exactly from the joint, sets the kernel's retained
// latents to (theta, x) with y as the data, and takes a few steps. When the
// kernel leaves p(theta, x | y) invariant, the latents after the steps are
// again a draw from the prior, so each test function's mean change
// E[g(after) - g(before)] is 0; the replicates are independent, so its
// standard error is the iid one. q(theta) is held fixed (and deliberately
// off the prior) during the steps.
//
// The models: the local level (K = 1) and a VAR(1) with a 2-dimensional
// state, both with two statics sq, sr ~ half-normal(0, a),
//
//	x_1 ~ N(m0, s0^2 I),  x_t ~ N(m0 + A (x_{t-1} - m0), sq^2 I),
//	y_t ~ N(x_t, sr^2 I),
//
// A = 1 for K = 1 and [[0.7, 0.2], [-0.1, 0.5]] for K = 2; z = (log sq,
// log sr, x_1, ..., x_T), x_t's components adjacent. At unit scale (a = 1,
// m0 = 0, s0 = 1) and at the scale of real data (a = 50, m0 = 1000,
// s0 = 100).

type gkScale struct {
	name      string
	a, m0, s0 float64
}

var gkScales = []gkScale{{"unit", 1, 0, 1}, {"scale1000", 50, 1000, 100}}

// gkModel is the model: a Target over z, a StaticStateSpace and (as its
// own Given) the Gaussian state space given the statics last set.
type gkModel struct {
	gkScale
	T, K   int
	A      []float64 // K x K
	y      []float64 // T x K, overwritten per replicate
	sq, sr float64
	mu     []float64 // scratch: a transition mean
}

func newGKModel(sc gkScale, T, K int) *gkModel {
	A := []float64{1}
	if K == 2 {
		A = []float64{0.7, 0.2, -0.1, 0.5}
	}
	return &gkModel{gkScale: sc, T: T, K: K, A: A, y: make([]float64, T*K), sq: sc.a, sr: sc.a, mu: make([]float64, K)}
}

func gkNorm(x, m, s float64) float64 {
	d := (x - m) / s
	return -0.5*d*d - math.Log(s) - 0.9189385332046727
}

// mean writes the transition's mean at step t given prev (K values).
func (m *gkModel) mean(t int, prev, out []float64) {
	for i := range m.K {
		out[i] = m.m0
		if t > 0 {
			for j := range m.K {
				out[i] += m.A[i*m.K+j] * (prev[j] - m.m0)
			}
		}
	}
}

func (m *gkModel) Dim() int    { return 2 + m.T*m.K }
func (m *gkModel) Reserve(int) {}
func (m *gkModel) LogJoint(z, out []float64) {
	d, K := m.Dim(), m.K
	mu := m.mu
	for b := range out {
		row := z[b*d : (b+1)*d]
		sq, sr := math.Exp(row[0]), math.Exp(row[1])
		lp := -0.5*(sq*sq+sr*sr)/(m.a*m.a) + row[0] + row[1]
		x := row[2:]
		for t := range m.T {
			s := sq
			if t == 0 {
				s = m.s0
			}
			m.mean(t, x[max(t-1, 0)*K:], mu)
			for i := range K {
				lp += gkNorm(x[t*K+i], mu[i], s) + gkNorm(m.y[t*K+i], x[t*K+i], sr)
			}
		}
		out[b] = lp
	}
}

func (m *gkModel) Statics() []int { return []int{0, 1} }
func (m *gkModel) States() []int {
	s := make([]int, m.T*m.K)
	for i := range s {
		s[i] = 2 + i
	}
	return s
}
func (m *gkModel) SetStatics(th []float64)      { m.sq, m.sr = math.Exp(th[0]), math.Exp(th[1]) }
func (m *gkModel) Given() msc.GeneralStateSpace { return m }
func (m *gkModel) Len() int                     { return m.T }
func (m *gkModel) StateDim() int                { return m.K }
func (m *gkModel) Index(t, k int) int           { return t*m.K + k }
func (m *gkModel) ReserveParticles(int)         {}

func (m *gkModel) sd(t int) float64 {
	if t == 0 {
		return m.s0
	}
	return m.sq
}

func (m *gkModel) Transition(t int, prev, mean, chol []float64) {
	K := m.K
	for p := 0; p < len(mean)/K; p++ {
		m.mean(t, prev[p*K:], mean[p*K:(p+1)*K])
		c := chol[p*K*K : (p+1)*K*K]
		clear(c)
		for i := range K {
			c[i*K+i] = m.sd(t)
		}
	}
}

func (m *gkModel) TransitionLogDensity(t int, prev, cur, out []float64) {
	K := m.K
	mu := m.mu
	for p := range out {
		m.mean(t, prev[p*K:], mu)
		out[p] = 0
		for i := range K {
			out[p] += gkNorm(cur[p*K+i], mu[i], m.sd(t))
		}
	}
}

func (m *gkModel) ObsLogDensity(t int, cur, out []float64) {
	K := m.K
	for p := range out {
		out[p] = 0
		for i := range K {
			out[p] += gkNorm(m.y[t*K+i], cur[p*K+i], m.sr)
		}
	}
}

// sample draws (theta, x) into z and y from the joint.
func (m *gkModel) sample(rng *rand.Rand, z []float64) {
	K := m.K
	z[0] = math.Log(m.a * math.Abs(rng.NormFloat64()))
	z[1] = math.Log(m.a * math.Abs(rng.NormFloat64()))
	sq, sr := math.Exp(z[0]), math.Exp(z[1])
	x := z[2:]
	mu := m.mu
	for t := range m.T {
		s := sq
		if t == 0 {
			s = m.s0
		}
		m.mean(t, x[max(t-1, 0)*K:], mu)
		for i := range K {
			x[t*K+i] = mu[i] + s*rng.NormFloat64()
			m.y[t*K+i] = x[t*K+i] + sr*rng.NormFloat64()
		}
	}
}

type gkStat struct {
	name string
	g    func(z []float64) float64
}

// stats are the test functions: the statics (log scale, natural scale,
// squared, an indicator at the half-normal's median) and the first, middle
// and last states (value, square about m0, an indicator at m0, the squared
// residual against y, the last squared increment); y is fixed during the
// steps, so functions of it are fair test functions, and the residuals and
// increments see the spread of x given (theta, y) without the prior's.
func (m *gkModel) stats() []gkStat {
	med := 0.6744897501960817 * m.a
	ind := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	out := []gkStat{
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
				gkStat{fmt.Sprintf("x[%d,%d]", t, i), func(z []float64) float64 { return z[p] }},
				gkStat{fmt.Sprintf("x[%d,%d]^2", t, i), func(z []float64) float64 { d := z[p] - m.m0; return d * d }},
				gkStat{fmt.Sprintf("x[%d,%d]<m0", t, i), func(z []float64) float64 { return ind(z[p] < m.m0) }},
				gkStat{fmt.Sprintf("(x-y)[%d,%d]^2", t, i), func(z []float64) float64 { d := z[p] - m.y[p-2]; return d * d }})
			if t > 0 {
				st := gkStat{fmt.Sprintf("dx[%d,%d]^2", t, i), func(z []float64) float64 { d := z[p] - z[p-m.K]; return d * d }}
				out = append(out, st)
			}
		}
	}
	return out
}

// gewekeKalman runs reps replicates of n kalman steps (S samples, q(theta)
// fixed off the prior) and returns each test function's z-score of
// E[g(after) - g(before)] against 0.
func gewekeKalman(t *testing.T, m *gkModel, seed uint64, S, reps, n int) map[string]float64 {
	rng := rand.New(rand.NewPCG(seed, 33))
	p := &msc.Problem{Dim: m.Dim(), Target: m, Statics: m}
	m.sample(rng, make([]float64, m.Dim()))
	require.NoError(t, DetectLinear(p))
	p.Linear = true
	theta := msc.NewFullRank(2)
	la := math.Log(m.a)
	// q(theta) a little off the prior's log-scale moments (mean -0.6, sd 1.1)
	require.NoError(t, theta.SetMoments([]float64{la - 0.3, la - 0.9}, []float64{1.2, 0.3, 0.3, 1}))
	q, err := NewKalmanFamily(p, theta)
	require.NoError(t, err)
	k, err := NewKalmanCIS(p, q, S)
	require.NoError(t, err)
	stats := m.stats()
	z := make([]float64, m.Dim())
	before := make([]float64, len(stats))
	sum, sq := make([]float64, len(stats)), make([]float64, len(stats))
	for range reps {
		m.sample(rng, z)
		for i, s := range stats {
			before[i] = s.g(z)
		}
		copy(k.cur, z)
		copy(k.theta, z[:2])
		k.Refresh()
		for range n {
			_, err := k.Step(rng)
			require.NoError(t, err)
		}
		after := k.Retained()
		for i, s := range stats {
			d := s.g(after) - before[i]
			sum[i] += d
			sq[i] += d * d
		}
	}
	out := map[string]float64{}
	r := float64(reps)
	for i, s := range stats {
		mean := sum[i] / r
		out[s.name] = mean / math.Sqrt((sq[i]/r-mean*mean)/r)
	}
	return out
}

const gkZMax = 4.5

func testGewekeKalman(t *testing.T, T, S, reps, n int) {
	for _, K := range []int{1, 2} {
		for si, sc := range gkScales {
			t.Run(fmt.Sprintf("K%d/%s", K, sc.name), func(t *testing.T) {
				m := newGKModel(sc, T, K)
				scores := gewekeKalman(t, m, uint64(1+si+10*K), S, reps, n)
				worst, at := 0.0, ""
				for _, s := range m.stats() {
					z := scores[s.name]
					t.Logf("%-10s z = %+.2f", s.name, z)
					if math.Abs(z) >= math.Abs(worst) {
						worst, at = z, s.name
					}
					if math.Abs(z) > gkZMax || math.IsNaN(z) {
						t.Errorf("one-step z-score %.2f for %s (|z| <= %.1f when the kalman kernel leaves p(theta, x | y) invariant)", z, s.name, gkZMax)
					}
				}
				t.Logf("largest |z|: %+.2f (%s)", worst, at)
			})
		}
	}
}

// TestGewekeKalman is the fast tier's: T = 3, S = 4, 24000 replicates of
// two steps for each model and scale.
func TestGewekeKalman(t *testing.T) { testGewekeKalman(t, 3, 4, 24000, 2) }

// TestGewekeKalmanLong is the long tier's: T = 5, S = 5, 400000
// replicates of three steps.
func TestGewekeKalmanLong(t *testing.T) {
	testtier.Skip(t)
	testGewekeKalman(t, 5, 5, 400000, 3)
}
