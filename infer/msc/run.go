package msc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/mscppl/mscppl/internal/adam"
	"github.com/mscppl/mscppl/internal/runwindow"
)

// Optimizer selects the update rule for the variational parameters.
type Optimizer int

const (
	// DefaultOptimizer is the kernel's first optimizer (KernelSpec.Optimizers),
	// Natural when it lists none.
	DefaultOptimizer Optimizer = iota
	// Natural is the natural-gradient update (NaturalFamily): for a
	// Gaussian a stochastic moment update with step rho_k = LR (1 +
	// k/1000)^-0.6. The default for families that have one.
	Natural
	// RM is plain Robbins-Monro on the score, eps_k = LR k^-RMExponent.
	RM
	// Adam is Adam on the score with a constant step LR (the paper's choice).
	Adam
)

func (o Optimizer) String() string { return [...]string{"default", "natural", "rm", "adam"}[o] }

// ParseOptimizer parses natural, rm or adam ("": the default).
func ParseOptimizer(s string) (Optimizer, error) {
	switch s {
	case "":
		return DefaultOptimizer, nil
	case "natural":
		return Natural, nil
	case "rm":
		return RM, nil
	case "adam":
		return Adam, nil
	}
	return 0, fmt.Errorf("unknown optimizer %q (use natural, rm or adam)", s)
}

// Settings configures Run and RunChains. Zero fields take the defaults of
// Defaults.
type Settings struct {
	Samples int // S, samples (or particles) per kernel step
	// Iters is K, the number of iterations of each chain: with Fixed the
	// run length, otherwise a cap (RunChains stops earlier when done).
	Iters     int
	Fixed     bool
	Chains    int       // independent chains of RunChains
	Optimizer Optimizer // update rule of q
	// LR is rho_0 for Natural, c for RM, the step for Adam.
	LR         float64
	RMExponent float64 // alpha in (0.5, 1] for RM
	// RetainedOnly uses only the retained sample in the gradient instead
	// of the Rao-Blackwellised weighted average over all S samples.
	RetainedOnly bool
	// AverageFraction is the fraction of final iterates averaged into the
	// reported q. 1e-9 reports the last iterate.
	AverageFraction float64
	ParamLR         float64 // Adam step for the model parameters
	// Corrected, when set, says the run's summaries will be
	// importance-weighted estimates from draws of q (infer's PSIS step),
	// which correct what q's averaged moments owe to Monte Carlo error, so
	// a costly run (the dense schedule) may stop on the looser agreement
	// Defaults.AgreeSDCorrected from Defaults.FirstCheckCorrected on
	// (RunChains; a kernel whose q cannot be sampled ignores it). Before
	// such a stop RunChains calls it with the combined q, after n
	// iterations; it reports whether the weights of draws of q are
	// reliable enough for the correction (infer: a thousand draws' k-hat
	// at most 0.5) and a short description of its evidence. When they are
	// not, the run goes on under the uncorrected rule.
	Corrected func(q Family, n int) (ok bool, why string)
	// windowFrom is the first iteration the averaging window may hold:
	// after the params are fixed (RunChains), the iteration after.
	windowFrom int
	// Trace is called every TraceEvery iterations (and at 1, 2, 5, 10, ...)
	// of the first chain.
	Trace      func(*TraceEntry)
	TraceEvery int
}

