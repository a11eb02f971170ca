package check

import (
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// Row vectors. A row of a matrix (M[i], M[i, :], row(M, i)), a declared
// row_vector and the transpose v' of a column vector are row_vectors
// (ir.Type.Row); the transpose r' of a row_vector is a column vector. The
// products below give each of them Stan's meaning; a product Stan has no
// meaning for is refused, except a matrix times a row_vector, which is the
// matrix times the row's elements as a column (A * x[t - 1] of a state
// stored in the rows of x), as before rows were row_vectors.

// product resolves x * y of two values, at least one of them not a
// scalar.
func (r *resolver) product(x, y ir.Expr, p lang.Pos) ir.Expr {
	a, b := x.Type(), y.Type()
	mk := func(t ir.Type, mv bool) ir.Expr {
		return &ir.Binary{ExprBase: ir.ExprBase{P: x.Pos(), T: t}, Op: ir.OpMul, X: x, Y: y, MatVec: mv}
	}
	mismatch := func(what string, n int, hint string) ir.Expr {
		e := r.errorf(p, "shape mismatch in %s * %s: %s has %d %s but %s has %d %s", ir.FormatExpr(x), ir.FormatExpr(y), a, sizeOfLeft(a), leftUnit(a), b, n, what)
		e.Hint = hint
		return nil
	}
	bad := func(hint string) ir.Expr {
		e := r.errorf(p, "cannot apply * to %s and %s", a, b)
		e.Hint = hint
		return nil
	}
	colVec := func(t ir.Type) bool { return t.Kind == ir.Vector && !t.IsRow() }
	switch {
	case a.Scalar():
		return mk(b, false)
	case b.Scalar():
		return mk(a, false)
	case a.IsRow() && colVec(b):
		// row_vector * vector: the inner product
		if a.Rows != b.Rows {
			return mismatch("elements", b.Rows, "a row_vector[n] times a vector[n] is their inner product")
		}
		return ir.FnCall("dot", x.Pos(), ir.TReal, untransposed(x), y)
	case a.IsRow() && b.Kind == ir.Matrix:
		// row_vector * matrix: a row_vector
		if a.Rows != b.Rows {
			return mismatch("rows", b.Rows, "a row_vector[k] multiplies a matrix[k, c]")
		}
		return &ir.MatCall{ExprBase: ir.ExprBase{P: x.Pos(), T: ir.RowVecType(b.Cols)}, Name: "matmul", Op: stdlib.NewMatMul(1, a.Rows, b.Cols), Args: []ir.Expr{x, y}}
	case colVec(a) && b.IsRow():
		// vector * row_vector: the outer product, a matrix
		return &ir.MatCall{ExprBase: ir.ExprBase{P: x.Pos(), T: ir.MatType(a.Rows, b.Rows)}, Name: "matmul", Op: stdlib.NewMatMul(a.Rows, 1, b.Rows), Args: []ir.Expr{x, y}}
	case a.IsRow() && b.IsRow():
		return bad(rowHint(x, "a row_vector times a row_vector is not defined (as in Stan); the inner product of rows r and s is r * s' or dot(r, s)"))
	case a.Kind == ir.Matrix && b.Kind == ir.Matrix:
		if a.Cols != b.Rows {
			return mismatch("rows", b.Rows, "a matrix[r, k] multiplies a matrix[k, c]")
		}
		return &ir.MatCall{ExprBase: ir.ExprBase{P: x.Pos(), T: ir.MatType(a.Rows, b.Cols)}, Name: "matmul", Op: stdlib.NewMatMul(a.Rows, a.Cols, b.Cols), Args: []ir.Expr{x, y}}
	case a.Kind == ir.Matrix && b.Kind == ir.Vector:
		// matrix * vector; a row_vector stands for the column of its
		// elements here (Stan refuses matrix * row_vector)
		if a.Cols != b.Rows {
			hint := "a matrix[r, c] multiplies a vector[c]"
			if b.IsRow() {
				hint += "; " + ir.FormatExpr(y) + " is a row_vector, and a vector * row_vector is the outer product"
			}
			return mismatch("elements", b.Rows, hint)
		}
		return mk(ir.VecType(a.Rows), true)
	case colVec(a) && colVec(b):
		return bad(rowHint(x, "use dot(a, b) for the inner product"))
	}
	return bad("supported products: scalar * anything, matrix[r, c] * vector[c], matrix * matrix, row_vector[n] * vector[n] (the inner product), row_vector * matrix, vector * row_vector (the outer product)")
}

// rowHint is the hint for a refused product whose left operand is x: when
// x is the transpose of a row_vector (M[i]' with M a matrix), a column
// vector, it says so, since M[i]' was the row before rows were
// row_vectors.
func rowHint(x ir.Expr, hint string) string {
	if b, ok := x.(*ir.Builtin); ok && b.Def == ir.VecTranspose && b.Args[0].Type().IsRow() {
		return ir.FormatExpr(b.Args[0]) + " is a row_vector (a row of a matrix, or declared one), and " + ir.FormatExpr(x) + " a column vector: " + ir.FormatExpr(b.Args[0]) + " * v is the inner product with a vector v"
	}
	return hint
}

// sizeOfLeft is the size of the left operand of a product that must
// match the right one's: a matrix's columns, a vector's elements.
func sizeOfLeft(t ir.Type) int {
	if t.Kind == ir.Matrix {
		return t.Cols
	}
	return t.Rows
}

// leftUnit names sizeOfLeft.
func leftUnit(t ir.Type) string {
	if t.Kind == ir.Matrix {
		return "columns"
	}
	return "elements"
}

// rowDecl declares a row_vector: as a vector (declare, by its kind:
// r.decl or r.localDecl), then marks the variable a row. An array of
// row_vectors is refused.
func (r *resolver) rowDecl(d *lang.Decl, declare func(*lang.Decl) ir.Stmt) ir.Stmt {
	if d.Type.IsArray {
		e := r.errorf(r.at(d.Type.Pos), "arrays of row_vector are not supported")
		e.Hint = "declare a matrix: its rows M[i] are row_vectors"
		return nil
	}
	if len(d.Type.Dims) != 1 {
		r.errorf(r.at(d.Type.Pos), "row_vector needs one size, as in row_vector[N]")
		return nil
	}
	vd, vt := *d, *d.Type
	vt.Base = lang.BaseVector
	vd.Type = &vt
	st := declare(&vd)
	if ld, ok := st.(*ir.LocalDecl); ok {
		ld.Local.Type.Row = true
	} else if v := r.lookupQuiet(d.Name); v != nil && v.Pos == r.at(d.Pos) && v.Type.Kind == ir.Vector {
		v.Type.Row = true
	}
	return st
}

// rowRefused reports a row_vector x passed to a function that refuses
// one (ir.RowRefused).
func (r *resolver) rowRefused(x ir.Expr, fn string) {
	e := r.errorf(x.Pos(), "%s is a row_vector, which %s does not take: its value for a row differs from a column vector's", ir.FormatExpr(x), fn)
	e.Hint = "transpose it (" + ir.FormatExpr(x) + "') to pass it as a column vector"
}
