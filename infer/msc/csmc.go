package msc

import (
	"fmt"
	"math/rand/v2"

	"github.com/mscppl/mscppl/internal/resample"
)

// CSMC is the conditional sequential Monte Carlo kernel with ancestor
// sampling (Lindsten, Jordan & Schön 2014) for a state-space model with
// K-dimensional states (K = 1: a scalar state) and any proposal: the
// retained trajectory is particle 0, the other particles are resampled
// multinomially by their normalised weights, all weights stay in log space,
// and a final draw picks the new retained trajectory. With conditional
// false the same sweep is a plain particle filter (the SMC baseline and the
// evidence estimator). Its proposal is a *Twisted (for a GaussianStateSpace)
// or an *ARProposal (for a GeneralStateSpace). The retained trajectory is
// kept step by step and, for Reference, in the problem's latent layout.
//
// The weights are look-ahead ones (the twisted SMC of Guarniero, Johansen &
// Lee 2017 and Heng, Bishop, Deligiannidis & Doucet 2020): step t's targets
// are p(x_{1:t}, y_{1:t}) Phi_{t+1}(x_t), with the look-ahead factor
// Phi_{t+1}(x_t) = Z_{t+1}(x_t) = ∫ p(x_{t+1} | x_t) psi_{t+1}(x_{t+1}) dx_{t+1},
// the normaliser of the twisted proposal q_{t+1} = p psi_{t+1} / Z_{t+1}
// (Phi = 1 for the per-step proposal and at t = T), so that the weight of a
// particle at step t is
//
//	w_t = p(x_t | x_{t-1}) g_t(x_t) Phi_{t+1}(x_t) / (q(x_t | x_{t-1}) Phi_t(x_{t-1})),
//
// that is g_t(x_t) Z_{t+1}(x_t) / psi_t(x_t) for the twisted proposal (times
// Z_1 at t = 1; g_T / psi_T at the last step; g_t alone for the bootstrap
// filter, psi = 1) and p g_t / q for the per-step proposal, and the
// resampling at step t+1 selects on y_t. Particle 0's ancestor at step t+1
// is drawn with weights W_t^j p(r_{t+1} | x^j_t) / Phi_{t+1}(x^j_t), that is
// W_t^j q_{t+1}(r_{t+1} | x^j_t) up to a constant for the twisted proposal.
// The weight of step t is complete only once prepare(t+1) has computed
// Phi_{t+1} for every particle, so the sweep normalises it then.
//
// The paper's supplement (eq. "weights:smc") weights instead by
// p(x_t | x_{t-1}) psi_t(x_t) g_{t-1}(x_{t-1}) / (q(x_t | x_{t-1}) psi_{t-1}(x_{t-1})),
// the targets p(x_{1:t}, y_{1:t-1}) psi_t(x_t): g_t enters one step late
// (on x_t's children), so the resampling at step t+1 selects on weights
// that do not yet include y_t. Both are unbiased and leave the posterior
// invariant; the look-ahead ones have the smaller variance (docs/state-space.md).
type CSMC struct {
	p       stepProposal
	N, T, K int

	z    []float64 // T x N x K particle values
	anc  []int32   // T x N ancestor indices (into step t-1)
	logw []float64 // N log weights of the current step
	wn   []float64 // N normalised weights
	g    []float64 // N observation log densities
	aw   []float64 // N ancestor-sampling log weights
	us   []float64 // 2N scratch for sorted uniforms and cumulative weights
	ref  []float64 // T x K retained trajectory
	out  []float64 // the retained trajectory in the problem's layout
	idx  []int     // T x K: the position of (t, k) in out

	// Per sweep diagnostics.
	LogZ     float64 // log of the unbiased estimate of p(y_{1:T}) (meaningful for unconditional sweeps)
	MeanESS  float64 // mean over t of the ESS of the normalised weights
	Changed  bool    // the retained trajectory changed
	FracDiff float64 // fraction of time steps whose retained state changed
}

