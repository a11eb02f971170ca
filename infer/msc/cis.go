package msc

import (
	"errors"
	"math"
	"math/rand/v2"
)

// Kernel is a Markov kernel that leaves the posterior invariant and uses
// the current q as its proposal.
type Kernel interface {
	// Step draws the next conditional sample.
	Step(rng *rand.Rand) error
	// Conditional is the current conditional sample (a view).
	Conditional() []float64
}

// CIS is the conditional importance sampling kernel (Algorithm 2 of the
// paper): the conditional sample is kept as sample 0 with its cached log
// joint (never recomputed), S-1 fresh proposals from q are evaluated as one
// batch, weights stay in log space and are normalised with log-sum-exp, and
// one categorical draw picks the next conditional sample. Its buffers hold
// the S samples and their normalised weights after each step, for the
// Rao-Blackwellised gradient.
type CIS struct {
	t     Target
	q     *Gaussian
	prior PriorTarget // non-nil: propose from the prior instead of q
	S, d  int

	z, eps, lp, lq, lw, w []float64
	cond                  []float64
	condLP, condPrior     float64

	// Per step diagnostics.
	Changed bool
	ESS     float64
	AllInf  bool // every weight was zero: the conditional sample was kept
}

// NewCIS returns a CIS kernel with S samples for target t and proposal q.
func NewCIS(t Target, q *Gaussian, S int) *CIS {
	d := t.Dim()
	t.Reserve(S)
	return &CIS{
		t: t, q: q, S: S, d: d,
		z: make([]float64, S*d), eps: make([]float64, S*d),
		lp: make([]float64, S), lq: make([]float64, S), lw: make([]float64, S), w: make([]float64, S),
		cond: make([]float64, d), condLP: math.Inf(-1),
	}
}

// UsePrior makes the kernel propose from the prior (the paper's "MSC
// (prior)" variant).
func (k *CIS) UsePrior(p PriorTarget) { k.prior = p }

// SetConditional sets the conditional sample and its log joint.
func (k *CIS) SetConditional(z []float64, lp float64) {
	copy(k.cond, z)
	k.condLP = lp
	if k.prior != nil {
		var v [1]float64
		k.prior.LogPrior(k.cond, v[:])
		k.condPrior = v[0]
	}
}

// RefreshLogJoint recomputes the conditional sample's log joint (after the
// model parameters changed).
func (k *CIS) RefreshLogJoint() {
	var v [1]float64
	k.t.LogJoint(k.cond, v[:])
	k.condLP = v[0]
}

// Conditional returns the conditional sample.
func (k *CIS) Conditional() []float64 { return k.cond }

// Samples returns the S samples of the last step (row 0: the previous
// conditional sample) and their normalised weights.
func (k *CIS) Samples() (z, w []float64) { return k.z, k.w }

// ErrNaN marks a NaN log density.
var ErrNaN = errors.New("the model's log density is NaN at a proposed point")

// NaNError explains a NaN at row z, through the target's Diagnoser if any.
func NaNError(t Target, z []float64) error {
	if dg, ok := t.(Diagnoser); ok {
		if err := dg.Diagnose(z); err != nil {
			return err
		}
	}
	return ErrNaN
}

// Step runs one CIS step.
func (k *CIS) Step(rng *rand.Rand) error {
	d, S := k.d, k.S
	copy(k.z[:d], k.cond)
	k.lp[0] = k.condLP
	rest := k.z[d:]
	if k.prior != nil {
		for b := 1; b < S; b++ {
			k.prior.SamplePrior(rng, k.z[b*d:(b+1)*d])
		}
		k.t.LogJoint(rest, k.lp[1:])
		k.prior.LogPrior(rest, k.lq[1:])
		k.lq[0] = k.condPrior
	} else {
		k.q.Sample(rng, rest, k.eps[d:])
		k.t.LogJoint(rest, k.lp[1:])
		for b := 1; b < S; b++ {
			k.lq[b] = k.q.LogQEps(k.eps[b*d : (b+1)*d])
		}
		k.lq[0] = k.q.LogQ(k.cond)
	}
	for b := 0; b < S; b++ {
		if math.IsNaN(k.lp[b]) {
			return NaNError(k.t, k.z[b*d:(b+1)*d])
		}
		k.lw[b] = k.lp[b] - k.lq[b]
	}
	_, ess, ok := normalise(k.lw, k.w)
	k.ESS, k.AllInf, k.Changed = ess, !ok, false
	if !ok {
		for b := range k.w {
			k.w[b] = 0
		}
		k.w[0] = 1
		return nil
	}
	j := categorical(rng, k.w)
	if j != 0 {
		k.Changed = true
		copy(k.cond, k.z[j*d:(j+1)*d])
		k.condLP = k.lp[j]
		if k.prior != nil {
			k.condPrior = k.lq[j]
		}
	}
	return nil
}
