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
// Fit builds the engine's view of the compiled model (an msc.Problem per
// chain, on a copy of the compiled model (Model.Clone: the model is built
// and compiled once per run), with the model's capabilities and its
// state-space structure),
// resolves the options once, against the model's infer block and the
// defaults, into a typed plan (plan.go: the method, the named kernel or
// auto, the family, the optimizer, the proposal and the init as registry
// entries and small enums, which the run reads instead of names), checks
// the sizes it will allocate against the machine's memory before
// anything is allocated (sizes.go: --samples, --draws, --chains), chooses
// the method (Methods: the methods of msc's registered kernels, EP
// and msc-prior, registered here) and its kernel (msc.ChooseKernel: CSMC for
// a state-space model under MSC, CIS otherwise, or the named one), the
// family (or the kernel's state-space proposal), warm-starts q where the
// kernel declares it useful, runs msc.RunChains, and checks q against the
// model by Pareto-smoothed importance sampling (or, for a state-space run, a
// particle filter's evidence) before it summarises. The PSIS step keeps what
// the warm start's mode searches found (modes.go: a defensive mixture of q
// with Laplace approximations at the modes q misses; neck.go: a centred
// hierarchy's funnel neck that a search climbed into), refines the proposal
// by the PSIS moments and pools its draws with heavy-tailed ones
// (tails.go, coordt.go), and compares the result with a second, heavier
// proposal's; each check that fails makes the verdict NOT converged with a
// warning that names the cause and a remedy chosen from the model's facts.
// The PSIS draws are evaluated in batches on the chains' compiled models,
// one per core, into arrays allocated once per call (psis.go); the batch
// size depends on the model alone, so the draws are the same bits on any
// number of cores. Summary.Timing records the wall time of each phase
// (Load's reading and compiling, the warm start, the iterations, the PSIS
// step). CrossValidate and Sweep
// are the experiments of the paper's Table 1 and Figure 2 as library
// functions, and package infer/sbc builds simulation-based calibration on
// them. The three take a Shard, a slice of their jobs whose results
// MergeCV, MergeSweep and sbc.Merge combine into those of one process. Settings (settings.go) is the one table of a run's settings
// (key, help, parser): Load checks a model's infer block with it (an
// unknown key or a refused value at its position), the REPL's :set checks
// its values with it (CheckSetting), and the command's flags' help and the
// docs' list are its help. A summary's SummarySource is a typed constant,
// written by its name. The defaults of the commands that are not settings
// of one fit
// (cv, sweep, evidence, the draws behind derived displays) are Defaults;
// those of one fit are msc.Defaults. The engine itself (problems, families, kernels, the run loop)
// is package infer/msc; the baselines' kernels are infer/baselines.
package infer
