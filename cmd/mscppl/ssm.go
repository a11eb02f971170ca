package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
)

// useCSMC decides the kernel: the CSMC kernel for state-space models
// (--kernel auto, the default), or as forced by --kernel.
func useCSMC(kernel, method string, comp *ir.Compiled) (bool, error) {
	st := comp.Structure()
	switch kernel {
	case "", "auto":
		return st.StateSpace && (method == "msc" || method == "smc"), nil
	case "csmc":
		if !st.StateSpace {
			return false, userErrorf("use --kernel cis, or write the model as z[t] ~ normal(f(z[t-1]), s) with observations x[t] depending on z[t] only", "--kernel csmc needs a state-space model, and this one is %s", st)
		}
		return true, nil
	case "cis":
		if method == "smc" {
			return false, userErrorf("", "--method smc runs a particle filter and needs the csmc kernel")
		}
		return false, nil
	}
	return false, userErrorf("", "unknown kernel %q (use auto, cis or csmc)", kernel)
}

// runSSM fits a state-space model with MSC's CSMC kernel and twisted
// proposals (or the SMC baseline), learning the params by the Fisher
// identity (Algorithm 3).
func (c *runCmd) runSSM(e *env, ctx context.Context, comp *ir.Compiled, method string, s *msc.Settings, bar *progress) (*Summary, *msc.SSMResult, error) {
	ss := &msc.SSMSettings{Particles: s.Samples, Iters: s.Iters, LR: s.LR, ParamLR: c.ParamLR, SMC: method == "smc"}
	ss.Trace = func(t msc.SSMTrace) { bar.update(t.Iter, ss.Iters, t.ESS) }
	if ss.Iters == 0 {
		ss.Iters = 2000
	}
	if ss.ParamLR == 0 {
		ss.ParamLR = 0.1
	}
	if ss.LR == 0 {
		ss.LR = 0.1
	}
	if s.AverageFraction > 0 {
		ss.AverageFraction = s.AverageFraction
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x6d7363))
	var res msc.SSMResult
	start := time.Now()
	family := "twisted-gaussian"
	var err error
	if comp.Structure().GaussianTransition {
		err = msc.RunSSM(ctx, rng, comp, ss, &res)
	} else {
		family = "per-step-gaussian"
		err = msc.RunSSMGeneral(ctx, rng, comp, ss, &res)
	}
	if err != nil {
		return nil, nil, err
	}
	m := comp.Model
	sum := &Summary{
		Model: c.Model, Data: c.Data, Method: method, Kernel: "csmc", Family: family, Optimizer: "adam",
		Samples: ss.Particles, Iterations: res.Iterations, Seed: c.Seed,
		Reported: fmt.Sprintf("the proposal and the params averaged over the last %.0f%% of iterations; latent moments from the retained trajectories of those iterations", 100*ss.AverageFraction),
		Latent:   map[string]Moments{}, Params: map[string]float64{}, Converged: res.Converged,
		Diagnostics: Diagnostics{ChangeRate: res.ChangeRate, MeanESS: res.MeanESS, AllInfIters: res.Failed},
	}
	if method == "smc" {
		sum.Kernel = "smc"
	}
	names := m.LatentNames()
	for j, name := range names {
		sum.Latent[name] = Moments{Mean: res.Mean[j], SD: res.SD[j]}
	}
	sum.LatentOrder = names
	if m.ParamDim > 0 {
		x := make([]float64, m.ParamDim)
		comp.ConstrainParams(res.Params, x)
		for j, name := range m.ParamNames() {
			sum.Params[name] = x[j]
		}
		sum.ParamOrder = m.ParamNames()
		sum.Identified = identified(sum.Params)
	}
	if !comp.Structure().GaussianTransition {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("the %s transition is not Gaussian, so the proposal is a per-step Gaussian N(a_t + b_t z[t-1], s_t^2) instead of the twisted one", comp.Structure().Transition))
	}
	if res.ChangeRate < msc.MixingThreshold {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("the CSMC kernel is not mixing: its trajectory changed in only %.1f%% of sweeps; use more particles (--samples)", 100*res.ChangeRate))
	}
	sum.ElapsedSeconds = time.Since(start).Seconds()
	return sum, &res, nil
}

// identified reports combinations of params that the data identify when
// the params themselves are not: in the stochastic-volatility model
// x[t] ~ normal(0, sqrt(beta * exp(z[t]))) with z centred at mu, only
// mu + log(beta) is identified.
func identified(params map[string]float64) map[string]float64 {
	mu, okMu := params["mu"]
	beta, okBeta := params["beta"]
	if okMu && okBeta && beta > 0 {
		return map[string]float64{"mu + log(beta)": mu + math.Log(beta)}
	}
	return nil
}
