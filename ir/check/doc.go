// Package check is the first stage of the IR: Build (data from a CSV
// table, package ir/dataset) and BuildJSON (data from a JSON file) take
// the concrete syntax tree of package lang and the data, and produce a
// checked ir.Model (what go/types' checker is to Go):
//
//   - names resolved (data, transformed data, param, latent, locals, loop
//     variables, user functions, derived quantities), with "did you mean"
//     hints for unknown names;
//   - every expression typed and shape-checked against the data (sizes such
//     as N and D are inferred from the data), the built-ins by their
//     vocabulary entries' checks; the base types and the block kinds are
//     lang's enums (lang.BaseType, lang.BlockKind);
//   - constraints turned into bijections to unconstrained space with their
//     log-Jacobians (package stdlib), the bounds of real variables and the
//     vector transforms simplex, ordered, positive_ordered and
//     cholesky_factor_corr (and arrays of the first three), and the affine
//     transform of a latent's offset and multiplier;
//   - the data block's statements (datastmts.go) made into statements run
//     before the model's, a data variable they assign being computed
//     there rather than read; compound assignments x op= e made into
//     x = x op e; slice assignments (M[:, j] = v) into a loop over the
//     elements; and a ~ on an expression of latents into a term of the log
//     density, with a note (Model.Notes) when the expression is not linear;
//   - row vectors (rows.go): a declared row_vector, a matrix row and v'
//     are vectors marked ir.Type.Row, with Stan's products (r * v the
//     inner product, r * M a row, v * r the outer product), a matrix
//     times a row taken as the column of its elements, and a row refused
//     by the functions marked ir.RowRefused;
//   - the print and reject statements (messages.go), the ODE solvers'
//     calls with their arguments checked (ode.go);
//   - the transformed block (transformed.go, Stan's transformed
//     parameters): its statements run at the start of the model body,
//     its quantities are visible to the model and derived blocks, which
//     cannot assign them, and reported like derived quantities; the
//     constraints of its declarations, and of constrained locals
//     anywhere, are checked by reject statements carrying an ir.Check;
//   - while loops, break and continue (loops.go: a while loop is a For
//     with a condition, unrolled by ir/lower like every loop), and the
//     user functions that nothing calls, resolved once with arguments of
//     their declared types (uncalled.go); y ~ f(...) of a user's f_lpdf is
//     target += f_lpdf(y | ...) (functions.go).
//
// ResolveExpr resolves one expression against a model, for the REPL.
package check
