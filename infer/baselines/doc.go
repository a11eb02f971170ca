// Package baselines holds the inference methods mscppl compares MSC with,
// as kernels of msc.Run: the self-normalised importance-sampling gradient of
// the paper's eq. (5) (reweighted wake-sleep), which is biased for finite S;
// ADVI (exclusive KL, reparameterisation gradient); and expectation
// propagation for probit regression (EPProbit).
package baselines
