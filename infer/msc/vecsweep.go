package msc

import (
	"fmt"
	"math/rand/v2"
)

// VecCSMC is CSMC for a state-space model with K-dimensional states:
// conditional SMC with ancestor sampling (or, unconditionally, the plain
// particle filter) exactly as CSMC, with the state of each particle a row
// of K values. Its proposal is a *VecTwisted (for a VectorStateSpace) or a
// *VecAR (for a GeneralVectorStateSpace). The retained trajectory is kept
// step by step and, for Reference, in the problem's latent layout.
type VecCSMC struct {
	p       vecStepProposal
	N, T, K int

	z    []float64 // T x N x K particle values
	anc  []int32   // T x N ancestor indices (into step t-1)
	logw []float64 // N log weights of the current step
	inc  []float64 // N incremental log weights of the proposal
	wn   []float64 // N normalised weights
	gPrv []float64 // N observation log densities at t-1
	gCur []float64
	aw   []float64 // N ancestor-sampling log weights
	us   []float64 // 2N scratch for sorted uniforms and cumulative weights
	ref  []float64 // T x K retained trajectory
	out  []float64 // the retained trajectory in the problem's layout
	idx  []int     // T x K: the position of (t, k) in out

	// Per sweep diagnostics, as CSMC's.
	LogZ     float64
	MeanESS  float64
	Changed  bool
	FracDiff float64
}

// vecStepProposal is what a vector sweep needs of a proposal, step by step
// (stepProposal with rows of K values for states).
type vecStepProposal interface {
	// obs writes log g_t(y_t | x_t = cur_i) for each particle (cur N x K).
	obs(t int, cur, out []float64)
	// prepare readies step t given the N x K particles of step t-1 (nil at t = 0).
	prepare(t int, prev []float64)
	// ancestorLogDensity writes log p(r | x^j_{t-1}) - log psi_{t-1}(x^j_{t-1})
	// for each j, up to a constant common to all j (t >= 1).
	ancestorLogDensity(t int, r []float64, out []float64)
	// propose fills the rows i >= start of z (N x K) from
	// q(x_t | x_{t-1} = prev_{anc[i]}) (rows i < start hold the retained
	// state) and writes inc[i] = log p(x_i | .) + log psi_t(x_i) - log q(x_i | .)
	// - log psi_{t-1}(prev_{anc[i]}).
	propose(rng *rand.Rand, t int, anc []int32, z, inc []float64, start int)
	// subPsi subtracts log psi_t(x_i) from out[i] for each row of cur.
	subPsi(t int, cur, out []float64)
	// retain records that the retained trajectory passes, at step t, through
	// a particle whose ancestor at step t-1 is a (a = 0 at t = 0).
	retain(t, a int)
}

// NewVecCSMC prepares the sweep with n particles (n >= 2) for a model with
// vector states: with the twisted proposal q (a *VecTwisted, for a
// VectorStateSpace) or the per-step one (a *VecAR, for a
// GeneralVectorStateSpace).
func NewVecCSMC(model *Problem, q Family, n int) (*VecCSMC, error) {
	if n < 1 {
		return nil, fmt.Errorf("the csmc kernel needs at least one particle")
	}
	var p vecStepProposal
	var lay VectorLayout
	switch q := q.(type) {
	case *VecTwisted:
		if err := model.Check("the vector twisted proposal", CapVectorGaussian); err != nil {
			return nil, err
		}
		lay = model.VectorStateSpace
		if err := q.fits(lay); err != nil {
			return nil, err
		}
		p = newVecTwistedSteps(model.VectorStateSpace, q, n)
	case *VecAR:
		if err := model.Check("the vector per-step proposal", CapVectorStateSpace); err != nil {
			return nil, err
		}
		lay = model.VectorGeneral
		if err := q.fits(lay); err != nil {
			return nil, err
		}
		p = newVecARSteps(model.VectorGeneral, q, n)
	default:
		return nil, fmt.Errorf("the csmc kernel takes a vector state-space proposal for this model, not the %s family", q.Name())
	}
	T, K := lay.Len(), lay.StateDim()
	idx, err := layoutIndex(lay)
	if err != nil {
		return nil, err
	}
	if model.Dim != 0 && model.Dim != T*K {
		return nil, fmt.Errorf("the vector state-space structure has %d x %d states, but the model has %d latents", T, K, model.Dim)
	}
	mk := func() []float64 { return make([]float64, n) }
	return &VecCSMC{
		p: p, N: n, T: T, K: K,
		z: make([]float64, T*n*K), anc: make([]int32, T*n),
		logw: mk(), inc: mk(), wn: mk(), gPrv: mk(), gCur: mk(), aw: mk(), us: make([]float64, 2*n),
		ref: make([]float64, T*K), out: make([]float64, T*K), idx: idx,
	}, nil
}

