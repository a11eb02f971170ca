package lang

import (
	"fmt"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// The concrete syntax tree (CST) below is filled in by participle. Every
// node records where it starts (Pos) and most record where they end
// (EndPos, the position just after the last token), both as participle
// positions carrying the file name; Position and End convert them to
// lang.Pos. Participle requires the
// field to be called Pos, so the accessor is Position() rather than Pos().
//
// Alternatives are structs with exactly one non-nil alternative field
// (Item, Stmt, Simple's right-hand side, Unary, Primary, From). The tree is
// syntax only: later stages lower it to their own IR and never evaluate it.

// Node is implemented by every CST node.
type Node interface {
	// Position is where the node starts.
	Position() Pos
	// End is the position just after the node's last token.
	End() Pos
}

// File is a parsed .msc file: its blocks in source order. Parse guarantees
// that block names are known, that no block appears twice and that a model
// block is present.
type File struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Blocks []*Block `parser:"@@*"`
	// Name is the file name given to Parse.
	Name string
}

// Block is one of the kinds of BlockKinds (functions, data, param, latent,
// transformed, model, derived, infer): Kind "{" Items "}".
type Block struct {
	Pos    lexer.Position
	Kind   string  `parser:"@Ident \"{\""`
	Items  []*Item `parser:"@@*"`
	EndPos lexer.Position
	Close  string `parser:"\"}\""`
}

// Item is a declaration or a statement; exactly one field is non-nil.
// Which ones a block accepts is checked by package ir; the items of an
// infer block are settings (a Simple assignment of a literal).
type Item struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Decl   *Decl    `parser:"  (?= Ident \":\") @@"`
	Func   *FuncDef `parser:"| (?= Ident \"(\" (Ident \":\" | \")\" \"->\")) @@"`
	Stmt   *Stmt    `parser:"| @@"`
}

// FuncDef is a user function in the functions block:
// name(x: real, v: vector) -> real { statements; return expr }, or a
// void one, name(x: real) -> void { statements } (Void set, Result nil),
// which returns nothing and is called as a statement, name(args).
type FuncDef struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Name   string   `parser:"@Ident \"(\""`
	Params []*Param `parser:"( @@ ( \",\" @@ )* )? \")\" \"->\""`
	Void   bool     `parser:"( @\"void\""`
	Result *Type    `parser:"| @@ ) \"{\""`
	Body   []*Stmt  `parser:"@@* \"}\""`
}

// Param is a function parameter name: type (sizes are not given: vector,
// matrix, and Stan's unsized arrays array[] real, array[,] real,
// array[] vector).
type Param struct {
	Pos    lexer.Position
	Name   string   `parser:"@Ident \":\""`
	Array  bool     `parser:"( @\"array\" \"[\""`
	Commas []string `parser:"  @\",\"* \"]\" )?"`
	Base   BaseType `parser:"@(\"int\" | \"real\" | \"vector\" | \"row_vector\" | \"matrix\")"`
}

// ArrayDims is the number of array dimensions of the parameter (0 when it
// is not an array).
func (p *Param) ArrayDims() int {
	if !p.Array {
		return 0
	}
	return len(p.Commas) + 1
}

// Decl is name: type [from ...] [standardized] [= init] [;].
type Decl struct {
	Pos          lexer.Position
	EndPos       lexer.Position
	Name         string `parser:"@Ident \":\""`
	Type         *Type  `parser:"@@"`
	From         *From  `parser:"( \"from\" @@ )?"`
	Standardized bool   `parser:"@\"standardized\"?"`
	Init         *Expr  `parser:"( \"=\" @@ )?"`
	Semi         bool   `parser:"@\";\"?"`
}

