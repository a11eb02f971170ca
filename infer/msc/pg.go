package msc

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/internal/adam"
	"github.com/mscppl/mscppl/internal/resample"
	"github.com/mscppl/mscppl/internal/runwindow"
	"github.com/mscppl/mscppl/stdlib"
)

// StaticStateSpace is a state-space model with static latents theta beside
// its state x_1..x_T, of K >= 1 components per step: p(theta, x, y) =
// p(theta) prod_t p(x_t | x_{t-1}, theta) g(y_t | x_t, theta). Package ir
// implements it with a second compile of the model in which the statics
// are params.
type StaticStateSpace interface {
	// Statics are the positions of theta in the latent vector z, States
	// those of the state: States()[t*K+k] that of component k at step t.
	Statics() []int
	States() []int
	// SetStatics sets the (unconstrained) theta at which Given evaluates.
	SetStatics(theta []float64)
	// Given is the structure of the state given the statics last set: a
	// GeneralStateSpace, and a GaussianStateSpace too when the transition
	// is Gaussian. Its layout (Index) places the state in a latent vector
	// of its own, of length T*K.
	Given() GeneralStateSpace
}

// givenOrder are the positions in z of the state given the statics, in the
// order of its own latent vector: out[Given().Index(t, k)] = States()[t*K+k].
func givenOrder(ss StaticStateSpace) ([]int, error) {
	g, states := ss.Given(), ss.States()
	idx, err := layoutIndex(g)
	if err != nil {
		return nil, err
	}
	if len(states) != len(idx) {
		return nil, fmt.Errorf("the state has %d positions in the model, its structure %d x %d", len(states), g.Len(), g.StateDim())
	}
	out := make([]int, len(idx))
	for i, j := range idx {
		out[j] = states[i]
	}
	return out, nil
}

func init() {
	RegisterFamily(FamilySpec{
		Name: "particle-gibbs", Help: "q(theta), a full-rank Gaussian over the static latents, with the state-space proposal of the state given them",
		Proposal: true, Needs: CapStatics, Priority: 2, Start: "q(theta) at N(0, I) and the bootstrap proposal",
		NewFor: func(p *Problem) (Family, error) { return NewPGFamily(p, NewFullRank(len(p.Statics.Statics()))) },
	})
	RegisterKernel(KernelSpec{
		Name: "pg", Help: "particle Gibbs for static latents beside a state: CSMC for the state given them, then CIS for them given the state and given its noise",
		Method: "msc", Priority: 2, Needs: CapLogJoint | CapStatics, Markov: true, StateSpace: true, Statics: true,
		Optimizers: []Optimizer{Natural},
		New: func(p *Problem, q Family, S int, _ KernelOptions) (Kernel, error) {
			f, ok := q.(*PGFamily)
			if !ok {
				return nil, fmt.Errorf("the pg kernel takes the particle-gibbs family, not %s", q.Name())
			}
			return NewPG(p, f, S)
		},
	})
}

// PGFamily is q for particle Gibbs: q(theta) over the statics' unconstrained
// values, and the state-space proposal of the state given them (the
// twisted Gaussian one for a Gaussian transition). Both climb the score at
// the chain's samples: its NaturalStep moves q(theta) by its own natural
// step at the weighted statics and the proposal by Adam (step
// Defaults.LRSSM, the paper's) at the weighted trajectories.
//
// The PG kernel does not propose from these iterates but from their
// averages over the last completed segment of steps (KernelTheta,
// KernelProposal), the segments ending after 2, 4, 8, ... steps: the
// iterates follow the chain's last few hundred samples, and a kernel whose
// proposal follows the chain's current state does not leave the posterior
// invariant. At the scale of real data this was the local level's defect
// (issue 33: a series around 1000, the state noise's sd 0.83 posterior sd
// low and 25% too narrow, 0.6 sd and 21% after 40000 iterations, with a
// Monte Carlo error of 0.4 reported): Adam moves the twisted proposal's
// Nu by about its step per iteration whatever the state's scale, which
// moves the proposal's mean by that step times the state's posterior
// variance, so that at sds around 50 the proposal tracked the retained
// trajectory of the last few iterations. Within a segment the kernel's
// proposals are fixed, so the kernel is invariant; each segment's
// proposals average twice as many iterates as the last.
type PGFamily struct {
	Theta    Sampler
	Proposal Family
	statics  []int
	states   []int // the state's positions in z, in the proposal's order (givenOrder)
	d        int
	contig   bool      // states are z[states[0]:][:len(states)], in order
	traj     []float64 // scratch: a trajectory gathered from z (not contig)

	kTheta     Sampler // the kernel's q(theta) and state proposal
	kProp      Family
	sumT, sumP []float64 // the sums of the iterates' statistics over the current segment
	curT, curP []float64 // scratch: the iterates' statistics
	navg, nseg int       // the steps taken, those of the current segment

	adam        *adam.State
	steps       int // natural steps taken, for the proposal's decreasing step
	lamP, gradP []float64
	rows        []float64 // scratch: the statics of the weighted rows
}

