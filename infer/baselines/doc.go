// Package baselines holds the inference methods mscppl compares MSC with:
// the self-normalised importance-sampling gradient of the paper's eq. (5)
// (reweighted wake-sleep style), which is biased for finite S.
package baselines
