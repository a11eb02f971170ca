// Package diag holds posterior diagnostics for samplers and importance
// samplers: pure numerics on slices of draws, depending only on the
// standard library and gonum.
//
// R-hat and effective sample size (ESS) follow Vehtari, Gelman, Simpson,
// Carpenter and Bürkner (2021), "Rank-normalization, folding, and
// localization: an improved R-hat for assessing convergence of MCMC",
// Bayesian Analysis 16(2), as implemented by Stan, the R package posterior
// (rhat, ess_bulk, ess_tail, rhat_basic, ess_basic) and ArviZ
// (arviz.rhat(method="rank"), arviz.ess).
//
// Pareto smoothed importance sampling (PSIS) and its k-hat diagnostic
// follow Vehtari, Simpson, Gelman, Yao and Gabry (2024), "Pareto smoothed
// importance sampling", JMLR 25(72), and Yao, Vehtari, Simpson and Gelman
// (2018), "Yes, but did it work?: evaluating variational inference", as
// implemented by the R package loo (psis, loo >= 2.0). The generalized
// Pareto fit is the profile-likelihood / empirical-Bayes estimate of Zhang
// and Stephens (2009), Technometrics 51(3).
//
// Results that cannot be computed (constant draws, NaN or Inf draws) are
// reported as math.NaN(), where posterior returns NA.
package diag
