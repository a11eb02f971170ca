package stan

import "github.com/alecthomas/participle/v2/lexer"

// The concrete syntax tree of a Stan program, filled in by participle.
// Like lang's, it is syntax only: Lower turns it into lang's tree. Every
// node records where it starts (Pos); the statement-level nodes also
// record where they end (EndPos).

// Program is a Stan file: its functions block, if any, then the other
// blocks in source order.
type Program struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Funcs  *Functions `parser:"@@?"`
	Blocks []*Block   `parser:"@@*"`
}

// Functions is the functions block.
type Functions struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Defs   []*FuncDef `parser:"\"functions\" \"{\" @@* \"}\""`
}

// Block is one of Stan's program blocks other than functions. Its name is
// one or two words (transformed data, generated quantities).
type Block struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Name   string  `parser:"@Ident"`
	Second string  `parser:"@Ident? \"{\""`
	Stmts  []*Stmt `parser:"@@* \"}\""`
}

// FuncDef is a function definition (or a forward declaration, without a
// Body).
type FuncDef struct {
	Pos     lexer.Position
	EndPos  lexer.Position
	Void    bool     `parser:"(  @\"void\""`
	Result  *ArgType `parser:" | @@ )"`
	Name    string   `parser:"@Ident \"(\""`
	Args    []*Arg   `parser:"( @@ ( \",\" @@ )* )? \")\""`
	Body    []*Stmt  `parser:"( \"{\" @@* \"}\""`
	Forward bool     `parser:"| @\";\" )"`
}

// Arg is a function argument: [data] type name.
type Arg struct {
	Pos  lexer.Position
	Type *ArgType `parser:"@@"`
	Name string   `parser:"@Ident"`
}

// ArgType is an unsized type: [data] [array[,...]] base, or the old form
// base[,...].
type ArgType struct {
	Pos       lexer.Position
	Data      bool     `parser:"@\"data\"?"`
	Array     bool     `parser:"( @\"array\" \"[\""`
	Commas    []string `parser:"  @\",\"* \"]\" )?"`
	Base      string   `parser:"@TypeWord"`
	Old       bool     `parser:"( @\"[\""`
	OldCommas []string `parser:"  @\",\"* \"]\" )?"`
}

// Dims is the number of array dimensions.
func (t *ArgType) Dims() int {
	n := 0
	if t.Array {
		n += len(t.Commas) + 1
	}
	if t.Old {
		n += len(t.OldCommas) + 1
	}
	return n
}

// Type is a sized type: [array[dims]] base [<bounds>] [[sizes]].
type Type struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Array  []*Expr  `parser:"( \"array\" \"[\" @@ ( \",\" @@ )* \"]\" )?"`
	Base   string   `parser:"@TypeWord"`
	Bounds []*Bound `parser:"( \"<\" @@ ( \",\" @@ )* \">\" )?"`
	Sizes  []*Expr  `parser:"( \"[\" @@ ( \",\" @@ )* \"]\" )?"`
}

// Bound is lower=, upper=, offset= or multiplier=. Its value is an
// expression without comparisons, so that the closing > ends it.
type Bound struct {
	Pos   lexer.Position
	Which string      `parser:"@( \"lower\" | \"upper\" | \"offset\" | \"multiplier\" ) \"=\""`
	Value *BoundChain `parser:"@@"`
}

// BoundChain is the expression of a bound: operands joined by the
// arithmetic operators only (a comparison would take the closing >).
type BoundChain struct {
	Pos  lexer.Position
	Left *Unary     `parser:"@@"`
	Rest []*BoundOp `parser:"@@*"`
}

// BoundOp is an arithmetic operator and its right operand.
type BoundOp struct {
	Pos lexer.Position
	Op  string `parser:"@( \"+\" | \"-\" | \"*\" | \"/\" | \"%/%\" | \"%\" | \"\\\\\" | \".*\" | \"./\" )"`
	X   *Unary `parser:"@@"`
}

// Decl is a variable declaration: type name [old sizes] [= init], and
// more names of the same type after commas (real a, b = 2;).
type Decl struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Type   *Type         `parser:"@@"`
	First  *Declarator   `parser:"@@"`
	More   []*Declarator `parser:"( \",\" @@ )* \";\""`
}

// Declarator is one name of a declaration.
type Declarator struct {
	Pos  lexer.Position
	Name string  `parser:"@Ident"`
	Old  []*Expr `parser:"( \"[\" @@ ( \",\" @@ )* \"]\" )?"`
	Init *Expr   `parser:"( \"=\" @@ )?"`
}

// Stmt is a statement; exactly one field is non-nil (or Empty is set).
type Stmt struct {
	Pos      lexer.Position
	EndPos   lexer.Position
	Decl     *Decl   `parser:"(  (?= TypeWord | \"array\" ) @@"`
	For      *For    `parser:" | @@"`
	While    *While  `parser:" | @@"`
	If       *If     `parser:" | @@"`
	Target   *Expr   `parser:" | \"target\" \"+=\" @@ \";\""`
	Break    bool    `parser:" | @\"break\" \";\""`
	Continue bool    `parser:" | @\"continue\" \";\""`
	Return   *Return `parser:" | @@"`
	Block    *Scope  `parser:" | @@"`
	Profile  *Scope  `parser:" | \"profile\" \"(\" String \")\" @@"`
	Empty    bool    `parser:" | @\";\""`
	Simple   *Simple `parser:" | @@ )"`
}