// pgTwistStart is the log of the twisted proposal's Lambda at the start of
// particle Gibbs: psi = exp(-Lambda z^2 / 2) is then negligible against the
// transition at any state's scale below about 1e4 (the bootstrap proposal).
// NewTwisted's 1e-2 pulls the proposal towards 0 with a precision of 100
// sds around 10: at a series around 1000 the first trajectory (a particle
// filter at the start) lay near 0, the observation sd was drawn to fit it
// (about 270 against 100), and the chains stayed there.
var pgTwistStart = math.Log(1e-8)

// NewPGFamily returns q for the problem's statics (theta, of the problem's
// number of statics) and its state's proposal at its standard start.
func NewPGFamily(p *Problem, theta Sampler) (*PGFamily, error) {
	if err := p.Check("the particle-gibbs family", CapStatics); err != nil {
		return nil, err
	}
	prop, err := StartProposal(p.Statics.Given())
	if err != nil {
		return nil, err
	}
	states, err := givenOrder(p.Statics)
	if err != nil {
		return nil, err
	}
	f := &PGFamily{Theta: theta, Proposal: prop, statics: p.Statics.Statics(), states: states, d: p.Dim}
	if theta.Dim() != len(f.statics) {
		return nil, fmt.Errorf("q(theta) has %d dimensions, the model %d statics", theta.Dim(), len(f.statics))
	}
	f.init()
	return f, nil
}

// StartProposal is the state proposal at particle Gibbs's start: for a
// Gaussian transition the twisted proposal at pgTwistStart (the bootstrap
// proposal, nearly), the per-step one otherwise.
func StartProposal(given GeneralStateSpace) (Family, error) {
	ss, ok := given.(GaussianStateSpace)
	if !ok {
		return NewARProposal(given)
	}
	tw, err := NewTwisted(ss)
	if err != nil {
		return nil, err
	}
	for t := range tw.LogDiag {
		tw.LogDiag[t] = pgTwistStart
	}
	return tw, nil
}

func (f *PGFamily) init() {
	f.contig = true
	for j, p := range f.states {
		f.contig = f.contig && p == f.states[0]+j
	}
	f.traj = make([]float64, len(f.states))
	n := f.Proposal.NumLambda()
	f.adam, f.lamP, f.gradP = adam.New(n), make([]float64, n), make([]float64, n)
	f.kTheta, f.kProp = f.Theta.Clone().(Sampler), f.Proposal.Clone()
	if tw, ok := f.Proposal.(*Twisted); ok {
		// the kernel's sweeps record the path that the iterate's score reads
		tw.path = f.kProp.(*Twisted).path
	}
	f.sumT, f.curT = make([]float64, f.Theta.NumStats()), make([]float64, f.Theta.NumStats())
	f.sumP, f.curP = make([]float64, f.Proposal.NumStats()), make([]float64, f.Proposal.NumStats())
	f.restartAverage()
}

// restartAverage makes the kernel's proposals the iterates themselves and
// restarts the segments there (at the start, and when q is set from
// outside).
func (f *PGFamily) restartAverage() {
	f.navg, f.nseg = 0, 0
	clear(f.sumT)
	clear(f.sumP)
	f.Theta.Stats(f.curT)
	f.Proposal.Stats(f.curP)
	_ = f.kTheta.SetStats(f.curT) // the iterate's own statistics
	_ = f.kProp.SetStats(f.curP)
}