// stepProposal is what a sweep needs of a state-space proposal, step by
// step, with rows of K values for states. Phi_t is the look-ahead factor of
// the targets (see CSMC): the twisted proposal's normaliser Z_t, 1 for the
// per-step proposal.
type stepProposal interface {
	// obs writes log g_t(y_t | x_t = cur_i) for each particle (cur N x K).
	obs(t int, cur, out []float64)
	// prepare readies step t given the N x K particles of step t-1 (nil at t = 0).
	prepare(t int, prev []float64)
	// lookahead adds log Phi_t(x^j_{t-1}) - log psi_{t-1}(x^j_{t-1}) to
	// logw[j] for each particle j of step t-1 (t >= 1, after prepare(t)).
	lookahead(t int, logw []float64)
	// ancestorLogDensity writes log p(r | x^j_{t-1}) - log Phi_t(x^j_{t-1})
	// for each j, up to a constant common to all j (t >= 1).
	ancestorLogDensity(t int, r []float64, out []float64)
	// propose fills the rows i >= start of z (N x K) from
	// q(x_t | x_{t-1} = prev_{anc[i]}) (rows i < start hold the retained
	// state) and writes logw[i] = log p(x_i | .) + log psi_t(x_i) - log q(x_i | .)
	// - log Phi_t(prev_{anc[i]}): for the twisted proposal log Z_1 at t = 0
	// and 0 after (its psi_t(x_i) is divided out by lookahead and final).
	propose(rng *rand.Rand, t int, anc []int32, z, logw []float64, start int)
	// final adds -log psi_t(x_i) to logw[i] for each row of cur at the last
	// step.
	final(t int, cur, logw []float64)
	// retain records that the retained trajectory passes, at step t, through
	// a particle whose ancestor at step t-1 is a (a = 0 at t = 0).
	retain(t, a int)
}

// NewCSMC prepares the sweep with n particles (n >= 2) for a state-space
// model: with the twisted proposal q (a *Twisted, for a GaussianStateSpace)
// or the per-step one (an *ARProposal, for a GeneralStateSpace).
func NewCSMC(model *Problem, q Family, n int) (*CSMC, error) {
	if n < 1 {
		return nil, fmt.Errorf("the csmc kernel needs at least one particle")
	}
	var p stepProposal
	switch q := q.(type) {
	case *Twisted:
		if err := model.Check("the twisted proposal", CapGaussianTransition); err != nil {
			return nil, err
		}
		ss := model.StateSpace.(GaussianStateSpace)
		if err := q.fits("twisted proposal", ss); err != nil {
			return nil, err
		}
		p = newTwistedSteps(ss, q, n)
	case *ARProposal:
		if err := model.Check("the per-step proposal", CapTransitionDensity); err != nil {
			return nil, err
		}
		ss := model.StateSpace.(GeneralStateSpace)
		if err := q.fits("per-step proposal", ss); err != nil {
			return nil, err
		}
		p = newARSteps(ss, q, n)
	default:
		return nil, fmt.Errorf("the csmc kernel takes a state-space proposal, not the %s family", q.Name())
	}
	lay := model.StateSpace
	T, K := lay.Len(), lay.StateDim()
	idx, err := layoutIndex(lay)
	if err != nil {
		return nil, err
	}
	if model.Dim != 0 && model.Dim != T*K {
		return nil, fmt.Errorf("the state-space structure has %d x %d states, but the model has %d latents", T, K, model.Dim)
	}
	mk := func() []float64 { return make([]float64, n) }
	c := &CSMC{
		p: p, N: n, T: T, K: K,
		z: make([]float64, T*n*K), anc: make([]int32, T*n),
		logw: mk(), wn: mk(), g: mk(), aw: mk(), us: make([]float64, 2*n),
		ref: make([]float64, T*K), out: make([]float64, T*K), idx: idx,
	}
	return c, nil
}