// Defaults are the settings every command starts from, in one place. The
// command line prints them in --help.
var Defaults = struct {
	Samples int
	// For a family with a dense covariance above 40 dimensions S is
	// ceil(d * SamplesPerDim).
	SamplesPerDim float64
	Chains        int
	Iters         func(d int) int
	ItersSSM      int
	ItersPG       int // the cap of particle Gibbs (static latents beside a state)
	// ParamIters is the iteration at which RunChains (unless Fixed) fixes
	// every chain's params at the chains' combined average: Algorithm 3 has
	// brought them near the maximum-likelihood estimate, and the chains'
	// latents, sampled at one set of params from then on, can agree.
	ParamIters int
	FirstCheck int // the first iteration at which RunChains may stop
	// FirstCheckCorrected and AgreeSDCorrected replace FirstCheck and
	// AgreeSD on a costly run whose summaries are corrected by importance
	// weights (Settings.Corrected): there q need only be close enough for
	// the weights to be reliable, which the PSIS step then judges (its
	// k-hat, the second opinion on the tails) before any verdict, and its
	// moment matching moves the proposal to the weighted moments. The
	// chains' spread (the range of 4 averaged means) within 0.1 sd puts
	// the combined q's mean about 0.025 sd per component from its limit:
	// a loss of PSIS efficiency under 1% at d = 11 and about 12% at the
	// dense families' 200 dimensions. A 100000-row logistic regression's
	// chains (started at one Laplace approximation) spread by 0.111,
	// 0.070 and 0.048 sd after 300, 500 and 700 iterations: Monte Carlo
	// error, falling as 1/sqrt(n), whose 0.05 sd took 1300 iterations.
	FirstCheckCorrected int
	AgreeSDCorrected    float64
	// DenseCost and CheckStep: when one iteration of the chains computes
	// at least DenseCost scalars (S x chains x Problem.Cost; about a
	// millisecond, the cost of one evaluation of the rule's figures),
	// RunChains checks every CheckStep iterations from FirstCheck on, so a
	// run whose iterations are passes over a large data set stops within
	// CheckStep iterations of the rule passing instead of at the next
	// check of the sparse schedule (500 iterations or more later).
	DenseCost float64
	CheckStep int
	RhatMax   float64 // the stopping rule's and the verdict's R-hat threshold
	AgreeSD   float64 // the chains' averaged means agree within this many posterior sds
	// MinESS is the smallest bulk ESS of the recorded draws at which a run
	// that reports the chains' own averages (a state-space run) may stop:
	// its means' Monte Carlo error is then at most 1/sqrt(MinESS) sd.
	MinESS float64
	// ParamAgreeSE: the chains\' averaged params agree within this many
	// standard errors of the maximum-likelihood estimate.
	ParamAgreeSE float64
	LRNatural    float64
	// For a family with a dense covariance rho_0 is at most LRNaturalDim/d.
	LRNaturalDim float64
	// The natural-gradient step is rho_k = LR (1 + k/DecayScale)^-DecayExp.
	DecayScale, DecayExp float64
	LRRM, RMExponent     float64
	LRAdam, LRSSM        float64
	ParamLR              float64
	ParamLRSSM           float64
	AverageFraction      float64
	// Family is the default family up to FullRankLimit dimensions,
	// FamilyLarge above.
	FullRankLimit       int
	Family, FamilyLarge string
}{
	Samples: 10,
	// A radon-like non-centred hierarchy (d = 89) stayed at R-hat 1.11 at
	// its 40000-iteration cap with S = 10 (the chain's weights had an ESS
	// of 1.5) and converged with S = 20, 30 and 40; a simulated 100-dimensional
	// probit took 5800 iterations and 3.6 s with S = 25 against 12200 and
	// 6.4 s with 10; a 61-dimensional one 3000 with S = 16 against
	// 3500-4500, in the same time. Up to 40 dimensions S stays 10.
	SamplesPerDim:       0.25,
	Chains:              4,
	Iters:               DefaultIters,
	ItersSSM:            10000,
	ItersPG:             20000,
	ParamIters:          2000,
	FirstCheck:          1000,
	FirstCheckCorrected: 300,
	AgreeSDCorrected:    0.1,
	// A 100000-row logistic regression (Problem.Cost 1e5 since alpha +
	// X * beta is one node, 4e6 scalars an iteration, 11 ms of CPU) passed
	// the rule at every check from 1200 on, and stopped at the sparse
	// schedule's 1500; the examples' iterations compute at most ~1e5
	// scalars and keep the sparse schedule. (The threshold was 1e6 when a
	// regression's row counted its product and its sum apart: the same
	// time an iteration.)
	DenseCost: 5e5,
	CheckStep: 100,
	RhatMax:   1.01,
	AgreeSD:   0.05,
	MinESS:    1000,
	// rho_0 = 0.03 reached the stopping rule in the fewest iterations over
	// raw-scale Pima probit, earnings, arK and Ionosphere among 0.01 to 0.1
	// (0.01 needed 2-3 times as many on the first three; 0.05 and above
	// did not settle on Ionosphere within 20000); PSIS corrects the small
	// bias a larger step leaves in q.
	LRNatural: 0.03,
	// A dense covariance estimated from the few effective samples that one
	// step size's window holds (about 2 ESS/rho_0 for the ESS of an
	// iteration's weights, 2-5 of S = 10 here) is too noisy once d nears
	// them: its small eigenvalues come out far too small, q then proposes
	// too narrowly in those directions, the weights turn heavy-tailed and q
	// recovers only slowly. Over 0.1, 0.15, 0.2, 0.3 and 0.5, 0.2/d took the
	// fewest iterations to the stopping rule on Ionosphere (d = 35: 5100-7500
	// over seeds 1-8, against 10800-22300 with 0.03) and on a simulated
	// 61-dimensional probit (3500-4500; 0.03 did not converge within 40000
	// iterations, q's sds 24% narrow), with q's own sds within 6%; a
	// simulated 100-dimensional probit converges in 12200 (0.03: k-hat 2.3).
	// Up to d = 6 the cap 0.03 holds; Pima (d = 9), arK and nes2000 stop at
	// the same checks as with 0.03.
	LRNaturalDim: 0.2,
	DecayScale:   1000, DecayExp: 0.6,
	LRRM: 0.5, RMExponent: 0.6,
	LRAdam: 0.01, LRSSM: 0.1,
	ParamLR: 0.01, ParamLRSSM: 0.1,
	AverageFraction: 0.5,
	FullRankLimit:   200,
	Family:          "fullrank", FamilyLarge: "meanfield",
}

