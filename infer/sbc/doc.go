// Package sbc is simulation-based calibration (Talts et al. 2018) on top
// of package infer: Run draws latents and a data set from the model's
// prior predictive (package ir/simulate), fits the simulated data as a
// user's run would, and ranks the true latents among the fit's draws. Its
// Summarize tests each latent component's ranks for uniformity (Pearson's
// chi-square in equal bins, and the ECDF with simultaneous bands of
// Säilynoja, Bürkner and Vehtari 2022); a shard of the simulations
// (infer.Shard) runs as one job of an array, and the shards merge.
package sbc
