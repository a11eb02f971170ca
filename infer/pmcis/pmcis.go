package pmcis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/internal/resample"
)

func init() {
	msc.RegisterKernel(msc.KernelSpec{
		Name: "pmcis", Help: "particle-marginal CIS for static latents beside a state: S-1 draws of q(theta), each weighed by a particle filter's likelihood estimate, the retained theta kept with its stored estimate",
		Method: "msc", Priority: 1, Needs: msc.CapLogJoint | msc.CapStatics, Markov: true, StateSpace: true, Statics: true,
		Optimizers: []msc.Optimizer{msc.Natural},
		New: func(p *msc.Problem, q msc.Family, S int, _ msc.KernelOptions) (msc.Kernel, error) {
			f, ok := q.(*msc.PGFamily)
			if !ok {
				return nil, fmt.Errorf("the pmcis kernel takes the particle-gibbs family, not %s", q.Name())
			}
			return NewPMCIS(p, f, S)
		},
	})
}

// Particle numbers of the pmcis kernel's filters: pmMinParticles at
// least, and at most pmMaxParticleSteps / T (a bound on one filter's
// work and memory), pmInitParticles at Init. pmTuneFilters repeated
// filters measure the variance of the log-likelihood estimate at Init and
// again at the retained theta after pmRetuneStep, 2 pmRetuneStep, 4
// pmRetuneStep, ... steps: q(theta) starts far from the posterior (at
// N(0, I) on the SV model the variance at 32 particles ranged from 4 to
// 2000 over four chains' first draws, and tuning there chose up to 16620
// particles, where 200 steps later 46 to 164 gave a variance about 1) and
// the learned state proposal makes the filters better as the run goes.
const (
	pmMinParticles     = 8
	pmStartParticles   = 32
	pmInitParticles    = 1024
	pmMaxParticleSteps = 1 << 22
	pmTuneFilters      = 16
	pmRetuneStep       = 100
	// pmTargetVar is the variance of log Zhat that N aims at (Doucet et
	// al. 2015's optimum for a pseudo-marginal chain, about 1)
	pmTargetVar = 1.0
)

// PMCIS is particle-marginal conditional importance sampling within MSC for
// static latents theta beside a scalar state x: CIS on theta whose target,
// p(theta) p(y | theta), is replaced by an unbiased particle filter's
// estimate, p(theta) Zhat(theta) (Andrieu, Doucet & Holenstein 2010's
// pseudo-marginal idea applied to the paper's CIS kernel). The retained
// state is (theta, x, log p(theta) + log Zhat): x a trajectory drawn from
// the final weights of the filter that gave Zhat. One step draws S-1
// proposals theta_i ~ q(theta), runs an independent filter of N particles
// at each (with a fixed state proposal: the bootstrap one for a Gaussian
// transition, PG's start, the per-step one otherwise), weighs
// row i by p(theta_i) Zhat_i / q(theta_i), keeps the retained row with its
// stored estimate as row 0 (never a fresh one: that would be Monte Carlo
// within Metropolis, which is not invariant) and draws a row by the
// weights. On the extended space of (theta, the filter's variables, the
// drawn particle) this is CIS with the target p(theta) psi(U | theta)
// Zhat(U) / p(y), whose marginal in (theta, x) is the posterior: the kernel
// leaves the posterior invariant for any N, and no step conditions on the
// retained trajectory.
//
// N is chosen so that the variance of log Zhat at the retained theta is
// about 1 (Doucet, Pitt, Deligiannidis & Kohn 2015): pmTuneFilters
// repeated filters measure it at Init and again after pmRetuneStep steps
// (Notes reports both). The score step of q sees the retained row only
// (Weighted): its statics move q(theta) (and its trajectory the family's
// state proposal, which the filters do not use: with a fixed twisted
// proposal in the filters the Geweke test failed, |z| up to 6.8 over
// 400000 cycles, where the bootstrap filters pass; open, see
// docs/state-space.md).
//
// log p(theta) is the model's log joint at (theta, x) less the state
// space's own log p(x, y | theta) (the transition and observation
// densities at x), so that every factor of the model that does not involve
// the state (the statics' priors and their Jacobians) is counted whatever
// x is.
type PMCIS struct {
	p     *msc.Problem
	ss    msc.StaticStateSpace
	given msc.GeneralStateSpace
	q     *msc.PGFamily
	prop  msc.Family // the filters' state proposal, fixed
	local *msc.PG    // its centred and non-centred blocks: the local moves
	pf    *msc.CSMC
	rng   *rand.Rand // the chain's stream, for Refresh

	S, N, d, k, T int
	statics       []int
	states        []int

	cur   []float64 // the retained z
	theta []float64 // its statics
	curLT float64   // its log p(theta) + log Zhat

	// the rows: their statics and noise, log-likelihood estimates, the
	// state space's log p(x, y | theta), log joints, log targets (log
	// p(theta) + log Zhat), log q, log weights and weights
	z, th, eps          []float64
	lz, lxy, lp, lt, lq []float64
	lw, w, one, ls      []float64
	prev1, cur1, out1   [1]float64
	stay                float64 // the last pmStep's weight of the retained row
	steps, retuneAt     int     // steps taken; the step that measures N again (0: none)
	initNote, lastNote  string  // what tune chose at Init and last
	err                 error   // Refresh's, returned by the next Step
}

