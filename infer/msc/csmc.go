package msc

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// StateSpace is a state-space model with one scalar latent state per time
// step and a conditionally Gaussian transition,
//
//	z_1 ~ N(m_1, s_1^2),  z_t | z_{t-1} ~ N(m_t(z_{t-1}), s_t(z_{t-1})^2),
//	x_t | z_t ~ g_t(x_t | z_t),
//
// as detected by package ir. Time steps are 0-based here.
type StateSpace interface {
	// Len is the number of time steps T.
	Len() int
	// ReserveParticles prepares evaluations over n particles.
	ReserveParticles(n int)
	// Transition writes the mean and sd of p(z_t | z_{t-1} = prev[i]) for
	// each particle i (len(mean) particles). At t = 0 prev is ignored and the
	// initial distribution is returned.
	Transition(t int, prev []float64, mean, sd []float64)
	// ObsLogDensity writes log g_t(x_t | z_t = cur[i]) for each particle.
	ObsLogDensity(t int, cur []float64, out []float64)
}

// Twisted is the paper's twisted Gaussian proposal for state-space models:
//
//	q(z_t | z_{t-1}) ∝ p(z_t | z_{t-1}) psi_t(z_t),  psi_t(z) = exp(-Lambda_t z^2 / 2 + Nu_t z),
//
// with Lambda_t = exp(LogLambda_t) > 0.
type Twisted struct {
	Nu, LogLambda []float64
	// path holds the transition (mean, sd) along the retained trajectory
	// of the last CSMC sweep, for AddScore.
	path []float64
}

// NewTwisted returns the twisted family for T steps, started at psi close to
// 1 (q close to the model's transition, the bootstrap proposal).
func NewTwisted(T int) *Twisted {
	tw := &Twisted{Nu: make([]float64, T), LogLambda: make([]float64, T), path: make([]float64, 2*T)}
	for t := range tw.LogLambda {
		tw.LogLambda[t] = math.Log(1e-2)
	}
	return tw
}

// twist returns the proposal's mean mu and precision P, and log Z, the log
// normaliser of p(z_t | z_{t-1}) psi_t(z_t), for transition mean m and sd s.
func (tw *Twisted) twist(t int, m, s float64) (mu, prec, logZ float64) {
	lam := math.Exp(tw.LogLambda[t])
	is2 := 1 / (s * s)
	prec = is2 + lam
	h := m*is2 + tw.Nu[t]
	mu = h / prec
	logZ = -0.5*math.Log(s*s*prec) + 0.5*h*h/prec - 0.5*m*m*is2
	return
}

func (tw *Twisted) logPsi(t int, z float64) float64 {
	return -0.5*math.Exp(tw.LogLambda[t])*z*z + tw.Nu[t]*z
}

// CSMC is the conditional sequential Monte Carlo kernel with ancestor
// sampling (Lindsten, Jordan & Schön 2014), exactly as in the paper's
// supplement, for any proposal: the retained trajectory is particle 0, the
// other particles are resampled multinomially by their normalised weights,
// particle 0's ancestor is drawn with weights W_{t-1}^j times the ratio of
// twisted targets, p(r_t | z^j_{t-1}) g_{t-1}(z^j_{t-1}) / psi_{t-1}(z^j_{t-1}),
// all weights stay in log space, and a final draw picks the new retained
// trajectory. The incremental weight of a particle is
//
//	p(z_t | z_{t-1}) psi_t(z_t) / q(z_t | z_{t-1}) * g_{t-1}(z_{t-1}) / psi_{t-1}(z_{t-1}),
//
// with g_T(z_T) / psi_T(z_T) added at the last step; psi = 1 for proposals
// without twisting. With conditional false the same sweep is a plain
// particle filter (the SMC baseline and the evidence estimator).
type CSMC struct {
	p    stepProposal
	N, T int

	z    []float64 // T x N particle values
	anc  []int32   // T x N ancestor indices (into step t-1)
	logw []float64 // N log weights of the current step
	inc  []float64 // N incremental log weights of the proposal
	wn   []float64 // N normalised weights
	gPrv []float64 // N observation log densities at t-1
	gCur []float64
	aw   []float64 // N ancestor-sampling log weights
	us   []float64 // 2N scratch for sorted uniforms and cumulative weights
	ref  []float64 // T retained trajectory

	// Per sweep diagnostics.
	LogZ     float64 // log of the unbiased estimate of p(x_{1:T}) (meaningful for unconditional sweeps)
	MeanESS  float64 // mean over t of the ESS of the normalised weights
	Changed  bool    // the retained trajectory changed
	FracDiff float64 // fraction of time steps whose retained value changed
}

