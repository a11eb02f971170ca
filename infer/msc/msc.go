package msc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Optimizer selects the update rule for the variational parameters.
type Optimizer int

const (
	// Natural is the natural-gradient update for Gaussian families: the
	// score preconditioned by the inverse Fisher information, which is a
	// stochastic moment update of mu and Sigma with step
	// rho_k = LR (1 + k/1000)^-0.6. The default.
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

// Proposal selects the proposal of the CIS kernel.
type Proposal int

const (
	ProposalQ     Proposal = iota // q itself (MSC)
	ProposalPrior                 // the model's prior (the paper's "MSC (prior)")
)

// Settings configures Run (and the baselines, which share it).
type Settings struct {
	Samples   int       // S, samples per kernel step (default 10)
	Iters     int       // K (0: 10^6 up to 3 dimensions, 20000 up to 40, 40000 above)
	Optimizer Optimizer // default Natural
	// LR is rho_0 for Natural (default 0.01, or 0.001 for models of up to
	// 3 dimensions), c for RM (default 0.5), the step for Adam (default 0.01).
	LR         float64
	RMExponent float64 // alpha in (0.5, 1] for RM (default 0.6)
	Family     FamilyKind
	Proposal   Proposal
	// RetainedOnly uses only the retained sample in the gradient instead
	// of the Rao-Blackwellised weighted average over all S samples.
	RetainedOnly bool
	// AverageFraction is the fraction of final iterates averaged into the
	// reported q (default 0.5: the last half). 1e-9 reports the last iterate.
	AverageFraction float64
	ParamLR         float64   // Adam step for model parameters (default 0.01)
	InitMean        []float64 // default 0
	InitCov         []float64 // default I (d x d)
	// Trace is called every TraceEvery iterations (default K/200).
	Trace      func(*TraceEntry)
	TraceEvery int
}

// TraceEntry is one logged iteration.
type TraceEntry struct {
	Iter       int
	Mean, SD   []float64 // current q (views, valid during the call)
	Params     []float64 // unconstrained theta (view)
	ESS        float64   // ESS of this iteration's weights
	ChangeRate float64   // running fraction of changed conditional samples
}

// Result is the outcome of a run.
type Result struct {
	Q          *Gaussian // the reported q: moments averaged over the last iterates
	Final      *Gaussian // the last iterate
	Mean, SD   []float64 // moments of Q
	Cov        []float64 // covariance of Q (d x d)
	Params     []float64 // unconstrained theta (averaged like Q)
	Iterations int
	Elapsed    time.Duration
	Converged  bool // false when stopped early by the context
	Reported   string

	ChangeRate     float64 // fraction of iterations whose conditional sample changed
	ChangeRateLast float64 // the same over the last 10% of iterations
	MeanESS        float64
	AllInf         int // iterations in which every proposal had weight zero
	Warnings       []string
}

func (s *Settings) defaults(d int) error {
	if s.Samples == 0 {
		s.Samples = 10
	}
	if s.Samples < 2 {
		return fmt.Errorf("the kernel needs at least 2 samples, got %d", s.Samples)
	}
	if s.Iters == 0 {
		s.Iters = DefaultIters(d)
	}
	if s.Iters < 1 {
		return fmt.Errorf("the number of iterations must be positive, got %d", s.Iters)
	}
	if s.LR == 0 {
		switch {
		case s.Optimizer == RM:
			s.LR = 0.5
		case s.Optimizer == Natural && d <= 3:
			// Small models get a smaller first step and a long run: the
			// adaptive chain's bias grows with the step (measured on the
			// skew-normal target with S = 2 over 20 seeds: the sd comes out
			// 0.9% low with rho_0 = 0.01 and 0.2% low with 0.001).
			s.LR = 0.001
		default:
			s.LR = 0.01
		}
	}
	if !(s.LR > 0) {
		return fmt.Errorf("the step size must be positive, got %g", s.LR)
	}
	if s.Optimizer == Natural && s.LR >= 1 {
		return fmt.Errorf("the natural-gradient step rho_0 must be below 1, got %g", s.LR)
	}
	if s.RMExponent == 0 {
		s.RMExponent = 0.6
	}
	if !(s.RMExponent > 0.5 && s.RMExponent <= 1) {
		return fmt.Errorf("the Robbins-Monro exponent must be in (0.5, 1], got %g", s.RMExponent)
	}
	if s.AverageFraction == 0 {
		s.AverageFraction = 0.5
	}
	if !(s.AverageFraction > 0 && s.AverageFraction <= 1) {
		return fmt.Errorf("the averaged fraction must be in (0, 1], got %g", s.AverageFraction)
	}
	if s.ParamLR == 0 {
		s.ParamLR = 0.01
	}
	if s.TraceEvery <= 0 {
		s.TraceEvery = max(1, s.Iters/200)
	}
	return nil
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

// MixingThreshold is the change rate of the conditional sample below which
// Run warns that the kernel is not mixing. When q equals the posterior, CIS
// changes its sample with probability (S-1)/S (at least 1/2); a rate below
// 5% means the sample moved fewer than once in 20 iterations, so the
// gradient is computed from a nearly frozen sample and q can drift.
const MixingThreshold = 0.05

// Engine holds the state that MSC and the baselines of infer/baselines
// share: the family, the sample buffers, the update rules and the iterate
// average. Its buffers have S rows.
type Engine struct {
	t   Target
	s   *Settings
	rng *rand.Rand
	d   int
	q   *Gaussian

	z, eps, e  []float64 // S x d
	lp, lq, lw []float64 // S
	w          []float64 // S normalised weights
	// natural-gradient scratch
	cov, newCov []float64
	dz          []float64
	// score-based scratch
	lam, grad []float64
	adamQ     *AdamState
	// parameters
	pt                   ParamTarget
	theta, gTheta        []float64
	adamP                *AdamState
	pm, pv               []float64
	avgMean, avgCov      []float64
	avgTheta             []float64
	navg                 int
	prior                PriorTarget
	changes, changesLast int
	traceSD              []float64
}

// NewEngine validates the settings (filling defaults) and prepares buffers.
func NewEngine(rng *rand.Rand, t Target, s *Settings) (*Engine, error) {
	d := t.Dim()
	if d == 0 {
		return nil, errors.New("the model has no latent variables: nothing to infer")
	}
	if err := s.defaults(d); err != nil {
		return nil, err
	}
	S := s.Samples
	t.Reserve(S)
	en := &Engine{
		t: t, s: s, rng: rng, d: d,
		q: NewGaussian(s.Family, d),
		z: make([]float64, S*d), eps: make([]float64, S*d), e: make([]float64, d),
		lp: make([]float64, S), lq: make([]float64, S), lw: make([]float64, S), w: make([]float64, S),
		cov: make([]float64, d*d), newCov: make([]float64, d*d), dz: make([]float64, d),
		avgMean: make([]float64, d), avgCov: make([]float64, d*d),
	}
	if s.InitMean != nil {
		copy(en.q.Mu, s.InitMean)
	}
	if s.InitCov != nil {
		if !en.q.SetCov(s.InitCov) {
			return nil, errors.New("the initial covariance is not positive definite")
		}
	}
	if s.Optimizer != Natural {
		n := en.q.NumLambda()
		en.lam, en.grad = make([]float64, n), make([]float64, n)
		en.adamQ = NewAdam(n)
	}
	if pt, ok := t.(ParamTarget); ok && pt.NumParams() > 0 {
		en.pt = pt
		n := pt.NumParams()
		en.theta = append([]float64(nil), pt.Params()...)
		en.gTheta, en.adamP = make([]float64, n), NewAdam(n)
		en.avgTheta = make([]float64, n)
	}
	if s.Proposal == ProposalPrior {
		pt, ok := t.(PriorTarget)
		if !ok {
			return nil, errors.New("this model cannot sample its prior, so --proposal prior is unavailable")
		}
		en.prior = pt
	}
	return en, nil
}

// NaNError explains a NaN log joint at row.
func (en *Engine) NaNError(row []float64) error { return NaNError(en.t, row) }

// weights normalises lw into w; it returns the ESS and false if every
// weight is zero.
func (en *Engine) Weights() (float64, bool) {
	_, ess, ok := normalise(en.lw, en.w)
	return ess, ok
}

// update moves lambda with the weighted samples (rows of en.z with weights
// en.w), at iteration k (1-based).
func (en *Engine) Update(k int) error {
	s, d, q := en.s, en.d, en.q
	S := s.Samples
	switch s.Optimizer {
	case Natural:
		rho := s.LR * math.Pow(1+float64(k)/1000, -0.6)
		// new mu and Sigma from the old mu
		for i := range en.dz {
			en.dz[i] = 0
		}
		q.Cov(en.cov)
		for i := range en.newCov {
			en.newCov[i] = (1 - rho) * en.cov[i]
		}
		for b := 0; b < S; b++ {
			wb := en.w[b]
			if wb == 0 {
				continue
			}
			zb := en.z[b*d : (b+1)*d]
			for i := 0; i < d; i++ {
				en.e[i] = zb[i] - q.Mu[i]
				en.dz[i] += wb * en.e[i]
			}
			if q.Kind == MeanField {
				for i := 0; i < d; i++ {
					en.newCov[i*d+i] += rho * wb * en.e[i] * en.e[i]
				}
				continue
			}
			for i := 0; i < d; i++ {
				a := rho * wb * en.e[i]
				row := en.newCov[i*d : i*d+i+1]
				for j := range row {
					row[j] += a * en.e[j]
				}
			}
		}
		if q.Kind == FullRank {
			for i := 0; i < d; i++ {
				for j := 0; j < i; j++ {
					en.newCov[j*d+i] = en.newCov[i*d+j]
				}
			}
		}
		for i := range q.Mu {
			q.Mu[i] += rho * en.dz[i]
		}
		if !q.SetCov(en.newCov) {
			return fmt.Errorf("the covariance of q lost positive definiteness at iteration %d; lower --lr", k)
		}
	default:
		for i := range en.grad {
			en.grad[i] = 0
		}
		for b := 0; b < S; b++ {
			if en.w[b] == 0 {
				continue
			}
			q.Whiten(en.z[b*d:(b+1)*d], en.e)
			q.AddScore(en.w[b], en.e, en.grad)
		}
		q.Lambda(en.lam)
		if s.Optimizer == RM {
			eps := s.LR * math.Pow(float64(k), -s.RMExponent)
			for i := range en.lam {
				en.lam[i] += eps * en.grad[i]
			}
		} else {
			en.adamQ.Step(en.lam, en.grad, s.LR)
		}
		for _, v := range en.lam {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("the variational parameters became non-finite at iteration %d; lower --lr", k)
			}
		}
		q.SetLambda(en.lam)
	}
	for _, v := range q.Mu {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("the mean of q became non-finite at iteration %d; lower --lr", k)
		}
	}
	return nil
}