// Reference returns the retained trajectory in the problem's latent layout
// (a view).
func (c *VecCSMC) Reference() []float64 { return c.out }

// SetReference sets the retained trajectory from z in the problem's layout.
func (c *VecCSMC) SetReference(z []float64) {
	for i, j := range c.idx {
		c.ref[i] = z[j]
		c.out[j] = z[j]
	}
}

// Sweep runs one CSMC sweep (a plain particle filter when conditional is
// false) and draws a new retained trajectory, as CSMC.Sweep.
func (c *VecCSMC) Sweep(rng *rand.Rand, conditional bool) bool {
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
			multinomial(rng, c.wn, at[start:], c.us)
			if conditional {
				p.ancestorLogDensity(t, rt, c.aw)
				for j := range c.aw {
					c.aw[j] += c.logw[j] + c.gPrv[j]
				}
				if normaliseWeights(c.aw, c.aw) {
					at[0] = int32(categorical(rng, c.aw))
				} else {
					at[0], ok = 0, false
				}
			}
		}
		if conditional {
			copy(zt[:K], rt)
		}
		p.propose(rng, t, at, zt, c.inc, start)
		if t > 0 {
			for i, a := range at {
				c.logw[i] = c.inc[i] + c.gPrv[a]
			}
		} else {
			copy(c.logw, c.inc)
		}
		p.obs(t, zt, c.gCur)
		if t == T-1 {
			for i, g := range c.gCur {
				c.logw[i] += g
			}
			p.subPsi(t, zt, c.logw)
		}
		logMean, ess, good := normaliseStep(c.logw, c.wn)
		ok = ok && good
		c.LogZ += logMean
		c.MeanESS += ess / float64(T)
		c.gPrv, c.gCur = c.gCur, c.gPrv
	}
	if !ok && conditional {
		c.Changed, c.FracDiff = false, 0
		return false
	}
	c.traceBack(categorical(rng, c.wn))
	return ok
}

// traceBack makes particle j of the last step, followed back through its
// ancestors, the new retained trajectory, and records its path with the
// proposal.
func (c *VecCSMC) traceBack(j int) {
	N, K := c.N, c.K
	diff := 0
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

// ---- the kernel's view of a sweep -----------------------------------------

// sweeper is what SMCKernel and LogEvidence need of a sweep: CSMC for
// scalar states, VecCSMC for vector states.
type sweeper interface {
	Sweep(rng *rand.Rand, conditional bool) bool
	Reference() []float64
	info() sweepInfo
}

type sweepInfo struct {
	logZ, meanESS, fracDiff float64
	changed                 bool
}

func (k *CSMC) info() sweepInfo    { return sweepInfo{k.LogZ, k.MeanESS, k.FracDiff, k.Changed} }
func (c *VecCSMC) info() sweepInfo { return sweepInfo{c.LogZ, c.MeanESS, c.FracDiff, c.Changed} }

// newSweeper builds the sweep for proposal q: VecCSMC for the vector
// proposals, CSMC otherwise.
func newSweeper(model *Problem, q Family, n int) (sweeper, error) {
	switch q.(type) {
	case *VecTwisted, *VecAR:
		return NewVecCSMC(model, q, n)
	}
	return NewCSMC(model, q, n)
}
