// Package lang is the front end of mscppl: the lexer and participle (v2)
// grammar of .msc files, the concrete syntax tree (CST) they produce, and
// the shared position and error types (Pos, Error, ErrorList) that every
// later stage reports through. Nothing here evaluates anything; package ir
// lowers the CST to its own IR.
//
// # Grammar
//
// The grammar is the annotated structs of ast.go, which participle prints
// as below (TestDocGrammar fails when this listing is not what the parser
// prints; go test ./lang -run TestDocGrammar -update rewrites it). In
// participle's notation x? is optional, x* repeated, x | y an alternative,
// <ident>, <number> and <string> are tokens, and (?= x) and (?! x) are
// lookaheads: x must, or must not, come next, and is not consumed.
// Productions too long for a line continue on the next, indented.
//
//	File = Block* .
//	Block = <ident> "{" Item* "}" .
//	Item = ((?= <ident> ":") Decl) | ((?= <ident> "(" ((<ident> ":") | (")"
//		"->"))) FuncDef) | Stmt .
//	Decl = <ident> ":" Type ("from" From)? "standardized"? ("=" Expr)?
//		";"? .
//	Type = ("array" "[" ((Expr ("," Expr)* "]") | (","* "]")))? ("int" |
//		"real" | "vector" | "row_vector" | "matrix" | "simplex" | "ordered" |
//		"positive_ordered" | "cholesky_factor_corr") ("<" Bound ("," Bound)*
//		">")? ("[" Expr ("," Expr)* "]")? ("<" Bound ("," Bound)* ">")? .
//	Expr = Term OpTerm* ("?" Expr ":" Expr)? .
//	Term = Unary OpUnary* .
//	Unary = ((("-" | "+" | "!") Unary) | Power) .
//	Power = Postfix ("^" Unary)? .
//	Postfix = Primary Index* "'"? .
//	Primary = (<number> | <string> | ((?= <ident> "(") Call) | <ident> |
//		("(" Expr ")") | ("{" Expr ("," Expr)* "}")) .
//	Call = <ident> "(" (Expr ("," Expr)*)? ("|" (Expr ("," Expr)*)?)? ")" .
//	Index = "[" Slot ("," Slot)* "]" .
//	Slot = Expr? (":" Expr?)? .
//	OpUnary = ("*" | "/" | "%/%" | "%" | ".*" | "./") Unary .
//	OpTerm = (("+" | "-" | "==" | "!=" | "<=" | ">=" | "&&" | "||") | ((?=
//		("<" | ">") (<ident> | <number> | "(" | "-" | "+" | "!")) (?! ("<" |
//		">") (("for" <ident> "in") | (("print" | "reject") "(") | (<ident> (":"
//		| "=" | "+=" | "-=" | "*=" | "/=")) | "from" | "standardized")) ("<" |
//		">"))) Term .
//	Bound = ("lower" | "upper" | "offset" | "multiplier") "=" Expr .
//	From = (("all" "except" <string> ("," <string>)*) | <string>) .
//	FuncDef = <ident> "(" (Param ("," Param)*)? ")" "->" ("void" | Type) "{"
//		Stmt* "}" .
//	Param = <ident> ":" ("array" "[" ","* "]")? ("int" | "real" | "vector" |
//		"row_vector" | "matrix") .
//	Stmt = (((?= <ident> ":") Decl) | For | While | If | "break" |
//		"continue" | ("target" "+=" Expr) | ("return" Expr) | ((?= ("print" |
//		"reject") "(") Message) | Scope | Simple) ";"? .
//	For = "for" <ident> "in" Expr ".." Expr "{" Stmt* "}" .
//	While = "while" Expr "{" Stmt* "}" .
//	If = "if" Expr "{" Stmt* "}" ("else" (If | ("{" Stmt* "}")))? .
//	Message = ("print" | "reject") "(" (Expr ("," Expr)*)? ")" .
//	Scope = "{" Stmt* "}" .
//	Simple = Expr (("~" Call) | ("=" Expr) | (("+=" | "-=" | "*=" | "/=")
//		Expr))? .
//
// Notes on the productions, for rules the listing does not show:
//
//   - File: a Block's name is functions, data, param, latent,
//     transformed, model, derived or infer (BlockKinds); the blocks come
//     in any order, each at most once, and model is required.
//   - Item: which items a block accepts is checked by package ir: FuncDef
//     in functions; Decl in data, param and latent (data also takes
//     statements, computed once from the data: Stan's transformed data);
//     Decl (a local declaration) and Stmt in model, in transformed (Stan's
//     transformed parameters: its declarations may have bounds or a vector
//     constraint, checked on each evaluation; no ~ or target +=) and in
//     derived (without ~ and target +=); and settings name = literal (a
//     number, possibly signed, a string or a name) in infer.
//   - FuncDef: a function's body ends with return Expr; a void one (->
//     void) has no return, and is called as a statement, name(args).
//   - Simple: an Expr alone is a call of a void function, name(args).
//   - Type: bounds are lower and upper, either or both, in any order, each
//     at most once. They come after the base type name and before the
//     sizes, in Stan's order: vector<lower=0>[N], matrix<upper=1>[N, K].
//     The second group of bounds in the listing is parsed only to reject
//     the other order, vector[N]<lower=0>, with a hint.
//   - From: a string with *, ? or [ is a glob over the header names
//     (dataset.IsGlob).
//   - Expr: the chain of terms is flat as written; package ir applies
//     Stan's precedences, all left-associative: || below &&, below == and
//     !=, below < <= > >=, below + and -. The lookaheads of OpTerm keep the
//     closing > of a type's bounds from being read as a comparison when a
//     declaration (name :), an assignment (name =, name +=, ...,
//     target += too), a for loop, print or reject follows; before another
//     statement, a declaration whose type ends with its bounds takes a
//     ";" (s: real<lower=0>; s[1] = ...). The
//     conditional c ? a : b binds looser than all of them and groups to
//     the right: c ? a : d ? b : e is c ? a : (d ? b : e).
//   - Term: * / % %/% .* ./ are left-associative, and bind tighter than
//     any operator of Expr. As in Stan, / of two ints truncates toward zero
//     (with a note), %/% is the integer quotient and % the remainder of
//     ints, with the sign of the dividend.
//   - Unary and Power: - + ! bind looser than ^, whose exponent is a
//     Unary, so that a^b^c = a^(b^c), -x^2 = -(x^2) and 2^-1 is allowed.
//   - Postfix: a trailing ' is the transpose (X', v').
//   - Call: name(y | args) is a log density (normal_lpdf(y | mu, sigma)).
//   - Index and Slot: a slot is an index e or a range lo:hi, lo:, :hi or :
//     (all).
//   - For: both bounds of lo..hi are inclusive.
//   - Stmt: target += Expr adds to the log density. The condition of if is
//     a scalar, true when it is not 0. print(...) and reject(...) (Message)
//     are Stan's: their arguments are strings and expressions, written one
//     after the other; print and reject stay usable as names elsewhere.
//
// Tokens: ident is [A-Za-z_][A-Za-z0-9_]*; number is 12, 1.5, .5, 1e-3 or
// 2.5E+4 (signs are unary operators); string is "..." on one line with Go
// escapes; the other tokens are the quoted ones of the listing. Comments
// are // to the end of the line and /* ... */. Keywords are ordinary names
// outside the places the grammar above names them.
//
// Separators: an item ends at a newline or at an optional ";" (the ";"?
// of Decl and Stmt). Two
// items on one line need a ";" between them, except after the "}" of a
// for loop. An expression continues onto the next line when the line
// ends inside brackets or with an operator, or when the next line starts
// with a binary operator, "(" or "[" (the expression is read as long as
// possible).
//
// # Errors
//
// Parse reports the first syntax error as an ErrorList of one *Error with
// the position of the offending token, a message in terms of the language
// ("unexpected "}"; expected an expression", "missing ")" before "}"",
// "unknown block "modle"", ...) and often a hint. Empty files, binary or
// non-UTF-8 input, brackets nested more than MaxNesting deep and chains of
// more than MaxNesting signs, negations, powers or conditionals are errors
// too, never panics or stack overflows; a file larger than MaxSource is
// refused before it is lexed. ErrorList.Format prints errors
// with the source line and a caret; Suggest finds "did you mean"
// candidates.
//
// # How parsing works
//
// The participle grammar, the annotated structs of ast.go, is the single
// definition of the syntax; the listing above is printed from it. Participle runs
// with no lookahead beyond the lookahead groups written in the grammar
// (name ":" starts a declaration, name "(" a call), so every construct
// commits at its first token and participle stops exactly where the input
// goes wrong. Around it, and without restating the grammar:
//
//   - Pre-checks on the bytes and tokens: UTF-8 and NUL bytes, brackets
//     nested more than MaxNesting deep, chains of more than MaxNesting signs,
//     negations, powers and conditionals, characters no token starts with (with hints for ' and a
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
//   - Stan's forms, found on the tokens (stanforms.go): a declaration
//     written type-first (vector<lower=0>[N] lam;, array[N] int y;, real
//     x = 2;) at the start of an item, and for (i in 1:N), are reported
//     with the same declaration or loop in the language's form (write lam:
//     vector<lower=0>[N]), unless an error comes before them.
package lang
