package msc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// Optimizer selects the update rule for the variational parameters.
type Optimizer int

const (
	// Natural is the natural-gradient update (NaturalFamily): for a
	// Gaussian a stochastic moment update with step rho_k = LR (1 +
	// k/1000)^-0.6. The default for families that have one.
	Natural Optimizer = iota
	// RM is plain Robbins-Monro on the score, eps_k = LR k^-RMExponent.
	RM
	// Adam is Adam on the score with a constant step LR (the paper's choice).
	Adam
)

func (o Optimizer) String() string { return [...]string{"natural", "rm", "adam"}[o] }

// ParseOptimizer parses natural, rm or adam.
func ParseOptimizer(s string) (Optimizer, error) {
	switch s {
	case "natural":
		return Natural, nil
	case "rm":
		return RM, nil
	case "adam":
		return Adam, nil
	}
	return 0, fmt.Errorf("unknown optimizer %q (use natural, rm or adam)", s)
}

// Settings configures Run. Zero fields take the defaults of Defaults.
type Settings struct {
	Samples   int       // S, samples (or particles) per kernel step
	Iters     int       // K
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
	// Trace is called every TraceEvery iterations (and at 1, 2, 5, 10, ...).
	Trace      func(*TraceEntry)
	TraceEvery int
}

// Defaults are the settings every command starts from, in one place. The
// command line prints them in --help.
var Defaults = struct {
	Samples          int
	Iters            func(d int) int
	ItersSSM         int
	LRNatural        float64
	LRNaturalSmall   float64 // models of at most SmallDim dimensions
	SmallDim         int
	LRRM, RMExponent float64
	LRAdam, LRSSM    float64
	ParamLR          float64
	ParamLRSSM       float64
	AverageFraction  float64
	FullRankLimit    int
}{
	Samples:  10,
	Iters:    DefaultIters,
	ItersSSM: 2000,
	// Small models get a smaller first step and a long run: the adaptive
	// chain's bias grows with the step (measured on the skew-normal target
	// with S = 2 over 20 seeds: the sd comes out 0.9% low with rho_0 = 0.01
	// and 0.2% low with 0.001).
	LRNatural: 0.01, LRNaturalSmall: 0.001, SmallDim: 3,
	LRRM: 0.5, RMExponent: 0.6,
	LRAdam: 0.01, LRSSM: 0.1,
	ParamLR: 0.01, ParamLRSSM: 0.1,
	AverageFraction: 0.5,
	FullRankLimit:   200,
}

// DefaultIters is the default number of iterations for d latent dimensions.
func DefaultIters(d int) int {
	switch {
	case d <= 3:
		return 1000000
	case d <= 40:
		return 20000
	}
	return 40000
}

// Fill sets the zero fields of s to the defaults for a model of d latent
// dimensions run with kernel k ("cis", "csmc", ...), and validates s.
func (s *Settings) Fill(d int, kernel string) error {
	D := Defaults
	ssm := kernel == "csmc" || kernel == "smc"
	if s.Samples == 0 {
		s.Samples = D.Samples
	}
	if s.Samples < 2 {
		return fmt.Errorf("the kernel needs at least 2 samples, got %d", s.Samples)
	}
	if s.Iters == 0 {
		s.Iters = D.Iters(d)
		if ssm {
			s.Iters = D.ItersSSM
		}
	}
	if s.Iters < 1 {
		return fmt.Errorf("the number of iterations must be positive, got %d", s.Iters)
	}
	if s.LR == 0 {
		switch {
		case ssm:
			s.LR = D.LRSSM
		case s.Optimizer == RM:
			s.LR = D.LRRM
		case s.Optimizer == Adam:
			s.LR = D.LRAdam
		case d <= D.SmallDim:
			s.LR = D.LRNaturalSmall
		default:
			s.LR = D.LRNatural
		}
	}
	if !(s.LR > 0) || math.IsInf(s.LR, 0) {
		return fmt.Errorf("the step size must be positive, got %g", s.LR)
	}
	if s.Optimizer == Natural && s.LR >= 1 && !ssm {
		return fmt.Errorf("the natural-gradient step rho_0 must be below 1, got %g", s.LR)
	}
	if s.RMExponent == 0 {
		s.RMExponent = D.RMExponent
	}
	if !(s.RMExponent > 0.5 && s.RMExponent <= 1) {
		return fmt.Errorf("the Robbins-Monro exponent must be in (0.5, 1], got %g", s.RMExponent)
	}
	if s.AverageFraction == 0 {
		s.AverageFraction = D.AverageFraction
	}
	if !(s.AverageFraction > 0 && s.AverageFraction <= 1) {
		return fmt.Errorf("the averaged fraction must be in (0, 1], got %g", s.AverageFraction)
	}
	if s.ParamLR == 0 {
		s.ParamLR = D.ParamLR
		if ssm {
			s.ParamLR = D.ParamLRSSM
		}
	}
	if s.TraceEvery <= 0 {
		s.TraceEvery = max(1, s.Iters/200)
	}
	return nil
}

