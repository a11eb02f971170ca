// Package lang is the front end of mscppl: the lexer and participle (v2)
// grammar of .msc files, the concrete syntax tree (CST) they produce, and
// the shared position and error types (Pos, Error, ErrorList) that every
// later stage reports through. Nothing here evaluates anything; package ir
// lowers the CST to its own IR.
//
// # Grammar
//
// In EBNF, with [ x ] optional and { x } repeated:
//
//	File      = Block { Block } .                    // any order, each at most once, model required
//	Block     = BlockKind "{" { Item Sep } "}" .
//	BlockKind = "data" | "param" | "latent" | "model" | "infer" .
//	Item      = Decl | Stmt | Setting .              // Decl in data/param/latent, Stmt in model, Setting in infer
//	Decl      = ident ":" Type [ "from" From ] [ "standardized" ] [ "=" Expr ] .
//	Type      = ("int" | "real" | "vector" | "matrix") [ Bounds ] [ "[" Expr { "," Expr } "]" ] .
//	Bounds    = "<" Bound [ "," Bound ] ">" .        // lower and upper, either or both, any order
//	Bound     = ("lower" | "upper") "=" Expr .
//	From      = string | "all" "except" string { "," string } .   // a string with * or ? is a header glob
//	Stmt      = For | Expr "~" Call | Expr "=" Expr .
//	For       = "for" ident "in" Expr ".." Expr "{" { Stmt Sep } "}" .   // inclusive bounds
//	Setting   = ident "=" ( [ "-" | "+" ] number | string | ident ) .   // a Stmt, checked on the tree
//	Expr      = Term { ("+" | "-") Term } .          // left-associative
//	Term      = Unary { ("*" | "/") Unary } .        // left-associative
//	Unary     = ("-" | "+") Unary | Power .
//	Power     = Postfix [ "^" Unary ] .              // right-associative: a^b^c = a^(b^c); -x^2 = -(x^2)
//	Postfix   = Primary { "[" Expr { "," Expr } "]" } .
//	Primary   = number | string | Call | ident | "(" Expr ")" .
//	Call      = ident "(" [ Expr { "," Expr } ] ")" .
//
// Tokens: ident is [A-Za-z_][A-Za-z0-9_]*; number is 12, 1.5, .5, 1e-3 or
// 2.5E+4 (signs are unary operators); string is "..." on one line with Go
// escapes; ".." is the range operator. Comments are // to the end of the
// line and /* ... */. Keywords are ordinary names outside the places the
// grammar above names them.
//
// Separators (Sep): an item ends at a newline or at an optional ";". Two
// items on one line need a ";" between them, except after the "}" of a
// for loop. An expression continues onto the next line when the line
// ends inside brackets or with an operator, or when the next line starts
// with a binary operator, "(" or "[" (the expression is read as long as
// possible).
//
// Bounds come after the base type name and before the sizes, in Stan's
// order: vector<lower=0>[N], matrix<upper=1>[N, K]. The other order,
// vector[N]<lower=0>, is rejected with a hint.
//
// # Errors
//
// Parse reports the first syntax error as an ErrorList of one *Error with
// the position of the offending token, a message in terms of the language
// ("unexpected "}"; expected an expression", "missing ")" before "}"",
// "unknown block "modle"", ...) and often a hint. Empty files, binary or
// non-UTF-8 input, brackets nested more than MaxNesting deep and chains of
// more than MaxNesting signs or powers are errors too, never panics or
// stack overflows. ErrorList.Format prints errors with the source line and
// a caret; Suggest finds "did you mean" candidates.
//
// # How parsing works
//
// The participle grammar, the annotated structs of ast.go, is the single
// definition of the syntax; the EBNF above describes it. Participle runs
// with no lookahead beyond the lookahead groups written in the grammar
// (name ":" starts a declaration, name "(" a call), so every construct
// commits at its first token and participle stops exactly where the input
// goes wrong. Around it, and without restating the grammar:
//
//   - Pre-checks on the bytes and tokens: UTF-8 and NUL bytes, brackets
//     nested more than MaxNesting deep, chains of more than MaxNesting signs
//     and powers, characters no token starts with (with hints for ' and a
//     lone .), unterminated strings and comments, bad escapes and files
//     without tokens. For files over a megabyte, unbalanced brackets are
//     reported from the tokens alone, since participle takes seconds per
//     megabyte.
//   - Translation of participle's error (the unexpected token and the part
//     of the grammar expected there) into the wording above, using the
//     tokens around it (the previous and next token, the brackets open at
//     that point and what precedes the innermost one) and the partial tree
//     participle returns (which block or loop body the error is in, and
//     where the item being parsed starts). Unbalanced brackets are reported
//     with the position of the opening one.
//   - Checks on the finished tree, for rules the grammar does not express:
//     known block names (with "did you mean"), no duplicate block, a model
//     block, two items on one line only with ";" between them (with a hint
//     for 2x), bounds before the sizes and each at most once, and settings
//     whose value is a literal. They also run on the complete part of a
//     partial tree, so that the first error in the file is the one
//     reported.
package lang
