// Package infer is mscppl's library facade: everything a command, the REPL
// or a Go program needs to go from a .msc file to a posterior summary.
//
//	m, err := infer.Load("model.msc", "data.csv")   // parse, bind, check, compile
//	fit, err := infer.Fit(ctx, m, infer.Options{Seed: 1})
//	fit.Summary                                       // marginals, params, diagnostics
//	fit.Draws(1000, seed)                             // draws in each latent's own space
//	infer.Evidence(rng, m, q, particles, repeats)     // log p(x; theta) with its SE
//	fit.SummarizeDraws(values)                        // mean, sd, quantiles, MCSE of a function of the draws
//	infer.EstimateMarginals(in)                       // a run's marginal densities, for plots
//
// Fit chooses the method (MSC or a baseline), the kernel (CIS, or CSMC for a
// state-space model), the family and the update rule from the options, the
// model's infer block and the defaults of package msc, in that order, and
// runs msc.Run. CrossValidate and Sweep are the experiments of the paper's
// Table 1 and Figure 2 as library functions. The defaults of the commands
// that are not settings of one fit (cv, sweep, evidence, the draws behind
// derived displays) are Defaults. The engine itself (families,
// kernels, the run loop) is package infer/msc; the baselines are
// infer/baselines.
package infer