// NewPMCIS returns the kernel with S statics proposals per step; the
// filters' particle number is chosen at Init.
func NewPMCIS(p *msc.Problem, q *msc.PGFamily, S int) (*PMCIS, error) {
	if err := p.Check("the pmcis kernel", msc.CapLogJoint|msc.CapStatics); err != nil {
		return nil, err
	}
	if S < 2 {
		return nil, fmt.Errorf("the pmcis kernel needs at least 2 samples, got %d", S)
	}
	given := p.Statics.Given()
	if given.StateDim() != 1 {
		return nil, fmt.Errorf("the pmcis kernel takes a scalar state, not %d components per step", given.StateDim())
	}
	T := given.Len()
	d, k := p.Dim, len(p.Statics.Statics())
	mk := func(n int) []float64 { return make([]float64, n) }
	prop, err := msc.StartProposal(given)
	if err != nil {
		return nil, err
	}
	local, err := msc.NewPG(p, q, S)
	if err != nil {
		return nil, err
	}
	p.Target.Reserve(S)
	kp := &PMCIS{p: p, ss: p.Statics, given: given, q: q, prop: prop, local: local,
		S: S, d: d, k: k, T: T, statics: p.Statics.Statics(), states: p.Statics.States(),
		cur: mk(d), theta: mk(k),
		z: mk(S * d), th: mk(S * k), eps: mk(S * k),
		lz: mk(S), lxy: mk(S), lp: mk(S), lt: mk(S), lq: mk(S), lw: mk(S), w: mk(S), one: []float64{1},
		ls: mk(pmTuneFilters), retuneAt: pmRetuneStep,
	}
	if err := kp.setParticles(pmStartParticles); err != nil {
		return nil, err
	}
	return kp, nil
}

func (k *PMCIS) Name() string { return "pmcis" }
func (k *PMCIS) Markov() bool { return true }

// Particles is the filters' particle number N.
func (k *PMCIS) Particles() int { return k.N }

// Notes says which N the kernel chose at Init and last, and why.
func (k *PMCIS) Notes() []string {
	if k.lastNote == "" {
		return []string{k.initNote}
	}
	return []string{k.initNote, k.lastNote}
}

// setParticles rebuilds the filter with n particles.
func (k *PMCIS) setParticles(n int) error {
	if k.pf != nil && k.pf.N == n {
		return nil
	}
	pf, err := msc.NewCSMC(&msc.Problem{Dim: k.T, StateSpace: k.given}, k.prop, n)
	if err != nil {
		return err
	}
	k.pf, k.N = pf, n
	return nil
}

// maxParticles bounds N by one filter's work.
func (k *PMCIS) maxParticles() int {
	return max(pmMinParticles, pmMaxParticleSteps/max(k.T, 1))
}

// Init draws theta from q(theta), chooses N at it, and draws x and Zhat
// from a filter there.
func (k *PMCIS) Init(rng *rand.Rand) error {
	k.rng = rng
	k.q.KernelTheta().Sample(rng, k.theta, k.eps[:k.k])
	if err := k.tune(rng, "q(theta)'s first draw", pmInitParticles); err != nil {
		return err
	}
	return k.filterRetained(rng)
}

// filterRetained gives the retained theta a fresh filter: its estimate and
// a trajectory drawn from it (at Init, where there is no state to keep).
func (k *PMCIS) filterRetained(rng *rand.Rand) error {
	msc.Scatter(k.cur, k.statics, k.theta)
	k.ss.SetStatics(k.theta)
	k.pf.Sweep(rng, false)
	msc.Scatter(k.cur, k.states, k.pf.Reference())
	var err error
	k.curLT, err = k.logTarget(k.cur, k.pf.LogZ)
	return err
}

