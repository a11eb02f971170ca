package check

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/dataset"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// builds counts the calls of Build or BuildJSON, for the tests that check
// that a run builds its model once.
var builds atomic.Int64

// Builds is the number of Build and BuildJSON calls so far in this
// process: a test's measure of how often a run builds its model.
func Builds() int64 { return builds.Load() }

// Build resolves names, checks types and shapes, and binds the data block
// to the table (which may be nil for models without CSV data).
func Build(f *lang.File, table *dataset.Table) (*ir.Model, error) {
	return build(f, &resolver{table: table})
}

// build runs a resolver given its data source.
func build(f *lang.File, r *resolver) (*ir.Model, error) {
	builds.Add(1)
	r.file, r.m, r.global = f.Name, &ir.Model{File: f.Name, Settings: ir.Settings{}}, map[string]*ir.Var{}
	r.elemAssigned = map[*ir.Var]bool{}
	r.run(f)
	if len(r.errs) > 0 {
		r.errs.Sort()
		return nil, r.errs
	}
	return r.m, nil
}

type resolver struct {
	file   string
	m      *ir.Model
	errs   lang.ErrorList
	global map[string]*ir.Var
	scopes []map[string]*ir.Var
	table  *dataset.Table
	json   *dataset.JSONData // the data file when it is JSON (then table is nil)
	// names assigned anywhere in the model block, for "used before defined"
	assigned map[string]lang.Pos
	model    *lang.Block
	// unknownHint, when set, is the hint of an unknown name without a
	// close match (CompileExpr's)
	unknownHint string
	// prelude are the transformed data (name = expr in the data block),
	// run before the model body
	prelude []ir.Stmt
	// funcs are the user functions by name; depth counts nested inlining
	funcs map[string]*lang.FuncDef
	depth int
	// called are the user functions some statement calls (the others are
	// checked on their own, uncalled.go)
	called map[string]bool
	// inODE names the ODE call whose right-hand side is being resolved
	// ("" outside one), for the statements refused there, and inODEDepth
	// is depth in the right-hand side's own body
	inODE      string
	inODEDepth int
	// repeats counts the inlined calls whose errors repeated another
	// call's and were dropped (functions.go)
	repeats int
	// intDivNoted are the int divisions noted (a function's body and a
	// declaration are resolved more than once)
	intDivNoted map[lang.Pos]bool
	// inDerived is set while the derived block is resolved (NAME_rng is
	// allowed there only)
	inDerived bool
	// anyBlock is set while an uncalled function is resolved
	// (uncalled.go): its statements may be those of any block (~, target
	// +=, NAME_rng)
	anyBlock bool
	// arrayType is the array type as written while the declaration of
	// its representation is resolved (arrays.go), for messages
	arrayType *lang.Type
	// inData is set while the data block's statements are resolved (no ~
	// or target += there)
	inData bool
	// inTransformed is set while the transformed block is resolved (no ~
	// or target += there, but in the functions it calls), and sealed are
	// its quantities, which no other block assigns (transformed.go)
	inTransformed bool
	sealed        map[*ir.Var]bool
	// localChecks are the declarations of the constrained locals,
	// pendingChecks those declared in the statement lists being resolved,
	// innermost last, and elemAssigned those assigned element by element
	// (transformed.go)
	localChecks   map[*ir.Var]*lang.Decl
	pendingChecks []*ir.Var
	elemAssigned  map[*ir.Var]bool
	// loops counts the loops around the statement being resolved (break
	// and continue belong in one)
	loops int
}

func (r *resolver) at(p lexer.Position) lang.Pos {
	q := lang.ToPos(p)
	if q.File == "" {
		q.File = r.file
	}
	return q
}

func (r *resolver) errorf(p lang.Pos, format string, args ...any) *lang.Error {
	return r.errs.Addf(p, format, args...)
}

func (r *resolver) newVar(name string, p lang.Pos, kind ir.VarKind, t ir.Type) *ir.Var {
	v := &ir.Var{ID: len(r.m.Vars), Name: name, Pos: p, Kind: kind, Type: t}
	r.m.Vars = append(r.m.Vars, v)
	return v
}

func (r *resolver) declare(v *ir.Var) {
	if old, ok := r.global[v.Name]; ok {
		r.errorf(v.Pos, "%s is already declared as %s at %d:%d", v.Name, old.Kind, old.Pos.Line, old.Pos.Col)
		return
	}
	r.global[v.Name] = v
}

func (r *resolver) run(f *lang.File) {
	var blocks [lang.BlockInfer + 1]*lang.Block
	for _, b := range f.Blocks {
		p := r.at(b.Pos)
		kind, known := b.KindOf()
		if !known {
			e := r.errorf(p, "unknown block %q; the blocks are %s", b.Kind, lang.BlockList())
			if s := lang.Suggest(b.Kind, lang.BlockKinds); s != "" {
				e.Hint = fmt.Sprintf("did you mean %q?", s)
			}
			continue
		}
		if old := blocks[kind]; old != nil {
			r.errorf(p, "duplicate %s block (the first is at %d:%d); merge them", b.Kind, old.Pos.Line, old.Pos.Column)
			continue
		}
		blocks[kind] = b
	}
	if len(r.errs) > 0 {
		return
	}
	if blocks[lang.BlockModel] == nil {
		r.errorf(lang.Pos{File: r.file, Line: 1, Col: 1}, "the file has no model { ... } block")
		return
	}
	if b := blocks[lang.BlockFunctions]; b != nil {
		r.functions(b)
	}
	if b := blocks[lang.BlockData]; b != nil {
		r.decls(b, ir.DataVar)
		if len(r.errs) > 0 {
			return // later declarations use the sizes the data would give
		}
	}
	if b := blocks[lang.BlockParam]; b != nil {
		r.decls(b, ir.ParamVar)
	}
	if b := blocks[lang.BlockLatent]; b != nil {
		r.decls(b, ir.LatentVar)
	}
	if len(r.errs) > 0 {
		return
	}
	r.model = blocks[lang.BlockModel]
	r.assigned = map[string]lang.Pos{}
	body := r.prelude
	if b := blocks[lang.BlockTransformed]; b != nil {
		collectAssigned(b.Items, r.assigned, r)
		body = append(body, r.transformed(b)...)
	}
	collectAssigned(r.model.Items, r.assigned, r)
	r.m.Body = append(body, r.stmtsOfItems(r.model.Items)...)
	if b := blocks[lang.BlockDerived]; b != nil {
		r.derived(b)
	}
	if len(r.errs) == 0 {
		r.uncalled()
	}
	if b := blocks[lang.BlockInfer]; b != nil {
		r.settings(b)
	}
}