// Type is a base type (int, real, vector, row_vector, matrix) with optional bounds and
// sizes. Bounds come before the sizes, as in Stan: vector<lower=0>[N].
// An array type (Stan's array[N] real, array[N, M] real<lower=0>,
// array[K] simplex[K]) has its sizes in Array and its element type in the
// other fields; a function's result type may be unsized (array[] real:
// IsArray with no Array sizes, Unsized holding the commas of array[,]).
type Type struct {
	Pos     lexer.Position
	EndPos  lexer.Position
	IsArray bool     `parser:"( @\"array\" \"[\""`
	Array   []*Expr  `parser:"  ( @@ ( \",\" @@ )* \"]\""`
	Unsized []string `parser:"  | @\",\"* \"]\" ) )?"`
	Base    BaseType `parser:"@(\"int\" | \"real\" | \"vector\" | \"row_vector\" | \"matrix\" | \"simplex\" | \"ordered\" | \"positive_ordered\" | \"cholesky_factor_corr\")"`
	Bounds  []*Bound `parser:"( \"<\" @@ ( \",\" @@ )* \">\" )?"`
	Dims    []*Expr  `parser:"( \"[\" @@ ( \",\" @@ )* \"]\" )?"`
	// After is always empty in a File returned by Parse: bounds written
	// after the sizes (vector[N]<lower=0>) are reported as an error.
	After []*Bound `parser:"( \"<\" @@ ( \",\" @@ )* \">\" )?"`
}

// ArrayDims is the number of array dimensions (0 when the type is not an
// array).
func (t *Type) ArrayDims() int {
	switch {
	case !t.IsArray:
		return 0
	case len(t.Array) > 0:
		return len(t.Array)
	}
	return len(t.Unsized) + 1
}

// AllBounds returns the bounds of the type.
func (t *Type) AllBounds() []*Bound { return append(append([]*Bound(nil), t.Bounds...), t.After...) }

// Lower returns the lower bound expression, or nil.
func (t *Type) Lower() *Expr { return t.bound("lower") }

// Upper returns the upper bound expression, or nil.
func (t *Type) Upper() *Expr { return t.bound("upper") }

func (t *Type) bound(which string) *Expr {
	for _, b := range t.AllBounds() {
		if b.Which == which {
			return b.Value
		}
	}
	return nil
}

// Bound is lower=expr, upper=expr, offset=expr or multiplier=expr (the
// affine transform x = offset + multiplier * u of a latent). Parse rejects
// a bound given twice.
type Bound struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Which  string `parser:"@(\"lower\" | \"upper\" | \"offset\" | \"multiplier\") \"=\""`
	Value  *Expr  `parser:"@@"`
}

// From selects CSV columns for a data declaration: either all columns
// except some (AllExcept non-empty) or one name or header glob (Column).
type From struct {
	Pos       lexer.Position
	EndPos    lexer.Position
	AllExcept []string `parser:"(  \"all\" \"except\" @String ( \",\" @String )*"`
	Column    *string  `parser:" | @String )"`
}

// Stmt is a statement: exactly one of Decl (a local declaration, in the
// model block), For, If, Target, Return, Message, Scope and Simple is
// non-nil.
type Stmt struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Decl   *Decl  `parser:"(  (?= Ident \":\") @@"`
	For    *For   `parser:" | @@"`
	While  *While `parser:" | @@"`
	If     *If    `parser:" | @@"`
	// Break and Continue end a loop's iteration (and the loop)
	Break    bool  `parser:" | @\"break\""`
	Continue bool  `parser:" | @\"continue\""`
	Target   *Expr `parser:" | \"target\" \"+=\" @@"`
	Return   *Expr `parser:" | \"return\" @@"`
	// Message is before Scope and Simple: print( and reject( start it
	// (the lookahead leaves print and reject usable as names elsewhere)
	Message *Message `parser:" | (?= (\"print\" | \"reject\") \"(\") @@"`
	Scope   *Scope   `parser:" | @@"`
	Simple  *Simple  `parser:" | @@ )"`
	Semi    bool     `parser:"@\";\"?"`
}

// Braced reports whether the statement ends with a closing brace of its
// own (a loop or a scope), after which the next statement may follow on
// the same line.
func (s *Stmt) Braced() bool { return s.For != nil || s.While != nil || s.Scope != nil }

// HasSemi reports whether the statement ends with ";" (a declaration's
// own, or the statement's).
func (s *Stmt) HasSemi() bool { return s.Semi || s.Decl != nil && s.Decl.Semi }