// logTarget is log p(theta) + lz at row z (the statics set in the model's
// state space): the log joint less log p(x, y | theta).
func (k *PMCIS) logTarget(z []float64, lz float64) (float64, error) {
	lxy := k.stateLogDensity(z)
	k.p.Target.LogJoint(z, k.lp[:1])
	lt := k.lp[0] - lxy + lz
	if math.IsNaN(lt) || math.IsInf(lt, 1) {
		return 0, k.p.NaNError(z)
	}
	return lt, nil
}

// stateLogDensity is log p(x, y | theta) of row z's trajectory under the
// state space's densities at the statics last set.
func (k *PMCIS) stateLogDensity(z []float64) float64 {
	s := 0.0
	for t, p := range k.states {
		k.cur1[0] = z[p]
		k.given.TransitionLogDensity(t, k.prev1[:], k.cur1[:], k.out1[:])
		s += k.out1[0]
		k.given.ObsLogDensity(t, k.cur1[:], k.out1[:])
		s += k.out1[0]
		k.prev1[0] = z[p]
	}
	return s
}

// tune measures the variance of log Zhat at the retained theta over
// pmTuneFilters filters and sets N so that it is about 1 (the variance
// goes as 1/N), remeasuring until it lies in [0.5, 2] or N reaches its
// bounds (at most four rounds). It records the choice in Notes.
func (k *PMCIS) tune(rng *rand.Rand, where string, most int) error {
	k.ss.SetStatics(k.theta)
	n, v := k.N, 0.0
	var tried []string
	for round := 0; round < 4; round++ {
		if err := k.setParticles(n); err != nil {
			return err
		}
		v = k.logZVariance(rng)
		tried = append(tried, fmt.Sprintf("%.3g at N = %d", v, n))
		if v >= pmTargetVar/2 && v <= 2*pmTargetVar {
			break
		}
		next := min(most, k.maxParticles())
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			next = min(next, max(pmMinParticles, int(math.Ceil(float64(n)*v/pmTargetVar))))
		}
		if next == n {
			break
		}
		n = next
	}
	note := fmt.Sprintf("pmcis: N = %d particles per filter, chosen at %s (the variance of the log-likelihood estimate over %d filters: %s; aim about %g)", k.N, where, pmTuneFilters, strings.Join(tried, ", "), pmTargetVar)
	if k.initNote == "" {
		k.initNote = note
	} else {
		k.lastNote = note
	}
	return nil
}

// logZVariance is the sample variance of log Zhat over pmTuneFilters
// filters at the statics last set (+Inf when a filter degenerated).
func (k *PMCIS) logZVariance(rng *rand.Rand) float64 {
	for r := range k.ls {
		if !k.pf.Sweep(rng, false) {
			return math.Inf(1)
		}
		k.ls[r] = k.pf.LogZ
	}
	m := 0.0
	for _, v := range k.ls {
		m += v
	}
	m /= float64(len(k.ls))
	v := 0.0
	for _, x := range k.ls {
		v += (x - m) * (x - m)
	}
	return v / float64(len(k.ls)-1)
}

// Step is one particle-marginal CIS step (pmStep), then particle Gibbs's
// local moves of the statics given the state (msc.PG.MoveStatics) and,
// when they moved, a conditional sweep at the new statics (condition),
// which gives the stored estimate that belongs to them. Each of the three
// leaves the extended target invariant, so their sequence does. The local
// moves are what the independence proposals lack: without them the
// kernel, invariant, said converged on the Bayesian SV model of the
// monthly DEM/GBP series with mu's sd 16% too narrow, every chain
// visiting the left tail, which q(theta) makes light, too rarely and
// staying there too long (docs/state-space.md).
func (k *PMCIS) Step(rng *rand.Rand) (msc.StepInfo, error) {
	k.rng = rng
	if err := k.err; err != nil {
		k.err = nil
		return msc.StepInfo{}, err
	}
	info, err := k.pmStep(rng)
	if err != nil || info.Degenerate {
		return info, err
	}
	moved, err := k.local.MoveStatics(rng, k.cur)
	if err != nil || !moved {
		return info, err
	}
	msc.Gather(k.theta, k.statics, k.cur)
	info.Changed = true
	return info, k.condition(rng)
}