func collectAssigned(items []*lang.Item, out map[string]lang.Pos, r *resolver) {
	var walk func(ss []*lang.Stmt)
	walk = func(ss []*lang.Stmt) {
		for _, s := range ss {
			if s.For != nil {
				walk(s.For.Body)
			} else if s.While != nil {
				walk(s.While.Body)
			} else if s.Scope != nil {
				walk(s.Scope.Body)
			} else if s.Simple != nil && s.Simple.Assign != nil {
				if name, ok := plainName(s.Simple.LHS); ok {
					if _, seen := out[name]; !seen {
						out[name] = r.at(s.Pos)
					}
				}
			}
		}
	}
	var ss []*lang.Stmt
	for _, it := range items {
		if it.Stmt != nil {
			ss = append(ss, it.Stmt)
		}
	}
	walk(ss)
}

// plainName reports whether e is a bare identifier.
func plainName(e *lang.Expr) (string, bool) {
	if len(e.Rest) > 0 || len(e.Left.Rest) > 0 || e.Left.Left.Power == nil {
		return "", false
	}
	p := e.Left.Left.Power
	if p.Exp != nil || len(p.Base.Indexes) > 0 || p.Base.Prim.Ident == nil {
		return "", false
	}
	return *p.Base.Prim.Ident, true
}

// ---- declarations -----------------------------------------------------------

func (r *resolver) decls(b *lang.Block, kind ir.VarKind) {
	if kind == ir.DataVar {
		r.dataBlock(b)
		return
	}
	for _, it := range b.Items {
		if it.Stmt != nil && kind == ir.DataVar {
			r.transformedData(it.Stmt)
			continue
		}
		if it.Stmt != nil {
			r.errorf(r.at(it.Pos), "a %s block holds declarations (name: type); statements belong in the model block", b.Kind)
			continue
		}
		r.decl(it.Decl, kind)
	}
}

func (r *resolver) decl(d *lang.Decl, kind ir.VarKind) {
	if d.Type.Base == lang.BaseRowVector {
		r.rowDecl(d, func(vd *lang.Decl) ir.Stmt { r.decl(vd, kind); return nil })
		return
	}
	p := r.at(d.Pos)
	tp := r.at(d.Type.Pos)
	base := d.Type.Base
	if d.Type.IsArray {
		r.arrayDecl(d, kind)
		return
	}
	if vb, ok := stdlib.LookupVecBijection(base.String()); ok {
		r.vecLatent(d, kind, vb)
		return
	}
	ndims := len(d.Type.Dims)
	want := map[lang.BaseType]int{lang.BaseInt: 0, lang.BaseReal: 0, lang.BaseVector: 1, lang.BaseMatrix: 2}[base]
	if base == lang.BaseInt && ndims == 1 {
		want = 1 // an integer array, int[N]
	}
	if ndims != want {
		switch base {
		case lang.BaseInt:
			r.errorf(tp, "int takes no size (a scalar) or one (an integer array, as in int[N])")
		case lang.BaseReal:
			r.errorf(tp, "%s is a scalar type and takes no size", base)
		case lang.BaseVector:
			r.errorf(tp, "vector needs one size, as in vector[N]")
		default:
			r.errorf(tp, "matrix needs two sizes, as in matrix[N, D]")
		}
		return
	}
	if kind != ir.DataVar && d.From != nil {
		r.errorf(r.at(d.From.Pos), "only data can come from a CSV column")
		return
	}
	if kind != ir.DataVar && d.Standardized {
		r.errorf(p, "only data can be standardized")
		return
	}
	if kind == ir.LatentVar && d.Init != nil {
		r.errorf(r.at(d.Init.Pos), "latent %s cannot have a value: its value is what inference is about (only params take an initial value)", d.Name)
		return
	}
	if kind != ir.DataVar && base == lang.BaseInt {
		r.errorf(tp, "%s %s must be continuous (real, vector); int is for data", kind, d.Name)
		return
	}
	if kind == ir.LatentVar && r.exprBounds(d.Type) {
		r.boundedLatent(d, p)
		return
	}
	bij, ok := r.bounds(d.Type)
	if !ok {
		return
	}
	if kind == ir.DataVar {
		r.dataDecl(d, p, bij)
		return
	}
	// sizes of params and latents are constant expressions of known sizes
	t := ir.Type{Kind: ir.Real}
	switch base {
	case lang.BaseVector:
		n, ok := r.sizeExpr(d.Type.Dims[0])
		if !ok {
			return
		}
		t = ir.VecType(n)
	case lang.BaseMatrix:
		rows, ok1 := r.sizeExpr(d.Type.Dims[0])
		cols, ok2 := r.sizeExpr(d.Type.Dims[1])
		if !ok1 || !ok2 {
			return
		}
		t = ir.MatType(rows, cols)
	}
	v := r.newVar(d.Name, p, kind, t)
	v.Bij = bij
	if kind == ir.ParamVar {
		if d.Init == nil {
			r.errorf(p, "param %s needs an initial value, as in %s: real = 0", d.Name, d.Name)
			return
		}
		x, ok := r.constant(d.Init)
		if !ok {
			return
		}
		if _, err := bij.Unconstrain(x); err != nil {
			r.errorf(r.at(d.Init.Pos), "initial value %g of param %s is outside its constraint %s", x, d.Name, ir.BijString(bij))
			return
		}
		v.Init = make([]float64, t.Len())
		for i := range v.Init {
			v.Init[i] = x
		}
		v.Offset = r.m.ParamDim
		r.m.ParamDim += t.Len()
		r.m.Params = append(r.m.Params, v)
	} else {
		v.Offset, v.XOffset = r.m.LatentDim, r.m.XDim
		r.m.LatentDim += t.Len()
		r.m.XDim += t.Len()
		r.m.Latents = append(r.m.Latents, v)
	}
	r.declare(v)
}

