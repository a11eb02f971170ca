package ir

import (
	"fmt"
	"strings"

	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// MatCall is a call of a vector or matrix function (gp_exp_quad_cov,
// diag_matrix, rep_vector, cholesky_decompose) or of a multivariate log
// density (multi_normal_cholesky_lpdf, ...): a custom op of the tape.
type MatCall struct {
	exprBase
	Name string
	Op   stdlib.VecOp // a fresh op per call site (ops keep scratch)
	Args []Expr
}

// vecDist is a multivariate distribution: its parameters' names, and the
// op for a value of length n.
type vecDist struct {
	params []string
	// check returns what is wrong with the types of y and the parameters
	// ("" when they fit) and n, the op's size.
	check func(y Type, p []Type) (string, int)
	mk    func(n int) stdlib.VecOp
}

func vecOrScalar(t Type, n int) bool { return t.Scalar() || t.Kind == Vector && t.Rows == n }

var vecDists = map[string]vecDist{
	"multi_normal_cholesky": {[]string{"mu", "L"}, func(y Type, p []Type) (string, int) {
		if y.Kind != Vector || !vecOrScalar(p[0], y.Rows) || p[1].Kind != Matrix || p[1].Rows != y.Rows || p[1].Cols != y.Rows {
			return "y is a vector[n], mu a vector[n] (or a scalar) and L a matrix[n, n]", 0
		}
		return "", y.Rows
	}, stdlib.NewMultiNormalCholeskyLpdf},
	"multi_normal": {[]string{"mu", "Sigma"}, func(y Type, p []Type) (string, int) {
		if y.Kind != Vector || !vecOrScalar(p[0], y.Rows) || p[1].Kind != Matrix || p[1].Rows != y.Rows || p[1].Cols != y.Rows {
			return "y is a vector[n], mu a vector[n] (or a scalar) and Sigma a matrix[n, n]", 0
		}
		return "", y.Rows
	}, stdlib.NewMultiNormalLpdf},
	"dirichlet": {[]string{"alpha"}, func(y Type, p []Type) (string, int) {
		if y.Kind != Vector || !vecOrScalar(p[0], y.Rows) {
			return "theta is a vector[K] (a simplex) and alpha a vector[K] or a scalar", 0
		}
		return "", y.Rows
	}, stdlib.NewDirichletLpdf},
	"lkj_corr_cholesky": {[]string{"eta"}, func(y Type, p []Type) (string, int) {
		if y.Kind != Matrix || y.Rows != y.Cols || !p[0].Scalar() {
			return "L is a cholesky_factor_corr[K] and eta a scalar", 0
		}
		return "", y.Rows
	}, stdlib.NewLKJCorrCholeskyLpdf},
	"categorical": {[]string{"theta"}, func(y Type, p []Type) (string, int) {
		if y.Kind != Int || p[0].Kind != Vector {
			return "y is an int and theta a vector[K] (a simplex)", 0
		}
		return "", p[0].Rows
	}, stdlib.NewCategoricalLpmf},
	"ordered_logistic": {[]string{"eta", "c"}, func(y Type, p []Type) (string, int) {
		if y.Kind != Int || !p[0].Scalar() || p[1].Kind != Vector {
			return "y is an int, eta a scalar and c a vector[K - 1] of increasing cutpoints (ordered[K - 1])", 0
		}
		return "", p[1].Rows
	}, stdlib.NewOrderedLogisticLpmf},
	"categorical_logit": {[]string{"beta"}, func(y Type, p []Type) (string, int) {
		if y.Kind != Int || p[0].Kind != Vector {
			return "y is an int and beta a vector[K]", 0
		}
		return "", p[0].Rows
	}, stdlib.NewCategoricalLogitLpmf},
}

// vecDistNames lists the multivariate distributions, for messages.
func vecDistNames() []string {
	out := make([]string, 0, len(vecDists))
	for n := range vecDists {
		out = append(out, n)
	}
	return out
}

// vecDensity resolves a multivariate log density of y with parameters
// args, for y ~ name(args) and name_lpdf(y | args).
func (r *resolver) vecDensity(name string, d vecDist, y Expr, args []Expr, pos lang.Pos) Expr {
	if len(args) != len(d.params) {
		r.errorf(pos, "%s takes %d parameter%s (%s), got %d", name, len(d.params), plural1(len(d.params)), strings.Join(d.params, ", "), len(args))
		return nil
	}
	ts := make([]Type, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	msg, n := d.check(y.Type(), ts)
	if msg != "" {
		r.errorf(pos, "%s: %s; got %s and %s", name, msg, y.Type(), typeList(ts))
		return nil
	}
	return &MatCall{exprBase: exprBase{pos, tReal}, Name: name, Op: d.mk(n), Args: append([]Expr{y}, args...)}
}

func typeList(ts []Type) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}

// matFunc resolves the vector and matrix functions, reporting whether name
// is one of them.
func (r *resolver) matFunc(c *lang.Call) (Expr, bool) {
	arity := map[string]int{"gp_exp_quad_cov": 3, "diag_matrix": 1, "rep_vector": 2, "cholesky_decompose": 1}
	want, ok := arity[c.Name]
	if !ok {
		return nil, false
	}
	pos := r.at(c.Pos)
	if len(c.Args) != want || c.Bar {
		r.errorf(pos, "%s takes %d argument%s, got %d", c.Name, want, plural1(want), len(c.Args))
		return nil, true
	}
	args := make([]Expr, len(c.Args))
	for i, a := range c.Args {
		if args[i] = r.expr(a); args[i] == nil {
			return nil, true
		}
	}
	t := func(i int) Type { return args[i].Type() }
	bad := func(format string, a ...any) (Expr, bool) {
		r.errorf(pos, "%s: %s", c.Name, fmt.Sprintf(format, a...))
		return nil, true
	}
	mk := func(rt Type, op stdlib.VecOp, in ...Expr) (Expr, bool) {
		return &MatCall{exprBase: exprBase{pos, rt}, Name: c.Name, Op: op, Args: in}, true
	}
	switch c.Name {
	case "gp_exp_quad_cov":
		if t(0).Kind != Vector || !t(1).Scalar() || !t(2).Scalar() {
			return bad("takes x (a vector), alpha and rho (scalars), got %s", typeList([]Type{t(0), t(1), t(2)}))
		}
		n := t(0).Rows
		return mk(matType(n, n), stdlib.NewGPExpQuadCov(n), args...)
	case "diag_matrix":
		if t(0).Kind != Vector {
			return bad("takes a vector, got %s", t(0))
		}
		n := t(0).Rows
		return mk(matType(n, n), stdlib.NewDiagMatrix(n), args...)
	case "rep_vector":
		n, ok := foldConst(args[1])
		if !ok || t(1).Kind != Int || n < 1 || !t(0).Scalar() {
			return bad("takes a scalar and a size known before inference (rep_vector(x, N))")
		}
		return mk(vecType(int(n)), stdlib.NewRepVector(int(n)), args[0])
	default: // cholesky_decompose
		if t(0).Kind != Matrix || t(0).Rows != t(0).Cols {
			return bad("takes a square matrix, got %s", t(0))
		}
		n := t(0).Rows
		return mk(matType(n, n), stdlib.NewCholesky(n), args...)
	}
}