// pmStep is one particle-marginal CIS step.
func (k *PMCIS) pmStep(rng *rand.Rand) (msc.StepInfo, error) {
	k.steps++
	if k.steps == k.retuneAt {
		k.retuneAt *= 2
		if err := k.tune(rng, fmt.Sprintf("the retained theta of step %d", k.steps), k.maxParticles()); err != nil {
			return msc.StepInfo{}, err
		}
	}
	d, S, nk := k.d, k.S, k.k
	copy(k.z[:d], k.cur)
	copy(k.th[:nk], k.theta)
	k.lt[0] = k.curLT
	k.q.KernelTheta().Sample(rng, k.th[nk:], k.eps[nk:])
	for b := 1; b < S; b++ {
		row, th := k.z[b*d:(b+1)*d], k.th[b*nk:(b+1)*nk]
		copy(row, k.cur)
		msc.Scatter(row, k.statics, th)
		k.ss.SetStatics(th)
		if k.pf.Sweep(rng, false) {
			k.lz[b] = k.pf.LogZ
		} else {
			k.lz[b] = math.Inf(-1) // the filter's weights all vanished: Zhat = 0
		}
		msc.Scatter(row, k.states, k.pf.Reference())
		k.lxy[b] = k.stateLogDensity(row)
	}
	k.ss.SetStatics(k.theta)
	k.p.Target.LogJoint(k.z[d:], k.lp[1:])
	k.lq[0] = k.q.KernelTheta().LogQ(k.th[:nk])
	for b := 1; b < S; b++ {
		k.lq[b] = k.q.KernelTheta().LogQNoise(k.th[b*nk:(b+1)*nk], k.eps[b*nk:(b+1)*nk])
		switch {
		case math.IsInf(k.lz[b], -1):
			k.lt[b] = math.Inf(-1)
		default:
			k.lt[b] = k.lp[b] - k.lxy[b] + k.lz[b]
			if math.IsNaN(k.lt[b]) || math.IsInf(k.lt[b], 1) {
				return msc.StepInfo{}, k.p.NaNError(k.z[b*d : (b+1)*d])
			}
		}
	}
	for b := range S {
		k.lw[b] = k.lt[b] - k.lq[b]
	}
	_, ess, ok := resample.Normalise(k.lw, k.w)
	if !ok {
		k.stay = 1
		return msc.StepInfo{Degenerate: true}, nil
	}
	k.stay = k.w[0]
	j := resample.Categorical(rng, k.w)
	if j == 0 {
		k.curLT = k.lt[0]
		return msc.StepInfo{ESS: ess}, nil
	}
	diff := 0
	row := k.z[j*d : (j+1)*d]
	for _, p := range k.states {
		if row[p] != k.cur[p] {
			diff++
		}
	}
	copy(k.cur, row)
	msc.Gather(k.theta, k.statics, k.cur)
	k.curLT = k.lt[j]
	k.ss.SetStatics(k.theta)
	return msc.StepInfo{Changed: true, ESS: ess, FracDiff: float64(diff) / float64(k.T)}, nil
}

// condition refreshes the retained (x, Zhat) given theta by a conditional
// SMC sweep with the retained trajectory as its reference: the filter's
// variables are drawn from their conditional on the extended space, so
// this Gibbs move keeps the posterior invariant (it is particle Gibbs's
// state block). Refresh uses it when the model's params, and with them the
// stored estimate, changed.
func (k *PMCIS) condition(rng *rand.Rand) error {
	k.ss.SetStatics(k.theta)
	x := k.z[:k.T] // scratch: the reference in the filter's layout
	for t, p := range k.states {
		x[t] = k.cur[p]
	}
	k.pf.SetReference(x)
	if !k.pf.Sweep(rng, true) {
		return nil // degenerate: keep the retained state and estimate
	}
	msc.Scatter(k.cur, k.states, k.pf.Reference())
	lt, err := k.logTarget(k.cur, k.pf.LogZ)
	if err != nil {
		return err
	}
	k.curLT = lt
	return nil
}

// Weighted is the retained row with weight 1: MSC's score step climbs at
// the chain's draw.
func (k *PMCIS) Weighted() ([]float64, []float64) { return k.cur, k.one }

// Retained is the retained latent vector.
func (k *PMCIS) Retained() []float64 { return k.cur }

// Refresh recomputes the retained estimate after the params changed, by a
// conditional sweep (condition).
func (k *PMCIS) Refresh() {
	if k.rng == nil {
		return
	}
	k.err = k.condition(k.rng)
}
