package pfsmooth

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/internal/kalman"
)

// ar1 is an AR(1) state observed with noise, written by hand: x_1 ~ N(0,
// s0^2), x_t ~ N(phi x_{t-1}, s^2), y_t ~ N(x_t, r^2).
type ar1 struct {
	y             []float64
	phi, s0, s, r float64
}

func (m *ar1) Len() int             { return len(m.y) }
func (m *ar1) StateDim() int        { return 1 }
func (m *ar1) Index(t, _ int) int   { return t }
func (m *ar1) ReserveParticles(int) {}
func (m *ar1) ObsLogDensity(t int, cur, out []float64) {
	for i, x := range cur {
		d := (m.y[t] - x) / m.r
		out[i] = -0.5*d*d - math.Log(m.r)
	}
}
func (m *ar1) Transition(t int, prev, mean, sd []float64) {
	for i := range mean {
		if t == 0 {
			mean[i], sd[i] = 0, m.s0
			continue
		}
		mean[i], sd[i] = m.phi*prev[i], m.s
	}
}

// TestSmoothMatchesKalman: the smoother's marginals of every state of an
// AR(1) plus noise (T = 40) are the Kalman smoother's, within 4.5 standard
// errors between filters plus 0.03 sd (the filters' finite-N bias), its sd
// within 15% (3.4 times the error of an sd from 256 draws), and every
// step's median ESS above 10 of 500.
func TestSmoothMatchesKalman(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	m := &ar1{y: make([]float64, 40), phi: 0.9, s0: 2, s: 0.7, r: 0.5}
	x := m.s0 * rng.NormFloat64()
	for i := range m.y {
		if i > 0 {
			x = m.phi*x + m.s*rng.NormFloat64()
		}
		m.y[i] = x + m.r*rng.NormFloat64()
	}
	ref, err := kalman.Smooth(kalman.ScalarModel(0, m.s0*m.s0, m.phi, m.s*m.s, 1, m.r*m.r), kalman.Scalar(m.y))
	require.NoError(t, err)
	const R, per = 32, 8
	sm, err := Smooth(rng, &msc.Problem{Dim: len(m.y), StateSpace: m}, nil, R, per, 500)
	require.NoError(t, err)
	for k := range m.y {
		fm := make([]float64, R)
		var s1, s2 float64
		for f := range R {
			for r := range per {
				v := sm.Row(f*per + r)[k]
				fm[f] += v / per
				s1 += v
				s2 += v * v
			}
		}
		n := float64(R * per)
		mean, sd := s1/n, math.Sqrt(s2/n-(s1/n)*(s1/n))
		var v float64
		for _, a := range fm {
			v += (a - mean) * (a - mean)
		}
		se := math.Sqrt(v / float64(R*(R-1)))
		em, es := ref.SmoothMean[k].AtVec(0), math.Sqrt(ref.SmoothCov[k].At(0, 0))
		require.InDelta(t, em, mean, 4.5*se+0.03*es, "x[%d]'s mean", k+1)
		require.InDelta(t, es, sd, 0.15*es, "x[%d]'s sd", k+1)
		require.Greater(t, sm.ESS[k], 10.0)
	}
}