func (r *resolver) bounds(t *lang.Type) (stdlib.Bijection, bool) {
	var b stdlib.Bijection
	for _, bd := range t.AllBounds() {
		x, ok := r.constant(bd.Value)
		if !ok {
			return b, false
		}
		switch bd.Which {
		case "offset", "multiplier":
			r.errorf(r.at(bd.Pos), "an offset or multiplier applies to a latent (a Stan parameter) of type real or vector")
			return b, false
		case "lower":
			if b.HasLower {
				r.errorf(r.at(bd.Pos), "lower bound given twice")
				return b, false
			}
			b.Lower, b.HasLower = x, true
		default:
			if b.HasUpper {
				r.errorf(r.at(bd.Pos), "upper bound given twice")
				return b, false
			}
			b.Upper, b.HasUpper = x, true
		}
	}
	if b.HasLower && b.HasUpper && !(b.Lower < b.Upper) {
		r.errorf(r.at(t.Pos), "the lower bound %g must be below the upper bound %g", b.Lower, b.Upper)
		return b, false
	}
	return b, true
}

// sizeExpr evaluates a size (a literal, a known size, or arithmetic of them).
func (r *resolver) sizeExpr(e *lang.Expr) (int, bool) {
	x, ok := r.constant(e)
	if !ok {
		return 0, false
	}
	if x != math.Trunc(x) || x < 0 { // 0 is an empty vector, as in Stan
		r.errorf(r.at(e.Pos), "a size must be a non-negative integer, got %g", x)
		return 0, false
	}
	if x > ir.MaxExactInt {
		e := r.errorf(r.at(e.Pos), "the size %s is %g, beyond any value's length (and the integers a float64 holds exactly, 2^53)", lang.FormatExpr(e), x)
		e.Hint = "a product of sizes overflows quickly; check the data the size is computed from"
		return 0, false
	}
	return int(x), true
}

// constant evaluates an expression known before inference.
func (r *resolver) constant(e *lang.Expr) (float64, bool) {
	n := len(r.errs)
	x := r.expr(e)
	if len(r.errs) > n || x == nil {
		return 0, false
	}
	v, ok := ir.FoldConst(x)
	if !ok {
		if z := zeroDivisor(x); z != nil {
			r.errorf(z.Pos(), "%s", ir.DivByZeroMsg(z))
			return 0, false
		}
		r.errorf(r.at(e.Pos), "%s must be a constant (numbers and data sizes only)", ir.FormatExpr(x))
		return 0, false
	}
	if !x.Type().Scalar() {
		r.errorf(r.at(e.Pos), "expected a number, got %s", x.Type())
		return 0, false
	}
	markSizeUse(x, r.at(e.Pos))
	return v, true
}

// zeroDivisor is the first integer division in e whose divisor is a
// constant 0, or nil.
func zeroDivisor(e ir.Expr) *ir.Binary {
	var z *ir.Binary
	ir.WalkExpr(e, func(x ir.Expr) {
		if b, ok := x.(*ir.Binary); ok && z == nil {
			if y, ok := ir.FoldConst(b.Y); ok && ir.IntDivByZero(b, y) {
				z = b
			}
		}
	})
	return z
}

// dataDecl binds a data declaration to its value or CSV columns.
func (r *resolver) dataDecl(d *lang.Decl, p lang.Pos, bij stdlib.Bijection) {
	base := d.Type.Base
	if r.json != nil && (len(d.Type.Dims) > 0 || d.Init == nil) {
		r.jsonDecl(d, p, bij)
		return
	}
	if (base == lang.BaseInt || base == lang.BaseReal) && len(d.Type.Dims) == 0 {
		if d.From != nil || d.Standardized {
			r.errorf(p, "scalar data %s takes a value (%s: %s = 3), not CSV columns", d.Name, d.Name, base)
			return
		}
		if d.Init == nil {
			r.errorf(p, "scalar data %s needs a value, as in %s: %s = 3 (a CSV column binds to a vector)", d.Name, d.Name, base)
			return
		}
		x, ok := r.constant(d.Init)
		if !ok {
			return
		}
		t := ir.TReal
		if base == lang.BaseInt {
			t = ir.TInt
			if x != math.Trunc(x) {
				r.errorf(r.at(d.Init.Pos), "int data %s has a non-integer value %g", d.Name, x)
				return
			}
		}
		v := r.newVar(d.Name, p, ir.DataVar, t)
		v.Value = []float64{x}
		r.checkBounds(v, bij, r.at(d.Init.Pos))
		r.m.Data = append(r.m.Data, v)
		r.declare(v)
		return
	}
	if d.Init != nil {
		r.errorf(r.at(d.Init.Pos), "vector and matrix data come from the CSV file, not from a value")
		return
	}
	if r.table == nil {
		r.errorf(p, "data %s needs a CSV file: run mscppl with MODEL.msc DATA.csv", d.Name)
		return
	}
	var sel dataset.Selection
	switch {
	case d.From == nil:
		sel = dataset.Selection{Kind: dataset.SelColumn, Names: []string{d.Name}}
	case d.From.Column != nil && dataset.IsGlob(*d.From.Column):
		sel = dataset.Selection{Kind: dataset.SelGlob, Pattern: *d.From.Column}
	case d.From.Column != nil:
		sel = dataset.Selection{Kind: dataset.SelColumn, Names: []string{*d.From.Column}}
	default:
		sel = dataset.Selection{Kind: dataset.SelAllExcept, Names: d.From.AllExcept}
	}
	selPos := p
	if d.From != nil {
		selPos = r.at(d.From.Pos)
	}
	cols, err := r.table.Select(sel)
	if err != nil {
		r.errorf(selPos, "%v", err)
		return
	}
	names := make([]string, len(cols))
	for i, j := range cols {
		names[i] = r.table.Header[j]
	}
	desc := sel.Describe(names, r.table.File)
	rows := r.table.Rows
	var t ir.Type
	switch base {
	case lang.BaseVector, lang.BaseInt:
		if len(cols) != 1 {
			r.errorf(selPos, "%s %s selects %d columns; declare a matrix to take several", base, d.Name, len(cols))
			return
		}
		if !r.bindSize(d.Type.Dims[0], rows, "rows") {
			return
		}
		t = ir.VecType(rows)
		if base == lang.BaseInt {
			t = ir.IntArrayType(rows)
		}
	default:
		if !r.bindSize(d.Type.Dims[0], rows, "rows") || !r.bindSize(d.Type.Dims[1], len(cols), "columns", desc) {
			return
		}
		t = ir.MatType(rows, len(cols))
	}
	v := r.newVar(d.Name, p, ir.DataVar, t)
	v.Value = r.table.Matrix(cols)
	v.Source = desc
	if d.Standardized {
		if base == lang.BaseInt {
			r.errorf(p, "int data %s cannot be standardized; declare it a vector", d.Name)
			return
		}
		dataset.Standardize(v.Value, rows, len(cols))
		v.Source += ", standardized"
	}
	if t.IntElems && !r.checkInts(v, p) {
		return
	}
	r.checkBounds(v, bij, p)
	r.m.Data = append(r.m.Data, v)
	r.declare(v)
}

