package msc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// SSMSettings configures RunSSM.
type SSMSettings struct {
	Particles int     // S, particles of the CSMC kernel (default 10)
	Iters     int     // K (default 2000)
	LR        float64 // Adam step for the twisted proposal (default 0.1, the paper's)
	ParamLR   float64 // Adam step for the model parameters (default 0.01)
	// SMC selects the biased baseline: gradients from the weighted particle
	// system of a fresh particle filter (Gu, Ghahramani & Turner 2015)
	// instead of the CSMC kernel's retained trajectory.
	SMC bool
	// AverageFraction of the last iterates averaged in the result (default 0.5).
	AverageFraction float64
	// Trace, if set, is called every TraceEvery iterations.
	Trace      func(SSMTrace)
	TraceEvery int
}

// SSMTrace is one logged iteration of RunSSM.
type SSMTrace struct {
	Iter       int
	Params     []float64
	ESS        float64
	ChangeRate float64
}

// SSMResult is the outcome of RunSSM.
type SSMResult struct {
	Proposal   *Twisted    // averaged twisted proposal (Gaussian transitions)
	AR         *ARProposal // averaged per-step Gaussian proposal (other transitions)
	Params     []float64   // averaged unconstrained params
	Trajectory []float64   // the last retained trajectory
	// Mean and SD of each state over the retained trajectories of the
	// averaged iterations: the chain's estimate of the smoothing marginals.
	Mean, SD    []float64
	Iterations  int
	ChangeRate  float64 // fraction of sweeps whose retained trajectory changed
	StepsChange float64 // mean fraction of time steps whose value changed
	MeanESS     float64
	Failed      int // sweeps whose weights degenerated
	Elapsed     time.Duration
	Converged   bool
}

// ssmKernel is a CSMC kernel together with its proposal family, seen as a
// flat parameter vector for the optimiser.
type ssmKernel interface {
	sweep(rng *rand.Rand, conditional bool) bool
	reference() []float64
	stats() (changed bool, fracDiff, ess float64)
	lambda(dst []float64)
	setLambda(lam []float64)
	score(grad []float64)
}

type twistedKernel struct {
	k  *CSMC
	tw *Twisted
}

func (a twistedKernel) sweep(rng *rand.Rand, c bool) bool { return a.k.Sweep(rng, a.tw, c) }
func (a twistedKernel) reference() []float64              { return a.k.Reference() }
func (a twistedKernel) stats() (bool, float64, float64) {
	return a.k.Changed, a.k.FracDiff, a.k.MeanESS
}
func (a twistedKernel) lambda(dst []float64) {
	copy(dst, a.tw.Nu)
	copy(dst[a.k.T:], a.tw.LogLambda)
}
func (a twistedKernel) setLambda(lam []float64) {
	copy(a.tw.Nu, lam[:a.k.T])
	copy(a.tw.LogLambda, lam[a.k.T:])
}
func (a twistedKernel) score(g []float64) { a.k.Score(a.tw, g[:a.k.T], g[a.k.T:]) }

type arKernel struct {
	k *CSMCAR
	p *ARProposal
}

func (a arKernel) sweep(rng *rand.Rand, c bool) bool { return a.k.Sweep(rng, a.p, c) }
func (a arKernel) reference() []float64              { return a.k.Reference() }
func (a arKernel) stats() (bool, float64, float64)   { return a.k.Changed, a.k.FracDiff, a.k.MeanESS }
func (a arKernel) lambda(dst []float64) {
	T := a.k.T
	copy(dst, a.p.A)
	copy(dst[T:], a.p.B)
	copy(dst[2*T:], a.p.LogS)
}
func (a arKernel) setLambda(lam []float64) {
	T := a.k.T
	copy(a.p.A, lam[:T])
	copy(a.p.B, lam[T:2*T])
	copy(a.p.LogS, lam[2*T:])
}
func (a arKernel) score(g []float64) {
	T := a.k.T
	a.k.Score(a.p, g[:T], g[T:2*T], g[2*T:])
}