// Message is Stan's print(args) or reject(args) statement: Kind is
// "print" or "reject", Args the printables, strings (a Primary's String)
// or expressions, written one after the other. print writes them to
// stderr; reject rejects the draw (the model block) or stops (data and
// derived statements) with them as the message.
type Message struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Kind   string  `parser:"@(\"print\" | \"reject\") \"(\""`
	Args   []*Expr `parser:"( @@ ( \",\" @@ )* )? \")\""`
}

// Scope is { statements }: a block of statements whose declarations are
// local to it, as in Stan.
type Scope struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Body   []*Stmt `parser:"\"{\" @@* \"}\""`
}

// If is if cond { body } [else if ... | else { body }].
type If struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Cond   *Expr   `parser:"\"if\" @@ \"{\""`
	Then   []*Stmt `parser:"@@* \"}\""`
	ElseIf *If     `parser:"( \"else\" ( @@"`
	Else   []*Stmt `parser:"  | \"{\" @@* \"}\" ) )?"`
}

// For is for v in lo..hi { body }, with inclusive bounds.
type For struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Var    string  `parser:"\"for\" @Ident \"in\""`
	Lo     *Expr   `parser:"@@ \"..\""`
	Hi     *Expr   `parser:"@@ \"{\""`
	Body   []*Stmt `parser:"@@* \"}\""`
}

// While is while cond { body }: the body runs while cond is not 0.
type While struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Cond   *Expr   `parser:"\"while\" @@ \"{\""`
	Body   []*Stmt `parser:"@@* \"}\""`
}

// Simple is lhs ~ dist(args) (Tilde non-nil), lhs = expr (Assign
// non-nil) or a compound assignment lhs += expr (Compound is the operator
// "+=", "-=", "*=" or "/=", and Value the expression), or, with none of
// them, lhs alone: a call of a void function, name(args).
type Simple struct {
	Pos      lexer.Position
	EndPos   lexer.Position
	LHS      *Expr  `parser:"@@"`
	Tilde    *Call  `parser:"(  \"~\" @@"`
	Assign   *Expr  `parser:" | \"=\" @@"`
	Compound string `parser:" | @(\"+=\" | \"-=\" | \"*=\" | \"/=\")"`
	Value    *Expr  `parser:"   @@ )?"`
}

// Expr is a chain of terms joined by binary operators of the lowest
// precedences (|| && == != < <= > >= + -), flat as written: the resolver
// applies the precedences (Stan's: || below &&, below equality, below
// comparison, below + and -); then, optionally, the conditional operator
// cond ? Then : Else, below all of them and right-associative.
type Expr struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Left   *Term     `parser:"@@"`
	Rest   []*OpTerm `parser:"@@*"`
	Then   *Expr     `parser:"( \"?\" @@"`
	Else   *Expr     `parser:"  \":\" @@ )?"`
}

// OpTerm is an operator and a term: + - == != <= >= && || < >. A < or >
// must be followed by the start of a term and not by a declaration, so
// that the closing > of a type's bounds is not read as a comparison.
type OpTerm struct {
	Pos  lexer.Position
	Op   string `parser:"(  @(\"+\" | \"-\" | \"==\" | \"!=\" | \"<=\" | \">=\" | \"&&\" | \"||\")"`
	Cmp  string `parser:" | (?= (\"<\" | \">\") (Ident | Number | \"(\" | \"-\" | \"+\" | \"!\")) (?! (\"<\" | \">\") (\"for\" Ident \"in\" | (\"print\" | \"reject\") \"(\" | Ident (\":\" | \"=\" | \"+=\" | \"-=\" | \"*=\" | \"/=\") | \"from\" | \"standardized\")) @(\"<\" | \">\") )"`
	Term *Term  `parser:"@@"`
}

// Operator is the operator as written.
func (o *OpTerm) Operator() string { return o.Op + o.Cmp }

// Term is a product of unary expressions, left-associative.
type Term struct {
	Pos  lexer.Position
	Left *Unary     `parser:"@@"`
	Rest []*OpUnary `parser:"@@*"`
}

// OpUnary is "* x", "/ x", "% x" (the remainder of integers), "%/% x"
// (the integer quotient), ".* x" or "./ x".
type OpUnary struct {
	Pos lexer.Position
	Op  string `parser:"@(\"*\" | \"/\" | \"%/%\" | \"%\" | \".*\" | \"./\")"`
	X   *Unary `parser:"@@"`
}

