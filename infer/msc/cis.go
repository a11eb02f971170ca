package msc

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/internal/resample"
)

func init() {
	RegisterKernel(KernelSpec{
		Name: "cis", Help: "conditional importance sampling with q as the proposal (the paper's Algorithm 2)",
		Method: "msc", MethodHelp: "Markovian score climbing (the default)",
		Needs: CapLogJoint, Markov: true, WarmStart: true, Split: true, PriorProposal: true,
		Optimizers: []Optimizer{Natural, RM, Adam},
		New: func(p *Problem, q Family, S int, o KernelOptions) (Kernel, error) {
			s, err := sampler("cis", q)
			if err != nil {
				return nil, err
			}
			k := NewCIS(p, s, S)
			if o.ProposePrior {
				k.UsePrior(p.Prior)
			}
			return k, nil
		},
	})
}

// Kernel is one step of the run loop: for MSC a Markov kernel that leaves
// the posterior invariant and uses q as its proposal (CIS, CSMC); for the
// baselines a fresh weighted sample (IS, SMC) or a reparameterised draw
// (ADVI). The loop calls Init once, then Step every iteration, climbs the
// score of q at Weighted() and the params' gradient at Retained().
type Kernel interface {
	// Name is the kernel's name as printed in summaries.
	Name() string
	// Markov reports whether the kernel keeps a retained state across
	// iterations (whose change rate is then a mixing diagnostic).
	Markov() bool
	// Init draws the initial retained state.
	Init(rng *rand.Rand) error
	// Step moves to the next state.
	Step(rng *rand.Rand) (StepInfo, error)
	// Weighted returns the samples (rows) and normalised weights whose
	// weighted score moves q (Rao-Blackwellised over all samples).
	Weighted() (z, w []float64)
	// Retained is the retained sample: the point of the Fisher-identity
	// gradient of the params.
	Retained() []float64
	// Refresh recomputes what the kernel cached about the retained state
	// after the params changed.
	Refresh()
}

// Noter is a kernel with remarks for the run's notes: what it chose at run
// time and why (the pmcis kernel's particle number).
type Noter interface {
	Notes() []string
}

// GradientKernel is a kernel that computes its own gradient of the
// variational objective (ADVI's reparameterisation gradient) instead of
// the weighted score.
type GradientKernel interface {
	Kernel
	LambdaGradient(grad []float64)
}

// StepInfo describes one kernel step.
type StepInfo struct {
	Changed    bool    // the retained state changed
	ESS        float64 // effective sample size of the weights
	Degenerate bool    // every weight was zero (the retained state was kept)
	FracDiff   float64 // CSMC: fraction of time steps whose value changed
}

// CIS is the conditional importance sampling kernel (Algorithm 2 of the
// paper): the retained sample is kept as sample 0 with its cached log
// joint (never recomputed), S-1 fresh proposals from q are evaluated as one
// batch, weights stay in log space and are normalised with log-sum-exp, and
// one categorical draw picks the next retained sample. After each step its
// buffers hold the S samples and their normalised weights, for the
// Rao-Blackwellised gradient. With a PriorTarget given to UsePrior it
// proposes from the prior instead (the paper's "MSC (prior)").
type CIS struct {
	p     *Problem
	t     Target
	q     Sampler
	prior PriorTarget
	S, d  int

	z, eps, lp, lq, lw, w []float64
	cond                  []float64
	condLP, condPrior     float64
}

// NewCIS returns a CIS kernel with S samples for target t and proposal q.
func NewCIS(p *Problem, q Sampler, S int) *CIS {
	t := p.Target
	d := t.Dim()
	t.Reserve(S)
	return &CIS{
		p: p, t: t, q: q, S: S, d: d,
		z: make([]float64, S*d), eps: make([]float64, S*d),
		lp: make([]float64, S), lq: make([]float64, S), lw: make([]float64, S), w: make([]float64, S),
		cond: make([]float64, d), condLP: math.Inf(-1),
	}
}

func (k *CIS) Name() string { return "cis" }
func (k *CIS) Markov() bool { return true }

// UsePrior makes the kernel propose from the prior.
func (k *CIS) UsePrior(p PriorTarget) { k.prior = p }

// Init draws the retained sample from q (or the prior), retrying up to 100
// times while its log joint is -Inf.
func (k *CIS) Init(rng *rand.Rand) error {
	var lp [1]float64
	lp[0] = math.Inf(-1)
	for try := 0; try < 100 && math.IsInf(lp[0], -1); try++ {
		if k.prior != nil {
			k.prior.SamplePrior(rng, k.cond)
		} else {
			k.q.Sample(rng, k.cond, k.eps[:k.d])
		}
		k.t.LogJoint(k.cond, lp[:])
		if math.IsNaN(lp[0]) || math.IsInf(lp[0], 1) {
			return k.p.NaNError(k.cond)
		}
	}
	k.SetConditional(k.cond, lp[0])
	return nil
}

// SetConditional sets the retained sample and its log joint.
func (k *CIS) SetConditional(z []float64, lp float64) {
	copy(k.cond, z)
	k.condLP = lp
	if k.prior != nil {
		var v [1]float64
		k.prior.LogPrior(k.cond, v[:])
		k.condPrior = v[0]
	}
}

// Refresh recomputes the retained sample's log joint.
func (k *CIS) Refresh() {
	var v [1]float64
	k.t.LogJoint(k.cond, v[:])
	k.condLP = v[0]
}

// Retained is the retained sample (a view).
func (k *CIS) Retained() []float64 { return k.cond }

// RetainedLogJoint is the retained sample's cached log joint.
func (k *CIS) RetainedLogJoint() float64 { return k.condLP }

// retainedLogJointer is a kernel that caches its retained sample's log
// joint (CIS), which the record of the retained samples keeps
// (Result.ChainLogJoint).
type retainedLogJointer interface {
	RetainedLogJoint() float64
}

// Weighted returns the S samples of the last step (row 0: the previous
// retained sample) and their normalised weights.
func (k *CIS) Weighted() (z, w []float64) { return k.z, k.w }

// ErrNaN marks a NaN (or +Inf) log density.
var ErrNaN = errors.New("the model's log density is NaN or +Inf at a proposed point")

// Step runs one CIS step.
func (k *CIS) Step(rng *rand.Rand) (StepInfo, error) {
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
			k.lq[b] = k.q.LogQNoise(k.z[b*d:(b+1)*d], k.eps[b*d:(b+1)*d])
		}
		k.lq[0] = k.q.LogQ(k.cond)
	}
	for b := 0; b < S; b++ {
		if math.IsNaN(k.lp[b]) || math.IsInf(k.lp[b], 1) {
			return StepInfo{}, k.p.NaNError(k.z[b*d : (b+1)*d])
		}
		k.lw[b] = k.lp[b] - k.lq[b]
	}
	_, ess, ok := resample.Normalise(k.lw, k.w)
	if !ok {
		clear(k.w)
		k.w[0] = 1
		return StepInfo{Degenerate: true}, nil
	}
	info := StepInfo{ESS: ess}
	if j := resample.Categorical(rng, k.w); j != 0 {
		info.Changed = true
		copy(k.cond, k.z[j*d:(j+1)*d])
		k.condLP = k.lp[j]
		if k.prior != nil {
			k.condPrior = k.lq[j]
		}
	}
	return info, nil
}
