package msc

import "math/rand/v2"

// Target is an unnormalised log posterior over unconstrained latent variables,
// evaluated in batches. The compiled model of package ir implements it; tests
// use hand-written targets.
type Target interface {
	// Dim is the number of unconstrained latent scalars.
	Dim() int
	// Reserve makes the target ready for batches of up to n rows.
	Reserve(n int)
	// LogJoint writes log p(z_b, x; theta) (including the log-Jacobians of the
	// constraining bijections) into out[b] for each row b of z, a row-major
	// len(out) x Dim() matrix. It must not allocate.
	LogJoint(z []float64, out []float64)
}

// Diagnoser is implemented by targets that can explain a non-finite log joint,
// for example by naming the model statement that produced NaN.
type Diagnoser interface {
	Diagnose(z []float64) error
}

// PriorTarget is implemented by targets that can sample the prior p(z) and
// evaluate it (in unconstrained space, with log-Jacobians), for the
// "proposal = prior" variant of CIS.
type PriorTarget interface {
	Target
	SamplePrior(rng *rand.Rand, z []float64) // one row
	LogPrior(z []float64, out []float64)     // batch, like LogJoint
}

// GradTarget is implemented by targets that give the gradient of the log joint
// with respect to the unconstrained latents (ADVI, gradient-based kernels).
type GradTarget interface {
	Target
	// GradLogJoint returns log p(z, x; theta) for one row z and writes its
	// gradient into grad (len Dim()).
	GradLogJoint(z []float64, grad []float64) float64
}

// ParamTarget is implemented by targets with model parameters theta learned
// by maximum likelihood (Algorithm 3), in unconstrained space.
type ParamTarget interface {
	Target
	NumParams() int
	// Params returns the current unconstrained parameters (a view the
	// caller must not retain across SetParams).
	Params() []float64
	SetParams(theta []float64)
	// GradParams returns log p(z, x; theta) for one row z and writes
	// grad_theta log p(z, x; theta) into grad (len NumParams()).
	GradParams(z []float64, grad []float64) float64
}