// RunSSM runs MSC with the CSMC kernel and the twisted Gaussian proposal on
// a state-space model with a Gaussian transition (Algorithms 3 and 4 of the
// paper): each iteration draws a new retained trajectory with CSMC, climbs
// the score of the twisted proposal at it, and, when the model has
// parameters (ParamTarget), climbs the Fisher-identity gradient
// grad_theta log p(z[k], x; theta). Both use Adam, the paper's optimiser
// for this experiment.
func RunSSM(ctx context.Context, rng *rand.Rand, ssm StateSpace, s *SSMSettings, res *SSMResult) error {
	s.defaults()
	if s.Particles < 2 {
		return fmt.Errorf("the CSMC kernel needs at least 2 particles, got %d", s.Particles)
	}
	tw := NewTwisted(ssm.Len())
	kern := twistedKernel{NewCSMC(ssm, s.Particles), tw}
	if err := runSSM(ctx, rng, kern, ssm, ssm.Len(), 2*ssm.Len(), s, res); err != nil {
		return err
	}
	res.Proposal = tw
	return nil
}

// RunSSMGeneral is RunSSM for a transition that is not Gaussian: the
// proposal is a per-step Gaussian N(A_t + B_t z_{t-1}, S_t^2) without
// twisting.
func RunSSMGeneral(ctx context.Context, rng *rand.Rand, ssm GeneralStateSpace, s *SSMSettings, res *SSMResult) error {
	s.defaults()
	if s.Particles < 2 {
		return fmt.Errorf("the CSMC kernel needs at least 2 particles, got %d", s.Particles)
	}
	T := ssm.Len()
	p := NewARProposal(T)
	kern := arKernel{NewCSMCAR(ssm, s.Particles), p}
	if err := runSSM(ctx, rng, kern, ssm, T, 3*T, s, res); err != nil {
		return err
	}
	res.AR = p
	return nil
}

func (s *SSMSettings) defaults() {
	if s.Particles == 0 {
		s.Particles = 10
	}
	if s.Iters == 0 {
		s.Iters = 2000
	}
	if s.LR == 0 {
		s.LR = 0.1
	}
	if s.ParamLR == 0 {
		s.ParamLR = 0.01
	}
	if s.AverageFraction == 0 {
		s.AverageFraction = 0.5
	}
	if s.TraceEvery == 0 {
		s.TraceEvery = 10
	}
}