// DefaultIters is the default cap on the iterations of a chain for d
// latent dimensions: the run stops earlier when the chains agree. (The cap
// was 20000 between 11 and 40 dimensions, below the 40000 above them:
// Ionosphere, d = 35, needs 10800-22300 iterations over seeds 1-8, and
// seed 7 stopped at the cap 0.0525 sd apart.)
func DefaultIters(d int) int {
	if d <= 10 {
		return 100000
	}
	return 40000
}

// Fill returns s with its zero fields set to the defaults for a model of d
// latent dimensions run with kernel k and family f (nil: a kernel or family
// without traits, such as a test's), and validates it. The kernel's traits
// choose the state-space defaults and the optimizer; the family's the
// dense-covariance step and S.
func Fill(s Settings, d int, k *KernelSpec, f *FamilySpec) (Settings, error) {
	D := Defaults
	if k == nil {
		k = &KernelSpec{}
	}
	if f == nil {
		f = &FamilySpec{}
	}
	ssm := k.StateSpace && !k.Statics // the paper's state-space settings
	if s.Samples == 0 {
		s.Samples = D.Samples
		if f.Dense && !k.StateSpace {
			s.Samples = max(s.Samples, int(math.Ceil(float64(d)*D.SamplesPerDim)))
		}
	}
	if s.Samples < 2 {
		return s, fmt.Errorf("the kernel needs at least 2 samples, got %d", s.Samples)
	}
	if s.Chains == 0 {
		s.Chains = D.Chains
	}
	if s.Chains < 1 {
		return s, fmt.Errorf("the number of chains must be positive, got %d", s.Chains)
	}
	if s.Iters == 0 {
		s.Iters = D.Iters(d)
		switch {
		case k.Statics:
			s.Iters = D.ItersPG
		case ssm:
			s.Iters = D.ItersSSM
		}
	}
	if s.Iters < 1 {
		return s, fmt.Errorf("the number of iterations must be positive, got %d", s.Iters)
	}
	if s.Optimizer == DefaultOptimizer {
		s.Optimizer = Natural
		if len(k.Optimizers) > 0 {
			s.Optimizer = k.Optimizers[0]
		}
	}
	if len(k.Optimizers) > 0 && !slices.Contains(k.Optimizers, s.Optimizer) {
		var names []string
		for _, o := range k.Optimizers {
			names = append(names, o.String())
		}
		return s, fmt.Errorf("the %s kernel climbs with %s, not %s", k.Name, joinNames(names), s.Optimizer)
	}
	if s.LR == 0 {
		switch {
		case ssm:
			s.LR = D.LRSSM
		case s.Optimizer == RM:
			s.LR = D.LRRM
		case s.Optimizer == Adam:
			s.LR = D.LRAdam
		default:
			s.LR = D.LRNatural
			if f.Dense {
				s.LR = math.Min(s.LR, D.LRNaturalDim/float64(max(d, 1)))
			}
		}
	}
	if !(s.LR > 0) || math.IsInf(s.LR, 0) {
		return s, fmt.Errorf("the step size must be positive, got %g", s.LR)
	}
	if s.Optimizer == Natural && s.LR >= 1 && !ssm {
		return s, fmt.Errorf("the natural-gradient step rho_0 must be below 1, got %g", s.LR)
	}
	if s.RMExponent == 0 {
		s.RMExponent = D.RMExponent
	}
	if !(s.RMExponent > 0.5 && s.RMExponent <= 1) {
		return s, fmt.Errorf("the Robbins-Monro exponent must be in (0.5, 1], got %g", s.RMExponent)
	}
	if s.AverageFraction == 0 {
		s.AverageFraction = D.AverageFraction
	}
	if !(s.AverageFraction > 0 && s.AverageFraction <= 1) {
		return s, fmt.Errorf("the averaged fraction must be in (0, 1], got %g", s.AverageFraction)
	}
	if s.ParamLR == 0 {
		s.ParamLR = D.ParamLR
		if k.StateSpace {
			s.ParamLR = D.ParamLRSSM
		}
	}
	if s.TraceEvery <= 0 {
		s.TraceEvery = max(1, s.Iters/200)
	}
	return s, nil
}