// stepProposal is what a sweep needs of a state-space proposal, step by step.
type stepProposal interface {
	// obs writes log g_t(x_t | z_t = cur[i]) for each particle.
	obs(t int, cur, out []float64)
	// prepare readies step t given the N particles of step t-1 (prev is nil at t = 0).
	prepare(t int, prev []float64)
	// ancestorLogDensity writes log p(r | z^j_{t-1}) - log psi_{t-1}(z^j_{t-1}) for each j (t >= 1).
	ancestorLogDensity(t int, r float64, out []float64)
	// propose fills z[i] for i >= start from q(z_t | z_{t-1} = prev[anc[i]])
	// (z[i] for i < start holds the retained value) and writes
	// inc[i] = log p(z_i | .) + log psi_t(z_i) - log q(z_i | .) - log psi_{t-1}(prev[anc[i]]).
	propose(rng *rand.Rand, t int, anc []int32, z, inc []float64, start int)
	// logPsi is log psi_t(z) (0 without twisting).
	logPsi(t int, z float64) float64
	// retain records that particle i of step t lies on the new retained trajectory.
	retain(t, i int)
}

// NewCSMC prepares a kernel with n particles (n >= 2) for a state-space
// model: with the twisted proposal q (a *Twisted, for a StateSpace with a
// Gaussian transition) or the per-step Gaussian one (an *ARProposal, for a
// GeneralStateSpace).
func NewCSMC(model *Problem, q Family, n int) (*CSMC, error) {
	var p stepProposal
	switch q := q.(type) {
	case *Twisted:
		if err := model.Check("the twisted proposal", CapGaussianTransition); err != nil {
			return nil, err
		}
		p = newTwistedSteps(model.StateSpace, q, n)
	case *ARProposal:
		if err := model.Check("the per-step proposal", CapStateSpace); err != nil {
			return nil, err
		}
		p = newARSteps(model.General, q, n)
	default:
		return nil, fmt.Errorf("the csmc kernel takes a state-space proposal, not the %s family", q.Name())
	}
	T := q.Dim()
	mk := func() []float64 { return make([]float64, n) }
	return &CSMC{
		p: p, N: n, T: T,
		z: make([]float64, T*n), anc: make([]int32, T*n),
		logw: mk(), inc: mk(), wn: mk(), gPrv: mk(), gCur: mk(), aw: mk(), us: make([]float64, 2*n),
		ref: make([]float64, T),
	}, nil
}

// Reference returns the retained trajectory (a view).
func (k *CSMC) Reference() []float64 { return k.ref }

// SetReference sets the retained trajectory.
func (k *CSMC) SetReference(r []float64) { copy(k.ref, r) }

// normalise turns log weights into normalised weights and returns
// log(mean weight) and the ESS. ok is false if every weight is -Inf or a
// weight is NaN.
func normalise(logw, wn []float64) (logMean, ess float64, ok bool) {
	mx, sum, ok := weights(logw, wn)
	if !ok {
		return mx, 0, false
	}
	sq := 0.0
	for i := range wn {
		wn[i] /= sum
		sq += wn[i] * wn[i]
	}
	return mx + math.Log(sum/float64(len(logw))), 1 / sq, true
}

