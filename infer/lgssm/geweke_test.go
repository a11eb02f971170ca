package lgssm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/internal/gewekess"
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
// The model is internal/gewekess's (the local level, K = 1, and a VAR(1),
// K = 2, at unit scale and at the scale of real data).

// gewekeKalman runs reps replicates of n kalman steps (S samples, q(theta)
// fixed off the prior) and returns each test function's z-score of
// E[g(after) - g(before)] against 0.
func gewekeKalman(t *testing.T, m *gewekess.Model, seed uint64, S, reps, n int) map[string]float64 {
	rng := rand.New(rand.NewPCG(seed, 33))
	p := &msc.Problem{Dim: m.Dim(), Target: m, Statics: m}
	m.Sample(rng, make([]float64, m.Dim()))
	require.NoError(t, DetectLinear(p))
	p.Linear = true
	theta := msc.NewFullRank(2)
	require.NoError(t, theta.SetMoments(m.QMoments()))
	q, err := NewKalmanFamily(p, theta)
	require.NoError(t, err)
	k, err := NewKalmanCIS(p, q, S)
	require.NoError(t, err)
	return gewekess.OneStep(m, rng, reps, func(z []float64) []float64 {
		copy(k.cur, z)
		copy(k.theta, z[:2])
		k.Refresh()
		for range n {
			_, err := k.Step(rng)
			require.NoError(t, err)
		}
		return k.Retained()
	})
}

func testGewekeKalman(t *testing.T, T, S, reps, n int) {
	for _, K := range []int{1, 2} {
		for si, sc := range gewekess.Scales {
			t.Run(fmt.Sprintf("K%d/%s", K, sc.Name), func(t *testing.T) {
				m := gewekess.NewModel(sc, T, K)
				scores := gewekeKalman(t, m, uint64(1+si+10*K), S, reps, n)
				gewekess.Check(t, m, scores, "kalman kernel")
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
