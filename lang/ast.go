package lang

import "github.com/alecthomas/participle/v2/lexer"

// File is a parsed .msc file.
type File struct {
	Pos    lexer.Position
	Blocks []*Block `parser:"@@*"`
	// Name is the file name given to Parse.
	Name string
}

// Block is one of data, param, latent, model, infer.
type Block struct {
	Pos    lexer.Position
	Kind   string  `parser:"@Ident \"{\""`
	Items  []*Item `parser:"@@*"`
	EndPos lexer.Position
	Close  string `parser:"\"}\""`
}

// Item is a declaration or a statement (which ones a block accepts is
// checked by package ir).
type Item struct {
	Pos  lexer.Position
	Decl *Decl `parser:"  @@"`
	Stmt *Stmt `parser:"| @@"`
}

// Decl is name: type [from ...] [standardized] [= init].
type Decl struct {
	Pos          lexer.Position
	Name         string `parser:"@Ident \":\""`
	Type         *Type  `parser:"@@"`
	From         *From  `parser:"( \"from\" @@ )?"`
	Standardized bool   `parser:"@\"standardized\"?"`
	Init         *Expr  `parser:"( \"=\" @@ )?"`
	Semi         bool   `parser:"@\";\"?"`
}

// Type is a base type with optional bounds and sizes.
type Type struct {
	Pos    lexer.Position
	Base   string   `parser:"@(\"int\" | \"real\" | \"vector\" | \"matrix\")"`
	Bounds []*Bound `parser:"( \"<\" @@ ( \",\" @@ )* \">\" )?"`
	Dims   []*Expr  `parser:"( \"[\" @@ ( \",\" @@ )* \"]\" )?"`
	After  []*Bound `parser:"( \"<\" @@ ( \",\" @@ )* \">\" )?"`
}

// AllBounds returns the bounds written before or after the sizes.
func (t *Type) AllBounds() []*Bound { return append(append([]*Bound(nil), t.Bounds...), t.After...) }

// Bound is lower=expr or upper=expr.
type Bound struct {
	Pos   lexer.Position
	Which string `parser:"@(\"lower\" | \"upper\") \"=\""`
	Value *Expr  `parser:"@@"`
}

// From selects CSV columns for a data declaration.
type From struct {
	Pos       lexer.Position
	AllExcept []string `parser:"(  \"all\" \"except\" @String ( \",\" @String )*"`
	Column    *string  `parser:" | @String )"`
}

// Stmt is a statement of the model block (or a setting of the infer block).
type Stmt struct {
	Pos    lexer.Position
	For    *For    `parser:"(  @@"`
	Simple *Simple `parser:" | @@ ) \";\"?"`
}

// For is for v in lo..hi { body }.
type For struct {
	Pos  lexer.Position
	Var  string  `parser:"\"for\" @Ident \"in\""`
	Lo   *Expr   `parser:"@@ \"..\""`
	Hi   *Expr   `parser:"@@ \"{\""`
	Body []*Stmt `parser:"@@* \"}\""`
}

// Simple is lhs ~ dist(args) or lhs = expr.
type Simple struct {
	Pos    lexer.Position
	LHS    *Expr `parser:"@@"`
	Tilde  *Call `parser:"(  \"~\" @@"`
	Assign *Expr `parser:" | \"=\" @@ )"`
}

// Expr is a sum of terms.
type Expr struct {
	Pos  lexer.Position
	Left *Term     `parser:"@@"`
	Rest []*OpTerm `parser:"@@*"`
}

// OpTerm is "+ term" or "- term".
type OpTerm struct {
	Pos  lexer.Position
	Op   string `parser:"@(\"+\" | \"-\")"`
	Term *Term  `parser:"@@"`
}

// Term is a product of unary expressions.
type Term struct {
	Pos  lexer.Position
	Left *Unary     `parser:"@@"`
	Rest []*OpUnary `parser:"@@*"`
}

// OpUnary is "* x" or "/ x".
type OpUnary struct {
	Pos lexer.Position
	Op  string `parser:"@(\"*\" | \"/\")"`
	X   *Unary `parser:"@@"`
}

// Unary is a signed expression or a power.
type Unary struct {
	Pos   lexer.Position
	Op    string `parser:"(  @(\"-\" | \"+\")"`
	X     *Unary `parser:"   @@"`
	Power *Power `parser:" | @@ )"`
}

// Power is base [^ exponent], right-associative.
type Power struct {
	Pos  lexer.Position
	Base *Postfix `parser:"@@"`
	Exp  *Unary   `parser:"( \"^\" @@ )?"`
}

// Postfix is a primary with index suffixes.
type Postfix struct {
	Pos     lexer.Position
	Prim    *Primary `parser:"@@"`
	Indexes []*Index `parser:"@@*"`
}

// Index is [e] or [e, e].
type Index struct {
	Pos  lexer.Position
	Args []*Expr `parser:"\"[\" @@ ( \",\" @@ )* \"]\""`
}

// Primary is a literal, a call, a name or a parenthesised expression.
type Primary struct {
	Pos    lexer.Position
	Number *string `parser:"(  @Number"`
	String *string `parser:" | @String"`
	Call   *Call   `parser:" | @@"`
	Ident  *string `parser:" | @Ident"`
	Paren  *Expr   `parser:" | \"(\" @@ \")\" )"`
}

// Call is name(args).
type Call struct {
	Pos  lexer.Position
	Name string  `parser:"@Ident \"(\""`
	Args []*Expr `parser:"( @@ ( \",\" @@ )* )? \")\""`
}
