// Package stdlib holds the library of the mscppl language: distribution
// families (log densities with gradients, samplers), the numeric ops of its
// functions, the bijections that map constrained variables to
// unconstrained space, and the vector and matrix operations the compiler
// puts on the tape.
//
// Of mscppl it imports only its subpackage special (the special functions,
// below). Its operations (SumLogDensity, RandOp, ArgCheckOp, NaryOp, the
// *ElemFunc functions and the VecOp values: vector bijections,
// multivariate densities, matrix operations, the forward algorithm of
// hidden Markov models of hmm.go) have the method sets of package
// autodiff's Op and Func interfaces, so the compiler can put them on the
// tape without this package knowing about the tape.
//
// Log densities return -Inf, never NaN, when an argument is outside its
// domain (sd <= 0, p outside [0, 1], ...); NaN comes out only when NaN goes
// in. Random draws always come from an explicit *rand.Rand (Family.Rand's
// argument; a RandOp's own source, restarted by RandOp.Seed), never from a
// global one.
//
// # The registry of distributions (Lookup, FamilyNames)
//
// Every distribution of the language, scalar or multivariate, is one
// Family entry registered in an init function (dist.go, dist_extra.go,
// dist_more.go, vecfamilies.go): its name, a one-line Doc, its parameters
// and either its scalar log density, gradient and sampler, or (Vec) the
// shapes it takes and its log density op. The entry also carries what the
// language derives from it: NAME_lpdf / NAME_lpmf (LogDensity,
// LogDensityFunc) and NAME_lcdf / NAME_lccdf / NAME_cdf (LogCDF, LogCCDF,
// CDF; cdf.go, cdf_more.go and cdf_skew.go, with the incomplete gamma and
// beta functions and the skew normal CDF of package special).
// The parameterisations are Stan's. Package ir, the REPL's completion and
// the generated table of docs/language.md read this registry.
//
// # Numeric ops of the functions (ElemFuncs, NaryFuncs)
//
// The elementwise functions of one argument that the tape lacks (*ElemFunc:
// Phi, log_Phi, inv_logit, lgamma, ...) and the scalar functions of
// several arguments (*NaryFunc: pow, fmin, fmax, log_mix, lbeta, ...,
// applied elementwise with broadcasting by NaryOp). They are numbers only:
// the language's built-in functions, with their arities, types, aliases
// and docs, are the entries of package ir's vocabulary, which point to
// these ops. The ops that some built-ins lower to and keep no state
// (tapeops.go: AppendRow, Reduce for prod, min and max, Concat, Gather)
// are here too.
//
// # Vector transforms (LookupVecBijection)
//
// The transforms of constrained vector types (simplex, ordered,
// positive_ordered, cholesky_factor_corr) are the map vecBijections;
// StackVec makes an array of one of them (array[N] simplex[K]).
//
// # Special functions (package stdlib/special)
//
// The subpackage special holds the numerics these are built on, plain
// float64 functions (named here by the language's names): the
// table-driven Phi, log_Phi, the inverse Mills ratio and log1p_exp (with
// the slice versions, and their AVX2 kernels, that the probit and logit
// likelihoods call), lgamma, digamma and trigamma, inv_logit and its kin,
// the incomplete gamma and beta functions in logs with their derivatives,
// and the skew normal CDF (special.LogSkewNormalCDF).
//
// # ODE solvers (package stdlib/ode)
//
// The subpackage ode holds the solvers of the language's ode_rk45 and
// ode_bdf (Dormand-Prince 5(4); the Rosenbrock 2(3) pair of ode23s for
// stiff systems) with forward sensitivities, on a right-hand side given
// as Go functions; package ir puts them behind one tape node.
package stdlib