// kernelOf returns the registration of k's kernel (nil for a kernel that is
// not registered, such as a test's).
func kernelOf(k Kernel) *KernelSpec {
	s, _ := LookupKernel(k.Name())
	return s
}

// fill is Fill for the kernel and family of one chain.
func fill(s Settings, p *Problem, q Family, k Kernel) (Settings, error) {
	return Fill(s, p.Dim, kernelOf(k), familyOf(q))
}

// TraceEntry is one logged iteration.
type TraceEntry struct {
	Iter       int
	Iters      int       // the planned number of iterations (the cap)
	Q          Family    // the current q (valid during the call)
	Params     []float64 // unconstrained theta (view)
	ESS        float64   // ESS of this iteration's weights
	ChangeRate float64   // running fraction of changed retained samples
}

// Result is the outcome of Run (one chain) or RunChains (the chains
// combined, with each chain's own result in Chains).
type Result struct {
	Kernel     string
	Settings   Settings  // the settings of the run, defaults filled
	Q          Family    // the reported q: statistics averaged over the last iterates
	Final      Family    // the last iterate
	Params     []float64 // unconstrained theta, averaged like Q
	Iterations int       // iterations run (per chain)
	Averaged   int       // iterates averaged into Q (per chain)
	// ChainMean and ChainSD are the moments of the retained samples over
	// the averaged iterations: the chain's own estimate of the posterior
	// (for CSMC the smoothing marginals).
	ChainMean, ChainSD []float64
	// ChainQuantiles (5%, 50%, 95%) and ChainMCSE (of the mean: sd over
	// the square root of the bulk ESS) come from the thinned record of the
	// retained samples over the averaging window (RunChains; nil when
	// fewer than 4 records per chain).
	ChainQuantiles [][3]float64
	ChainMCSE      []float64
	// ChainDraws are each chain's thinned record of its retained samples
	// (q's mean iterates for a kernel without one) over the averaging
	// window, rows of Dim (RunChains; nil when fewer than 4 per chain).
	ChainDraws [][]float64
	// ChainLogJoint is the log joint of each row of ChainDraws as the
	// kernel computed it when the row was retained (nil when the kernel
	// keeps none, or the model has params, whose values then differ from
	// the reported ones), so that the rows need not be evaluated again.
	ChainLogJoint [][]float64
	// ChainDrawIters are the iterations (from 1) of ChainDraws' rows (of
	// chain 0's; every chain records the same ones when the chains ran
	// the same iterations).
	ChainDrawIters []int
	Elapsed        time.Duration
	// Converged is the run loop's verdict: not stopped early, the optimiser
	// not frozen, and for RunChains R-hat and the chains' agreement within
	// their thresholds.
	Converged bool
	Stopped   bool // stopped early by the context
	Reported  string

	ChangeRate     float64 // fraction of iterations whose retained sample changed
	ChangeRateLast float64 // the same over the last 10% of the iterations run
	StepsChange    float64 // CSMC: mean fraction of time steps that changed
	MeanESS        float64
	Degenerate     int // iterations in which every weight was zero
	Warnings       []string
	// notMixing is 1 + the index in Warnings of the kernel's mixing
	// warning (0: none), which RunChains merges over the chains.
	notMixing int
	// Notes are the kernel's remarks on what it chose (a Noter's).
	Notes []string

	// Unidentified, when the chains of a state-space run with params did
	// not agree, says along which combination of params the likelihood is
	// flat (RunChains).
	Unidentified *Unidentified

	// Set by RunChains.
	Chains []*Result
	// Rhat is the rank-normalised split R-hat of each component over the
	// averaging window: of the retained samples for Markov kernels, of q's
	// mean iterates otherwise. Spread is the range of the chains' averaged
	// means in units of the combined posterior sd.
	Rhat, Spread       []float64
	RhatMax, SpreadMax float64
	// AgreeSD is the threshold the chains' spread was judged against:
	// Defaults.AgreeSD, or Defaults.AgreeSDCorrected on a costly corrected
	// run (Settings.Corrected; RunChains).
	AgreeSD float64
	// Confirmed is what Settings.Corrected said of q when the run stopped
	// on the corrected agreement, or when it refused it ("": not asked).
	Confirmed     string
	RhatOf        string  // "retained samples", "draws of the kernel" (a baseline whose q cannot be sampled) or "q's mean iterates"
	ESSBulkMin    float64 // the smallest bulk ESS of the components' recorded draws
	Checks        int     // stopping-rule checks made
	StoppedByRule bool    // the stopping rule ended the run before the cap
	// ParamsFixedAt is the iteration at which the chains' params were fixed
	// at their combined average (0: never; see Defaults.ParamIters).
	ParamsFixedAt int
	// Trend is how the chains' spread moved when the run reached its cap
	// (RunChains; nil when it did not, or there was no earlier evaluation):
	// the warnings name more iterations only when it was still falling.
	Trend *Trend
}

