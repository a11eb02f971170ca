package ir

import (
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// transpose resolves x': a matrix's transpose, or a vector as a row (a
// 1 x n matrix; v' * w is the dot product).
func (r *resolver) transpose(x Expr) Expr {
	t := x.Type()
	switch t.Kind {
	case Matrix:
		return &MatCall{ExprBase: ExprBase{x.Pos(), matType(t.Cols, t.Rows)}, Name: "transpose", Op: stdlib.NewTranspose(t.Rows, t.Cols), Args: []Expr{x}, Postfix: true}
	case Vector:
		return &Builtin{ExprBase: ExprBase{x.Pos(), matType(1, t.Rows)}, Name: "row", Def: RowVector, Args: []Expr{x}}
	}
	return x // a scalar is its own transpose
}

// IsMatrixRow reports whether e is a row m[i] of a matrix m.
func IsMatrixRow(e Expr) bool {
	ix, ok := e.(*Index)
	return ok && len(ix.Idx) == 1 && ix.X.Type().Kind == Matrix && ix.Idx[0].Type().Kind == Int
}

// isRow reports whether x is a transposed vector.
func isRow(x Expr) bool {
	b, ok := x.(*Builtin)
	return ok && b.Def == RowVector
}

// Slice is x[a:b] of a vector, or a block of a matrix M[a:b, c:d] where
// either slot may be a single index (M[:, j] is column j as a vector,
// M[i, a:b] part of row i). The bounds are known before inference
// (1-based, inclusive); Keep says which dimensions the result keeps.
type Slice struct {
	ExprBase
	X      Expr
	Lo, Hi [2]int
	Keep   [2]bool
	// Dyn, where not nil, is the single index of a dimension that is not
	// kept, known when the model is compiled but not before (a loop
	// variable: alpha[k, :], X[:, j]); Lo and Hi are then 1.
	Dyn [2]Expr
}

// Index is the single index of dimension d (not kept).
func (e *Slice) Index(d int) Expr {
	if e.Dyn[d] != nil {
		return e.Dyn[d]
	}
	return &Num{ExprBase: ExprBase{e.Pos(), TInt}, V: float64(e.Lo[d])}
}

// slice resolves an index with at least one range slot.
func (r *resolver) slice(x Expr, ix *lang.Index) Expr {
	if x == nil {
		return nil
	}
	t := x.Type()
	size := [2]int{t.Rows, t.Cols}
	out := &Slice{X: x}
	for d, sl := range ix.Slots {
		lo, hi := 1, size[d]
		if !sl.Colon {
			ie := r.expr(sl.Lo)
			if ie == nil {
				return nil
			}
			v, ok := foldConst(ie)
			switch {
			case ie.Type().Kind != Int:
				r.errorf(ie.Pos(), "an index must be an integer, got %s", ie.Type())
				return nil
			case !ok && dependsOnUnknowns(ie):
				r.errorf(ie.Pos(), "the index of a row or column must be known before inference (data, sizes and loop variables)")
				return nil
			case !ok:
				out.Dyn[d] = ie // checked when compiled
				v = 1
			default:
				if _, ok := ExactInt(v); !ok {
					r.errorf(ie.Pos(), "%s", BigIntMsg(ie, v))
					return nil
				}
				markSizeUse(ie, ie.Pos())
			}
			lo, hi = int(v), int(v)
		} else {
			out.Keep[d] = true
			if sl.Lo != nil {
				v, ok := r.sliceBound(sl.Lo)
				if !ok {
					return nil
				}
				lo = v
			}
			if sl.Hi != nil {
				v, ok := r.sliceBound(sl.Hi)
				if !ok {
					return nil
				}
				hi = v
			}
		}
		if lo < 1 || hi > size[d] || hi < lo-1 {
			r.errorf(r.at(sl.Pos), "the range %d:%d is outside %s, which has %d %s (indices start at 1)", lo, hi, FormatExpr(x), size[d], Plural(t, d))
			return nil
		}
		out.Lo[d], out.Hi[d] = lo, hi
	}
	if len(ix.Slots) == 1 && t.Kind == Matrix { // M[a:b]: whole rows
		out.Lo[1], out.Hi[1], out.Keep[1] = 1, t.Cols, true
	}
	n := [2]int{out.Hi[0] - out.Lo[0] + 1, out.Hi[1] - out.Lo[1] + 1}
	switch {
	case t.Kind == Vector:
		out.T = vecType(n[0])
	case out.Keep[0] && out.Keep[1]:
		out.T = matType(n[0], n[1])
	case out.Keep[0]:
		out.T = vecType(n[0])
	default:
		out.T = vecType(n[1])
	}
	out.P = x.Pos()
	return out
}

// sliceBound is a slice bound: an integer known before inference.
func (r *resolver) sliceBound(e *lang.Expr) (int, bool) {
	x := r.expr(e)
	if x == nil {
		return 0, false
	}
	v, ok := foldConst(x)
	if !ok || x.Type().Kind != Int {
		r.errorf(x.Pos(), "a range bound must be an integer known before inference")
		return 0, false
	}
	n, ok := ExactInt(v)
	if !ok {
		r.errorf(x.Pos(), "%s", BigIntMsg(x, v))
		return 0, false
	}
	markSizeUse(x, x.Pos())
	return n, true
}

// dynColRow resolves col(M, j) or row(M, i) whose index is known when the
// model is compiled (a loop variable) as the slice M[:, j] or M[i, :].
func (r *resolver) dynColRow(m, idx Expr, col bool, pos lang.Pos) Expr {
	t := m.Type()
	if t.Kind != Matrix {
		r.errorf(pos, "%s takes a matrix and an index, got %s", map[bool]string{true: "col", false: "row"}[col], t)
		return nil
	}
	out := &Slice{ExprBase: ExprBase{pos, vecType(t.Rows)}, X: m, Lo: [2]int{1, 1}, Hi: [2]int{t.Rows, t.Cols}}
	if col {
		out.Keep[0], out.Dyn[1], out.Hi[1] = true, idx, 1
	} else {
		out.T = vecType(t.Cols)
		out.Keep[1], out.Dyn[0], out.Hi[0] = true, idx, 1
	}
	return out
}