// average adds the iterates to the current segment's sums and, at the end
// of a segment (after 2, 4, 8, ... steps), makes the kernel's proposals
// the segment's averages and starts the next.
func (f *PGFamily) average() error {
	f.navg++
	f.nseg++
	f.Theta.Stats(f.curT)
	f.Proposal.Stats(f.curP)
	runwindow.AddTo(f.sumT, f.curT)
	runwindow.AddTo(f.sumP, f.curP)
	if f.navg&(f.navg-1) != 0 {
		return nil
	}
	inv := 1 / float64(f.nseg)
	for i := range f.sumT {
		f.sumT[i] *= inv
	}
	for i := range f.sumP {
		f.sumP[i] *= inv
	}
	err := f.kTheta.SetStats(f.sumT)
	if err == nil {
		err = f.kProp.SetStats(f.sumP)
	}
	clear(f.sumT)
	clear(f.sumP)
	f.nseg = 0
	return err
}

// KernelTheta is the q(theta) the kernels propose from: the average of
// q(theta)'s iterates over the last completed segment of steps.
func (f *PGFamily) KernelTheta() Sampler { return f.kTheta }

func (f *PGFamily) Name() string   { return "particle-gibbs" }
func (f *PGFamily) Dim() int       { return f.d }
func (f *PGFamily) NumLambda() int { return f.Theta.NumLambda() + f.Proposal.NumLambda() }
func (f *PGFamily) NumStats() int  { return f.Theta.NumStats() + f.Proposal.NumStats() }

// Lambda writes q(theta)'s parameters, then the proposal's.
func (f *PGFamily) Lambda(dst []float64) {
	n := f.Theta.NumLambda()
	f.Theta.Lambda(dst[:n])
	f.Proposal.Lambda(dst[n:])
}

// SetLambda is the inverse of Lambda.
func (f *PGFamily) SetLambda(src []float64) {
	n := f.Theta.NumLambda()
	f.Theta.SetLambda(src[:n])
	f.Proposal.SetLambda(src[n:])
	f.restartAverage()
}

// AddScore adds the scores of q(theta) at the row's statics and of the
// proposal at its trajectory.
func (f *PGFamily) AddScore(w float64, z, grad []float64) {
	n := f.Theta.NumLambda()
	th := f.rowStatics(z, 0)
	f.Theta.AddScore(w, th, grad[:n])
	f.Proposal.AddScore(w, f.trajectory(z), grad[n:])
}

// rowStatics copies the statics of row z into the scratch row slot b.
func (f *PGFamily) rowStatics(z []float64, b int) []float64 {
	k := len(f.statics)
	if len(f.rows) < (b+1)*k {
		f.rows = append(f.rows, make([]float64, (b+1)*k-len(f.rows))...)
	}
	th := f.rows[b*k : (b+1)*k]
	for i, p := range f.statics {
		th[i] = z[p]
	}
	return th
}

// trajectory returns the state of row z in the proposal's order: a view
// when the state lies in z in that order (one vector, a matrix, vectors
// side by side), else gathered into scratch.
func (f *PGFamily) trajectory(z []float64) []float64 {
	if f.contig {
		lo := f.states[0]
		return z[lo : lo+len(f.states)]
	}
	for j, p := range f.states {
		f.traj[j] = z[p]
	}
	return f.traj
}

// NaturalStep moves q(theta) by its natural step at the weighted rows'
// statics and the proposal by one Adam step along its weighted score.
func (f *PGFamily) NaturalStep(z, w []float64, rho float64) error {
	nat, ok := f.Theta.(NaturalFamily)
	if !ok {
		return fmt.Errorf("q(theta) (%s) has no natural step", f.Theta.Name())
	}
	k := len(f.statics)
	S := len(w)
	for b := range S {
		f.rowStatics(z[b*f.d:(b+1)*f.d], b)
	}
	if err := nat.NaturalStep(f.rows[:S*k], w, rho); err != nil {
		return err
	}
	clear(f.gradP)
	for b, wb := range w {
		if wb != 0 {
			f.Proposal.AddScore(wb, f.trajectory(z[b*f.d:(b+1)*f.d]), f.gradP)
		}
	}
	f.Proposal.Lambda(f.lamP)
	f.steps++
	f.adam.Step(f.lamP, f.gradP, Defaults.LRSSM*math.Pow(1+float64(f.steps)/Defaults.DecayScale, -Defaults.DecayExp))
	for _, v := range f.lamP {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("the state proposal's parameters became non-finite")
		}
	}
	f.Proposal.SetLambda(f.lamP)
	return f.average()
}