// MixingThreshold is the change rate of the retained sample below which
// Run warns that the kernel is not mixing. When q equals the posterior, CIS
// changes its sample with probability (S-1)/S (at least 1/2); a rate below
// 5% means the sample moved fewer than once in 20 iterations, so the
// gradient is computed from a nearly frozen sample and q can drift.
const MixingThreshold = 0.05

// Run fits q by climbing the score of q at the weighted samples of kernel k
// (Algorithms 1 and 2 of the paper for CIS, 3 and 4 for CSMC), and, when
// the target has parameters (ParamTarget), climbs the Fisher-identity
// gradient grad_theta log p(z[k], x; theta) at the retained sample
// (Algorithm 3). The same loop runs the baselines through their kernels.
// Run runs one chain for exactly s.Iters iterations; RunChains runs
// several and stops when they agree. The context stops the run early; res
// then holds the result so far with Converged false. s is filled with
// defaults (Fill) for the problem, q's family and k's kernel.
func Run(ctx context.Context, rng *rand.Rand, p *Problem, q Family, k Kernel, s Settings, res *Result) error {
	start := time.Now()
	s, err := fill(s, p, q, k)
	if err != nil {
		return err
	}
	c, err := newChain(rng, p, q, k, &s)
	if err != nil {
		return err
	}
	if err := c.advance(ctx, s.Iters); err != nil {
		return err
	}
	c.finish(res)
	res.Settings = s
	res.Elapsed = time.Since(start)
	return nil
}

// chain is one MSC chain that can be advanced in blocks.
type chain struct {
	l       *loop
	rng     *rand.Rand
	it      int // iterations done
	buf     *drawBuf
	qMean   []float64 // scratch: q's mean for kernels without a retained sample
	qSD     []float64
	trace   func(*TraceEntry)
	stopped bool
	cached  retainedLogJointer // the kernel, when it caches its retained sample's log joint
	// zeroRun counts the iterations from the first in which every weight
	// was zero: no point of positive density seen yet.
	zeroRun int
}