// normaliseWeights is normalise without the mean and the ESS.
func normaliseWeights(logw, wn []float64) bool {
	_, sum, ok := weights(logw, wn)
	if ok {
		for i := range wn {
			wn[i] /= sum
		}
	}
	return ok
}

// weights writes exp(logw - max) into wn and returns the max and the sum
// (NaN or -Inf and false if a weight is NaN or all are zero).
func weights(logw, wn []float64) (mx, sum float64, ok bool) {
	mx = math.Inf(-1)
	for _, lw := range logw {
		if math.IsNaN(lw) {
			return math.NaN(), 0, false
		}
		if lw > mx {
			mx = lw
		}
	}
	if math.IsInf(mx, -1) {
		return math.Inf(-1), 0, false
	}
	for i, lw := range logw {
		w := math.Exp(lw - mx)
		wn[i] = w
		sum += w
	}
	return mx, sum, true
}

// normaliseStep normalises the log weights of one SMC step; if they
// degenerated (all -Inf or NaN) it sets uniform weights, so that the sweep
// can end, and reports false (the caller then keeps the retained
// trajectory).
func normaliseStep(logw, wn []float64) (logMean, ess float64, ok bool) {
	logMean, ess, ok = normalise(logw, wn)
	if !ok {
		for i := range wn {
			wn[i] = 1 / float64(len(wn))
		}
		ess = 0
	}
	return logMean, ess, ok
}

// Normalise turns log weights into normalised weights in w, returning the
// ESS and false if every weight is zero or one is NaN (for kernels outside
// this package).
func Normalise(lw, w []float64) (ess float64, ok bool) {
	_, ess, ok = normalise(lw, w)
	return ess, ok
}

// Categorical draws an index with probabilities w (normalised).
func Categorical(rng *rand.Rand, w []float64) int { return categorical(rng, w) }

// categorical draws an index with probabilities w (normalised).
func categorical(rng *rand.Rand, w []float64) int {
	u := rng.Float64()
	c := 0.0
	for i, p := range w {
		c += p
		if u < c {
			return i
		}
	}
	return len(w) - 1
}

// multinomial fills out with independent draws from the categorical
// distribution w, in O(len(w) + len(out)) time: sorted uniforms from
// normalised cumulative exponential spacings, merged with the cumulative
// weights. scratch needs len(out)+len(w) slots.
func multinomial(rng *rand.Rand, w []float64, out []int32, scratch []float64) {
	n := len(out)
	if n == 0 {
		return
	}
	u := scratch[:n+1]
	s := 0.0
	for i := range u {
		s += rng.ExpFloat64()
		u[i] = s
	}
	total := u[n]
	if len(w) <= smallN {
		// draw i is the first j with x = u_i/total < c_j = w_0 + ... + w_j
		// (the last j at most): the number of j < len(w)-1 with c_j <= x,
		// the c_j being nondecreasing. For few particles counting is
		// faster than the merge below, whose exits are unpredictable, and
		// gives the same draws.
		c := scratch[n+1 : n+len(w)]
		cj := 0.0
		for j := range c {
			cj += w[j]
			c[j] = cj
		}
		for i := 0; i < n; i++ {
			x := u[i] / total
			k := 0
			for _, v := range c {
				if v <= x {
					k++
				}
			}
			out[i] = int32(k)
		}
		return
	}
	j, c := 0, w[0]
	for i := 0; i < n; i++ {
		x := u[i] / total
		for x >= c && j < len(w)-1 {
			j++
			c += w[j]
		}
		out[i] = int32(j)
	}
	// the draws are sorted; the kernel does not care about their order,
	// since particles are exchangeable
}

// smallN is the number of particles up to which multinomial counts
// instead of merging.
const smallN = 24