// TraceEntry is one logged iteration.
type TraceEntry struct {
	Iter       int
	Iters      int       // the planned number of iterations
	Q          Family    // the current q (valid during the call)
	Params     []float64 // unconstrained theta (view)
	ESS        float64   // ESS of this iteration's weights
	ChangeRate float64   // running fraction of changed retained samples
}

// Result is the outcome of Run.
type Result struct {
	Kernel     string
	Q          Family    // the reported q: statistics averaged over the last iterates
	Final      Family    // the last iterate
	Params     []float64 // unconstrained theta, averaged like Q
	Iterations int       // iterations run
	Averaged   int       // iterates averaged into Q
	// ChainMean and ChainSD are the moments of the retained samples over
	// the averaged iterations: the chain's own estimate of the posterior
	// (for CSMC the smoothing marginals).
	ChainMean, ChainSD []float64
	Elapsed            time.Duration
	Converged          bool // false when stopped early by the context
	Reported           string

	ChangeRate     float64 // fraction of iterations whose retained sample changed
	ChangeRateLast float64 // the same over the last 10% of the iterations run
	StepsChange    float64 // CSMC: mean fraction of time steps that changed
	MeanESS        float64
	Degenerate     int // iterations in which every weight was zero
	Warnings       []string
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
// The context stops the run early; res then holds the result so far with
// Converged false. s is filled with defaults for q.Dim() and k.Name().
func Run(ctx context.Context, rng *rand.Rand, t any, q Family, k Kernel, s *Settings, res *Result) error {
	start := time.Now()
	if err := s.Fill(q.Dim(), k.Name()); err != nil {
		return err
	}
	if q.Dim() == 0 {
		return errors.New("the model has no latent variables: nothing to infer")
	}
	l := newLoop(t, q, k, s)
	if err := k.Init(rng); err != nil {
		return err
	}
	res.Kernel = k.Name()
	res.Converged = true
	avgFrom := s.Iters - int(math.Ceil(s.AverageFraction*float64(s.Iters)))
	it := 0
	for it = 1; it <= s.Iters; it++ {
		if it&63 == 0 && ctx.Err() != nil {
			res.Converged = false
			break
		}
		info, err := k.Step(rng)
		if err != nil {
			return err
		}
		l.record(it, info)
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
		if it > avgFrom {
			l.accumulate()
		}
		if s.Trace != nil && (it%s.TraceEvery == 0 || (it < s.TraceEvery && logTick(it))) {
			s.Trace(&TraceEntry{Iter: it, Iters: s.Iters, Q: q, Params: l.theta, ESS: info.ESS, ChangeRate: float64(l.changes) / float64(it)})
		}
	}
	return l.finish(res, it-1, start)
}

// loop is the state of one Run.
type loop struct {
	t   any
	q   Family
	k   Kernel
	s   *Settings
	gk  GradientKernel
	nat NaturalFamily
	d   int

	lam, grad []float64
	adamQ     *AdamState
	pt        ParamTarget
	theta, gT []float64
	adamP     *AdamState
	one       []float64 // weight 1 for the retained sample

	stats, avg, avgTheta []float64
	zSum, zSq            []float64
	navg                 int
	frozen               int // consecutive iterations in which lambda did not move

	changes                      int
	essSum, fracSum              float64
	degenerate                   int
	lastStart, lastChanges, last int
}

func newLoop(t any, q Family, k Kernel, s *Settings) *loop {
	l := &loop{t: t, q: q, k: k, s: s, d: q.Dim(), one: []float64{1}}
	l.gk, _ = k.(GradientKernel)
	if s.Optimizer == Natural {
		l.nat, _ = q.(NaturalFamily)
	}
	n := q.NumLambda()
	l.lam, l.grad = make([]float64, n), make([]float64, n)
	l.adamQ = NewAdam(n)
	if pt, ok := t.(ParamTarget); ok && pt.NumParams() > 0 {
		l.pt = pt
		np := pt.NumParams()
		l.theta = append([]float64(nil), pt.Params()...)
		l.gT, l.adamP, l.avgTheta = make([]float64, np), NewAdam(np), make([]float64, np)
	}
	l.stats, l.avg = make([]float64, q.NumStats()), make([]float64, q.NumStats())
	l.zSum, l.zSq = make([]float64, l.d), make([]float64, l.d)
	l.lastStart = s.Iters - max(1, s.Iters/10)
	return l
}

func (l *loop) record(it int, info StepInfo) {
	if info.Changed {
		l.changes++
		if it > l.lastStart {
			l.lastChanges++
		}
	}
	if it > l.lastStart {
		l.last++
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
		rho := s.LR * math.Pow(1+float64(it)/1000, -0.6)
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
		moved = l.adamQ.Step(l.lam, l.grad, s.LR)
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
	if l.pt == nil {
		return nil
	}
	l.pt.GradParams(l.k.Retained(), l.gT)
	l.adamP.Step(l.theta, l.gT, l.s.ParamLR)
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

func (l *loop) accumulate() {
	l.navg++
	w := 1 / float64(l.navg)
	l.q.Stats(l.stats)
	for i, v := range l.stats {
		l.avg[i] += w * (v - l.avg[i])
	}
	for i, v := range l.theta {
		l.avgTheta[i] += w * (v - l.avgTheta[i])
	}
	if l.k.Markov() { // the chain's own moments
		for i, v := range l.k.Retained() {
			l.zSum[i] += v
			l.zSq[i] += v * v
		}
	}
}

func (l *loop) finish(res *Result, iters int, start time.Time) error {
	res.Iterations = iters
	res.Final = l.q.Clone()
	res.Q = l.q.Clone()
	if l.navg == 0 {
		l.accumulate()
	}
	res.Averaged = l.navg
	if err := res.Q.SetStats(l.avg); err != nil {
		res.Q = l.q.Clone()
		res.Warnings = append(res.Warnings, fmt.Sprintf("the averaged q is invalid (%v); the last iterate is reported", err))
	}
	if l.pt != nil {
		res.Params = append([]float64(nil), l.avgTheta...)
		l.pt.SetParams(res.Params)
	}
	res.ChainMean, res.ChainSD = make([]float64, l.d), make([]float64, l.d)
	n := float64(l.navg)
	for i := range res.ChainMean {
		m := l.zSum[i] / n
		res.ChainMean[i] = m
		res.ChainSD[i] = math.Sqrt(math.Max(0, l.zSq[i]/n-m*m))
	}
	if iters > 0 {
		res.ChangeRate = float64(l.changes) / float64(iters)
		res.MeanESS = l.essSum / float64(iters)
		res.StepsChange = l.fracSum / float64(iters)
	}
	// over the last 10% of the iterations actually run
	if l.last > 0 {
		res.ChangeRateLast = float64(l.lastChanges) / float64(l.last)
	} else {
		res.ChangeRateLast = res.ChangeRate
	}
	res.Degenerate = l.degenerate
	res.Elapsed = time.Since(start)
	res.Reported = fmt.Sprintf("average of the last %d of %d iterates", l.navg, iters)
	if l.k.Markov() && res.ChangeRateLast < MixingThreshold && iters > 0 {
		cause := "the proposal q is far from the posterior"
		remedy := "use more --samples or more --iters"
		if _, ok := l.q.(*MeanField); ok && l.d > 1 {
			cause = "a mean-field q cannot propose well on a correlated posterior"
			remedy = "use --family fullrank, or more --samples"
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the %s kernel is not mixing: its retained sample changed in only %.1f%% of the last %d iterations (threshold %.0f%%); likely cause: %s; remedy: %s",
			strings.ToUpper(l.k.Name()), 100*res.ChangeRateLast, max(l.last, iters), 100*MixingThreshold, cause, remedy))
	}
	if l.frozen > 0 && l.frozen >= max(1, iters/10) {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the optimiser of q is frozen: its parameters did not move in the last %d iterations (the gradient is zero or not finite); the result is q's state when it froze", l.frozen))
		res.Converged = false
	}
	return nil
}

func logTick(k int) bool {
	for k >= 10 && k%10 == 0 {
		k /= 10
	}
	return k == 1 || k == 2 || k == 5
}

// AdamState is the state of the Adam optimiser (Kingma & Ba) for one
// parameter vector, used for ascent: x += lr * mhat / (sqrt(vhat) + eps).
type AdamState struct {
	M, V []float64
	T    int
}

// NewAdam returns a fresh state for n parameters.
func NewAdam(n int) *AdamState { return &AdamState{M: make([]float64, n), V: make([]float64, n)} }

// adamClip bounds a gradient component so that its square (the second
// moment) cannot overflow; Adam's step is invariant to the gradient's
// scale, so the step direction is unchanged.
const adamClip = 1e150

// Step takes one ascent step along g and reports whether x moved. A NaN
// gradient component leaves its coordinate where it is.
func (a *AdamState) Step(x, g []float64, lr float64) bool {
	const b1, b2, eps = 0.9, 0.999, 1e-8
	a.T++
	c1 := 1 - math.Pow(b1, float64(a.T))
	c2 := 1 - math.Pow(b2, float64(a.T))
	moved := false
	for i := range x {
		gi := g[i]
		if math.IsNaN(gi) {
			continue
		}
		gi = math.Max(-adamClip, math.Min(adamClip, gi))
		a.M[i] = b1*a.M[i] + (1-b1)*gi
		a.V[i] = b2*a.V[i] + (1-b2)*gi*gi
		step := lr * (a.M[i] / c1) / (math.Sqrt(a.V[i]/c2) + eps)
		if step != 0 {
			moved = true
		}
		x[i] += step
	}
	return moved
}