func (r *resolver) checkBounds(v *ir.Var, b stdlib.Bijection, p lang.Pos) {
	for i, x := range v.Value {
		if (b.HasLower && x < b.Lower) || (b.HasUpper && x > b.Upper) {
			if v.Type.Kind == ir.Matrix {
				r.errorf(p, "data %s violates its constraint %s: element [%d, %d] is %g", v.Name, ir.BijString(b), i/v.Type.Cols+1, i%v.Type.Cols+1, x)
				return
			}
			r.errorf(p, "data %s violates its constraint %s: element %d is %g", v.Name, ir.BijString(b), i+1, x)
			return
		}
	}
}

// bindSize binds a size expression of a data declaration to the CSV: a new
// name becomes a size variable; a known size must agree. source, if given,
// says where a new size comes from (which columns were matched).
func (r *resolver) bindSize(e *lang.Expr, n int, what string, source ...string) bool {
	if name, ok := plainName(e); ok {
		if _, known := r.global[name]; !known {
			v := r.newVar(name, r.at(e.Pos), ir.SizeVar, ir.TInt)
			v.Value = []float64{float64(n)}
			v.Source = fmt.Sprintf("the number of %s of %s", what, r.table.File)
			if len(source) > 0 {
				v.Source = source[0]
			}
			r.global[name] = v
			return true
		}
	}
	want, ok := r.sizeExpr(e)
	if !ok {
		return false
	}
	if want != n {
		r.errorf(r.at(e.Pos), "the size %s is %d, but the CSV gives %d %s", e.String(), want, n, what)
		return false
	}
	return true
}

// ---- statements -------------------------------------------------------------

func (r *resolver) stmtsOfItems(items []*lang.Item) []ir.Stmt {
	var ss []*lang.Stmt
	for _, it := range items {
		if it.Decl != nil {
			ss = append(ss, &lang.Stmt{Pos: it.Pos, EndPos: it.EndPos, Decl: it.Decl})
			continue
		}
		ss = append(ss, it.Stmt)
	}
	r.scopes = append(r.scopes, map[string]*ir.Var{})
	out := r.stmts(ss)
	r.scopes = r.scopes[:len(r.scopes)-1]
	return out
}

func (r *resolver) stmts(ss []*lang.Stmt) (out []ir.Stmt) {
	mark := len(r.pendingChecks)
	defer func() { out = append(out, r.checksAtEnd(mark)...) }()
	for _, s := range ss {
		if s.Scope != nil {
			// a scope is a resolver's matter: its statements run in place,
			// its declarations are unknown after it
			r.scopes = append(r.scopes, map[string]*ir.Var{})
			out = append(out, r.stmts(s.Scope.Body)...)
			r.scopes = r.scopes[:len(r.scopes)-1]
			continue
		}
		st := r.stmt(s)
		if l, ok := st.(*stmtList); ok {
			out = append(out, l.list...)
		} else if st != nil {
			out = append(out, st)
		}
	}
	return out
}

func (r *resolver) stmt(s *lang.Stmt) ir.Stmt {
	p := r.at(s.Pos)
	if r.derivedStmt(s, p) {
		return nil
	}
	switch {
	case r.inODE != "" && (s.Target != nil || s.Simple != nil && s.Simple.Tilde != nil):
		what := "target +="
		if s.Target == nil {
			what = "~"
		}
		where := r.inODE
		if r.depth > r.inODEDepth {
			where = "a function called by " + where
		}
		e := r.errorf(p, "%s inside %s would be dropped: an ODE's right-hand side computes the derivative of the state, not a term of the log density", what, where)
		e.Hint = "move the statement to the model block, outside the function the solver calls"
		return nil
	case r.inData && (s.Target != nil || s.Simple != nil && s.Simple.Tilde != nil):
		e := r.errorf(p, "the data block computes data once, before inference; ~ and target += belong in the model block")
		e.Hint = "move this statement to the model block"
		return nil
	case s.Return != nil:
		r.errorf(p, "return belongs at the end of a function in the functions block")
		return nil
	case s.Decl != nil:
		return r.constrainedLocal(s, p)
	case s.If != nil:
		return r.ifStmt(s.If)
	case s.Target != nil:
		return r.target(s.Target, p)
	case s.Message != nil:
		return r.message(s.Message, p)
	case s.While != nil:
		return r.whileStmt(s.While, p)
	case s.Break || s.Continue:
		return r.jump(s, p)
	}
	if f := s.For; f != nil {
		lo, hi := r.expr(f.Lo), r.expr(f.Hi)
		if lo == nil || hi == nil {
			return nil
		}
		for _, b := range []ir.Expr{lo, hi} {
			if b.Type().Kind != ir.Int {
				r.errorf(b.Pos(), "loop bounds must be integers, got %s", b.Type())
				return nil
			}
		}
		if lv, lok := ir.FoldConst(lo); lok {
			// lo..lo-1 runs zero times, as in Stan (1..N with N = 0); a
			// range reversed by more is taken for a mistake
			if hv, hok := ir.FoldConst(hi); hok && hv < lv-1 {
				r.errorf(p, "loop %s in %g..%g never runs: the upper bound is below the lower bound", f.Var, lv, hv)
				return nil
			}
		}
		if v := r.lookupQuiet(f.Var); v != nil {
			r.errorf(p, "loop variable %s hides %s %s declared at %d:%d; pick another name", f.Var, v.Kind, v.Name, v.Pos.Line, v.Pos.Col)
			return nil
		}
		if sizedByLoop(f.Body, map[string]bool{f.Var: true}) {
			return r.sizedLoop(f, lo, hi, p)
		}
		v := r.newVar(f.Var, p, ir.LoopVar, ir.TInt)
		r.scopes = append(r.scopes, map[string]*ir.Var{f.Var: v}, map[string]*ir.Var{})
		r.loops++
		body := r.stmts(f.Body)
		r.loops--
		r.scopes = r.scopes[:len(r.scopes)-2]
		return &ir.For{StmtBase: ir.StmtBase{P: p}, Var: v, Lo: lo, Hi: hi, Body: body}
	}
	sm := s.Simple
	if sm.Tilde == nil && sm.Assign == nil && sm.Compound == "" {
		return r.callStmt(sm, p)
	}
	if sm.Assign != nil || sm.Compound != "" {
		name, ok := plainName(sm.LHS)
		if !ok {
			return r.elementAssign(sm, p)
		}
		if v := r.lookupQuiet(name); v != nil {
			switch v.Kind {
			case ir.LocalVar:
				return r.reassign(v, sm, p)
			case ir.DataVar, ir.ParamVar, ir.LatentVar, ir.SizeVar:
				r.errorf(r.at(sm.LHS.Pos), "cannot assign to %s %s; use a new name for a local definition", v.Kind, name)
			default:
				r.errorf(r.at(sm.LHS.Pos), "cannot assign to %s %s", v.Kind, name)
			}
			return nil
		}
		if sm.Compound != "" {
			r.rhs(sm) // reports the unknown name
			return nil
		}
		x := r.expr(sm.Assign)
		if x == nil {
			return nil
		}
		v := r.newVar(name, r.at(sm.LHS.Pos), ir.LocalVar, x.Type())
		r.scopes[len(r.scopes)-1][name] = v
		return &ir.Assign{StmtBase: ir.StmtBase{P: p}, Local: v, X: x}
	}
	return r.tilde(sm, p)
}

