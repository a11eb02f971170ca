// Package ir is the middle of the mscppl pipeline. Build (data from a CSV
// table, package ir/dataset) and BuildJSON (data from a JSON file) take
// the concrete syntax tree of package lang and the data, and produce a
// checked Model:
//
//   - names resolved (data, transformed data, param, latent, locals, loop
//     variables, user functions, derived quantities), with "did you mean"
//     hints for unknown names;
//   - every expression typed and shape-checked against the data (sizes such
//     as N and D are inferred from the data); Stan's arrays share the
//     layout of vectors and matrices (arrays.go);
//   - constraints turned into bijections to unconstrained space with their
//     log-Jacobians (package stdlib), the bounds of real variables and the
//     vector transforms simplex, ordered, positive_ordered and
//     cholesky_factor_corr (and arrays of the first three);
//   - the data block's statements (datastmts.go) made into statements run
//     before the model's, a data variable they assign being computed
//     there rather than read; compound assignments x op= e made into
//     x = x op e; slice assignments (M[:, j] = v) into a loop over the
//     elements; and a ~ on an expression of latents into a term of the log
//     density, with a note (Model.Notes) when the expression is not linear.
//
// Compile lowers the checked model to a static autodiff graph (package
// autodiff) that evaluates the log joint log p(z, x; theta) over
// unconstrained latents for a whole batch of proposals at once. Loops are
// lowered at compile time: a loop over data rows whose body allows it is
// compiled once over its whole range into vector operations (vecloop.go;
// CompileOptions.UnrollLoops turns this off), the forward algorithm of a
// hidden Markov model written as Stan's examples write it is one
// hmm_forward node (hmmloop.go), and the others are unrolled, one copy of
// the body per value of the loop variable. Calls of user
// functions are inlined; an if whose condition depends on latents or
// params is compiled as a piecewise density. Vector operations stay
// vector operations; a scalar plus a matrix times a vector (alpha + X *
// beta) is one Affine node. The derived block's statements run after the
// model's, on the same graph; an index known only per draw (an int local
// set under such an if, as a Viterbi back-pointer) is a chain of selects
// over its possible values (dynindex.go). An ODE solver's call
// (ode_rk45, ode_bdf, ...; ode.go) is one node: its right-hand side, a
// user function, is compiled into a small tape of its own that the
// solver of package stdlib/ode evaluates, with the Jacobians by reverse
// sweeps, and the node's backward pass uses the forward sensitivities.
// Its arguments are checked once at compile time (ode.CheckArgs); a solve
// that fails rejects the draw, and hmm_marginal given a Gamma or rho that
// is no simplex does too: both count their rejections with the reason
// (reject.go, SolverNotes). Calls whose cost is not in the graph's size
// (ODE solves, hmm_marginal) are projected per evaluation and refused past
// the bounds, at the call or at the loop that repeats them.
//
// While compiling, Compile records which unconstrained latent positions
// each term of the log joint depends on and which ones it draws; that is
// how it detects a state-space model (Structure), whose time steps are
// then compiled, on first use and where they can be, into step programs
// evaluated over all particles at once (ssm_fast.go), and how RecogniseGLM
// recognises a generalised linear model. Facts (facts.go) are what the
// model's structure says about its posterior, for the remedies the
// warnings name: the centred hierarchies and the exchangeable components
// (found by swapping elements in the log joint).
// The compiled model implements the target interfaces of infer/msc.
// CompileExpr compiles an expression over a compiled model, for the REPL.
// NewSimulator (simulate.go) compiles the model a second time with the
// data its ~ statements observe made latents, so that the prior's
// ancestral sampling (SamplePrior, in an order where each statement's
// arguments are drawn first) draws data sets with the latents, for
// simulation-based calibration.
package ir
