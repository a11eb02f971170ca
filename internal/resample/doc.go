// Package resample holds what importance weights and particle methods share:
// log weights normalised with their ESS and log mean (a degenerate set
// reported, not divided by zero), categorical and multinomial draws, and
// the log of a mean of exponentials with its delta-method standard error.
// The kernels of infer/msc (CIS, CSMC, particle Gibbs), the importance
// sampling baseline and the evidence estimates of package infer use it.
package resample