// AdamState is the state of the Adam optimiser (Kingma & Ba) for one parameter
// vector, used for ascent: x += lr * mhat / (sqrt(vhat) + eps).
type AdamState struct {
	M, V []float64
	T    int
}

// NewAdam returns a fresh state for n parameters.
func NewAdam(n int) *AdamState { return &AdamState{M: make([]float64, n), V: make([]float64, n)} }

// Step takes one ascent step along g.
func (a *AdamState) Step(x, g []float64, lr float64) {
	const b1, b2, eps = 0.9, 0.999, 1e-8
	a.T++
	c1 := 1 - math.Pow(b1, float64(a.T))
	c2 := 1 - math.Pow(b2, float64(a.T))
	for i := range x {
		a.M[i] = b1*a.M[i] + (1-b1)*g[i]
		a.V[i] = b2*a.V[i] + (1-b2)*g[i]*g[i]
		x[i] += lr * (a.M[i] / c1) / (math.Sqrt(a.V[i]/c2) + eps)
	}
}

// paramStep climbs grad_theta log p(z, x; theta) at row z (Algorithm 3).
func (en *Engine) ParamStep(z []float64, k int) error {
	if en.pt == nil {
		return nil
	}
	en.pt.GradParams(z, en.gTheta)
	en.adamP.Step(en.theta, en.gTheta, en.s.ParamLR)
	for _, v := range en.theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("the model parameters became non-finite at iteration %d; lower the parameter step", k)
		}
	}
	en.pt.SetParams(en.theta)
	return nil
}

