// Package diag holds posterior diagnostics for samplers and importance
// samplers: pure numerics on slices of draws, depending only on the
// standard library and gonum.
//
// Rhat and ESSBulk, the R-hat and bulk effective sample size (ESS) of
// several chains, follow Vehtari, Gelman, Simpson, Carpenter and Bürkner
// (2021), "Rank-normalization, folding, and localization: an improved
// R-hat for assessing convergence of MCMC", Bayesian Analysis 16(2), as
// implemented by Stan, the R package posterior (rhat, ess_bulk) and ArviZ
// (arviz.rhat(method="rank"), arviz.ess). Where they cannot be computed
// (constant draws, NaN or Inf draws, chains of unequal length or shorter
// than 4) they return math.NaN(), where posterior returns NA. The tests
// also implement posterior's rhat_basic, ess_basic and ess_tail, and check
// all five against values computed by posterior (testdata).
//
// PSIS, Pareto smoothed importance sampling, and its k-hat diagnostic
// follow Vehtari, Simpson, Gelman, Yao and Gabry (2024), "Pareto smoothed
// importance sampling", JMLR 25(72), and Yao, Vehtari, Simpson and Gelman
// (2018), "Yes, but did it work?: evaluating variational inference", as
// implemented by the R package loo (psis, loo >= 2.0). The generalized
// Pareto fit (GPDFit) is the profile-likelihood / empirical-Bayes estimate
// of Zhang and Stephens (2009), Technometrics 51(3).
//
// Summaries of weighted draws: WeightedMean, WeightedSD,
// WeightedQuantiles (loo's E_loo rule), MCSEMean (the Monte Carlo
// standard error of a self-normalised importance sampling mean) and
// Resample; Quantile is R's default quantile of sorted draws.
package diag