// Unary is a signed expression (Op and X) or a power (Power).
type Unary struct {
	Pos   lexer.Position
	Op    string `parser:"(  @(\"-\" | \"+\" | \"!\")"`
	X     *Unary `parser:"   @@"`
	Power *Power `parser:" | @@ )"`
}

// Power is base [^ exponent]. The exponent is a Unary, so a^b^c is
// a^(b^c) and 2^-1 is allowed; -x^2 is -(x^2) because the sign is parsed
// by Unary above Power.
type Power struct {
	Pos  lexer.Position
	Base *Postfix `parser:"@@"`
	Exp  *Unary   `parser:"( \"^\" @@ )?"`
}

// Postfix is a primary with index suffixes and an optional transpose:
// a[i], a[i, j], a[i][j], X', v'.
type Postfix struct {
	Pos     lexer.Position
	Prim    *Primary `parser:"@@"`
	Indexes []*Index `parser:"@@*"`
	Trans   bool     `parser:"@\"'\"?"`
}

// Index is [s] or [s, s], each slot an index e or a range a:b, a:, :b
// or : (all).
type Index struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Slots  []*Slot `parser:"\"[\" @@ ( \",\" @@ )* \"]\""`
}

// Slot is one index of an Index: Lo alone, or a range Lo:Hi (Colon set;
// either end may be omitted).
type Slot struct {
	Pos   lexer.Position
	Lo    *Expr `parser:"@@?"`
	Colon bool  `parser:"( @\":\""`
	Hi    *Expr `parser:"  @@? )?"`
}

// Args returns the plain indices of ix (nil entries for range slots).
func (ix *Index) Args() []*Expr {
	out := make([]*Expr, len(ix.Slots))
	for i, s := range ix.Slots {
		if !s.Colon {
			out[i] = s.Lo
		}
	}
	return out
}

// Primary is a number, a string, a call, a name, a parenthesised
// expression or an array literal {a, b, c}; exactly one field is non-nil. Number holds the literal as
// written (1, 2.5, 1e-3, .5); String holds the unquoted text.
type Primary struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Number *string `parser:"(  @Number"`
	String *string `parser:" | @String"`
	Call   *Call   `parser:" | (?= Ident \"(\") @@"`
	Ident  *string `parser:" | @Ident"`
	Paren  *Expr   `parser:" | \"(\" @@ \")\""`
	Array  []*Expr `parser:" | \"{\" @@ ( \",\" @@ )* \"}\" )"`
}

// Call is name(args), or name(y | args) for a log density
// (normal_lpdf(y | mu, sigma)): Given holds the arguments after the bar.
type Call struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Name   string  `parser:"@Ident \"(\""`
	Args   []*Expr `parser:"( @@ ( \",\" @@ )* )?"`
	Bar    bool    `parser:"( @\"|\""`
	Given  []*Expr `parser:"  ( @@ ( \",\" @@ )* )? )? \")\""`
}

// ---- positions --------------------------------------------------------------

func (n *File) Position() Pos    { return ToPos(n.Pos) }
func (n *Block) Position() Pos   { return ToPos(n.Pos) }
func (n *Item) Position() Pos    { return ToPos(n.Pos) }
func (n *Decl) Position() Pos    { return ToPos(n.Pos) }
func (n *Type) Position() Pos    { return ToPos(n.Pos) }
func (n *Bound) Position() Pos   { return ToPos(n.Pos) }
func (n *From) Position() Pos    { return ToPos(n.Pos) }
func (n *Stmt) Position() Pos    { return ToPos(n.Pos) }
func (n *For) Position() Pos     { return ToPos(n.Pos) }
func (n *If) Position() Pos      { return ToPos(n.Pos) }
func (n *FuncDef) Position() Pos { return ToPos(n.Pos) }
func (n *Simple) Position() Pos  { return ToPos(n.Pos) }
func (n *Expr) Position() Pos    { return ToPos(n.Pos) }
func (n *OpTerm) Position() Pos  { return ToPos(n.Pos) }
func (n *Term) Position() Pos    { return ToPos(n.Pos) }
func (n *OpUnary) Position() Pos { return ToPos(n.Pos) }
func (n *Unary) Position() Pos   { return ToPos(n.Pos) }
func (n *Power) Position() Pos   { return ToPos(n.Pos) }
func (n *Postfix) Position() Pos { return ToPos(n.Pos) }
func (n *Index) Position() Pos   { return ToPos(n.Pos) }
func (n *Slot) Position() Pos    { return ToPos(n.Pos) }
func (n *Primary) Position() Pos { return ToPos(n.Pos) }
func (n *Call) Position() Pos    { return ToPos(n.Pos) }
func (n *Message) Position() Pos { return ToPos(n.Pos) }

