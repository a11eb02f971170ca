package ir

import (
	"fmt"
	"math"

	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// Kind is the base kind of a value.
type Kind int

const (
	Int Kind = iota
	Real
	Vector
	Matrix
)

// Type is a fully resolved type: sizes are known integers.
type Type struct {
	Kind       Kind
	Rows, Cols int // Vector: Rows = length; Matrix: Rows x Cols
	// IntElems marks a Vector of integers: int[N] data, whose elements
	// index other vectors; or a local Matrix of integers, int[N, K].
	IntElems bool
	// Array is the number of array dimensions of a Stan-style array
	// (arrays.go), which shares the layout of a vector or matrix:
	// array[N] real (or int) is a Vector with Array 1, array[N, M] real a
	// Matrix with Array 2, array[N] vector[K] (or simplex[K]) a Matrix
	// with Array 1 whose rows are the elements. 0 for vector, matrix and
	// int[N]. It names the type in messages.
	Array int
	// Row marks a Vector (not an array, not of ints) that is a row, Stan's
	// row_vector: a declared row_vector, a row of a matrix (M[i],
	// M[i, :]) or a transposed vector (v'). It has a vector's layout; the
	// resolver reads it for the meaning of products and transposes
	// (r * v is the dot product, r' a column vector), the later stages
	// ignore it.
	Row bool
}

// Scalar reports whether the type is int or real.
func (t Type) Scalar() bool { return t.Kind == Int || t.Kind == Real }

// Len is the number of scalars of a value of this type.
func (t Type) Len() int {
	switch t.Kind {
	case Vector:
		return t.Rows
	case Matrix:
		if t.Rows > 0 && t.Cols > math.MaxInt/t.Rows {
			return math.MaxInt // saturated: every limit on lengths refuses it
		}
		return t.Rows * t.Cols
	}
	return 1
}

func (t Type) String() string {
	if t.Array > 0 {
		return arrayString(t)
	}
	switch t.Kind {
	case Int:
		return "int"
	case Real:
		return "real"
	case Vector:
		if t.IntElems {
			return fmt.Sprintf("int[%d]", t.Rows)
		}
		if t.Row {
			return fmt.Sprintf("row_vector[%d]", t.Rows)
		}
		return fmt.Sprintf("vector[%d]", t.Rows)
	}
	if t.IntElems {
		return fmt.Sprintf("int[%d, %d]", t.Rows, t.Cols)
	}
	return fmt.Sprintf("matrix[%d, %d]", t.Rows, t.Cols)
}

var (
	TInt  = Type{Kind: Int}
	TReal = Type{Kind: Real}
)

func VecType(n int) Type    { return Type{Kind: Vector, Rows: n} }
func RowVecType(n int) Type { return Type{Kind: Vector, Rows: n, Row: true} }
func MatType(r, c int) Type { return Type{Kind: Matrix, Rows: r, Cols: c} }

// IsRow reports whether t is a row_vector.
func (t Type) IsRow() bool { return t.Kind == Vector && t.Row && t.Array == 0 && !t.IntElems }

// IsColumn reports whether t is a (column) vector: not a row, an array or
// of ints.
func (t Type) IsColumn() bool { return t.Kind == Vector && !t.Row && t.Array == 0 && !t.IntElems }

// Oriented is a vector of length n with t's orientation: a row_vector when
// t is one.
func (t Type) Oriented(n int) Type { return Type{Kind: Vector, Rows: n, Row: t.IsRow()} }
func SameShape(a, b Type) bool {
	if a.Scalar() && b.Scalar() {
		return true
	}
	return a.Kind == b.Kind && a.Rows == b.Rows && a.Cols == b.Cols
}

// VarKind says which block declared a variable.
type VarKind int

const (
	DataVar VarKind = iota
	ParamVar
	LatentVar
	LocalVar
	LoopVar
	SizeVar // a size such as N inferred from the data
)

func (k VarKind) String() string {
	return [...]string{"data", "param", "latent", "local", "loop variable", "size"}[k]
}

// Var is a declared name.
type Var struct {
	ID   int
	Name string
	Pos  lang.Pos
	Kind VarKind
	Type Type
	// Bij maps unconstrained space to the declared constraint (params and latents).
	Bij stdlib.Bijection
	// Value holds data values (row-major for matrices) and size values.
	Value []float64
	// Init is the initial value of a param (constrained space).
	Init []float64
	// Offset is the offset of a latent in the unconstrained latent vector,
	// or of a param in the unconstrained param vector.
	Offset int
	// Source describes where data came from ("column \"Class\" of pima.csv").
	Source string
	// DataOnly marks a local computed from data alone (transformed data).
	DataOnly bool
	// Known is the value of a local int known before inference (k: int =
	// rows(x)), which can then be a size; nil once it is assigned again.
	// SizeUse is where it was first used as a size or bound, if it was.
	Known   []float64
	SizeUse *lang.Pos
	// XOffset is the offset of a latent in the constrained latent vector
	// (Compiled.Constrain's output); it differs from Offset when an earlier
	// latent has a vector constraint.
	XOffset int
	// VecBij is a latent's vector constraint (simplex, ordered, ...), and
	// LowerX, UpperX its bounds when they are expressions of data and
	// earlier latents; Bij is the identity then.
	VecBij         stdlib.VecBijection
	LowerX, UpperX Expr
	// OffsetX, MultX are the offset and multiplier of a latent declared
	// with them (x = offset + multiplier * u, log-Jacobian log(multiplier)
	// per element), nil when not given (0 and 1).
	OffsetX, MultX Expr
	// Derived is the expression of a derived quantity (the derived block):
	// a latent of no unconstrained dimension.
	Derived Expr
	// Transformed marks a quantity of the transformed block: the local
	// its statements assign, and the latent that reports it (Derived set,
	// and Check its constraint, nil when it has none).
	Transformed bool
	Check       *Check
}

// KindName is the variable's kind for messages: its Kind, or transformed
// for a quantity of the transformed block.
func (v *Var) KindName() string {
	if v.Transformed {
		return "transformed"
	}
	return v.Kind.String()
}

// Special reports whether a latent's constraint is not elementwise with
// constant bounds (a vector constraint or expression bounds): its
// unconstrained and constrained lengths or values are then not those of
// Bij.
func (v *Var) Special() bool {
	return v.VecBij != nil || v.LowerX != nil || v.UpperX != nil || v.Affine() || v.Derived != nil
}

// Affine reports whether a latent is declared with an offset or a
// multiplier.
func (v *Var) Affine() bool { return v.OffsetX != nil || v.MultX != nil }

// BoundExprs are the expressions a latent's constraint reads: its bounds,
// offset and multiplier (those given).
func (v *Var) BoundExprs() []Expr {
	var out []Expr
	for _, x := range []Expr{v.LowerX, v.UpperX, v.OffsetX, v.MultX} {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

// UDim is the latent's length in unconstrained space.
func (v *Var) UDim() int {
	switch {
	case v.VecBij != nil:
		return v.VecBij.UDim()
	case v.Derived != nil:
		return 0
	}
	return v.Type.Len()
}

// Expr is a typed expression. The set of implementations is closed.
type Expr interface {
	Pos() lang.Pos
	Type() Type
	isExpr()
}

type ExprBase struct {
	P lang.Pos
	T Type
}

func (e ExprBase) Pos() lang.Pos { return e.P }
func (e ExprBase) Type() Type    { return e.T }
func (ExprBase) isExpr()         {}

// Num is a numeric literal.
type Num struct {
	ExprBase
	V float64
}

// Ref is a reference to a variable.
type Ref struct {
	ExprBase
	Var *Var
}

// Index is x[i] or x[i, j] with 1-based integer indices.
type Index struct {
	ExprBase
	X   Expr
	Idx []Expr
}

// Unary is -x.
type Unary struct {
	ExprBase
	X Expr
}

// BinOp is a binary operator.
type BinOp int

const (
	OpAdd BinOp = iota
	OpSub
	OpMul
	OpDiv
	OpPow
	OpEMul // .* elementwise
	OpEDiv // ./ elementwise
	OpMod  // % the remainder of integers, with the sign of the dividend (Stan's, C's)
	OpEq   // comparisons and logic give 0 or 1
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpAnd
	OpOr
)

func (o BinOp) String() string {
	return [...]string{"+", "-", "*", "/", "^", ".*", "./", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||"}[o]
}

// Logical reports whether the operator gives 0 or 1.
func (o BinOp) Logical() bool { return o >= OpEq }

// Not is !x: 1 when x is 0, else 0.
type Not struct {
	ExprBase
	X Expr
}

// Cond is C ? A : B: A where C is not 0, else B. A and B have one type
// (an int branch beside a real one is promoted). When C depends on latents
// or params the value, and the gradient, are those of the branch taken.
type Cond struct {
	ExprBase
	C, A, B Expr
}

// Density is NAME_lpdf(y | args) or NAME_lpmf(y | args): the summed log
// density of y (a scalar or a vector) under a family.
type Density struct {
	ExprBase
	Name string
	Dist *stdlib.Family
	Args []Expr // y first
}

// Binary is x op y. MatVec is set when op is * between a matrix and a vector.
type Binary struct {
	ExprBase
	Op     BinOp
	X, Y   Expr
	MatVec bool
}

// Call is a call of a built-in function on the tape's own operations or
// an elementwise op (exp, Phi, sum, dot, ...): Def is its entry in the
// vocabulary (the canonical one for an alias), Name the name as written.
type Call struct {
	ExprBase
	Name string
	Def  *Function
	Args []Expr
}

// NaryCall is a call of a scalar function of several arguments (pow,
// fmin, log_mix, normal_lcdf, ...), applied elementwise with broadcasting.
// Name is the name as written (Fn.Name is the op's).
type NaryCall struct {
	ExprBase
	Name string
	Fn   *stdlib.NaryFunc
	Args []Expr
	// CDFOf is the family when the call is its NAME_lcdf, NAME_lccdf or
	// NAME_cdf (Args are y and the parameters): in derived quantities its
	// arguments are checked at each draw (RNGError).
	CDFOf *stdlib.Family
}

// Inline is a call of a user function, inlined: its statements (the
// parameters bound to the arguments, then the body) and its result.
type Inline struct {
	ExprBase
	Name   string
	Call   string // the call as written, for messages
	Stmts  []Stmt
	Result Expr
}

// Stmt is a model statement. The set of implementations is closed.
type Stmt interface {
	Pos() lang.Pos
	isStmt()
}

type StmtBase struct{ P lang.Pos }

func (s StmtBase) Pos() lang.Pos { return s.P }
func (StmtBase) isStmt()         {}

// Tilde is lhs ~ dist(args).
type Tilde struct {
	StmtBase
	LHS  Expr
	Dist *stdlib.Family
	Args []Expr
	// Root is the variable at the root of LHS (data or latent).
	Root *Var
	// Text is the statement as written, for messages.
	Text string
}

// Assign is a local definition or reassignment name = expr, or an element
// assignment name[i] = expr (Idx non-nil) of a local vector or matrix.
type Assign struct {
	StmtBase
	Local *Var
	Idx   []Expr
	X     Expr
}

// LocalDecl is name: type [= expr] in the model block.
type LocalDecl struct {
	StmtBase
	Local *Var
	Init  Expr // nil: elements are assigned later
}

// If is if cond { Then } else { Else }; an else-if chain nests in Else.
type If struct {
	StmtBase
	Cond       Expr
	Then, Else []Stmt
}

// Target is target += expr: the sum of expr added to the log density.
type Target struct {
	StmtBase
	X    Expr
	Text string
}

// For is for v in lo..hi { body }; or, when While is not nil, while
// While { body } (Var is then a hidden counter from 1, and Lo and Hi are 1
// and MaxWhile). Loops run when the model is compiled: a while loop's
// condition is known before inference (data, constants, loop variables
// and the locals computed from them).
type For struct {
	StmtBase
	Var    *Var
	Lo, Hi Expr
	Body   []Stmt
	While  Expr
}

// MaxWhile bounds the iterations of a while loop.
const MaxWhile = 100000

// Jump is break (Break set) or continue: it ends the iteration of the
// innermost loop, and with break the loop.
type Jump struct {
	StmtBase
	Break bool
}

// Word is the statement's keyword.
func (j *Jump) Word() string {
	if j.Break {
		return "break"
	}
	return "continue"
}

// HasJump is the first break or continue of body that ends an iteration
// of a loop around body (one inside a nested loop ends that loop's), or
// nil.
func HasJump(body []Stmt) *Jump {
	for _, s := range body {
		switch s := s.(type) {
		case *Jump:
			return s
		case *If:
			if j := HasJump(s.Then); j != nil {
				return j
			}
			if j := HasJump(s.Else); j != nil {
				return j
			}
		}
	}
	return nil
}

// Settings are inference settings given in the model's infer block.
type Settings map[string]SettingValue

// SettingValue is a literal in the infer block. Package infer checks the
// keys and the values (infer.Settings).
type SettingValue struct {
	Pos   lang.Pos
	Num   float64
	Str   string
	IsStr bool

	KeyPos lang.Pos // the key's position
}

// Model is a resolved, type-checked model bound to its data.
type Model struct {
	File    string
	Vars    []*Var // all variables, indexed by ID
	Data    []*Var
	Params  []*Var
	Latents []*Var
	Body    []Stmt
	// Derived are the statements of the derived block, run after Body;
	// the derived quantities (latents with Derived set) are their values.
	Derived  []Stmt
	Settings Settings
	// LatentDim and ParamDim are the lengths of the unconstrained vectors;
	// XDim is the length of the constrained latent vector.
	LatentDim, ParamDim, XDim int
	// Notes are remarks on the model that are not errors, each
	// "file:line:col: text" (a ~ on a non-linear transform of a latent).
	Notes []string
}

// SizeError refuses, before anything is allocated for them (ir/lower
// asks first), latents and params whose values together exceed limit
// elements: a latent vector[N] with N = 10^10 from the data is an error
// at its declaration, not an exhausted memory.
func (m *Model) SizeError(limit int) error {
	total := 0
	for _, v := range m.Vars {
		if v.Kind != LatentVar && v.Kind != ParamVar {
			continue
		}
		total += v.Type.Len()
		if total > limit || m.LatentDim+m.ParamDim > limit && total >= m.LatentDim+m.ParamDim {
			return lang.ErrorList{lang.Errorf(v.Pos, "%s has %d elements, which bring the latents and params to %d, more than the limit of %d (2 GiB of float64); reduce the sizes", v.Name, v.Type.Len(), max(total, m.LatentDim+m.ParamDim), limit)}
		}
	}
	return nil
}
