// Package stdlib holds the library of the mscppl language: distribution
// families (log densities with gradients, samplers), special functions,
// the bijections that map constrained variables to unconstrained space,
// and the vector and matrix operations the compiler puts on the tape.
//
// It imports no other package of mscppl. Its operations (SumLogDensity,
// RandOp, NaryOp, the *ElemFunc functions and the VecOp values: vector
// bijections, multivariate densities, matrix operations) have the method
// sets of package autodiff's Op and Func interfaces, so the compiler can
// put them on the tape without this package knowing about the tape.
//
// Log densities return -Inf, never NaN, when an argument is outside its
// domain (sd <= 0, p outside [0, 1], ...); NaN comes out only when NaN goes
// in. Random draws always take an explicit *rand.Rand.
//
// # What the language can call
//
// The names are in registries, maps filled by this package's declarations
// and init functions. Each has a lookup function, and the first three a
// sorted list of their names, which is the list to consult (the REPL
// completes names from them, and package ir suggests "did you mean" from
// them):
//
//   - Scalar distribution families, with Stan's parameterisations (normal,
//     bernoulli_logit, neg_binomial_2, ...): the map families, filled by
//     register; Lookup and FamilyNames.
//   - Functions of one argument: the map funcs (funcs.go, extended by
//     init functions), either built into the tape (exp, log, sum, dot, ...)
//     or elementwise, as an *ElemFunc (Phi, inv_logit, lgamma, ...);
//     LookupFunc and FuncNames.
//   - Scalar functions of several arguments, as a *NaryFunc applied
//     elementwise with broadcasting by NaryOp (pow, fmin, log_mix, ...),
//     among them NAME_lpdf / NAME_lpmf for every family (LogDensityFunc)
//     and NAME_lcdf / NAME_lccdf for the families with a CDF: the map
//     naryFuncs, filled by registerNary; LookupNary and NaryNames.
//   - Vector transforms of constrained vector types (simplex, ordered,
//     positive_ordered, cholesky_factor_corr): the map vecBijections;
//     LookupVecBijection.
//
// The multivariate distributions (dirichlet, multi_normal, ...) and the
// matrix functions are VecOp constructors (NewDirichletLpdf, NewMatMul,
// ...), which package ir maps the language's names to (the multivariate
// distributions in the table vecDists of ir/matfuncs.go).
package stdlib