func (n *File) End() Pos    { return ToPos(n.EndPos) }
func (n *Block) End() Pos   { return ToPos(n.EndPos) }
func (n *Item) End() Pos    { return ToPos(n.EndPos) }
func (n *Decl) End() Pos    { return ToPos(n.EndPos) }
func (n *Type) End() Pos    { return ToPos(n.EndPos) }
func (n *Bound) End() Pos   { return ToPos(n.EndPos) }
func (n *From) End() Pos    { return ToPos(n.EndPos) }
func (n *Stmt) End() Pos    { return ToPos(n.EndPos) }
func (n *For) End() Pos     { return ToPos(n.EndPos) }
func (n *If) End() Pos      { return ToPos(n.EndPos) }
func (n *FuncDef) End() Pos { return ToPos(n.EndPos) }
func (n *Simple) End() Pos  { return ToPos(n.EndPos) }
func (n *Expr) End() Pos    { return ToPos(n.EndPos) }

func (n *Index) End() Pos { return ToPos(n.EndPos) }

// End of a slot is the end of its last expression (its start if empty).
func (n *Slot) End() Pos {
	switch {
	case n.Hi != nil:
		return n.Hi.End()
	case n.Lo != nil && !n.Colon:
		return n.Lo.End()
	}
	return ToPos(n.Pos)
}
func (n *Primary) End() Pos { return ToPos(n.EndPos) }
func (n *Call) End() Pos    { return ToPos(n.EndPos) }
func (n *Message) End() Pos { return ToPos(n.EndPos) }

// The operator-level nodes do not store their end, to keep the tree small
// (a name in an expression is six nested nodes); End derives it.

func (n *OpTerm) End() Pos  { return n.Term.End() }
func (n *OpUnary) End() Pos { return n.X.End() }

func (n *Term) End() Pos {
	if k := len(n.Rest); k > 0 {
		return n.Rest[k-1].End()
	}
	return n.Left.End()
}

func (n *Unary) End() Pos {
	if n.Power != nil {
		return n.Power.End()
	}
	return n.X.End()
}

func (n *Power) End() Pos {
	if n.Exp != nil {
		return n.Exp.End()
	}
	return n.Base.End()
}

func (n *Postfix) End() Pos {
	if k := len(n.Indexes); k > 0 {
		return n.Indexes[k-1].End()
	}
	return n.Prim.End()
}

// ---- helpers ----------------------------------------------------------------

// Block returns the block of the given kind, or nil.
func (f *File) Block(kind string) *Block {
	for _, b := range f.Blocks {
		if b.Kind == kind {
			return b
		}
	}
	return nil
}

// primary returns the primary of e if e is a single primary with no
// operator, exponent or index.
func (e *Expr) primary() *Primary {
	if e == nil || len(e.Rest) > 0 || len(e.Left.Rest) > 0 || e.Left.Left.Power == nil {
		return nil
	}
	p := e.Left.Left.Power
	if p.Exp != nil || len(p.Base.Indexes) > 0 {
		return nil
	}
	return p.Base.Prim
}

// Primary returns e's only primary (number, string, call, name or
// parenthesised expression) when e is nothing more than that, else nil.
func (e *Expr) Primary() *Primary { return e.primary() }

// Ident returns the name if e is a bare identifier.
func (e *Expr) Ident() (string, bool) {
	if p := e.primary(); p != nil && p.Ident != nil {
		return *p.Ident, true
	}
	return "", false
}

// StringLit returns the unquoted text if e is a string literal.
func (e *Expr) StringLit() (string, bool) {
	if p := e.primary(); p != nil && p.String != nil {
		return *p.String, true
	}
	return "", false
}