// Reference returns the retained trajectory in the problem's latent layout
// (a view).
func (c *CSMC) Reference() []float64 { return c.out }

// SetReference sets the retained trajectory from z in the problem's layout.
func (c *CSMC) SetReference(z []float64) {
	for i, j := range c.idx {
		c.ref[i] = z[j]
		c.out[j] = z[j]
	}
}

// Sweep runs one CSMC sweep (or a plain particle filter when conditional is
// false) and draws a new retained trajectory. It returns false if the
// weights degenerated at some step (all -Inf or NaN); the retained
// trajectory is then kept.
func (c *CSMC) Sweep(rng *rand.Rand, conditional bool) bool {
	N, T, K, p := c.N, c.T, c.K, c.p
	start := 0
	if conditional {
		start = 1
	}
	c.LogZ, c.MeanESS = 0, 0
	ok := true
	for t := 0; t < T; t++ {
		zt := c.z[t*N*K : (t+1)*N*K]
		at := c.anc[t*N : (t+1)*N]
		rt := c.ref[t*K : (t+1)*K]
		if t == 0 {
			p.prepare(0, nil)
			clear(at)
		} else {
			p.prepare(t, c.z[(t-1)*N*K:t*N*K])
			// step t-1's weights are complete now
			p.lookahead(t, c.logw)
			ok = c.normalise() && ok
			resample.Multinomial(rng, c.wn, at[start:], c.us)
			if conditional {
				p.ancestorLogDensity(t, rt, c.aw)
				for j := range c.aw {
					c.aw[j] += c.logw[j]
				}
				if resample.NormaliseWeights(c.aw, c.aw) {
					at[0] = int32(resample.Categorical(rng, c.aw))
				} else {
					at[0], ok = 0, false
				}
			}
		}
		if conditional {
			copy(zt[:K], rt)
		}
		p.propose(rng, t, at, zt, c.logw, start)
		p.obs(t, zt, c.g)
		for i, g := range c.g {
			c.logw[i] += g
		}
	}
	p.final(T-1, c.z[(T-1)*N*K:], c.logw)
	ok = c.normalise() && ok
	if !ok && conditional {
		c.Changed, c.FracDiff = false, 0
		return false
	}
	c.traceBack(resample.Categorical(rng, c.wn))
	return ok
}

// normalise normalises the complete weights of a step into wn, adds their
// log mean to LogZ and their ESS to MeanESS, and reports whether they were
// finite somewhere.
func (c *CSMC) normalise() bool {
	logMean, ess, good := resample.NormaliseStep(c.logw, c.wn)
	c.LogZ += logMean
	c.MeanESS += ess / float64(c.T)
	return good
}

// traceBack makes particle j of the last step, followed back through its
// ancestors, the new retained trajectory, and records its path with the
// proposal.
func (c *CSMC) traceBack(j int) {
	N, K := c.N, c.K
	diff := 0
	if K == 1 {
		for t := c.T - 1; t >= 0; t-- {
			if v := c.z[t*N+j]; v != c.ref[t] {
				diff++
				c.ref[t] = v
				c.out[c.idx[t]] = v
			}
			a := int(c.anc[t*N+j])
			c.p.retain(t, a)
			j = a
		}
		c.Changed, c.FracDiff = diff > 0, float64(diff)/float64(c.T)
		return
	}
	for t := c.T - 1; t >= 0; t-- {
		x := c.z[(t*N+j)*K : (t*N+j+1)*K]
		r := c.ref[t*K : (t+1)*K]
		changed := false
		for k, v := range x {
			if v != r[k] {
				changed = true
				r[k] = v
				c.out[c.idx[t*K+k]] = v
			}
		}
		if changed {
			diff++
		}
		a := int(c.anc[t*N+j])
		c.p.retain(t, a)
		j = a
	}
	c.Changed, c.FracDiff = diff > 0, float64(diff)/float64(c.T)
}