// runSSM is the loop shared by RunSSM and RunSSMGeneral. On return the
// kernel's proposal holds the averaged variational parameters.
func runSSM(ctx context.Context, rng *rand.Rand, kern ssmKernel, model any, T, nLam int, s *SSMSettings, res *SSMResult) error {
	start := time.Now()
	if ctx == nil {
		ctx = context.Background()
	}
	pt, _ := model.(ParamTarget)
	np := 0
	if pt != nil {
		np = pt.NumParams()
	}
	theta := make([]float64, np)
	if np > 0 {
		copy(theta, pt.Params())
	}
	gTheta := make([]float64, np)
	lam, grad, avgLam := make([]float64, nLam), make([]float64, nLam), make([]float64, nLam)
	optQ, optP := NewAdam(nLam), NewAdam(np)
	avgTheta := make([]float64, np)
	zSum, zSq := make([]float64, T), make([]float64, T)
	avgFrom := s.Iters - int(s.AverageFraction*float64(s.Iters))
	navg := 0

	// initial trajectory: one unconditional sweep with the initial proposal
	kern.sweep(rng, false)
	changed, stepsChanged, essSum := 0.0, 0.0, 0.0
	res.Converged = true
	it := 0
	for it = 1; it <= s.Iters; it++ {
		if it%64 == 0 && ctx.Err() != nil {
			res.Converged = false
			break
		}
		// the SMC baseline scores a trajectory drawn from the final weights
		// of a fresh particle filter (an unbiased draw of its weighted
		// particle system); MSC the retained trajectory of the CSMC kernel
		if !kern.sweep(rng, !s.SMC) {
			res.Failed++
		}
		ch, frac, ess := kern.stats()
		if ch {
			changed++
		}
		stepsChanged += frac
		essSum += ess
		for i := range grad {
			grad[i] = 0
		}
		kern.score(grad)
		kern.lambda(lam)
		optQ.Step(lam, grad, s.LR)
		for _, x := range lam {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("the variational parameters became non-finite at iteration %d: lower --lr", it)
			}
		}
		kern.setLambda(lam)
		if np > 0 {
			pt.GradParams(kern.reference(), gTheta)
			optP.Step(theta, gTheta, s.ParamLR)
			for _, x := range theta {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return fmt.Errorf("the model parameters became non-finite at iteration %d: lower the parameter step size", it)
				}
			}
			pt.SetParams(theta)
		}
		if it > avgFrom {
			navg++
			w := 1 / float64(navg)
			for i := range lam {
				avgLam[i] += w * (lam[i] - avgLam[i])
			}
			for i := range theta {
				avgTheta[i] += w * (theta[i] - avgTheta[i])
			}
			for t, v := range kern.reference() {
				zSum[t] += v
				zSq[t] += v * v
			}
		}
		if s.Trace != nil && it%s.TraceEvery == 0 {
			s.Trace(SSMTrace{Iter: it, Params: theta, ESS: ess, ChangeRate: changed / float64(it)})
		}
	}
	n := float64(it - 1)
	if navg == 0 {
		kern.lambda(avgLam)
		copy(avgTheta, theta)
	}
	kern.setLambda(avgLam)
	if np > 0 {
		pt.SetParams(avgTheta)
	}
	res.Params = avgTheta
	res.Trajectory = append([]float64(nil), kern.reference()...)
	res.Mean, res.SD = make([]float64, T), make([]float64, T)
	for t := range res.Mean {
		if navg == 0 {
			res.Mean[t] = res.Trajectory[t]
			continue
		}
		m := zSum[t] / float64(navg)
		res.Mean[t] = m
		res.SD[t] = math.Sqrt(math.Max(0, zSq[t]/float64(navg)-m*m))
	}
	res.Iterations = it - 1
	if n > 0 {
		res.ChangeRate = changed / n
		res.StepsChange = stepsChanged / n
		res.MeanESS = essSum / n
	}
	res.Elapsed = time.Since(start)
	return nil
}

// LogEvidence estimates log p(x; theta) with reps independent twisted
// particle filters of n particles each, returning the log of the average
// of the unbiased estimates and its Monte Carlo standard error (delta method).
func LogEvidence(rng *rand.Rand, ssm StateSpace, tw *Twisted, n, reps int) (logZ, se float64) {
	k := NewCSMC(ssm, n)
	ls := make([]float64, reps)
	for r := range ls {
		k.Sweep(rng, tw, false)
		ls[r] = k.LogZ
	}
	return LogMeanExpSE(ls)
}

// LogEvidenceGeneral is LogEvidence for a non-Gaussian transition with the
// per-step Gaussian proposal.
func LogEvidenceGeneral(rng *rand.Rand, ssm GeneralStateSpace, p *ARProposal, n, reps int) (logZ, se float64) {
	k := NewCSMCAR(ssm, n)
	ls := make([]float64, reps)
	for r := range ls {
		k.Sweep(rng, p, false)
		ls[r] = k.LogZ
	}
	return LogMeanExpSE(ls)
}

// LogMeanExpSE returns log of the mean of exp(x) and the standard error of
// that log (delta method).
func LogMeanExpSE(x []float64) (float64, float64) {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = math.Max(mx, v)
	}
	n := float64(len(x))
	m := 0.0
	for _, v := range x {
		m += math.Exp(v-mx) / n
	}
	s := 0.0
	for _, v := range x {
		d := math.Exp(v-mx) - m
		s += d * d
	}
	se := 0.0
	if len(x) > 1 {
		se = math.Sqrt(s/(n-1)/n) / m
	}
	return mx + math.Log(m), se
}