// NumberLit returns the literal text if e is a number literal, with a
// leading "-" if it is a negated one (-1, -0.5).
func (e *Expr) NumberLit() (string, bool) {
	if e == nil || len(e.Rest) > 0 || len(e.Left.Rest) > 0 {
		return "", false
	}
	u, sign := e.Left.Left, ""
	if u.Power == nil {
		if u.X.Power == nil {
			return "", false
		}
		if u.Op == "-" {
			sign = "-"
		}
		u = u.X
	}
	p := u.Power
	if p.Exp != nil || len(p.Base.Indexes) > 0 || p.Base.Prim.Number == nil {
		return "", false
	}
	return sign + *p.Base.Prim.Number, true
}

// BaseType is the base of a declared type (int, real, vector, ...): an
// enum that the parser fills from the type's keyword (Capture), the one
// place its name is compared.
type BaseType int

// The base types, in the order of BaseTypeNames.
const (
	BaseInt BaseType = iota + 1
	BaseReal
	BaseVector
	BaseMatrix
	BaseRowVector
	BaseSimplex
	BaseOrdered
	BasePositiveOrdered
	BaseCholeskyFactorCorr
)

// BaseTypeNames are the base types' keywords, by BaseType.
var BaseTypeNames = [...]string{BaseInt: "int", BaseReal: "real", BaseVector: "vector", BaseMatrix: "matrix",
	BaseRowVector: "row_vector", BaseSimplex: "simplex", BaseOrdered: "ordered", BasePositiveOrdered: "positive_ordered",
	BaseCholeskyFactorCorr: "cholesky_factor_corr"}

// String is the keyword of b.
func (b BaseType) String() string {
	if b <= 0 || int(b) >= len(BaseTypeNames) {
		return "?"
	}
	return BaseTypeNames[b]
}

// ParseBaseType reads a base type's keyword; ok is false for another word.
func ParseBaseType(name string) (b BaseType, ok bool) {
	for i, n := range BaseTypeNames {
		if n != "" && n == name {
			return BaseType(i), true
		}
	}
	return 0, false
}

// Capture lets the parser fill a BaseType from its keyword.
func (b *BaseType) Capture(values []string) error {
	v, ok := ParseBaseType(strings.Join(values, ""))
	if !ok {
		return fmt.Errorf("unknown type %q", strings.Join(values, ""))
	}
	*b = v
	return nil
}

// Vector reports whether b is a vector transform's base (simplex,
// ordered, positive_ordered, cholesky_factor_corr).
func (b BaseType) Vector() bool { return b >= BaseSimplex }

// BlockKind is a kind of block, by its index in BlockKinds.
type BlockKind int

// The kinds of block, in the order of BlockKinds.
const (
	BlockFunctions BlockKind = iota
	BlockData
	BlockParam
	BlockLatent
	BlockTransformed
	BlockModel
	BlockDerived
	BlockInfer
)

// KindOf is the block's kind; ok is false for a word that names none
// (Check reports it).
func (b *Block) KindOf() (k BlockKind, ok bool) {
	for i, n := range BlockKinds {
		if n == b.Kind {
			return BlockKind(i), true
		}
	}
	return 0, false
}

// String is the kind's keyword.
func (k BlockKind) String() string { return BlockKinds[k] }

// CallStmt is the call of a statement name(args) (a call of a void
// function), nil when the statement is not one.
func (sm *Simple) CallStmt() *Call {
	if sm.Tilde != nil || sm.Assign != nil || sm.Compound != "" {
		return nil
	}
	e := sm.LHS
	if e.Then != nil || len(e.Rest) > 0 || len(e.Left.Rest) > 0 || e.Left.Left.Power == nil {
		return nil
	}
	p := e.Left.Left.Power
	if p.Exp != nil || len(p.Base.Indexes) > 0 || p.Base.Trans {
		return nil
	}
	return p.Base.Prim.Call
}

// bare reports whether s is an expression alone that is not a call: a
// statement whose "~" or "=" is missing.
func (s *Stmt) bare() bool {
	sm := s.Simple
	return sm != nil && sm.Tilde == nil && sm.Assign == nil && sm.Compound == "" && sm.CallStmt() == nil
}
