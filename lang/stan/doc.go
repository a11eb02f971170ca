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
// latent; the transformed parameters' declarations and statements are put
// at the start of the model block and again at the start of derived, so
// that they are reported; model is model; generated quantities are
// derived; functions are functions.
//
// # What is refused
//
// A construct the IR cannot express is an error at its file:line:col
// naming the construct, never accepted with another meaning: row_vector
// (and a matrix row, Stan's row_vector, where a column would mean
// something else: as an operand of * or /, indexed, or an argument of a
// shape-sensitive function; its transpose m[i]' is the vector a row
// already is in the IR), while, break, continue, for over a container,
// print, reject, fatal_error, void functions, truncation T[,], offset and
// multiplier, complex numbers, the operators %, \ and .^, and the types
// mscppl has no transform for.
//
// The constraints of transformed parameters and generated quantities
// (Stan validates them on each draw) are not checked: the declaration is
// lowered to its unconstrained type and a note says so. Stan's old array
// syntax (real y[N]) is accepted with a note.
package stan
