// Package stan is mscppl's second front end: it parses Stan programs
// (the Stan Reference Manual's language, 2.3x) with participle into a
// concrete syntax tree of its own (ast.go), and lowers that tree, in Go,
// to the tree of package lang, the one a .msc file parses to, so that
// package ir checks and compiles a Stan program exactly as it does the
// equivalent .msc file. No text is printed and parsed again.
//
// # Blocks
//
// data and transformed data become the data block (declarations, then the
// transformed data's declarations and statements); parameters become
// latent; transformed parameters become the transformed block, lowered
// once (computed once per evaluation of the log density, and reported);
// model is model; generated quantities are derived; functions are
// functions.
//
// # What is refused
//
// A construct the IR cannot express is an error at its file:line:col
// naming the construct, never accepted with another meaning: for over a
// container, print, reject, fatal_error, void
// functions, complex numbers, tuples, the operators %, \ and .^, and the
// types mscppl has no transform for. Stan's static rules that the IR's
// more permissive language would not enforce are checked here (rules.go,
// and funcrules.go for the functions block, whose functions the IR checks
// only where they are called).
//
// # Loops, truncation, offset and multiplier
//
// while, break and continue become lang's, which package ir unrolls when
// the model is compiled (a condition on the parameters is refused there).
// y ~ dist(...) T[L, U] becomes the ~ and a statement subtracting the log
// probability of [L, U] from the CDFs (truncation.go). Offset and
// multiplier of parameters become lang's bounds of those names, the IR's
// affine transform.
//
// # Row vectors
//
// A declared row_vector is the language's row_vector (an array of them an
// array of vectors); the lowering tracks which expressions are Stan row
// vectors, and which of those are rows of the language too (shape.go),
// and lowers each operation on them with Stan's meaning (r * v is
// dot_product(r, v), r * M is M' * r, r' is r' for a row of the language
// and to_vector(r) otherwise, v' of a vector is v, v * r is
// v * to_vector(r)', the language's outer product), refusing a row as the
// argument of the functions whose value would differ for one
// (ir.RowRefused, the language's table) and the products Stan has no
// meaning for.
//
// # Constraints and initial values
//
// The bounds of transformed parameters and their types simplex, ordered,
// positive_ordered and cholesky_factor_corr stay in the declarations of
// the transformed block, which checks them on each evaluation (a
// violation rejects the draw, as Stan's does), and so do locals with those
// types; their other constrained types and the constraints of generated
// quantities are lowered to their unconstrained types, with a note. Real variables of
// the generated quantities, and the transformed data never assigned, start
// as Stan's do (NaN, or the smallest int). Stan's old array syntax (real
// y[N]) is accepted with a note.
package stan
