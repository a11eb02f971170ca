package msc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mscppl/mscppl/internal/testtier"
)

// The one-step form of the Geweke test: each of many independent
// replicates draws (theta, x, y) from the joint, then takes a few kernel
// steps given y. When the kernel leaves p(theta, x | y) invariant, the
// state after the steps is again a draw from the joint, so every test
// function's mean change E[g(after) - g(before)] is 0. The replicates are
// independent, so the standard errors are the plain iid ones: unlike the
// successive-conditional simulator's batch means, they need no central
// limit theorem for a chain, which fails when the chain sticks for longer
// than a batch (an independence proposal whose weights are unbounded, a
// pseudo-marginal kernel with a heavy-tailed likelihood estimate). It is
// weaker against a kernel that moves little per step, which the
// simulator's accumulation catches: the two complement each other.

// gewekeOneStep runs reps replicates of n steps and returns each test
// function's z-score of E[g(after) - g(before)] against 0.
func gewekeOneStep(m *gewekeLL, seed uint64, reps, n int, z []float64, step func(rng *rand.Rand, z []float64)) map[string]float64 {
	rng := rand.New(rand.NewPCG(seed, 34))
	stats := m.stats()
	before := make([]float64, len(stats))
	sum, sq := make([]float64, len(stats)), make([]float64, len(stats))
	for range reps {
		m.samplePrior(rng, z)
		m.sampleData(rng, z)
		for i, s := range stats {
			before[i] = s.g(z)
		}
		for range n {
			step(rng, z)
		}
		for i, s := range stats {
			d := s.g(z) - before[i]
			sum[i] += d
			sq[i] += d * d
		}
	}
	out := map[string]float64{}
	r := float64(reps)
	for i, s := range stats {
		mean := sum[i] / r
		out[s.name] = mean / math.Sqrt((sq[i]/r-mean*mean)/r) // NaN when no step moved
	}
	return out
}

// testGewekeOneStep runs every Geweke kernel at every scale.
func testGewekeOneStep(t *testing.T, T, S, reps, n int, long bool) {
	for _, kern := range gewekeKernels {
		if kern.fastOnly && long {
			continue
		}
		for si, sc := range gewekeScales {
			if kern.unitOnly && si > 0 {
				continue
			}
			t.Run(kern.name+"/"+sc.name, func(t *testing.T) {
				m := newGewekeLL(sc, T)
				z := make([]float64, m.Dim())
				if kern.fixed {
					m.fixed = true
					m.sq, m.sr = sc.a, 0.7*sc.a
					z[0], z[1] = math.Log(m.sq), math.Log(m.sr)
				}
				step := kern.build(t, m, S)
				scores := gewekeOneStep(m, uint64(1+si), reps, n, z, step)
				for _, s := range m.stats() {
					t.Logf("%-14s z = %+.2f", s.name, scores[s.name])
					if math.Abs(scores[s.name]) > gewekeZMax || math.IsNaN(scores[s.name]) {
						t.Errorf("%s: one-step z-score %.2f for %s (|z| <= %.1f when the kernel leaves the posterior invariant)", kern.name, scores[s.name], s.name, gewekeZMax)
					}
				}
			})
		}
	}
}

// TestGewekeOneStep is the fast tier's: T = 3, S = 4, 10000 replicates of
// two steps.
func TestGewekeOneStep(t *testing.T) { testGewekeOneStep(t, 3, 4, 10000, 2, false) }

// TestGewekeOneStepLong is the long tier's: T = 6, S = 5, 400000
// replicates of four steps.
func TestGewekeOneStepLong(t *testing.T) {
	testtier.Skip(t)
	testGewekeOneStep(t, 6, 5, 400000, 4, true)
}