func (r *resolver) tilde(sm *lang.Simple, p lang.Pos) ir.Stmt {
	call := sm.Tilde
	fam, ok := stdlib.Lookup(call.Name)
	if !ok {
		if s := r.userTilde(sm, p); s != nil {
			return s
		}
	}
	lhs := r.expr(sm.LHS)
	cp := r.at(call.Pos)
	switch {
	case ok && fam.Vec != nil:
		return r.vecTilde(call, fam, lhs, p)
	case ok && fam.GLMOf != "":
		return r.glmTilde(lhs, call, fam, p)
	}
	if !ok && ir.UnsupportedStan(call.Name) {
		r.errorf(cp, "the distribution %s is not supported yet", call.Name)
		return nil
	}
	if !ok {
		e := r.errorf(cp, "unknown distribution %q", call.Name)
		if _, isFn := ir.FunctionsByName[call.Name]; isFn {
			e.Hint = fmt.Sprintf("%s is a function, not a distribution", call.Name)
		} else if s := lang.Suggest(call.Name, stdlib.FamilyNames()); s != "" {
			e.Hint = fmt.Sprintf("did you mean %q?", s)
		} else {
			e.Hint = "the distributions are " + strings.Join(stdlib.FamilyNames(), ", ")
		}
		return nil
	}
	if len(call.Args) != len(fam.Params) {
		names := make([]string, len(fam.Params))
		for i, ps := range fam.Params {
			names[i] = ps.Name
		}
		r.errorf(cp, "%s takes %d argument%s (%s), got %d", fam.Name, len(fam.Params), ir.Plural1(len(fam.Params)), strings.Join(names, ", "), len(call.Args))
		return nil
	}
	args := make([]ir.Expr, len(call.Args))
	for i, a := range call.Args {
		args[i] = r.expr(a)
		if args[i] == nil {
			return nil
		}
	}
	if lhs == nil {
		return nil
	}
	root := rootVar(lhs)
	general := false // an expression of latents: a term of the log density
	if (root == nil || root.Kind == ir.LocalVar) && !dependsOnUnknowns(lhs) {
		root = nil // an expression of data alone, observed
	} else if root == nil || root.Kind == ir.LocalVar {
		general = true
		r.jacobianNote(lhs)
	} else if root.Kind != ir.DataVar && root.Kind != ir.LatentVar {
		what := "an expression"
		if root != nil {
			what = fmt.Sprintf("%s %s", root.Kind, root.Name)
		}
		e := r.errorf(lhs.Pos(), "the left of ~ must be a latent or data variable (or an element of one), not %s", what)
		if root != nil && root.Kind == ir.ParamVar {
			e.Hint = "params are learned by maximum likelihood and have no distribution; declare it in the latent block to give it a prior"
		}
		return nil
	}
	lt := lhs.Type()
	if lt.Kind == ir.Matrix {
		r.errorf(lhs.Pos(), "the left of ~ must be a scalar or a vector, not %s", lt)
		return nil
	}
	for i, a := range args {
		at := a.Type()
		switch {
		case at.Scalar():
		case at.Kind == ir.Vector && lt.Kind == ir.Vector && at.Rows == lt.Rows:
		default:
			r.errorf(a.Pos(), "argument %d (%s) of %s is %s, but the left of ~ is %s; arguments are scalars or vectors of the same length", i+1, fam.Params[i].Name, fam.Name, at, lt)
			return nil
		}
	}
	text := ir.FormatExpr(lhs) + " ~ " + call.String()
	if general {
		return exprTilde(lhs, fam, args, r.at(call.Pos), p, text)
	}
	if root == nil {
		root = &ir.Var{Name: ir.FormatExpr(lhs), Kind: ir.DataVar}
	}
	return &ir.Tilde{StmtBase: ir.StmtBase{P: p}, LHS: lhs, Dist: fam, Args: args, Root: root, Text: text}
}

func rootVar(e ir.Expr) *ir.Var {
	switch e := e.(type) {
	case *ir.Ref:
		return e.Var
	case *ir.Index:
		if ref, ok := e.X.(*ir.Ref); ok {
			return ref.Var
		}
	case *ir.Slice: // x[a:b] of a vector
		if ref, ok := e.X.(*ir.Ref); ok && ref.Type().Kind == ir.Vector {
			return ref.Var
		}
	case *ir.Builtin: // a[:, k] of a 2-D array
		if ref, ok := e.Args[0].(*ir.Ref); ok && e.Def == ir.ArrayCol {
			return ref.Var
		}
	}
	return nil
}

