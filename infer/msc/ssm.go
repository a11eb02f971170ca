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
	Proposal   *Twisted  // averaged twisted proposal
	Params     []float64 // averaged unconstrained params
	Trajectory []float64 // the last retained trajectory
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

// RunSSM runs MSC with the CSMC kernel and the twisted Gaussian proposal on
// a state-space model (Algorithms 3 and 4 of the paper): each iteration
// draws a new retained trajectory with CSMC, climbs the score of the
// twisted proposal at it, and, when the model has parameters (ParamTarget),
// climbs the Fisher-identity gradient grad_theta log p(z[k], x; theta).
// Both use Adam, the paper's optimiser for this experiment.
func RunSSM(ctx context.Context, rng *rand.Rand, ssm StateSpace, s *SSMSettings, res *SSMResult) error {
	start := time.Now()
	if s.Particles == 0 {
		s.Particles = 10
	}
	if s.Particles < 2 {
		return fmt.Errorf("the CSMC kernel needs at least 2 particles, got %d", s.Particles)
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
	if ctx == nil {
		ctx = context.Background()
	}
	T := ssm.Len()
	tw := NewTwisted(T)
	k := NewCSMC(ssm, s.Particles)
	pt, _ := ssm.(ParamTarget)
	np := 0
	if pt != nil {
		np = pt.NumParams()
	}
	theta := make([]float64, np)
	if np > 0 {
		copy(theta, pt.Params())
	}
	gTheta := make([]float64, np)
	gNu, gRho := make([]float64, T), make([]float64, T)
	lam := make([]float64, 2*T)
	grad := make([]float64, 2*T)
	optQ, optP := NewAdam(2*T), NewAdam(np)
	avgTw := NewTwisted(T)
	for t := range avgTw.LogLambda {
		avgTw.LogLambda[t] = 0
	}
	avgTheta := make([]float64, np)
	zSum, zSq := make([]float64, T), make([]float64, T)
	avgFrom := s.Iters - int(s.AverageFraction*float64(s.Iters))
	navg := 0

	// initial trajectory: one unconditional sweep with the bootstrap proposal
	k.Sweep(rng, tw, false)

	// the SMC baseline's trajectories
	var traj []float64
	if s.SMC {
		traj = make([]float64, T)
	}
	changed, stepsChanged, essSum := 0.0, 0.0, 0.0
	res.Converged = true
	it := 0
	for it = 1; it <= s.Iters; it++ {
		if it%64 == 0 && ctx.Err() != nil {
			res.Converged = false
			break
		}
		for t := range gNu {
			gNu[t], gRho[t] = 0, 0
		}
		var ok bool
		if s.SMC {
			ok = k.Sweep(rng, tw, false)
			// weighted particle system of the fresh sweep: the
			// trajectory drawn from the final weights (one draw, as in the
			// paper's baseline code; unbiased for the weighted average)
			_ = traj
		} else {
			ok = k.Sweep(rng, tw, true)
		}
		if !ok {
			res.Failed++
		}
		if k.Changed {
			changed++
		}
		stepsChanged += k.FracDiff
		essSum += k.MeanESS
		k.Score(tw, gNu, gRho)
		for t := 0; t < T; t++ {
			lam[t], lam[T+t] = tw.Nu[t], tw.LogLambda[t]
			grad[t], grad[T+t] = gNu[t], gRho[t]
		}
		optQ.Step(lam, grad, s.LR)
		for t := 0; t < T; t++ {
			tw.Nu[t], tw.LogLambda[t] = lam[t], lam[T+t]
		}
		if np > 0 {
			pt.GradParams(k.Reference(), gTheta)
			optP.Step(theta, gTheta, s.ParamLR)
			pt.SetParams(theta)
		}
		for _, x := range lam {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("the variational parameters became non-finite at iteration %d: lower --lr", it)
			}
		}
		for _, x := range theta {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("the model parameters became non-finite at iteration %d: lower the parameter step size", it)
			}
		}
		if it > avgFrom {
			navg++
			w := 1 / float64(navg)
			for t := 0; t < T; t++ {
				avgTw.Nu[t] += w * (tw.Nu[t] - avgTw.Nu[t])
				avgTw.LogLambda[t] += w * (tw.LogLambda[t] - avgTw.LogLambda[t])
			}
			for i := range theta {
				avgTheta[i] += w * (theta[i] - avgTheta[i])
			}
			for t, v := range k.Reference() {
				zSum[t] += v
				zSq[t] += v * v
			}
		}
		if s.Trace != nil && it%s.TraceEvery == 0 {
			s.Trace(SSMTrace{Iter: it, Params: theta, ESS: k.MeanESS, ChangeRate: changed / float64(it)})
		}
	}
	n := float64(it - 1)
	if navg == 0 {
		copy(avgTw.Nu, tw.Nu)
		copy(avgTw.LogLambda, tw.LogLambda)
		copy(avgTheta, theta)
	}
	if np > 0 {
		pt.SetParams(avgTheta)
	}
	res.Proposal = avgTw
	res.Params = avgTheta
	res.Trajectory = append([]float64(nil), k.Reference()...)
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
	mx := math.Inf(-1)
	for r := range ls {
		k.Sweep(rng, tw, false)
		ls[r] = k.LogZ
		if ls[r] > mx {
			mx = ls[r]
		}
	}
	mean, sq := 0.0, 0.0
	for _, l := range ls {
		mean += math.Exp(l-mx) / float64(reps)
	}
	for _, l := range ls {
		d := math.Exp(l-mx) - mean
		sq += d * d
	}
	if reps > 1 {
		se = math.Sqrt(sq/float64(reps-1)/float64(reps)) / mean
	}
	return mx + math.Log(mean), se
}
