// Package lang is the front end of mscppl: the lexer and participle (v2)
// grammar of .msc files, the concrete syntax tree they produce, and the
// shared position and error types (Pos, Error, ErrorList) that every later
// stage reports through.
//
// Grammar (EBNF; newlines are whitespace, ';' between statements is optional):
//
//	File     = Block* .
//	Block    = ("data" | "param" | "latent" | "model" | "infer") "{" Item* "}" .
//	Item     = Decl | Stmt .
//	Decl     = ident ":" Type [ "from" From ] [ "standardized" ] [ "=" Expr ] .
//	Type     = ("int" | "real" | "vector" | "matrix") [ Bounds ] [ "[" Expr { "," Expr } "]" ] [ Bounds ] .
//	Bounds   = "<" Bound { "," Bound } ">" .          Bound = ("lower" | "upper") "=" Expr .
//	From     = "all" "except" string { "," string } | string .   // a string with * or ? is a header glob
//	Stmt     = "for" ident "in" Expr ".." Expr "{" Stmt* "}" | Expr ( "~" Call | "=" Expr ) [ ";" ] .
//	Expr     = Term { ("+" | "-") Term } .
//	Term     = Unary { ("*" | "/") Unary } .
//	Unary    = ("-" | "+") Unary | Power .
//	Power    = Postfix [ "^" Unary ] .                // right-associative; -x^2 = -(x^2)
//	Postfix  = Primary { "[" Expr { "," Expr } "]" } .
//	Primary  = number | string | Call | ident | "(" Expr ")" .
//	Call     = ident "(" [ Expr { "," Expr } ] ")" .
//
// Comments are // to the end of the line and /* ... */. The parse tree is a
// concrete syntax tree with positions; package ir lowers it to its own
// sealed IR and never evaluates these structs.
package lang