// Sweep runs one CSMC sweep (or a plain particle filter when conditional is
// false) and draws a new retained trajectory. It returns false if the
// weights degenerated at some step (all -Inf or NaN); the retained
// trajectory is then kept.
func (k *CSMC) Sweep(rng *rand.Rand, conditional bool) bool {
	N, T, p := k.N, k.T, k.p
	start := 0
	if conditional {
		start = 1
	}
	k.LogZ, k.MeanESS = 0, 0
	ok := true
	for t := 0; t < T; t++ {
		zt := k.z[t*N : (t+1)*N]
		at := k.anc[t*N : (t+1)*N]
		if t == 0 {
			p.prepare(0, nil)
			clear(at)
		} else {
			zp := k.z[(t-1)*N : t*N]
			p.prepare(t, zp)
			multinomial(rng, k.wn, at[start:], k.us)
			if conditional {
				p.ancestorLogDensity(t, k.ref[t], k.aw)
				for j := range k.aw {
					k.aw[j] += k.logw[j] + k.gPrv[j]
				}
				if normaliseWeights(k.aw, k.aw) {
					at[0] = int32(categorical(rng, k.aw))
				} else {
					at[0], ok = 0, false
				}
			}
		}
		for i := 0; i < start; i++ {
			zt[i] = k.ref[t]
		}
		p.propose(rng, t, at, zt, k.inc, start)
		for i := 0; i < N; i++ {
			lw := k.inc[i]
			if t > 0 {
				lw += k.gPrv[at[i]]
			}
			k.logw[i] = lw
		}
		p.obs(t, zt, k.gCur)
		if t == T-1 {
			for i := 0; i < N; i++ {
				k.logw[i] += k.gCur[i] - p.logPsi(t, zt[i])
			}
		}
		logMean, ess, good := normaliseStep(k.logw, k.wn)
		ok = ok && good
		k.LogZ += logMean
		k.MeanESS += ess / float64(T)
		k.gPrv, k.gCur = k.gCur, k.gPrv
	}
	if !ok && conditional {
		k.Changed, k.FracDiff = false, 0
		return false
	}
	k.Changed, k.FracDiff = traceBack(k.z, k.anc, N, categorical(rng, k.wn), k.ref, p.retain)
	return ok
}

// traceBack makes particle j of the last step, followed back through its
// ancestors, the new retained trajectory ref, calling visit(t, index) on
// the way. It reports whether the trajectory changed and the fraction of
// time steps whose value changed.
func traceBack(z []float64, anc []int32, N, j int, ref []float64, visit func(t, j int)) (bool, float64) {
	diff := 0
	for t := len(ref) - 1; t >= 0; t-- {
		v := z[t*N+j]
		if v != ref[t] {
			diff++
		}
		ref[t] = v
		visit(t, j)
		j = int(anc[t*N+j])
	}
	return diff > 0, float64(diff) / float64(len(ref))
}

// ---- the twisted proposal's steps ------------------------------------------

// twistedSteps evaluates the twisted proposal q(z_t | z_{t-1}) ∝
// p(z_t | z_{t-1}) psi_t(z_t) of a Gaussian transition: the incremental
// weight is its normaliser Z_t(z_{t-1}) times g_{t-1} / psi_{t-1}.
//
// prepare computes, once per previous particle j, the proposal's mean, the
// square root of its precision, log Z_t and log psi_{t-1}(z^j_{t-1}), which
// propose and ancestorLogDensity share; what depends on the transition's sd
// only (and Lambda_t) is computed once per step when the sd is the same for
// every particle (a transition whose sd depends on params alone). The values
// are the same, to the bit, as computing everything per particle.
type twistedSteps struct {
	ssm    StateSpace
	tw     *Twisted
	N      int
	prev   []float64 // the particles of step t-1
	tm, ts []float64 // N transition moments of the previous particles
	mean   []float64 // T x N transition mean used by each particle
	sd     []float64 // T x N transition sd used by each particle

	t   int     // the step prepared
	lam float64 // Lambda_t
	// per previous particle j (only j = 0 at t = 0)
	qmu, qsp, qlz []float64 // proposal mean, sqrt(precision), log Z_t
	psiPrev       []float64 // log psi_{t-1}(z^j_{t-1})
	logSD         []float64 // log of the transition sd
}

