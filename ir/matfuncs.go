package ir

import (
	"strings"

	"github.com/mscppl/mscppl/stdlib"
)

// MatCall is a call of a vector or matrix function (gp_exp_quad_cov,
// diag_matrix, rep_vector, cholesky_decompose) or of a multivariate log
// density (multi_normal_cholesky_lpdf, ...): a custom op of the tape.
type MatCall struct {
	ExprBase
	Name string
	Op   stdlib.VecOp // a fresh op per call site (ops keep scratch)
	Args []Expr
	// Postfix is true for the transpose x', printed so.
	Postfix bool
}

// shapeFits reports whether t has shape s of size n.
func shapeFits(s stdlib.Shape, t Type, n int) bool {
	switch s {
	case stdlib.ShapeInt:
		return t.Kind == Int
	case stdlib.ShapeScalar:
		return t.Scalar()
	case stdlib.ShapeVector:
		return t.Kind == Vector && t.Rows == n
	case stdlib.ShapeVectorOrScalar:
		return t.Scalar() || t.Kind == Vector && t.Rows == n
	default: // stdlib.ShapeSquare
		return t.Kind == Matrix && t.Rows == n && t.Cols == n
	}
}

// vecSize checks the types of a multivariate distribution's value and
// parameters against its shapes; it returns its size n and whether they
// fit.
func VecSize(d *stdlib.VecDensity, ts []Type) (int, bool) {
	shapes := append([]stdlib.Shape{d.Value}, d.Params...)
	n := -1 // the size of the first vector or matrix
	for i, s := range shapes {
		if (s == stdlib.ShapeVector || s == stdlib.ShapeSquare) && (ts[i].Kind == Vector || ts[i].Kind == Matrix) {
			n = ts[i].Rows
			break
		}
	}
	for i, s := range shapes {
		if !shapeFits(s, ts[i], n) {
			return 0, false
		}
	}
	return n, true
}

func TypeList(ts []Type) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}