// Return is return [expr];
type Return struct {
	Pos   lexer.Position
	Value *Expr `parser:"\"return\" @@? \";\""`
}

// Scope is { statements }.
type Scope struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Body   []*Stmt `parser:"\"{\" @@* \"}\""`
}

// For is for (v in lo:hi) body, or for (v in container) body (Hi nil).
type For struct {
	Pos  lexer.Position
	Var  string `parser:"\"for\" \"(\" @Ident \"in\""`
	Lo   *Expr  `parser:"@@"`
	Hi   *Expr  `parser:"( \":\" @@ )? \")\""`
	Body *Stmt  `parser:"@@"`
}

// While is while (cond) body.
type While struct {
	Pos  lexer.Position
	Cond *Expr `parser:"\"while\" \"(\" @@ \")\""`
	Body *Stmt `parser:"@@"`
}

// If is if (cond) then [else else].
type If struct {
	Pos  lexer.Position
	Cond *Expr `parser:"\"if\" \"(\" @@ \")\""`
	Then *Stmt `parser:"@@"`
	Else *Stmt `parser:"( \"else\" @@ )?"`
}

// Simple is lhs ~ dist(args) [T[lo, hi]]; lhs op= expr; or a call
// statement (an expression alone, Expr).
type Simple struct {
	Pos    lexer.Position
	EndPos lexer.Position
	LHS    *Expr  `parser:"@@"`
	Tilde  *Call  `parser:"(  \"~\" @@"`
	Trunc  *Trunc `parser:"    @@?"`
	Op     string `parser:" | @( \"=\" | \"+=\" | \"-=\" | \"*=\" | \"/=\" | \".*=\" | \"./=\" | \"<-\" )"`
	Value  *Expr  `parser:"   @@ )? \";\""`
}

// Trunc is a truncation T[lo, hi] (either end may be empty).
type Trunc struct {
	Pos lexer.Position
	Lo  *Expr `parser:"\"T\" \"[\" @@?"`
	Hi  *Expr `parser:"\",\" @@? \"]\""`
}

// Expr is a chain of binary operators (flat as written; Lower applies
// Stan's precedences) and, optionally, a conditional c ? a : b.
type Expr struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Chain  *Chain `parser:"@@"`
	Then   *Expr  `parser:"( \"?\" @@"`
	Else   *Expr  `parser:"  \":\" @@ )?"`
}

// Chain is operands joined by binary operators.
type Chain struct {
	Pos  lexer.Position
	Left *Unary `parser:"@@"`
	Rest []*OpX `parser:"@@*"`
}

// OpX is a binary operator and its right operand.
type OpX struct {
	Pos lexer.Position
	Op  string `parser:"@( \"||\" | \"&&\" | \"==\" | \"!=\" | \"<=\" | \">=\" | \"<\" | \">\" | \"+\" | \"-\" | \"*\" | \"/\" | \"%/%\" | \"%\" | \"\\\\\" | \".*\" | \"./\" )"`
	X   *Unary `parser:"@@"`
}

// Unary is a prefixed operand (-x, +x, !x) or a power.
type Unary struct {
	Pos   lexer.Position
	Op    string `parser:"(  @( \"-\" | \"+\" | \"!\" )"`
	X     *Unary `parser:"   @@"`
	Power *Power `parser:" | @@ )"`
}

// Power is base [^ exponent] (or .^); the exponent is a Unary, so a^b^c is
// a^(b^c).
type Power struct {
	Pos  lexer.Position
	Base *Postfix `parser:"@@"`
	Op   string   `parser:"( @( \"^\" | \".^\" )"`
	Exp  *Unary   `parser:"  @@ )?"`
}

// Postfix is a primary with indexes and transposes, in order.
type Postfix struct {
	Pos  lexer.Position
	Prim *Primary `parser:"@@"`
	Ops  []*Post  `parser:"@@*"`
}

// Post is one index [...] or a transpose '.
type Post struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Index  []*Slot `parser:"(  \"[\" @@ ( \",\" @@ )* \"]\""`
	Trans  bool    `parser:" | @\"'\" )"`
}

// Slot is an index or a range lo:hi (either end may be omitted).
type Slot struct {
	Pos   lexer.Position
	Lo    *Expr `parser:"@@?"`
	Colon bool  `parser:"( @\":\""`
	Hi    *Expr `parser:"  @@? )?"`
}

// Primary is a literal, a call, a name, a parenthesised expression, an
// array literal {a, b} or a row-vector literal [a, b].
type Primary struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Imag   *string `parser:"(  @Imag"`
	Number *string `parser:" | @Number"`
	String *string `parser:" | @String"`
	Call   *Call   `parser:" | (?= Ident \"(\") @@"`
	Ident  *string `parser:" | @Ident"`
	Paren  *Expr   `parser:" | \"(\" @@ \")\""`
	Array  []*Expr `parser:" | \"{\" @@ ( \",\" @@ )* \"}\""`
	Row    []*Expr `parser:" | \"[\" ( @@ ( \",\" @@ )* )? \"]\" )"`
}

// Call is name(args) or name(y | args).
type Call struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Name   string  `parser:"@Ident \"(\""`
	Args   []*Expr `parser:"( @@ ( \",\" @@ )* )?"`
	Bar    bool    `parser:"( @\"|\""`
	Given  []*Expr `parser:"  ( @@ ( \",\" @@ )* )? )? \")\""`
}
