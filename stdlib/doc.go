// Package stdlib holds the library of the mscppl language: distribution
// families (log densities with gradients, samplers), special functions and
// the bijections that map constrained variables to unconstrained space.
//
// It imports no other package of mscppl. Its vectorised operations
// (SumLogDensity, the elementwise functions, the bijections, NaryOp) have
// the method sets of package autodiff's Op and Func interfaces, so the
// compiler can put them on the tape without this package knowing about the
// tape.
//
// Log densities return -Inf, never NaN, when an argument is outside its
// domain (sd <= 0, p outside [0, 1], ...); NaN comes out only when NaN goes
// in. Random draws always take an explicit *rand.Rand.
//
// # Families (Lookup, FamilyNames)
//
// Continuous: normal(mean, sd), half_normal(sd), lognormal(mu, sigma),
// exponential(rate), gamma(shape, rate), inv_gamma(alpha, beta),
// beta(a, b), student_t(nu, loc, scale), cauchy(loc, scale),
// logistic(mu, sigma), double_exponential(mu, sigma), weibull(alpha, sigma),
// skew_normal(xi, omega, alpha). Discrete: bernoulli(p),
// bernoulli_logit(eta), bernoulli_probit(eta), binomial(n, p),
// binomial_logit(n, alpha), poisson(rate), poisson_log(alpha). The
// parameterisations are Stan's.
//
// # Functions of one argument (LookupFunc, FuncNames)
//
// Built into the tape: exp, log, sqrt, log1p, expm1, and the reductions sum,
// log_sum_exp(v) and dot(u, v). Elementwise, as *ElemFunc: Phi, Phi_approx,
// log_Phi, inv_logit, log_inv_logit, log1m_inv_logit, log1p_exp, inv_cloglog,
// inv, log1m, log1m_exp, abs, fabs, square, lgamma, digamma.
//
// # Scalar functions of several arguments (LookupNary, NaryNames)
//
// As *NaryFunc, applied elementwise with broadcasting by NaryOp: pow(x, y),
// fmin(a, b), fmax(a, b), log_sum_exp(a, b), log_mix(theta, lp1, lp2),
// normal_lcdf(x, mu, sigma), normal_lccdf(x, mu, sigma), and NAME_lpdf(y,
// params...) / NAME_lpmf for every family (LogDensityFunc).
package stdlib