// ---- CSMC as a Kernel -----------------------------------------------------

func init() {
	RegisterKernel(KernelSpec{
		Name: "csmc", Help: "conditional SMC with ancestor sampling, for state-space models (the paper's Algorithm 4)",
		Method: "msc", Priority: 1, Needs: CapStateSpace, Markov: true, StateSpace: true,
		Optimizers: []Optimizer{Adam},
		New: func(p *Problem, q Family, n int, _ KernelOptions) (Kernel, error) {
			return NewSMCKernel(p, q, n, true)
		},
	})
	RegisterKernel(KernelSpec{
		Name: "smc", Help: "a particle filter whose final weights pick the trajectory",
		Method: "smc", MethodHelp: "particle-filter gradients (Gu, Ghahramani & Turner 2015), state-space models only",
		Needs: CapStateSpace, StateSpace: true,
		Optimizers: []Optimizer{Adam},
		New: func(p *Problem, q Family, n int, _ KernelOptions) (Kernel, error) {
			return NewSMCKernel(p, q, n, false)
		},
	})
}

// SMCKernel is the conditional SMC kernel with ancestor sampling (MSC's
// kernel for state-space models) or, with Conditional false, a fresh
// particle filter whose final weights pick the trajectory (the SMC
// baseline of Gu, Ghahramani & Turner 2015, which is biased).
type SMCKernel struct {
	c           *CSMC
	Conditional bool
	one         []float64
}

// NewSMCKernel returns the CSMC kernel (conditional) or the particle-filter
// baseline for a state-space model with n particles and proposal q, which
// must be the model's *Twisted (for a GaussianStateSpace) or *ARProposal
// (for a GeneralStateSpace).
func NewSMCKernel(model *Problem, q Family, n int, conditional bool) (*SMCKernel, error) {
	c, err := NewCSMC(model, q, n)
	if err != nil {
		return nil, err
	}
	return &SMCKernel{c: c, Conditional: conditional, one: []float64{1}}, nil
}

func (k *SMCKernel) Name() string {
	if k.Conditional {
		return "csmc"
	}
	return "smc"
}
func (k *SMCKernel) Markov() bool { return k.Conditional }

// Init runs one unconditional sweep to draw the first trajectory.
func (k *SMCKernel) Init(rng *rand.Rand) error { k.c.Sweep(rng, false); return nil }

// Step runs one sweep.
func (k *SMCKernel) Step(rng *rand.Rand) (StepInfo, error) {
	ok, c := k.c.Sweep(rng, k.Conditional), k.c
	return StepInfo{Changed: c.Changed, ESS: c.MeanESS, FracDiff: c.FracDiff, Degenerate: !ok}, nil
}

// Weighted is the retained trajectory with weight 1.
func (k *SMCKernel) Weighted() ([]float64, []float64) { return k.c.Reference(), k.one }

// Retained is the retained trajectory.
func (k *SMCKernel) Retained() []float64 { return k.c.Reference() }

// Refresh does nothing: a sweep recomputes every weight.
func (k *SMCKernel) Refresh() {}

// LogEvidence estimates log p(x; theta) with reps independent particle
// filters of n particles each with proposal q (a *Twisted or an
// *ARProposal), returning the log of the average of the unbiased estimates
// and its Monte Carlo standard error (delta method). Factors that depend on
// no latent state are not part of the filter: add them (ir's
// ConstLogDensity) to the result.
func LogEvidence(rng *rand.Rand, model *Problem, q Family, n, reps int) (logZ, se float64, err error) {
	c, err := NewCSMC(model, q, n)
	if err != nil {
		return 0, 0, err
	}
	ls := make([]float64, reps)
	for r := range ls {
		c.Sweep(rng, false)
		ls[r] = c.LogZ
	}
	logZ, se = resample.LogMeanExpSE(ls)
	return logZ, se, nil
}