// Stats are q(theta)'s statistics, then the proposal's.
func (f *PGFamily) Stats(dst []float64) {
	n := f.Theta.NumStats()
	f.Theta.Stats(dst[:n])
	f.Proposal.Stats(dst[n:])
}

// SetStats sets both parts from averaged statistics.
func (f *PGFamily) SetStats(src []float64) error {
	n := f.Theta.NumStats()
	if err := f.Theta.SetStats(src[:n]); err != nil {
		return err
	}
	if err := f.Proposal.SetStats(src[n:]); err != nil {
		return err
	}
	f.restartAverage()
	return nil
}

// Clone returns an independent copy.
func (f *PGFamily) Clone() Family {
	c := &PGFamily{Theta: f.Theta.Clone().(Sampler), Proposal: f.Proposal.Clone(), statics: f.statics, states: f.states, d: f.d}
	c.init()
	return c
}

type pgJSON struct {
	ThetaFamily    string          `json:"theta_family"`
	Theta          json.RawMessage `json:"theta"`
	ProposalFamily string          `json:"proposal_family"`
	Proposal       json.RawMessage `json:"proposal"`
}

// MarshalJSON writes both parts with their families' names.
func (f *PGFamily) MarshalJSON() ([]byte, error) {
	th, err := json.Marshal(f.Theta)
	if err != nil {
		return nil, err
	}
	pr, err := json.Marshal(f.Proposal)
	if err != nil {
		return nil, err
	}
	return json.Marshal(pgJSON{f.Theta.Name(), th, f.Proposal.Name(), pr})
}

// UnmarshalJSON reads what MarshalJSON wrote into parts of the same
// families.
func (f *PGFamily) UnmarshalJSON(b []byte) error {
	var v pgJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if v.ThetaFamily != f.Theta.Name() || v.ProposalFamily != f.Proposal.Name() {
		return fmt.Errorf("the particle-gibbs q holds %s and %s, not %s and %s", f.Theta.Name(), f.Proposal.Name(), v.ThetaFamily, v.ProposalFamily)
	}
	for _, part := range []struct {
		q   Family
		raw json.RawMessage
	}{{f.Theta, v.Theta}, {f.Proposal, v.Proposal}} {
		u, ok := part.q.(json.Unmarshaler)
		if !ok {
			return fmt.Errorf("%s cannot be read back", part.q.Name())
		}
		if err := u.UnmarshalJSON(part.raw); err != nil {
			return err
		}
	}
	f.restartAverage()
	return nil
}

// PG is particle Gibbs within MSC for static latents theta beside a state
// x of K >= 1 components per step: one Markov kernel that leaves p(theta, x | y) invariant, in
// three blocks per step, each itself invariant:
//
//  1. CSMC with ancestor sampling for x given theta, with the state
//     proposal of q (twisted at the transition at the current theta);
//  2. CIS for theta given x, proposing S-1 draws from q(theta) and weighing
//     each by p(theta', x, y) / q(theta') (the model's own batched log
//     joint), the current theta kept as row 0: the centred step;
//  3. for a Gaussian transition, random-walk Metropolis steps for theta
//     given the state's noise e_t = (x_t - m_t(x_{t-1}; theta)) /
//     s_t(x_{t-1}; theta): each proposal theta' rebuilds the state
//     x'_t = m_t(x'_{t-1}; theta') + s_t e_t and its target is
//     p(theta', x', y) prod_t s_t(theta') (the Jacobian of x' in e): the
//     non-centred step, which moves theta along the posterior's ridge when
//     x pins it down (a small state noise), where the centred step barely
//     moves (on the Bayesian SV model the centred step took 51% of its
//     proposals and still left sigma's bulk ESS at 151 in 16000
//     iterations; with the non-centred steps, 385).
//
// The weighted rows of step 2 (statics with the state) move q. The
// retained sample is the whole latent vector.
type PG struct {
	p    *Problem
	ss   StaticStateSpace
	q    *PGFamily
	csmc *CSMC
	gss  GaussianStateSpace // nil without a Gaussian transition: no non-centred step

	S, d, k int
	K       int // the state's components per step
	statics []int
	states  []int // the state's positions in z, component k at step t at t*K+k
	order   []int // the same in the order of the CSMC's trajectory (givenOrder)

	cur   []float64 // the retained z
	theta []float64 // its statics

	// the centred block's rows (its Weighted), their statics and noise;
	// the same for the non-centred block, with the log-Jacobians (extra)
	z, th, eps, lp, lq, lw, w    []float64
	zn, thn, epsn, lpn, lqn, lwn []float64
	wn, extra                    []float64
	e                            []float64 // the state's noise, T x K
	x                            []float64 // the retained state, in the CSMC's order
	prev1, m1, s1, lp1           [1]float64
	prevK, mK, cK                []float64 // K > 1: one step's state, mean and Cholesky factor
	rwL, rwCov                   []float64
	rwLogC                       float64
	rwN                          int
}

