package check

import (
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// transpose resolves x': a matrix's transpose; a column vector's is a
// row_vector and a row_vector's a column vector, with the same values
// (Stan's meaning).
func (r *resolver) transpose(x ir.Expr) ir.Expr {
	t := x.Type()
	switch t.Kind {
	case ir.Matrix:
		return &ir.MatCall{ExprBase: ir.ExprBase{P: x.Pos(), T: ir.MatType(t.Cols, t.Rows)}, Name: "transpose", Op: stdlib.NewTranspose(t.Rows, t.Cols), Args: []ir.Expr{x}, Postfix: true}
	case ir.Vector:
		rt := ir.RowVecType(t.Rows)
		if t.IsRow() {
			rt = ir.VecType(t.Rows)
		}
		return &ir.Builtin{ExprBase: ir.ExprBase{P: x.Pos(), T: rt}, Name: "transpose", Def: ir.VecTranspose, Args: []ir.Expr{x}}
	}
	return x // a scalar is its own transpose
}

// untransposed is v for v' (a VecTranspose node), else x: the same values.
func untransposed(x ir.Expr) ir.Expr {
	if b, ok := x.(*ir.Builtin); ok && b.Def == ir.VecTranspose {
		return b.Args[0]
	}
	return x
}

// slice resolves an index with at least one range slot.
func (r *resolver) slice(x ir.Expr, ix *lang.Index) ir.Expr {
	if x == nil {
		return nil
	}
	t := x.Type()
	size := [2]int{t.Rows, t.Cols}
	out := &ir.Slice{X: x}
	for d, sl := range ix.Slots {
		lo, hi := 1, size[d]
		if !sl.Colon {
			ie := r.expr(sl.Lo)
			if ie == nil {
				return nil
			}
			v, ok := ir.FoldConst(ie)
			switch {
			case ie.Type().Kind != ir.Int:
				r.errorf(ie.Pos(), "an index must be an integer, got %s", ie.Type())
				return nil
			case !ok && dependsOnUnknowns(ie):
				r.errorf(ie.Pos(), "the index of a row or column must be known before inference (data, sizes and loop variables)")
				return nil
			case !ok:
				out.Dyn[d] = ie // checked when compiled
				v = 1
			default:
				if _, ok := ir.ExactInt(v); !ok {
					r.errorf(ie.Pos(), "%s", ir.BigIntMsg(ie, v))
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
			r.errorf(r.at(sl.Pos), "the range %d:%d is outside %s, which has %d %s (indices start at 1)", lo, hi, ir.FormatExpr(x), size[d], ir.Plural(t, d))
			return nil
		}
		out.Lo[d], out.Hi[d] = lo, hi
	}
	if len(ix.Slots) == 1 && t.Kind == ir.Matrix { // M[a:b]: whole rows
		out.Lo[1], out.Hi[1], out.Keep[1] = 1, t.Cols, true
	}
	n := [2]int{out.Hi[0] - out.Lo[0] + 1, out.Hi[1] - out.Lo[1] + 1}
	switch {
	case t.Kind == ir.Vector:
		out.T = t.Oriented(n[0]) // r[a:b] of a row_vector is a row_vector
	case out.Keep[0] && out.Keep[1]:
		out.T = ir.MatType(n[0], n[1])
	case out.Keep[0]:
		out.T = ir.VecType(n[0])
	case t.Array == 0 && !t.IntElems:
		out.T = ir.RowVecType(n[1]) // M[i, :] and M[i, a:b], a row of a matrix
	default:
		out.T = ir.VecType(n[1])
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
	v, ok := ir.FoldConst(x)
	if !ok || x.Type().Kind != ir.Int {
		r.errorf(x.Pos(), "a range bound must be an integer known before inference")
		return 0, false
	}
	n, ok := ir.ExactInt(v)
	if !ok {
		r.errorf(x.Pos(), "%s", ir.BigIntMsg(x, v))
		return 0, false
	}
	markSizeUse(x, x.Pos())
	return n, true
}

// dynColRow resolves col(M, j) or row(M, i) whose index is known when the
// model is compiled (a loop variable) as the slice M[:, j] or M[i, :].
func (r *resolver) dynColRow(m, idx ir.Expr, col bool, pos lang.Pos) ir.Expr {
	t := m.Type()
	if t.Kind != ir.Matrix {
		r.errorf(pos, "%s takes a matrix and an index, got %s", map[bool]string{true: "col", false: "row"}[col], t)
		return nil
	}
	out := &ir.Slice{ExprBase: ir.ExprBase{P: pos, T: ir.VecType(t.Rows)}, X: m, Lo: [2]int{1, 1}, Hi: [2]int{t.Rows, t.Cols}}
	if col {
		out.Keep[0], out.Dyn[1], out.Hi[1] = true, idx, 1
	} else {
		out.T = ir.RowVecType(t.Cols)
		out.Keep[1], out.Dyn[0], out.Hi[0] = true, idx, 1
	}
	return out
}