// accumulate adds the current q to the iterate average.
func (en *Engine) Accumulate() {
	en.navg++
	w := 1 / float64(en.navg)
	q := en.q
	q.Cov(en.cov)
	for i := range en.avgMean {
		en.avgMean[i] += w * (q.Mu[i] - en.avgMean[i])
	}
	for i := range en.avgCov {
		en.avgCov[i] += w * (en.cov[i] - en.avgCov[i])
	}
	for i := range en.avgTheta {
		en.avgTheta[i] += w * (en.theta[i] - en.avgTheta[i])
	}
}

func (en *Engine) Finish(res *Result, iters int, start time.Time) {
	d := en.d
	res.Final = en.q.Clone()
	if en.navg == 0 {
		en.Accumulate()
	}
	res.Q = NewGaussian(FullRank, d)
	copy(res.Q.Mu, en.avgMean)
	if !res.Q.SetCov(en.avgCov) {
		res.Q = en.q.Clone()
		en.q.Cov(en.avgCov)
		copy(en.avgMean, en.q.Mu)
	}
	if en.q.Kind == MeanField {
		res.Q.Kind = MeanField
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				if i != j {
					res.Q.L[i*d+j] = 0
					en.avgCov[i*d+j] = 0
				}
			}
		}
	}
	res.Mean = append([]float64(nil), en.avgMean...)
	res.Cov = append([]float64(nil), en.avgCov...)
	res.SD = make([]float64, d)
	for i := range res.SD {
		res.SD[i] = math.Sqrt(en.avgCov[i*d+i])
	}
	if en.pt != nil {
		res.Params = append([]float64(nil), en.avgTheta...)
		en.pt.SetParams(res.Params)
	}
	res.Iterations = iters
	res.Elapsed = time.Since(start)
	res.Reported = fmt.Sprintf("average of the last %d of %d iterates (mean and covariance)", en.navg, iters)
}

