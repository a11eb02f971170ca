// Package lower is the second stage of the IR: Compile lowers a checked
// ir.Model to a static autodiff graph (package autodiff) that evaluates
// the log joint log p(z, x; theta) over unconstrained latents for a whole
// batch of proposals at once. A Compiled model is that graph, its layout
// and its log joint: it implements the target interfaces of infer/msc
// (Dim, Reserve, LogJoint, GradLogJoint, the params' methods, LogPrior
// and SamplePrior), constrains draws (Constrain), and is copied for
// another chain or worker by Clone, not compiled again. What it met while
// evaluating is functions of this package (PriorError, RNGError,
// SolverNotes, RejectNotes, Interrupted); what explains a non-finite log
// joint, package ir/explain's.
//
// Loops are lowered at compile time: a loop over data rows whose body
// allows it is compiled once over its whole range into vector operations
// (vecloop.go; CompileOptions.UnrollLoops turns this off), the forward
// algorithm of a hidden Markov model written as Stan's examples write it
// is one hmm_forward node (hmmloop.go), and the others are unrolled, one
// copy of the body per value of the loop variable; a while loop runs
// while its condition, known at compile time, holds, and break and
// continue end the unrolled iteration (loops.go). Calls of user
// functions are inlined; an if whose condition depends on latents or
// params is compiled as a piecewise density. The built-in functions are
// lowered by their vocabulary entry (lowerings.go). A scalar plus a
// matrix times a vector (alpha + X * beta) is one Affine node. The derived
// block's statements run after the model's, on the same graph; an index
// known only per draw (an int local set under such an if, as a Viterbi
// back-pointer) is a chain of selects over its possible values
// (dynindex.go). An ODE solver's call (ode_rk45, ode_bdf, ...; ode.go) is
// one node: its right-hand side, a user function, is compiled into a
// small tape of its own that the solver of package stdlib/ode evaluates;
// a solve that fails rejects the draw, and hmm_marginal (its op behind
// Stan's checks, HmmOp, hmm.go) given a Gamma or
// rho that is no simplex does too: both count their rejections with the
// reason (reject.go, SolverNotes).
//
// While compiling, Compile records which unconstrained latent positions
// each term of the log joint depends on and which ones it draws; that is
// how it detects a state-space model (ssm.go: StructureOf says what it
// found). A state-space model's structure is one type, StateSpace, whose
// state at each step has K >= 1 components: one latent vector, several of
// one length, or a matrix's (or an array of vectors') rows, each component
// drawn by its own ~ or a whole row by a multivariate normal (mvnTerm,
// which the compile records for multi_normal terms of a latent's row). It
// is found on the model's own compile
// when its only latent is one vector, and otherwise on the model's
// state-space view, a second compile with the statements vectorised over
// the state split per step and the static latents as params (ssmview.go).
// StateSpaceOf returns it; a model with static latents beside its state
// gives StaticStateSpaceOf instead, whose StateSpace is the state's given
// the statics. A state of one vector has its time steps compiled, on first
// use and where they can be, into step programs evaluated over all
// particles at once (ssm_fast.go). CompileExpr compiles an expression over
// a compiled model, for the REPL.
package lower
