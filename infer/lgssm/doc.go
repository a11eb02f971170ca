// Package lgssm integrates the state of a state-space model out where the
// model allows it: when, given the static latents theta beside the state,
// the transition is Gaussian with a mean affine in x[t-1] and an sd that
// does not depend on it, and each step's observation log density is a
// concave quadratic in x[t], log p(theta, y) is exact by a Kalman filter.
//
// LinearGaussian probes the model's own step terms (msc.StaticStateSpace
// and msc.GaussianStateSpace) at a few states per step, fits and verifies
// the affine transition and the quadratic observation potential, and runs
// the filter in information form; FFBS draws the states from
// p(x | theta, y). DetectLinear decides, when a problem is built, whether
// a model qualifies (msc.Problem.Linear and msc.Problem.NotLinear, and the
// capability msc.CapLinearStatics). The package registers with msc the
// kalman kernel (KalmanCIS: CIS over the statics with that marginal as its
// target, the retained states redrawn exactly at every step) and the
// kalman family (KalmanFamily: q(theta) over the statics with the states'
// exact conditional), which the planner chooses over particle Gibbs when
// detection holds. A state of K > 1 components per step takes the same
// path with a K x K affine transition, a constant transition covariance and
// a K-dimensional concave quadratic per step (kalmank.go); the scalar state
// keeps its own code (kalman.go).
package lgssm