func newTwistedSteps(ssm StateSpace, tw *Twisted, n int) *twistedSteps {
	T := ssm.Len()
	ssm.ReserveParticles(n)
	if len(tw.path) != 2*T {
		tw.path = make([]float64, 2*T)
	}
	mk := func() []float64 { return make([]float64, n) }
	return &twistedSteps{ssm: ssm, tw: tw, N: n, tm: mk(), ts: mk(),
		mean: make([]float64, T*n), sd: make([]float64, T*n),
		t: -1, qmu: mk(), qsp: mk(), qlz: mk(), psiPrev: mk(), logSD: mk()}
}

func (s *twistedSteps) obs(t int, cur, out []float64) { s.ssm.ObsLogDensity(t, cur, out) }

func (s *twistedSteps) prepare(t int, prev []float64) {
	s.prev = prev
	s.ssm.Transition(t, prev, s.tm, s.ts)
	tw := s.tw
	s.t = t
	s.lam = math.Exp(tw.LogLambda[t])
	nu := tw.Nu[t]
	m := s.N
	if t == 0 {
		m = 1 // every particle has the initial distribution
	} else {
		lp, np := math.Exp(tw.LogLambda[t-1]), tw.Nu[t-1]
		for j, z := range prev[:m] {
			s.psiPrev[j] = -0.5*lp*z*z + np*z
		}
	}
	tm, ts := s.tm[:m], s.ts[:m]
	shared := true
	for _, v := range ts {
		if v != ts[0] {
			shared = false
			break
		}
	}
	if shared {
		// as in Twisted.twist, with what depends on s alone hoisted
		sd := ts[0]
		is2 := 1 / (sd * sd)
		prec := is2 + s.lam
		lz := -0.5 * math.Log(sd*sd*prec)
		sp := math.Sqrt(prec)
		lsd := math.Log(sd)
		for j, mj := range tm {
			h := mj*is2 + nu
			s.qmu[j] = h / prec
			s.qsp[j] = sp
			s.qlz[j] = lz + 0.5*h*h/prec - 0.5*mj*mj*is2
			s.logSD[j] = lsd
		}
		return
	}
	for j, mj := range tm {
		mu, prec, logZ := tw.twist(t, mj, ts[j])
		s.qmu[j], s.qsp[j], s.qlz[j] = mu, math.Sqrt(prec), logZ
		s.logSD[j] = math.Log(ts[j])
	}
}

func (s *twistedSteps) ancestorLogDensity(t int, r float64, out []float64) {
	for j := range out {
		d := (r - s.tm[j]) / s.ts[j]
		out[j] = -0.5*d*d - s.logSD[j] - s.psiPrev[j]
	}
}

func (s *twistedSteps) propose(rng *rand.Rand, t int, anc []int32, z, inc []float64, start int) {
	N := s.N
	mt, st := s.mean[t*N:(t+1)*N], s.sd[t*N:(t+1)*N]
	for i := 0; i < N; i++ {
		a := 0
		if t > 0 {
			a = int(anc[i])
		}
		mt[i], st[i] = s.tm[a], s.ts[a]
		if i >= start {
			z[i] = s.qmu[a] + rng.NormFloat64()/s.qsp[a]
		}
		inc[i] = s.qlz[a]
		if t > 0 {
			inc[i] -= s.psiPrev[a]
		}
	}
}

func (s *twistedSteps) logPsi(t int, z float64) float64 {
	if t == s.t {
		return -0.5*s.lam*z*z + s.tw.Nu[t]*z
	}
	return s.tw.logPsi(t, z)
}

func (s *twistedSteps) retain(t, i int) {
	s.tw.path[2*t], s.tw.path[2*t+1] = s.mean[t*s.N+i], s.sd[t*s.N+i]
}
