package pmcis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/internal/gewekess"
	"github.com/mscppl/mscppl/internal/testtier"
	"github.com/stretchr/testify/require"
)

// pgFamily is m's problem and the particle-gibbs family over it with
// q(theta) fixed a little off the prior (gewekess.Model.QMoments).
func pgFamily(t *testing.T, m *gewekess.Model) (*msc.Problem, *msc.PGFamily) {
	p := &msc.Problem{Dim: m.Dim(), Target: m, Statics: m}
	theta := msc.NewFullRank(2)
	require.NoError(t, theta.SetMoments(m.QMoments()))
	f, err := msc.NewPGFamily(p, theta)
	require.NoError(t, err)
	return p, f
}

// pmFor builds the pmcis kernel for m with S proposals, q(theta) fixed
// (pgFamily) and n particles per filter (no retuning).
func pmFor(t *testing.T, m *gewekess.Model, S, n int) *PMCIS {
	p, f := pgFamily(t, m)
	k, err := NewPMCIS(p, f, S)
	require.NoError(t, err)
	require.NoError(t, k.setParticles(n))
	k.retuneAt = 0
	return k
}

// gewekePM is the one-step Geweke test (internal/gewekess) of n steps of
// step from exact draws of the local level: each replicate sets the
// retained (theta, x), draws the filter's variables given them and the
// new y by a conditional sweep (condition, the kernel's Refresh: y
// changed, and with it the stored estimate), then steps.
func gewekePM(t *testing.T, m *gewekess.Model, seed uint64, S, N, reps, n int, step func(k *PMCIS, rng *rand.Rand) error) map[string]float64 {
	rng := rand.New(rand.NewPCG(seed, 77))
	m.Sample(rng, make([]float64, m.Dim()))
	k := pmFor(t, m, S, N)
	return gewekess.OneStep(m, rng, reps, func(z []float64) []float64 {
		copy(k.cur, z)
		msc.Gather(k.theta, k.statics, k.cur)
		k.rng = rng
		require.NoError(t, k.condition(rng))
		for range n {
			require.NoError(t, step(k, rng))
		}
		return k.cur
	})
}

// pmKernels are the moves under test: the whole kernel (a pmcis step, the
// local moves, a conditional sweep when they moved) and the pmcis step
// alone.
var pmKernels = []struct {
	name string
	step func(k *PMCIS, rng *rand.Rand) error
}{
	{"pmcis", func(k *PMCIS, rng *rand.Rand) error { _, err := k.Step(rng); return err }},
	{"pm-step", func(k *PMCIS, rng *rand.Rand) error { _, err := k.pmStep(rng); return err }},
}

func testGewekePM(t *testing.T, T, S, N, reps, n int) {
	for _, pk := range pmKernels {
		for si, sc := range gewekess.Scales {
			t.Run(fmt.Sprintf("%s/%s", pk.name, sc.Name), func(t *testing.T) {
				m := gewekess.NewModel(sc, T, 1)
				scores := gewekePM(t, m, uint64(1+si), S, N, reps, n, pk.step)
				gewekess.Check(t, m, scores, "kernel")
			})
		}
	}
}

// TestGewekePMCIS is the fast tier's: T = 3, S = 4 proposals, filters of
// 4 particles (few, so that log Zhat's variance matters), 20000
// replicates of two steps for each move and scale.
func TestGewekePMCIS(t *testing.T) { testGewekePM(t, 3, 4, 4, 20000, 2) }

// TestGewekePMCISLong is the long tier's: T = 5, 300000 replicates of
// three steps.
func TestGewekePMCISLong(t *testing.T) {
	testtier.Skip(t)
	testGewekePM(t, 5, 5, 5, 300000, 3)
}