// NewPG returns the particle Gibbs kernel with S particles and S statics
// proposals per block.
func NewPG(p *Problem, q *PGFamily, S int) (*PG, error) {
	if err := p.Check("the pg kernel", CapLogJoint|CapStatics); err != nil {
		return nil, err
	}
	given := p.Statics.Given()
	gss, _ := given.(GaussianStateSpace)
	T, K := given.Len(), given.StateDim()
	c, err := NewCSMC(&Problem{Dim: T * K, StateSpace: given}, q.kProp, S)
	if err != nil {
		return nil, err
	}
	order, err := givenOrder(p.Statics)
	if err != nil {
		return nil, err
	}
	d := p.Dim
	k := len(p.Statics.Statics())
	mk := func(n int) []float64 { return make([]float64, n) }
	p.Target.Reserve(S)
	return &PG{p: p, ss: p.Statics, q: q, csmc: c, gss: gss,
		S: S, d: d, k: k, K: K, statics: p.Statics.Statics(), states: p.Statics.States(), order: order,
		cur: mk(d), theta: mk(k),
		z: mk(S * d), th: mk(S * k), eps: mk(S * k), lp: mk(S), lq: mk(S), lw: mk(S), w: mk(S),
		zn: mk(S * d), thn: mk(S * k), epsn: mk(S * k), lpn: mk(S), lqn: mk(S), lwn: mk(S), wn: mk(S), extra: mk(S),
		e: mk(T * K), x: mk(T * K), prevK: mk(K), mK: mk(K), cK: mk(K * K),
	}, nil
}

func (k *PG) Name() string { return "pg" }
func (k *PG) Markov() bool { return true }

// Init draws theta from q(theta) and x from a particle filter given it.
func (k *PG) Init(rng *rand.Rand) error {
	k.q.kTheta.Sample(rng, k.theta, k.eps[:k.k])
	k.setTheta(k.cur, k.theta)
	k.ss.SetStatics(k.theta)
	k.csmc.Sweep(rng, false)
	k.setState(k.cur, k.csmc.Reference())
	return nil
}

func (k *PG) setTheta(z, theta []float64) { Scatter(z, k.statics, theta) }
func (k *PG) setState(z, x []float64)     { Scatter(z, k.order, x) }
func (k *PG) getTheta(z, theta []float64) { Gather(theta, k.statics, z) }

// Scatter sets dst[pos[i]] = src[i] for each i: a block of values (the
// statics, a trajectory) into a latent vector.
func Scatter(dst []float64, pos []int, src []float64) {
	for i, p := range pos {
		dst[p] = src[i]
	}
}

// Gather sets dst[i] = src[pos[i]] for each i: a block of a latent vector.
func Gather(dst []float64, pos []int, src []float64) {
	for i, p := range pos {
		dst[i] = src[p]
	}
}

// Step runs the three blocks.
func (k *PG) Step(rng *rand.Rand) (StepInfo, error) {
	ok, changed := k.stateBlock(rng)
	ess, moved, err := k.centredBlock(rng)
	if err != nil {
		return StepInfo{}, err
	}
	changed = changed || moved
	if k.gss != nil {
		moved, err := k.nonCentred(rng)
		if err != nil {
			return StepInfo{}, err
		}
		changed = changed || moved
	}
	return StepInfo{Changed: changed, ESS: ess, FracDiff: k.csmc.FracDiff, Degenerate: !ok}, nil
}