// Run fits q by Markovian Score Climbing with the CIS kernel (Algorithms 1
// and 2 of the paper, and Algorithm 3 when the target has parameters).
// The context stops the run early; res then holds the result so far with
// Converged false.
func Run(ctx context.Context, rng *rand.Rand, t Target, s *Settings, res *Result) error {
	start := time.Now()
	en, err := NewEngine(rng, t, s)
	if err != nil {
		return err
	}
	d := en.d
	k := NewCIS(t, en.q, s.Samples)
	if en.prior != nil {
		k.UsePrior(en.prior)
	}
	// the engine's update reads the kernel's samples and weights
	en.z, en.w = k.z, k.w
	// initial conditional sample: a draw from the initial q (or prior)
	cond := make([]float64, d)
	condLP := math.Inf(-1)
	for try := 0; try < 100 && math.IsInf(condLP, -1); try++ {
		if en.prior != nil {
			en.prior.SamplePrior(rng, cond)
		} else {
			en.q.Sample(rng, cond, en.eps[:d])
		}
		var lp [1]float64
		t.LogJoint(cond, lp[:])
		if math.IsNaN(lp[0]) {
			return en.NaNError(cond)
		}
		condLP = lp[0]
	}
	k.SetConditional(cond, condLP)
	avgFrom := en.AverageFrom()
	lastFrom := s.Iters - max(1, s.Iters/10)
	essSum := 0.0
	res.Converged = true
	it := 0
	for it = 1; it <= s.Iters; it++ {
		if it&63 == 0 && ctx.Err() != nil {
			res.Converged = false
			break
		}
		if err := k.Step(rng); err != nil {
			return err
		}
		essSum += k.ESS
		if k.AllInf {
			res.AllInf++
		}
		if k.Changed {
			en.changes++
			if it > lastFrom {
				en.changesLast++
			}
		}
		if s.RetainedOnly {
			for b := range en.w {
				en.w[b] = 0
			}
			copy(en.z[:d], k.Conditional())
			en.w[0] = 1
		}
		if err := en.Update(it); err != nil {
			return err
		}
		if en.pt != nil {
			if err := en.ParamStep(k.Conditional(), it); err != nil {
				return err
			}
			// theta changed: the cached log joint of the conditional sample is stale
			k.RefreshLogJoint()
		}
		if it > avgFrom {
			en.Accumulate()
		}
		en.Trace(it, k.ESS, float64(en.changes)/float64(it))
	}
	iters := it - 1
	en.Finish(res, iters, start)
	if iters > 0 {
		res.ChangeRate = float64(en.changes) / float64(iters)
		res.MeanESS = essSum / float64(iters)
		if n := iters - lastFrom; n > 0 {
			res.ChangeRateLast = float64(en.changesLast) / float64(n)
		}
	}
	if res.Converged && res.ChangeRateLast < MixingThreshold {
		cause := "the proposal q is far from the posterior"
		remedy := "use more --samples or more --iters"
		if en.q.Kind == MeanField && d > 1 {
			cause = "a mean-field q cannot propose well on a correlated posterior"
			remedy = "use --family fullrank, or more --samples"
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the CIS kernel is not mixing: its conditional sample changed in only %.1f%% of the last %d iterations (threshold %.0f%%); likely cause: %s; remedy: %s",
			100*res.ChangeRateLast, iters-lastFrom, 100*MixingThreshold, cause, remedy))
	}
	return nil
}