// ---- names ------------------------------------------------------------------

func (r *resolver) lookupQuiet(name string) *ir.Var {
	for i := len(r.scopes) - 1; i >= 0; i-- {
		if v, ok := r.scopes[i][name]; ok {
			return v
		}
	}
	return r.global[name]
}

func (r *resolver) visibleNames() []string {
	seen := map[string]bool{}
	var out []string
	for i := len(r.scopes) - 1; i >= 0; i-- {
		for n := range r.scopes[i] {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	for n := range r.global {
		if !seen[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func (r *resolver) lookup(name string, p lang.Pos) *ir.Var {
	v := r.lookupQuiet(name)
	if v == nil {
		if ap, ok := r.assigned[name]; ok && r.model != nil {
			r.errorf(p, "%s is used before it is defined (at %d:%d)", name, ap.Line, ap.Col)
			return nil
		}
		e := r.errorf(p, "unknown name %q", name)
		if s := lang.Suggest(name, r.visibleNames()); s != "" {
			e.Hint = fmt.Sprintf("did you mean %q?", s)
		} else if r.unknownHint != "" {
			e.Hint = r.unknownHint
		} else if r.model == nil {
			e.Hint = "sizes come from data declarations such as x: vector[N], or are numbers"
		} else {
			e.Hint = "declare it in the data, param or latent block"
		}
		return nil
	}
	if v.Kind == ir.DataVar || v.Kind == ir.ParamVar || v.Kind == ir.LatentVar {
		if v.Pos.File == p.File && v.Pos.Offset > p.Offset && r.model != nil {
			r.errorf(p, "%s %s is used before its declaration at %d:%d; put the %s block before the model block", v.Kind, name, v.Pos.Line, v.Pos.Col, v.Kind)
			return nil
		}
	}
	return v
}

// ---- expressions ------------------------------------------------------------

func (r *resolver) expr(e *lang.Expr) ir.Expr {
	terms := []ir.Expr{r.term(e.Left)}
	for _, op := range e.Rest {
		terms = append(terms, r.term(op.Term))
	}
	for _, t := range terms {
		if t == nil {
			return nil
		}
	}
	// precedence climbing over the flat chain, all operators left-associative
	k := 0
	var climb func(lhs ir.Expr, min int) ir.Expr
	climb = func(lhs ir.Expr, min int) ir.Expr {
		for lhs != nil && k < len(e.Rest) && opPrec(e.Rest[k].Operator()) >= min {
			op := e.Rest[k]
			k++
			rhs := terms[k]
			for k < len(e.Rest) && opPrec(e.Rest[k].Operator()) > opPrec(op.Operator()) {
				rhs = climb(rhs, opPrec(op.Operator())+1)
				if rhs == nil {
					return nil
				}
			}
			lhs = r.binary(binOps[op.Operator()], lhs, rhs, r.at(op.Pos))
		}
		return lhs
	}
	x := climb(terms[0], 0)
	if e.Then == nil || x == nil {
		return x
	}
	return r.cond(x, e)
}

// cond resolves c ? e.Then : e.Else, whose condition c is resolved. With
// a condition known now (literals, sizes, scalar data) it is the branch
// taken; the compiler does the same for loop variables.
func (r *resolver) cond(c ir.Expr, e *lang.Expr) ir.Expr {
	a, b := r.expr(e.Then), r.expr(e.Else)
	if a == nil || b == nil {
		return nil
	}
	if ct := c.Type(); !ct.Scalar() {
		r.errorf(c.Pos(), "the condition of ?: is a scalar (an int or a real), got %s", ct)
		return nil
	}
	ta, tb := a.Type(), b.Type()
	t := ta
	switch {
	case ta.Scalar() && tb.Scalar():
		if ta.Kind != tb.Kind {
			t = ir.TReal
		}
	case !ir.SameShape(ta, tb):
		e := r.errorf(a.Pos(), "the branches of ?: have different types, %s and %s", ta, tb)
		e.Hint = "both branches need one type (an int branch beside a real one is read as real)"
		return nil
	case ta.IsRow() != tb.IsRow():
		t.Row = false // a row_vector and a column vector: a column vector, as elementwise
	}
	if v, ok := ir.FoldConst(c); ok {
		if v != 0 {
			return a
		}
		return b
	}
	return &ir.Cond{ExprBase: ir.ExprBase{P: c.Pos(), T: t}, C: c, A: a, B: b}
}

// binOps maps the written operators to the IR's.
var binOps = map[string]ir.BinOp{"+": ir.OpAdd, "-": ir.OpSub, "*": ir.OpMul, "/": ir.OpDiv, ".*": ir.OpEMul, "./": ir.OpEDiv,
	"==": ir.OpEq, "!=": ir.OpNe, "<": ir.OpLt, "<=": ir.OpLe, ">": ir.OpGt, ">=": ir.OpGe, "&&": ir.OpAnd, "||": ir.OpOr}

// opPrec is Stan's precedence of the operators of an Expr chain.
func opPrec(op string) int {
	switch op {
	case "||":
		return 1
	case "&&":
		return 2
	case "==", "!=":
		return 3
	case "<", "<=", ">", ">=":
		return 4
	}
	return 5 // + -
}

func (r *resolver) term(t *lang.Term) ir.Expr {
	x := r.unary(t.Left)
	for _, op := range t.Rest {
		if x == nil {
			return nil
		}
		y := r.unary(op.X)
		if y == nil {
			return nil
		}
		x = r.intArith(op, x, y)
	}
	return x
}

// intArith resolves x op y for an operator of a Term, with Stan's rules
// for integers: % and %/% take ints, and / of two ints truncates toward
// zero with the informational note stanc3 gives (Model.Notes).
func (r *resolver) intArith(op *lang.OpUnary, x, y ir.Expr) ir.Expr {
	p := r.at(op.Pos)
	ints := x.Type().Kind == ir.Int && y.Type().Kind == ir.Int
	switch op.Op {
	case "%", "%/%":
		if !ints {
			e := r.errorf(p, "%s takes integers, got %s and %s", op.Op, x.Type(), y.Type())
			e.Hint = "the operands of % and %/% are ints; for reals, x - floor(x / y) * y is the remainder"
			return nil
		}
		bo := ir.OpMod
		if op.Op == "%/%" {
			bo = ir.OpDiv
		}
		return r.binary(bo, x, y, p)
	case "/":
		if xp := x.Pos(); ints && !r.intDivNoted[xp] {
			if r.intDivNoted == nil {
				r.intDivNoted = map[lang.Pos]bool{}
			}
			r.intDivNoted[xp] = true
			r.m.Notes = append(r.m.Notes, fmt.Sprintf("%s:%d:%d: found int division %s / %s: values will be rounded towards zero "+
				"(write %s * 1.0 / %s if rounding is not wanted, or %s %%/%% %s if it is)",
				xp.File, xp.Line, xp.Col, ir.FormatExpr(x), ir.FormatExpr(y), ir.FormatExpr(x), ir.FormatExpr(y), ir.FormatExpr(x), ir.FormatExpr(y)))
		}
	}
	return r.binary(binOps[op.Op], x, y, p)
}

func (r *resolver) unary(u *lang.Unary) ir.Expr {
	if u.Power != nil {
		return r.power(u.Power)
	}
	x := r.unary(u.X)
	if x == nil || u.Op == "+" {
		return x
	}
	if u.Op == "!" {
		if !x.Type().Scalar() {
			r.errorf(r.at(u.Pos), "! takes a scalar, got %s", x.Type())
			return nil
		}
		return &ir.Not{ExprBase: ir.ExprBase{P: r.at(u.Pos), T: ir.TInt}, X: x}
	}
	if n, ok := x.(*ir.Num); ok {
		return &ir.Num{ExprBase: ir.ExprBase{P: r.at(u.Pos), T: n.T}, V: -n.V}
	}
	return &ir.Unary{ExprBase: ir.ExprBase{P: r.at(u.Pos), T: x.Type()}, X: x}
}

func (r *resolver) power(p *lang.Power) ir.Expr {
	x := r.postfix(p.Base)
	if x == nil || p.Exp == nil {
		return x
	}
	y := r.unary(p.Exp)
	if y == nil {
		return nil
	}
	return r.binary(ir.OpPow, x, y, r.at(p.Pos))
}

func (r *resolver) postfix(p *lang.Postfix) ir.Expr {
	x := r.primary(p.Prim)
	for _, ix := range p.Indexes {
		if x == nil {
			return nil
		}
		ip := r.at(ix.Pos)
		t := x.Type()
		if t.Scalar() {
			r.errorf(ip, "%s is a scalar (%s) and cannot be indexed", ir.FormatExpr(x), t)
			return nil
		}
		if t.Kind == ir.Vector && len(ix.Slots) != 1 || t.Kind == ir.Matrix && len(ix.Slots) > 2 {
			r.errorf(ip, "%s is %s: it takes %d index, got %d", ir.FormatExpr(x), t, map[ir.Kind]int{ir.Vector: 1, ir.Matrix: 2}[t.Kind], len(ix.Slots))
			return nil
		}
		if col, ok := r.arrayColumn(x, ix); ok {
			x = col
			continue
		}
		for _, sl := range ix.Slots {
			if sl.Lo == nil && !sl.Colon { // m[ ] or m[:, ]: not a range either
				r.errorf(r.at(sl.Pos), "an empty index")
				return nil
			}
		}
		if ix.Slots[0].Colon || len(ix.Slots) > 1 && ix.Slots[1].Colon {
			x = r.slice(x, ix)
			ir.ArraySliced(x, t)
			continue
		}
		idx := make([]ir.Expr, len(ix.Slots))
		for i, a := range ix.Args() {
			idx[i] = r.expr(a)
			if idx[i] == nil {
				return nil
			}
			if it := idx[i].Type(); it.Kind == ir.Vector && it.IntElems && t.Kind == ir.Matrix && t.Array > 0 && len(idx) == 1 {
				// a[g] of an array of vectors or a 2-D array: the rows a[g[1]], ...
				x = &ir.Index{ExprBase: ir.ExprBase{P: x.Pos(), T: ir.ArrayRowsType(t, it.Rows)}, X: x, Idx: idx}
				goto next
			}
			if it := idx[i].Type(); it.Kind == ir.Vector && it.IntElems && t.Kind == ir.Vector {
				// a[g] with an integer array g: the vector of a[g[1]], a[g[2]], ...
				gt := t.Oriented(it.Rows) // r[g] of a row_vector is a row_vector
				gt.Array, gt.IntElems = t.Array, t.IntElems
				x = &ir.Index{ExprBase: ir.ExprBase{P: x.Pos(), T: gt}, X: x, Idx: idx}
				goto next
			}
			if idx[i].Type().Kind != ir.Int {
				r.errorf(idx[i].Pos(), "an index must be an integer (or an integer array indexing a vector), got %s", idx[i].Type())
				return nil
			}
			if v, ok := ir.FoldConst(idx[i]); ok {
				size := t.Rows
				if i == 1 {
					size = t.Cols
				}
				if v < 1 || v > float64(size) {
					r.errorf(idx[i].Pos(), "index %g is out of range: %s has %d %s (indices start at 1)", v, ir.FormatExpr(x), size, ir.Plural(t, i))
					return nil
				}
			}
		}
		{
			rt := elemType(t)
			if t.Kind == ir.Matrix && len(idx) == 1 {
				rt = ir.VecType(t.Cols)
				if t.Array == 0 && !t.IntElems { // a row of a matrix is a row_vector
					rt.Row = true
				}
				if t.Array == 2 { // a row of a 2-D array is a 1-D array
					rt.Array, rt.IntElems = 1, t.IntElems
				}
			}
			x = &ir.Index{ExprBase: ir.ExprBase{P: x.Pos(), T: rt}, X: x, Idx: idx}
		}
	next:
	}
	if p.Trans && x != nil {
		x = r.transpose(x)
	}
	return x
}

func (r *resolver) primary(p *lang.Primary) ir.Expr {
	pos := r.at(p.Pos)
	switch {
	case p.Number != nil:
		v, err := strconv.ParseFloat(*p.Number, 64)
		if err != nil || math.IsInf(v, 0) {
			r.errorf(pos, "number %s is out of range", *p.Number)
			return nil
		}
		t := ir.TReal
		if !strings.ContainsAny(*p.Number, ".eE") {
			t = ir.TInt
			// (parsed exactly: 2^53 + 1 rounds to 2^53 as a float64)
			if n, err := strconv.ParseUint(*p.Number, 10, 64); err != nil || n > ir.MaxExactInt {
				r.errorf(pos, "the integer %s is beyond the integers a float64 holds exactly (2^53 = %d); write it as a real (%se0) if a rounded value will do", *p.Number, int64(ir.MaxExactInt), *p.Number)
				return nil
			}
		}
		return &ir.Num{ExprBase: ir.ExprBase{P: pos, T: t}, V: v}
	case p.String != nil:
		r.errorf(pos, "a string is not a value here; strings appear only after from and in the infer block")
		return nil
	case p.Paren != nil:
		return r.expr(p.Paren)
	case p.Call != nil:
		return r.call(p.Call)
	case p.Array != nil:
		return r.arrayLiteral(pos, p.Array)
	}
	v := r.lookup(*p.Ident, pos)
	if v == nil {
		return nil
	}
	return &ir.Ref{ExprBase: ir.ExprBase{P: pos, T: v.Type}, Var: v}
}

func (r *resolver) call(c *lang.Call) ir.Expr {
	pos := r.at(c.Pos)
	if fd, ok := r.funcs[c.Name]; ok {
		return r.inline(c, fd)
	}
	if f, ok := ir.FunctionsByName[c.Name]; ok {
		return r.callFunction(c, f)
	}
	if x, ok := r.rngCall(c); ok {
		return x
	}
	if x, ok := r.densityCall(c); ok {
		return x
	}
	if x, ok := r.cdfCall(c); ok {
		return x
	}
	if c.Bar {
		r.errorf(pos, ir.BarMessage, c.Name)
		return nil
	}
	if ir.UnsupportedStan(c.Name) {
		r.errorf(pos, "%s is not supported yet", c.Name)
		return nil
	}
	e := r.errorf(pos, "unknown function %q", c.Name)
	if _, isDist := stdlib.Lookup(c.Name); isDist {
		e.Hint = fmt.Sprintf("%s is a distribution: use it on the right of ~", c.Name)
	} else if s := lang.Suggest(c.Name, ir.CallableNames()); s != "" {
		e.Hint = fmt.Sprintf("did you mean %q?", s)
	}
	return nil
}

func (r *resolver) binary(op ir.BinOp, x, y ir.Expr, p lang.Pos) ir.Expr {
	a, b := x.Type(), y.Type()
	mk := func(t ir.Type, mv bool) ir.Expr {
		if a.Kind == ir.Vector && b.Kind == ir.Vector && a.IsRow() != b.IsRow() {
			t.Row = false // a row_vector and a column vector elementwise: a column vector
		}
		return &ir.Binary{ExprBase: ir.ExprBase{P: x.Pos(), T: t}, Op: op, X: x, Y: y, MatVec: mv}
	}
	if a.Scalar() && b.Scalar() {
		t := ir.TReal
		if op.Logical() || a.Kind == ir.Int && b.Kind == ir.Int && op != ir.OpPow && op != ir.OpEDiv {
			t = ir.TInt
		}
		return mk(t, false)
	}
	bad := func(hint string) ir.Expr {
		e := r.errorf(p, "cannot apply %s to %s and %s", op, a, b)
		e.Hint = hint
		return nil
	}
	switch op {
	case ir.OpAdd, ir.OpSub:
		switch {
		case a.Scalar():
			return mk(b, false)
		case b.Scalar():
			return mk(a, false)
		case ir.SameShape(a, b):
			return mk(a, false)
		}
		return bad("both sides need the same shape (or one side a scalar)")
	case ir.OpMul:
		return r.product(x, y, p)
	case ir.OpEMul, ir.OpEDiv:
		switch {
		case a.Scalar():
			return mk(b, false)
		case b.Scalar(), ir.SameShape(a, b):
			return mk(a, false)
		}
		return bad(op.String() + " is elementwise between values of the same shape")
	case ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe, ir.OpAnd, ir.OpOr:
		switch { // elementwise, 0 or 1 in each element
		case a.Scalar() && b.Kind == ir.Vector:
			return mk(b, false)
		case b.Scalar() && a.Kind == ir.Vector, a.Kind == ir.Vector && ir.SameShape(a, b):
			return mk(a, false)
		}
		return bad("comparisons and logic take scalars, or vectors elementwise")
	case ir.OpDiv:
		switch {
		case b.Scalar():
			return mk(a, false)
		case a.Scalar():
			return mk(b, false)
		case ir.SameShape(a, b):
			return mk(a, false)
		}
		return bad("division is elementwise between values of the same shape")
	default:
		if b.Scalar() {
			return mk(a, false)
		}
		if ir.SameShape(a, b) {
			return mk(a, false)
		}
		return bad("the exponent must be a scalar or of the same shape")
	}
}

// ---- settings ---------------------------------------------------------------

// settings keeps the infer block's key = value pairs; package infer checks
// them against its table of settings.
func (r *resolver) settings(b *lang.Block) {
	for _, it := range b.Items {
		p := r.at(it.Pos)
		if it.Stmt == nil || it.Stmt.Simple == nil || it.Stmt.Simple.Assign == nil {
			r.errorf(p, "the infer block holds settings such as samples = 10")
			continue
		}
		key, ok := plainName(it.Stmt.Simple.LHS)
		if !ok {
			r.errorf(p, "a setting is name = value")
			continue
		}
		rhs := it.Stmt.Simple.Assign
		sv := ir.SettingValue{Pos: r.at(rhs.Pos), KeyPos: p}
		if name, ok := plainName(rhs); ok {
			sv.Str, sv.IsStr = name, true
		} else if s := stringLit(rhs); s != nil {
			sv.Str, sv.IsStr = *s, true
		} else {
			x, ok := r.constant(rhs)
			if !ok {
				continue
			}
			sv.Num = x
		}
		r.m.Settings[key] = sv
	}
}

func stringLit(e *lang.Expr) *string {
	if len(e.Rest) > 0 || len(e.Left.Rest) > 0 || e.Left.Left.Power == nil {
		return nil
	}
	p := e.Left.Left.Power
	if p.Exp != nil || len(p.Base.Indexes) > 0 {
		return nil
	}
	return p.Base.Prim.String
}