// SetRetained makes z the retained latent vector (another kernel's,
// when a kernel hands its chain on).
func (k *PG) SetRetained(z []float64) {
	copy(k.cur, z)
	k.getTheta(k.cur, k.theta)
}

// MoveStatics moves the statics of z given its state by blocks 2 and 3
// (the centred CIS step and, for a Gaussian transition, the non-centred
// one), each leaving the posterior invariant, and reports whether they
// moved: the local moves that particle-marginal kernels (infer/pmcis)
// interleave with theirs.
func (k *PG) MoveStatics(rng *rand.Rand, z []float64) (bool, error) {
	k.SetRetained(z)
	_, moved, err := k.centredBlock(rng)
	if err == nil && k.gss != nil {
		var m bool
		m, err = k.nonCentred(rng)
		moved = moved || m
	}
	copy(z, k.cur)
	return moved, err
}

// stateBlock is block 1: a CSMC sweep for the state given theta, the
// retained state as the reference. It reports whether the weights stayed
// finite and whether the state moved.
func (k *PG) stateBlock(rng *rand.Rand) (ok, changed bool) {
	k.ss.SetStatics(k.theta)
	for j, p := range k.order {
		k.x[j] = k.cur[p]
	}
	k.csmc.SetReference(k.x)
	ok = k.csmc.Sweep(rng, true)
	if ok && k.csmc.Changed {
		changed = true
		k.setState(k.cur, k.csmc.Reference())
	}
	return ok, changed
}

// centredBlock is block 2: the CIS step for theta given the state. It
// returns its weights' ESS and whether theta moved.
func (k *PG) centredBlock(rng *rand.Rand) (float64, bool, error) {
	j, ess, err := k.centred(rng)
	if err != nil || j == 0 {
		return ess, false, err
	}
	copy(k.cur, k.z[j*k.d:(j+1)*k.d])
	k.getTheta(k.cur, k.theta)
	return ess, true, nil
}

// centred runs the CIS block for theta given x: row 0 is the current
// theta, rows 1..S-1 draws of q(theta), each with the current state. It
// returns the row drawn and the weights' ESS.
func (k *PG) centred(rng *rand.Rand) (int, float64, error) {
	d, S, nk := k.d, k.S, k.k
	copy(k.th[:nk], k.theta)
	k.q.kTheta.Sample(rng, k.th[nk:], k.eps[nk:])
	for b := range S {
		row := k.z[b*d : (b+1)*d]
		copy(row, k.cur)
		k.setTheta(row, k.th[b*nk:(b+1)*nk])
	}
	k.p.Target.LogJoint(k.z, k.lp)
	k.lq[0] = k.q.kTheta.LogQ(k.th[:nk])
	for b := 1; b < S; b++ {
		k.lq[b] = k.q.kTheta.LogQNoise(k.th[b*nk:(b+1)*nk], k.eps[b*nk:(b+1)*nk])
	}
	return k.draw(rng, k.z, k.lp, k.lq, nil, k.lw, k.w)
}

// draw weighs rows by lp + extra - lq in log space, normalises into w and
// draws a row; with every weight zero it keeps row 0.
func (k *PG) draw(rng *rand.Rand, z, lp, lq, extra, lw, w []float64) (int, float64, error) {
	for b := range lp {
		if math.IsNaN(lp[b]) || math.IsInf(lp[b], 1) {
			return 0, 0, k.p.NaNError(z[b*k.d : (b+1)*k.d])
		}
		lw[b] = lp[b] - lq[b]
		if extra != nil {
			lw[b] += extra[b]
		}
	}
	_, ess, ok := resample.Normalise(lw, w)
	if !ok {
		clear(w)
		w[0] = 1
		return 0, 0, nil
	}
	return resample.Categorical(rng, w), ess, nil
}

// Weighted returns the centred block's rows and normalised weights.
func (k *PG) Weighted() ([]float64, []float64) { return k.z, k.w }

// Retained is the retained latent vector.
func (k *PG) Retained() []float64 { return k.cur }

// Refresh does nothing: every block recomputes what it weighs.
func (k *PG) Refresh() {}