// ZeroStartIters is how many iterations from the first may pass with
// every weight zero (no draw of positive posterior density) before the
// run stops with the statement that rules the draws out: a run that
// never saw a point of the posterior's support has nothing to climb.
const ZeroStartIters = 200

// ZeroDiagnoser is implemented by diagnosers that can explain a log
// joint of -Inf at z (the statement whose density is zero), saying that
// every draw of the first iters iterations was so.
type ZeroDiagnoser interface {
	DiagnoseZero(z []float64, iters int) error
}

// zeroError explains a chain whose first ZeroStartIters iterations saw
// no point of positive density, at its retained sample (or the first
// weighted draw of a kernel without one).
func (c *chain) zeroError() error {
	d := c.l.d
	z := c.l.k.Retained()
	if len(z) != d {
		z, _ = c.l.k.Weighted()
	}
	if zd, ok := c.l.p.Diagnoser.(ZeroDiagnoser); ok && len(z) >= d {
		if err := zd.DiagnoseZero(z[:d], c.zeroRun); err != nil {
			return err
		}
	}
	return fmt.Errorf("every draw of the first %d iterations has zero posterior density: the model's data or constraints rule them out", c.zeroRun)
}

func newChain(rng *rand.Rand, p *Problem, q Family, k Kernel, s *Settings) (*chain, error) {
	if q.Dim() == 0 {
		return nil, errors.New("the model has no latent variables: nothing to infer")
	}
	l := newLoop(p, q, k, s)
	if err := k.Init(rng); err != nil {
		return nil, err
	}
	d := q.Dim()
	c := &chain{l: l, rng: rng, buf: newDrawBuf(d), qMean: make([]float64, d), qSD: make([]float64, d), trace: s.Trace}
	c.cached, _ = k.(retainedLogJointer)
	return c, nil
}

// advance runs the chain up to iteration to (or until the context ends:
// a run stopped at once still makes its first 63 iterations, for a result
// to report; after them it stops before the next iteration, where it
// waited for the next multiple of 64: minutes when an iteration takes
// seconds, and iterations whose ODE solves the context cut short, their
// draws rejected, drew q towards the retained sample).
func (c *chain) advance(ctx context.Context, to int) error {
	l, s, k := c.l, c.l.s, c.l.k
	done := ctx.Done()
	for c.it < to {
		it := c.it + 1
		if it&63 == 0 || it > 64 {
			select {
			case <-done:
				c.stopped = true
				return nil
			default:
			}
		}
		info, err := k.Step(c.rng)
		if err != nil {
			return err
		}
		c.it = it
		l.record(info)
		if info.Degenerate && c.zeroRun == it-1 {
			if c.zeroRun++; c.zeroRun == ZeroStartIters {
				return c.zeroError()
			}
		}
		// a step without information (every weight zero) moves a fresh-draw
		// kernel nowhere; a Markov kernel still climbs at its retained sample
		if info.Degenerate && !k.Markov() {
			continue
		}
		if err := l.updateQ(it); err != nil {
			return err
		}
		if err := l.updateParams(it); err != nil {
			return err
		}
		l.accumulate(it, info.Changed)
		if c.buf.wants(it) {
			if l.ownDraws {
				lp := math.NaN()
				if c.cached != nil {
					lp = c.cached.RetainedLogJoint()
				}
				c.buf.Add(it, k.Retained(), lp)
			} else {
				l.q.(Sampler).Moments(c.qMean, c.qSD)
				c.buf.Add(it, c.qMean, math.NaN())
			}
		}
		if c.trace != nil && (it%s.TraceEvery == 0 || (it < s.TraceEvery && logTick(it))) {
			c.trace(&TraceEntry{Iter: it, Iters: s.Iters, Q: l.q, Params: l.theta, ESS: info.ESS, ChangeRate: float64(l.changes) / float64(it)})
		}
	}
	return nil
}

// windowStart is the first iteration of the averaging window after n
// iterations.
func (s *Settings) windowStart(n int) int {
	return max(n-int(math.Ceil(s.AverageFraction*float64(n)))+1, s.windowFrom)
}

