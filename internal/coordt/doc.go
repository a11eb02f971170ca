// Package coordt is the heavy-tailed proposal of the second opinion on a
// posterior's tails (package infer's tails check): a Gaussian's mean and
// covariance whose whitened coordinates are independent Student-t's, so
// that its draws are typical in all but a few directions and far out in
// those.
package coordt