// TestPMCISTune checks the choice of N on the unit-scale local level with
// T = 120 (sq = 0.3, sr = 0.2, x and y simulated): at the starting 32
// particles the variance of log Zhat is far above 1, and at the N tune
// chooses a separate measure over 100 filters puts it near 1. tune stops
// once its 16-filter estimate lies in [0.5, 2]; that estimate is within a
// factor 0.23 to 2.5 of the truth with probability 0.998 (chi-square with
// 15 degrees of freedom), so the true variance lies in [0.2, 8.7]; the
// bounds allow the 100-filter measure's own 14% error.
func TestPMCISTune(t *testing.T) {
	m := gewekess.NewModel(gewekess.Scales[0], 120, 1)
	rng := rand.New(rand.NewPCG(5, 33))
	z := make([]float64, m.Dim())
	m.Sample(rng, z)
	k := pmFor(t, m, 10, pmStartParticles)
	k.theta[0], k.theta[1] = math.Log(0.3), math.Log(0.2)
	// y drawn again at the test's statics
	x, y := z[2:], m.Y
	x[0] = rng.NormFloat64()
	for i := range x {
		if i > 0 {
			x[i] = x[i-1] + 0.3*rng.NormFloat64()
		}
		y[i] = x[i] + 0.2*rng.NormFloat64()
	}
	k.ss.SetStatics(k.theta)
	variance := func(n int) float64 {
		require.NoError(t, k.setParticles(n))
		ls := make([]float64, 100)
		for r := range ls {
			require.True(t, k.pf.Sweep(rng, false))
			ls[r] = k.pf.LogZ
		}
		mean, v := 0.0, 0.0
		for _, l := range ls {
			mean += l / float64(len(ls))
		}
		for _, l := range ls {
			v += (l - mean) * (l - mean) / float64(len(ls)-1)
		}
		return v
	}
	v32 := variance(pmStartParticles)
	require.NoError(t, k.setParticles(pmStartParticles))
	require.NoError(t, k.tune(rng, "the test's theta", k.maxParticles()))
	n := k.Particles()
	vn := variance(n)
	t.Logf("var log Zhat: %.3g at N = %d; tune chose N = %d, var %.3g; %s", v32, pmStartParticles, n, vn, k.Notes()[0])
	require.Greater(t, v32, 10.0, "the test needs a variance far above 1 at the start")
	require.True(t, vn > 0.17 && vn < 10, "the variance at the chosen N = %d is %.3g, not about 1", n, vn)
}

// TestGewekeChoice is the one-step Geweke test of the pgpm kernel, its
// pilot shortened: for each exact draw (theta, x, y), Init runs the pilot
// on y (particle Gibbs for at = 8 steps, its statics over steps 5-8
// measuring it, then 4 trial pmcis steps), the chosen kernel takes (theta,
// x) as its retained draw (pmcis draws its filter's variables given it)
// and steps twice. The choice depends on y and the pilot, not on (theta,
// x), so the steps must leave p(theta, x | y) invariant whichever kernel
// was chosen. Both are (with particle Gibbs's work per step counted 10 S T,
// not 3 S T: at T = 3 pmcis's least work, 8 particles per filter, is
// otherwise hardly ever the less); the counts are logged and each must be
// at least 5%.
func TestGewekeChoice(t *testing.T) { testGewekeChoice(t, 2000) }

// TestGewekeChoiceLong is the long tier's, with 30000 replicates.
func TestGewekeChoiceLong(t *testing.T) {
	testtier.Skip(t)
	testGewekeChoice(t, 30000)
}

func testGewekeChoice(t *testing.T, reps int) {
	const at, after = 8, 2
	for si, sc := range gewekess.Scales {
		t.Run(sc.Name, func(t *testing.T) {
			m := gewekess.NewModel(sc, 3, 1)
			rng := rand.New(rand.NewPCG(uint64(40+si), 5))
			m.Sample(rng, make([]float64, m.Dim()))
			p, f := pgFamily(t, m)
			c, err := NewChoice(p, f, 4)
			require.NoError(t, err)
			c.at, c.trials, c.pgWork = at, 4, 10
			chosePM := 0
			scores := gewekess.OneStep(m, rng, reps, func(z []float64) []float64 {
				c.use = c.pg
				require.NoError(t, c.Init(rng))
				require.NotEmpty(t, c.note)
				if c.use == msc.Kernel(c.pm) {
					chosePM++
				}
				require.NoError(t, c.setRetained(rng, z))
				for range after {
					_, err := c.Step(rng)
					require.NoError(t, err)
				}
				return c.Retained()
			})
			t.Logf("pmcis chosen in %d of %d replicates", chosePM, reps)
			require.True(t, chosePM > reps/20 && chosePM < reps-reps/20, "both kernels must be chosen often enough to be tested: pmcis %d of %d", chosePM, reps)
			gewekess.Check(t, m, scores, "pgpm kernel")
		})
	}
}

// setRetained makes z the chosen kernel's retained draw (pmcis draws its
// filter's variables given it by a conditional sweep).
func (c *Choice) setRetained(rng *rand.Rand, z []float64) error {
	if c.use != msc.Kernel(c.pm) {
		c.pg.SetRetained(z)
		return nil
	}
	copy(c.pm.cur, z)
	msc.Gather(c.pm.theta, c.pm.statics, c.pm.cur)
	c.pm.rng = rng
	return c.pm.condition(rng)
}
