// Package stdlib holds the library of the mscppl language: distribution
// families (log densities with gradients, samplers), special functions and
// the bijections that map constrained variables to unconstrained space.
//
// It imports no other package of mscppl. Its vectorised operations
// (SumLogDensity, the elementwise functions, the bijections) have the method
// sets of package autodiff's Op and Func interfaces, so the compiler can put
// them on the tape without this package knowing about the tape.
//
// Log densities return -Inf, never NaN, when an argument is outside its
// domain (sd <= 0, p outside [0, 1], ...); NaN comes out only when NaN goes
// in. Random draws always take an explicit *rand.Rand.
package stdlib
