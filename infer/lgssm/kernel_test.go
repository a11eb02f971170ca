package lgssm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/stretchr/testify/require"
)

// switchSSM is theta ~ N(0, 1), x_1 ~ N(0, 1), x_t ~ N(0.5 x_{t-1}, 1),
// y_t ~ N(x_t, 1), plus a quartic 1e-3 x_t^4 in each observation term when
// theta > 4: linear and Gaussian where detection probes it (the statics
// N(0, 1.5^2)), not at theta > 4.
type switchSSM struct {
	y     []float64
	theta float64
}

func (s *switchSSM) Statics() []int               { return []int{0} }
func (s *switchSSM) States() []int                { return statesFrom1(len(s.y)) }
func (s *switchSSM) SetStatics(th []float64)      { s.theta = th[0] }
func (s *switchSSM) Given() msc.GeneralStateSpace { return s }
func (s *switchSSM) Len() int                     { return len(s.y) }
func (s *switchSSM) StateDim() int                { return 1 }
func (s *switchSSM) Index(t, _ int) int           { return t }
func (s *switchSSM) ReserveParticles(int)         {}

func statesFrom1(T int) []int {
	out := make([]int, T)
	for t := range out {
		out[t] = t + 1
	}
	return out
}

func (s *switchSSM) obs(t int, x, theta float64) float64 {
	v := normLog(s.y[t], x, 1)
	if theta > 4 {
		v -= 1e-3 * x * x * x * x
	}
	return v
}

func (s *switchSSM) ObsLogDensity(t int, cur, out []float64) {
	for i, x := range cur {
		out[i] = s.obs(t, x, s.theta)
	}
}

func (s *switchSSM) Transition(t int, prev, mean, sd []float64) {
	for i := range mean {
		mean[i], sd[i] = 0, 1
		if t > 0 {
			mean[i] = 0.5 * prev[i]
		}
	}
}

func (s *switchSSM) TransitionLogDensity(t int, prev, cur, out []float64) {
	for i := range out {
		m := 0.0
		if t > 0 {
			m = 0.5 * prev[i]
		}
		out[i] = normLog(cur[i], m, 1)
	}
}

// switchTarget is the log joint of switchSSM.
type switchTarget struct{ s *switchSSM }

func (g switchTarget) Dim() int    { return len(g.s.y) + 1 }
func (g switchTarget) Reserve(int) {}
func (g switchTarget) LogJoint(z, out []float64) {
	d := g.Dim()
	for b := range out {
		row := z[b*d : (b+1)*d]
		th := row[0]
		v := normLog(th, 0, 1)
		for t := range g.s.y {
			m := 0.0
			if t > 0 {
				m = 0.5 * row[t]
			}
			v += normLog(row[t+1], m, 1) + g.s.obs(t, row[t+1], th)
		}
		out[b] = v
	}
}

// TestKalmanStopsWhenAProbeFails: a model that detection takes (linear
// and Gaussian at the statics it probes) but whose observations are not
// quadratic at theta > 4: the kalman kernel runs at theta near 0 and
// stops with an error naming the reason as soon as it evaluates a theta
// above 4, never carrying on; its q's draws there record the error too.
// Its steps allocate nothing.
func TestKalmanStopsWhenAProbeFails(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	y := make([]float64, 30)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	s := &switchSSM{y: y}
	p := &msc.Problem{Dim: len(y) + 1, Target: switchTarget{s}, Statics: s}
	p.NotLinear = DetectLinear(p)
	require.NoError(t, p.NotLinear)
	p.Linear = true
	q, err := NewKalmanFamily(p, msc.NewFullRank(1))
	require.NoError(t, err)
	k, err := NewKalmanCIS(p, q, 10)
	require.NoError(t, err)
	require.NoError(t, k.Init(rng))
	for range 20 {
		_, err := k.Step(rng)
		require.NoError(t, err)
	}
	require.Zero(t, testing.AllocsPerRun(10, func() { _, _ = k.Step(rng) }), "a step allocates")
	require.NoError(t, q.Theta.SetMoments([]float64{6}, []float64{0.01}))
	_, err = k.Step(rng)
	require.ErrorContains(t, err, "not a quadratic in the state")
	require.ErrorContains(t, err, "--kernel pg")
	// q's own draws at theta = 6: NaN states and the error kept
	z, eps := make([]float64, 4*p.Dim), make([]float64, 4*p.Dim)
	q.Sample(rng, z, eps)
	require.True(t, math.IsNaN(z[1]))
	require.ErrorContains(t, q.Err(), "not a quadratic in the state")
}