func (en *Engine) trace(k int, ess, rate float64) {
	if en.traceSD == nil {
		en.traceSD = make([]float64, en.d)
	}
	en.q.Marginals(en.traceSD)
	en.s.Trace(&TraceEntry{Iter: k, Mean: en.q.Mu, SD: en.traceSD, Params: en.theta, ESS: ess, ChangeRate: rate})
}

// Trace reports iteration k to the settings' Trace callback, if due: every
// TraceEvery iterations, and before that at 1, 2, 5, 10, 20, 50, ... so
// that a plot on a log-scaled iteration axis has points everywhere.
func (en *Engine) Trace(k int, ess, rate float64) {
	if en.s.Trace != nil && (k%en.s.TraceEvery == 0 || (k < en.s.TraceEvery && logTick(k))) {
		en.trace(k, ess, rate)
	}
}

func logTick(k int) bool {
	for k >= 10 && k%10 == 0 {
		k /= 10
	}
	return k == 1 || k == 2 || k == 5
}

// Q is the current variational family.
func (en *Engine) Q() *Gaussian { return en.q }

// Buffers returns the S x d sample and noise buffers and the per-sample log
// joint, log proposal, log weight and normalised weight buffers.
func (en *Engine) Buffers() (z, eps, lp, lq, lw, w []float64) {
	return en.z, en.eps, en.lp, en.lq, en.lw, en.w
}

// Theta is the current unconstrained parameter vector (nil without params).
func (en *Engine) Theta() []float64 { return en.theta }

// AverageFrom is the first iteration included in the iterate average.
func (en *Engine) AverageFrom() int {
	return en.s.Iters - int(math.Ceil(en.s.AverageFraction*float64(en.s.Iters)))
}

// UseBuffers makes the engine's update read the given samples and weights
// (a kernel's buffers).
func (en *Engine) UseBuffers(z, w []float64) { en.z, en.w = z, w }