// loop is the state of one chain's optimisation.
type loop struct {
	p   *Problem
	q   Family
	k   Kernel
	s   *Settings
	gk  GradientKernel
	nat NaturalFamily
	d   int

	lam, grad   []float64
	adamQ       *adam.State
	pt          ParamTarget
	theta, gT   []float64
	adamP       *adam.State
	paramsFixed bool      // fixed by RunChains: no more Fisher-identity steps
	decaying    bool      // q's Adam step decreases (a state-space kernel's proposal)
	one         []float64 // weight 1 for the retained sample
	// ownDraws: the chains' record and the window's moments are the
	// kernel's draws (Retained), for a Markov kernel and for a baseline
	// whose q cannot be sampled (the SMC baseline's particle-filter
	// trajectory); otherwise q's mean iterates are recorded.
	ownDraws bool

	stats  []float64
	win    *runwindow.Window
	frozen int // consecutive iterations in which lambda did not move

	changes         int
	essSum, fracSum float64
	degenerate      int
}

func newLoop(p *Problem, q Family, k Kernel, s *Settings) *loop {
	l := &loop{p: p, q: q, k: k, s: s, d: q.Dim(), one: []float64{1}}
	if ks := kernelOf(k); ks != nil {
		l.decaying = ks.StateSpace
	}
	l.gk, _ = k.(GradientKernel)
	if s.Optimizer == Natural {
		l.nat, _ = q.(NaturalFamily)
	}
	n := q.NumLambda()
	l.lam, l.grad = make([]float64, n), make([]float64, n)
	l.adamQ = adam.New(n)
	np := 0
	if pt := p.Params; pt != nil && pt.NumParams() > 0 {
		l.pt = pt
		np = pt.NumParams()
		l.theta = append([]float64(nil), pt.Params()...)
		l.gT, l.adamP = make([]float64, np), adam.New(np)
	}
	l.stats = make([]float64, q.NumStats())
	_, sampler := q.(Sampler)
	l.ownDraws = k.Markov() || !sampler
	nz := 0
	if l.ownDraws {
		nz = l.d
	}
	l.win = runwindow.NewWindow(q.NumStats(), np, nz)
	return l
}

func (l *loop) record(info StepInfo) {
	if info.Changed {
		l.changes++
	}
	if info.Degenerate {
		l.degenerate++
	}
	l.essSum += info.ESS
	l.fracSum += info.FracDiff
}

// updateQ moves lambda: by the kernel's own gradient (ADVI), by the
// family's natural-gradient step, or by RM or Adam on the weighted score.
func (l *loop) updateQ(it int) error {
	s, q := l.s, l.q
	z, w := l.k.Weighted()
	if s.RetainedOnly && l.gk == nil {
		z, w = l.k.Retained(), l.one
	}
	if l.nat != nil && l.gk == nil {
		rho := s.LR * math.Pow(1+float64(it)/Defaults.DecayScale, -Defaults.DecayExp)
		if err := l.nat.NaturalStep(z, w, rho); err != nil {
			return fmt.Errorf("%v at iteration %d; lower --lr", err, it)
		}
		return nil
	}
	clear(l.grad)
	if l.gk != nil {
		l.gk.LambdaGradient(l.grad)
	} else {
		for b, wb := range w {
			if wb != 0 {
				q.AddScore(wb, z[b*l.d:(b+1)*l.d], l.grad)
			}
		}
	}
	q.Lambda(l.lam)
	moved := false
	if s.Optimizer == RM && l.gk == nil {
		eps := s.LR * math.Pow(float64(it), -s.RMExponent)
		for i, g := range l.grad {
			step := eps * g
			moved = moved || step != 0
			l.lam[i] += step
		}
	} else {
		moved = l.adamQ.Step(l.lam, l.grad, s.LR*l.decay(it))
	}
	for _, v := range l.lam {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("the variational parameters became non-finite at iteration %d; lower --lr", it)
		}
	}
	if moved {
		l.frozen = 0
	} else {
		l.frozen++
	}
	q.SetLambda(l.lam)
	return nil
}

