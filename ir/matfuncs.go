package ir

import (
	"strings"

	"github.com/mscppl/mscppl/lang"
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
func vecSize(d *stdlib.VecDensity, ts []Type) (int, bool) {
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

// vecDensity resolves a multivariate log density of y with parameters
// args, for y ~ name(args) and name_lpdf(y | args).
func (r *resolver) vecDensity(fam *stdlib.Family, y Expr, args []Expr, pos lang.Pos) Expr {
	if len(args) != len(fam.Params) {
		r.errorf(pos, "%s takes %d parameter%s (%s), got %d", fam.Name, len(fam.Params), Plural1(len(fam.Params)), paramList(fam), len(args))
		return nil
	}
	ts := make([]Type, 1+len(args))
	ts[0] = y.Type()
	for i, a := range args {
		ts[1+i] = a.Type()
	}
	n, ok := vecSize(fam.Vec, ts)
	if !ok {
		r.errorf(pos, "%s: %s; got %s and %s", fam.Name, fam.Vec.Want, ts[0], typeList(ts[1:]))
		return nil
	}
	return &MatCall{ExprBase: ExprBase{pos, TReal}, Name: fam.Name, Op: fam.Vec.New(n), Args: append([]Expr{y}, args...)}
}

func typeList(ts []Type) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}