// walkNoise walks the state of row along the transition at the statics
// last set: it records the state's noise e_t = (x_t - m_t) / s_t, or with
// rebuild it sets x_t = m_t + s_t e_t. It returns sum_t log s_t. (For
// K > 1, walkNoiseK.)
func (k *PG) walkNoise(row []float64, rebuild bool) float64 {
	if k.K > 1 {
		return k.walkNoiseK(row, rebuild)
	}
	ls := 0.0
	for t, p := range k.states {
		if t > 0 {
			k.prev1[0] = row[k.states[t-1]]
		}
		k.gss.Transition(t, k.prev1[:], k.m1[:], k.s1[:])
		if rebuild {
			row[p] = k.m1[0] + k.s1[0]*k.e[t]
		} else {
			k.e[t] = (row[p] - k.m1[0]) / k.s1[0]
		}
		ls += math.Log(k.s1[0])
	}
	return ls
}

// nonCentred moves theta given the state's noise e by S-1 random-walk
// Metropolis steps, the state rebuilt from e at each proposal. The steps
// are N(0, c^2 Cov(q(theta))), c adapted towards an acceptance of 0.3 with
// a decreasing gain. (Independent proposals from q(theta), as in the
// centred block, gave the bulk ESS of the SV model's sigma per second at
// 2.1 times less: theta given e is much narrower than q.) It reports
// whether theta moved.
func (k *PG) nonCentred(rng *rand.Rand) (bool, error) {
	d, nk := k.d, k.k
	k.ss.SetStatics(k.theta)
	row0 := k.zn[:d]
	copy(row0, k.cur)
	ex0 := k.walkNoise(row0, false)
	lp := k.lp1[:]
	k.p.Target.LogJoint(row0, lp)
	cur := lp[0] + ex0
	if k.rwL == nil {
		k.rwL, k.rwCov = make([]float64, nk*nk), make([]float64, nk*nk)
		k.rwLogC = math.Log(2.38 / math.Sqrt(float64(nk)))
	}
	k.q.kTheta.Cov(k.rwCov)
	c := math.Exp(k.rwLogC)
	for i := range k.rwCov {
		k.rwCov[i] *= c * c
	}
	if !stdlib.CholeskyLower(k.rwCov, nk, k.rwL) {
		return false, nil
	}
	moved := false
	row := k.zn[d : 2*d]
	th := k.thn[:nk]
	for step := 0; step < k.S-1; step++ {
		for i := range nk {
			k.epsn[i] = rng.NormFloat64()
		}
		for i := range nk {
			v := k.theta[i]
			for j := 0; j <= i; j++ {
				v += k.rwL[i*nk+j] * k.epsn[j]
			}
			th[i] = v
		}
		copy(row, row0)
		k.setTheta(row, th)
		k.ss.SetStatics(th)
		ex := k.walkNoise(row, true)
		k.p.Target.LogJoint(row, lp)
		prop := lp[0] + ex
		acc := 0.0
		if !math.IsNaN(prop) {
			acc = math.Min(1, math.Exp(prop-cur))
		}
		if rng.Float64() < acc {
			copy(row0, row)
			copy(k.theta, th)
			cur = prop
			moved = true
		}
		k.rwN++
		k.rwLogC += (acc - 0.3) / math.Pow(float64(k.rwN)+1, 0.6)
	}
	k.ss.SetStatics(k.theta)
	copy(k.cur, row0)
	return moved, nil
}

// walkNoiseK is walkNoise for a state of K > 1 components: with the
// transition's Cholesky factor L_t, e_t = L_t^-1 (x_t - m_t), or x_t = m_t
// + L_t e_t; it returns sum_t log det L_t.
func (k *PG) walkNoiseK(row []float64, rebuild bool) float64 {
	K, ls := k.K, 0.0
	for t := range len(k.states) / K {
		if t > 0 {
			for c := range K {
				k.prevK[c] = row[k.states[(t-1)*K+c]]
			}
		}
		k.gss.Transition(t, k.prevK, k.mK, k.cK)
		e := k.e[t*K : (t+1)*K]
		for i := range K {
			p := k.states[t*K+i]
			v := k.mK[i]
			if rebuild {
				for j := 0; j <= i; j++ {
					v += k.cK[i*K+j] * e[j]
				}
				row[p] = v
			} else { // forward substitution
				r := row[p] - v
				for j := 0; j < i; j++ {
					r -= k.cK[i*K+j] * e[j]
				}
				e[i] = r / k.cK[i*K+i]
			}
			ls += math.Log(k.cK[i*K+i])
		}
	}
	return ls
}