// updateParams climbs grad_theta log p(z, x; theta) at the retained sample.
func (l *loop) updateParams(it int) error {
	if l.pt == nil || l.paramsFixed {
		return nil
	}
	l.pt.GradParams(l.k.Retained(), l.gT)
	l.adamP.Step(l.theta, l.gT, l.s.ParamLR*math.Pow(1+float64(it)/Defaults.DecayScale, -Defaults.DecayExp))
	for _, v := range l.theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("the model parameters became non-finite at iteration %d; lower --param-lr", it)
		}
	}
	l.pt.SetParams(l.theta)
	// theta changed: what the kernel cached about its retained state is stale
	l.k.Refresh()
	return nil
}

func (l *loop) accumulate(it int, changed bool) {
	l.q.Stats(l.stats)
	var z []float64
	if l.ownDraws { // the chain's own moments
		z = l.k.Retained()
	}
	l.win.Add(it, changed, l.stats, l.theta, z)
}

// finish writes the chain's result: q and the params averaged over the
// window of the iterations run, the chain's moments, its rates and its
// warnings (mixing, frozen optimiser).
func (c *chain) finish(res *Result) {
	l, iters := c.l, c.it
	res.Kernel = l.k.Name()
	res.Iterations = iters
	res.Stopped = c.stopped
	res.Converged = !c.stopped
	res.Final = l.q.Clone()
	res.Q = l.q.Clone()
	avg := make([]float64, len(l.stats))
	var theta []float64
	if l.pt != nil {
		theta = make([]float64, len(l.theta))
	}
	res.ChainMean, res.ChainSD = make([]float64, l.d), make([]float64, l.d)
	first, n := l.win.Mean(l.s.windowStart(iters), avg, theta, res.ChainMean, res.ChainSD)
	res.Averaged = n
	if n == 0 {
		l.q.Stats(avg)
		theta = append(theta[:0], l.theta...)
	}
	if err := res.Q.SetStats(avg); err != nil {
		res.Q = l.q.Clone()
		res.Warnings = append(res.Warnings, fmt.Sprintf("the averaged q is invalid (%v); the last iterate is reported", err))
	}
	if l.pt != nil {
		res.Params = theta
		l.pt.SetParams(res.Params)
	}
	if iters > 0 {
		res.ChangeRate = float64(l.changes) / float64(iters)
		res.MeanESS = l.essSum / float64(iters)
		res.StepsChange = l.fracSum / float64(iters)
	}
	last := 0
	res.ChangeRateLast, last = l.win.ChangeRate(iters - max(1, iters/10) + 1)
	res.Degenerate = l.degenerate
	if nt, ok := l.k.(Noter); ok {
		res.Notes = append(res.Notes, nt.Notes()...)
	}
	res.Reported = fmt.Sprintf("average of iterations %d-%d (%d iterates)", first, iters, n)
	if l.k.Markov() && res.ChangeRateLast < MixingThreshold && iters > 0 {
		res.Warnings = append(res.Warnings, mixingWarning(l, res.ChangeRateLast, last, nil, 1, nil))
		res.notMixing = len(res.Warnings)
	}
	if l.frozen > 0 && l.frozen >= max(1, iters/10) {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the optimiser of q is frozen: its parameters did not move in the last %d iterations (the gradient is zero or not finite); the result is q's state when it froze", l.frozen))
		res.Converged = false
	}
}

func logTick(k int) bool {
	for k >= 10 && k%10 == 0 {
		k /= 10
	}
	return k == 1 || k == 2 || k == 5
}

// fixParams sets the chain's params to theta and stops their updates.
func (l *loop) fixParams(theta []float64) {
	copy(l.theta, theta)
	l.pt.SetParams(l.theta)
	l.paramsFixed = true
	l.k.Refresh()
}

// decay is the factor of the step at iteration it: (1 + it/DecayScale)^-DecayExp
// for the state-space proposals, whose Adam steps would otherwise keep
// adapting the kernel to its latest trajectories; 1 for the other families.
func (l *loop) decay(it int) float64 {
	if !l.decaying {
		return 1
	}
	return math.Pow(1+float64(it)/Defaults.DecayScale, -Defaults.DecayExp)
}
