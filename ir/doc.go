// Package ir is the typed intermediate representation of a model, the
// middle of the mscppl pipeline (what go/ast and go/types' objects are to
// Go): the Model (its variables, Var, with their kinds, types, shapes and
// bijections to unconstrained space; its statements, Stmt, and typed
// expressions, Expr), the types (Type, Kind), the queries over the tree
// (Children, StmtExprs, FormatExpr, ...), and the vocabulary of built-in
// functions.
//
// The vocabulary is one table (builtins.go, with the machinery in
// vocab.go): each Function entry has its name, arity, check (the typing
// rule of a call, reporting through its Site) and doc line, and declares
// the op it lowers to when it has one (Tape, Elem) or its argument layout
// (an ODE solver's ODE); the later stages recognise an entry by its
// pointer (FnLogSumExp, FnDot, FnCol, FnRow, VecTranspose, ArrayLit,
// ArrayCol), never by its name. The distributions are stdlib's registry.
// Stan's arrays share the layout of vectors and matrices (arrays.go); the
// print and reject statements are Message nodes (messages.go), and the
// constraint checks of transformed quantities and constrained locals are
// reject statements with a Check (checks.go); an ODE
// solver's call is an ODECall (ode.go); hmm_marginal's call has its sizes
// projected against the limits (hmm.go).
//
// The stages are packages of their own, each importing only the earlier
// ones: ir/check resolves and checks a lang syntax tree bound to its data
// into a Model, ir/lower compiles a Model to the tape, ir/explain words a
// compiled model's numerical trouble, ir/structure analyses the compiled
// model (its kind, its facts, a GLM), and ir/simulate draws data sets from
// its prior predictive.
package ir
