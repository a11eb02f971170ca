package ir

import (
	"fmt"
	"math"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/stdlib"
)

// Builtin is a call of a library function composed of the tape's own
// operations (mean, head, softmax, ...): Def is its entry in the
// vocabulary, Name the name as written. Ints holds the arguments that must
// be known before inference (sizes and offsets).
type Builtin struct {
	ExprBase
	Name string
	Def  *Function
	Args []Expr
	Ints []int
}

// functionTable is the vocabulary's table of built-in functions: one entry
// per function (vocab.go has the machinery). Adding a function is adding
// an entry here; the table of docs/language.md is generated from it
// (go test ./cmd/mscppl -run TestDocsVocabulary -update).
var functionTable = []*Function{
	// ---- elementwise, scalar -> scalar and vector -> vector
	tapeElem("exp", "the exponential", (*autodiff.Graph).Exp),
	tapeElem("log", "the natural logarithm", (*autodiff.Graph).Log),
	tapeElem("sqrt", "the square root", (*autodiff.Graph).Sqrt),
	tapeElem("log1p", "log(1 + x), accurate near 0", (*autodiff.Graph).Log1p),
	tapeElem("expm1", "exp(x) - 1, accurate near 0", (*autodiff.Graph).Expm1),
	elem("Phi", "the standard normal CDF"),
	elem("Phi_approx", "Stan's logistic approximation of Phi"),
	elem("log_Phi", "log(Phi(x)), accurate in both tails"),
	elem("inv_logit", "the logistic function 1 / (1 + exp(-x))"),
	elem("log_inv_logit", "log(inv_logit(x))"),
	elem("log1m_inv_logit", "log(1 - inv_logit(x))"),
	elem("inv_cloglog", "1 - exp(-exp(x))"),
	elem("log1m", "log(1 - x)"),
	elem("log1m_exp", "log(1 - exp(x)) for x < 0"),
	elem("log1p_exp", "log(1 + exp(x)), the softplus"),
	elem("inv", "1 / x"),
	elem("abs", "the absolute value"),
	{Name: "fabs", Alias: "abs"},
	elem("square", "x * x"),
	elem("lgamma", "the log of the gamma function"),
	elem("digamma", "the derivative of lgamma"),
	elem("logit", "log(x / (1 - x))"),
	elem("erf", "the error function"),
	elem("erfc", "the complementary error function"),
	elem("tgamma", "the gamma function"),
	withConstant(elem("log2", "the base-2 logarithm; log2() is log(2)"), math.Ln2),
	withConstant(elem("log10", "the base-10 logarithm; log10() is log(10)"), math.Ln10),
	elem("exp2", "2^x"),
	elem("cbrt", "the cube root"),
	elem("inv_sqrt", "1 / sqrt(x)"),
	elem("inv_square", "1 / x^2"),
	elem("sin", "the sine"),
	elem("cos", "the cosine"),
	elem("tan", "the tangent"),
	elem("asin", "the arc sine"),
	elem("acos", "the arc cosine"),
	elem("atan", "the arc tangent"),
	elem("sinh", "the hyperbolic sine"),
	elem("cosh", "the hyperbolic cosine"),
	elem("tanh", "the hyperbolic tangent"),
	elem("asinh", "the inverse hyperbolic sine"),
	elem("acosh", "the inverse hyperbolic cosine"),
	elem("atanh", "the inverse hyperbolic tangent"),
	elem("step", "1 for x >= 0, else 0 (derivative 0)"),
	elem("int_step", "1 for x > 0, else 0 (derivative 0)"),
	elem("floor", "the largest integer <= x (derivative 0)"),
	elem("ceil", "the smallest integer >= x (derivative 0)"),
	elem("round", "the nearest integer, halves away from 0 (derivative 0)"),
	elem("trunc", "the integer part (derivative 0)"),

	// ---- scalar functions of several arguments, elementwise over vectors
	nary("pow", "x, y", "x^y"),
	nary("fmin", "a, b", "the smaller of a and b (the other one when one is NaN)"),
	nary("fmax", "a, b", "the larger of a and b (the other one when one is NaN)"),
	nary("log_mix", "theta, lp1, lp2", "log(theta exp(lp1) + (1 - theta) exp(lp2))"),
	nary("lbeta", "a, b", "the log of the beta function"),
	nary("lchoose", "n, k", "the log of the binomial coefficient"),
	{Name: "binomial_coefficient_log", Alias: "lchoose"},
	nary("lmultiply", "a, b", "a log(b), 0 when both are 0"),
	{Name: "multiply_log", Alias: "lmultiply"},
	nary("log_diff_exp", "a, b", "log(exp(a) - exp(b))"),
	nary("hypot", "a, b", "sqrt(a^2 + b^2)"),
	nary("fdim", "a, b", "max(a - b, 0)"),
	nary("atan2", "y, x", "the angle of the point (x, y)"),
	nary("fma", "a, b, c", "a * b + c"),

	// ---- reductions and products
	{Name: "sum", Params: "v", Doc: "the sum of the elements", Arity: []int{1}, Check: reduction},
	{Name: "log_sum_exp", Params: "v", Doc: "log(sum(exp(v))), computed stably; log_sum_exp(a, b) of two scalars",
		Arity: []int{1, 2}, Check: checkLogSumExp},
	{Name: "dot", Params: "u, v", Doc: "the inner product of two vectors", Arity: []int{2}, Check: checkDot},
	{Name: "dot_product", Alias: "dot"},
	minMax("min", "fmin", "the smallest element; min(a, b) of two scalars is fmin(a, b)"),
	minMax("max", "fmax", "the largest element; max(a, b) of two scalars is fmax(a, b)"),
	vecFn("prod", "v", "the product of the elements", 1, 0, checkMinMax),
	vecFn("mean", "v", "the mean of the elements", 1, 0, checkMoments(1)),
	vecFn("variance", "v", "the sample variance of the elements", 1, 0, checkMoments(2)),
	vecFn("sd", "v", "the sample standard deviation of the elements", 1, 0, checkMoments(2)),
	vecFn("dot_self", "v", "dot(v, v)", 1, 0, checkDotSelf),
	rowRefused(vecFn("rows_dot_product", "A, B", "the dot products of the rows of A and B", 2, 0, checkRowsCols(true))),
	rowRefused(vecFn("columns_dot_product", "A, B", "the dot products of the columns of A and B", 2, 0, checkRowsCols(false))),
	rowRefused(vecFn("rows_dot_self", "A", "the dot products of the rows of A with themselves", 1, 0, checkRowsCols(true))),
	rowRefused(vecFn("columns_dot_self", "A", "the dot products of the columns of A with themselves", 1, 0, checkRowsCols(false))),

	// ---- vectors and matrices
	vecFn("cumulative_sum", "v", "the running sums of a vector", 1, 0, checkVecToVec),
	vecFn("softmax", "v", "exp(v) / sum(exp(v))", 1, 0, checkVecToVec),
	vecFn("log_softmax", "v", "v - log_sum_exp(v)", 1, 0, checkVecToVec),
	vecFn("head", "v, n", "the first n elements", 1, 1, checkHeadTail),
	vecFn("tail", "v, n", "the last n elements", 1, 1, checkHeadTail),
	vecFn("segment", "v, i, n", "the n elements from element i", 1, 2, checkSegment),
	rowRefused(vecFn("rep_matrix", "x, r, c", "the r x c matrix of x", 1, 2, checkRepMatrix)),
	vecFn("diag_pre_multiply", "v, M", "diag_matrix(v) * M", 2, 0, checkDiagPreMultiply),
	vecFn("to_vector", "M", "a matrix column by column (Stan's order); a vector as it is", 1, 0, checkToVector),
	rowRefused(vecFn("append_row", "a, b", "the vector of a's elements then b's (vectors or scalars)", 2, 0, checkAppendRow)),
	vecFn("col", "M, j", "column j of a matrix, as a vector", 1, 1, checkColRow(false)),
	vecFn("row", "M, i", "row i of a matrix, a row_vector", 1, 1, checkColRow(true)),
	vecFn("block", "M, i, j, nr, nc", "the nr x nc block of M from row i and column j", 1, 4, checkBlock),
	matFn("gp_exp_quad_cov", "x, alpha, rho", "the exponentiated quadratic covariance alpha^2 exp(-(x_i - x_j)^2 / (2 rho^2))", 3, checkGPExpQuadCov),
	rowRefused(matFn("diag_matrix", "v", "the diagonal matrix of v", 1, checkDiagMatrix)),
	matFn("rep_vector", "x, n", "the vector of n copies of x", 2, checkRepVector),
	matFn("cholesky_decompose", "A", "the lower Cholesky factor of a symmetric positive definite matrix", 1, checkCholesky),
	matFn("hmm_marginal", "log_omega, Gamma, rho", "the log marginal likelihood of a hidden Markov model (Stan's): log_omega[k, n] state k's log density of observation n, Gamma[i, j] = P(next j | now i), rho the initial distribution", 3, checkHMMMarginal),

	// ---- ODE solvers (ode.go): f a user function f(t, y, ...) -> vector passed by name
	odeEntry("ode_rk45", "f, y0, t0, ts, ...", "the states at times ts of dy/dt = f(t, y, ...), y(t0) = y0, by the Dormand-Prince 5(4) method (a matrix[N, K]: row n the state at ts[n])", OdeForm{}),
	odeEntry("ode_bdf", "f, y0, t0, ts, ...", "ode_rk45 by a stiff solver (the Rosenbrock 2(3) pair of MATLAB's ode23s, with the exact Jacobian)", OdeForm{Stiff: true}),
	odeEntry("ode_rk45_tol", "f, y0, t0, ts, rtol, atol, max_steps, ...", "ode_rk45 with tolerances and a maximum number of steps (defaults 1e-6, 1e-6, 1e6)", OdeForm{Tol: true}),
	odeEntry("ode_bdf_tol", "f, y0, t0, ts, rtol, atol, max_steps, ...", "ode_bdf with tolerances and a maximum number of steps", OdeForm{Stiff: true, Tol: true}),
	odeEntry("integrate_ode_rk45", "f, y0, t0, ts, theta, x_r, x_i[, rtol, atol, max_steps]", "Stan's older ode_rk45: f(t, y, theta, x_r, x_i)", OdeForm{Old: true}),
	odeEntry("integrate_ode_bdf", "f, y0, t0, ts, theta, x_r, x_i[, rtol, atol, max_steps]", "Stan's older ode_bdf: f(t, y, theta, x_r, x_i)", OdeForm{Old: true, Stiff: true}),

	// ---- sizes, known before inference
	rowRefused(vecFn("rows", "x", "the number of rows", 1, 0, checkSize(sizeRows))),
	rowRefused(vecFn("cols", "x", "the number of columns (1 for a vector)", 1, 0, checkSize(sizeCols))),
	vecFn("num_elements", "x", "the number of elements", 1, 0, checkSize(sizeElements)),
	vecFn("size", "x", "the number of elements (of an array: its first size)", 1, 0, checkSize(sizeFirst)),
	rowRefused(vecFn("dims", "x", "the sizes of an array, vector or matrix, as an int array", 1, 0, checkDims)),

	// ---- arrays (arrays.go)
	vecFn("to_array_1d", "x", "an array's elements in order (a matrix's column by column), as a 1-D array", 1, 0, checkToArray1D),
	rowRefused(vecFn("to_matrix", "a", "a 2-D array or an array of vectors (one per row) as a matrix", 1, 0, checkToMatrix)),
	{Name: "rep_array", Params: "x, n[, m]", Doc: "the array of n copies of x (an n x m array with m)", Arity: []int{2, 3}, Check: checkRepArray},

	// ---- constants: Stan's functions of no arguments
	constant("pi", math.Pi, "the number pi"),
	constant("e", math.E, "the base of the natural logarithm"),
	constant("sqrt2", math.Sqrt2, "the square root of 2"),
	constant("positive_infinity", math.Inf(1), "+Inf"),
	constant("negative_infinity", math.Inf(-1), "-Inf"),
	constant("not_a_number", math.NaN(), "NaN"),
	constant("machine_precision", 0x1p-52, "the distance from 1 to the next float64"),
}

// ---- entry makers -------------------------------------------------------------

// tapeElem is an elementwise function built into the tape.
func tapeElem(name, doc string, op func(*autodiff.Graph, autodiff.Node) autodiff.Node) *Function {
	return &Function{Name: name, Params: "x", Doc: doc, Arity: []int{1}, Check: elementwise, Elementwise: true, Tape: op}
}

// elem is an elementwise function whose op is stdlib's ElemFunc of that
// name.
func elem(name, doc string) *Function {
	op := stdlib.FindElem(name)
	if op == nil {
		panic("ir: no stdlib.ElemFunc " + name)
	}
	return elemOp(op, doc)
}

// elemOp is an elementwise function with the given op (an entry may make
// its own with stdlib.NewElemFunc).
func elemOp(op *stdlib.ElemFunc, doc string) *Function {
	return &Function{Name: op.Name(), Params: "x", Doc: doc, Arity: []int{1}, Check: elementwise, Elementwise: true, Elem: op}
}

// withConstant lets an elementwise function be called without arguments
// for a constant (log2() is log(2)).
func withConstant(f *Function, v float64) *Function {
	fn := f.Check
	f.Arity = []int{0, 1}
	f.Check = func(k *Site) Expr {
		if len(k.Args) == 0 {
			return &Num{ExprBase: ExprBase{k.Pos, TReal}, V: v}
		}
		return fn(k)
	}
	return f
}

// constant is a function of no arguments with a fixed value (pi()).
func constant(name string, v float64, doc string) *Function {
	return &Function{Name: name, Doc: doc, Arity: []int{0},
		Check: func(k *Site) Expr { return &Num{ExprBase: ExprBase{k.Pos, TReal}, V: v} }}
}

// nary is a scalar function of several arguments, stdlib's NaryFunc of
// that name, applied elementwise with broadcasting.
func nary(name, params, doc string) *Function {
	op := stdlib.FindNary(name)
	if op == nil {
		panic("ir: no stdlib.NaryFunc " + name)
	}
	return &Function{Name: name, Params: params, Doc: doc, Arity: []int{op.Arity}, Nary: op,
		Check: func(k *Site) Expr { return NaryNode(k, op) }}
}

// vecFn is a function on vectors and matrices: vecs value arguments, then
// ints integers known before inference; check types it, lower lowers its
// Builtin.
func vecFn(name, params, doc string, vecs, ints int, check func(*Site) Expr) *Function {
	return &Function{Name: name, Params: params, Doc: doc, Arity: []int{vecs + ints}, Ints: ints, Check: check}
}

// minMax is min or max: of the elements of a vector or matrix, or of two
// scalars (pair: fmin or fmax).
func minMax(name, pair, doc string) *Function {
	f := vecFn(name, "v", doc, 1, 0, checkMinMax)
	op := stdlib.FindNary(pair)
	f.Arity = []int{1, 2}
	f.Check = func(k *Site) Expr {
		if len(k.Args) == 2 {
			return NaryNode(k, op)
		}
		return checkMinMax(k)
	}
	return f
}

// rowRefused marks f RowRefused: its value for a row_vector argument would
// differ from Stan's.
func rowRefused(f *Function) *Function {
	f.RowRefused = true
	return f
}

// matFn is a vector or matrix function whose check makes a MatCall (a
// stdlib op on the tape).
func matFn(name, params, doc string, n int, check func(*Site) Expr) *Function {
	return &Function{Name: name, Params: params, Doc: doc, Arity: []int{n}, Check: check}
}

// naryNode is a NaryCall of op over the arguments: scalars, or vectors of
// one length (scalars broadcast).
func NaryNode(k *Site, op *stdlib.NaryFunc) Expr {
	t := TReal
	for i, a := range k.Args {
		at := a.Type()
		switch {
		case at.Scalar():
		case at.Kind == Vector && (t.Scalar() || t.Rows == at.Rows):
			t = at
		default:
			k.Errorf(a.Pos(), "argument %d of %s is %s; the arguments are scalars or vectors of one length", i+1, k.Name, at)
			return nil
		}
	}
	return &NaryCall{ExprBase: ExprBase{k.Pos, t}, Name: k.Name, Fn: op, Args: k.Args}
}

// matCall is a MatCall of a fresh op (ops keep scratch) of type t.
func matCall(k *Site, t Type, op stdlib.VecOp, args ...Expr) Expr {
	return &MatCall{ExprBase: ExprBase{k.Pos, t}, Name: k.Name, Op: op, Args: args}
}

// ---- checks -------------------------------------------------------------------

func elementwise(k *Site) Expr {
	t := k.t(0)
	if t.Kind == Int {
		t = TReal
	}
	return k.call(t)
}

func reduction(k *Site) Expr { return k.call(TReal) }

func checkLogSumExp(k *Site) Expr {
	if len(k.Args) == 2 {
		for _, a := range k.Args {
			if !a.Type().Scalar() {
				k.Errorf(a.Pos(), "log_sum_exp(a, b) takes two scalars; use log_sum_exp(v) for a vector")
				return nil
			}
		}
	}
	return k.call(TReal)
}

func checkDot(k *Site) Expr {
	a, b := k.t(0), k.t(1)
	if a.Kind != Vector || b.Kind != Vector || a.Rows != b.Rows {
		k.Errorf(k.Pos, "%s takes two vectors of the same length, got %s and %s", k.Name, a, b)
		return nil
	}
	return k.call(TReal)
}

// checkMinMax: min, max and prod of a vector or matrix; min(a, b) and
// max(a, b) of two scalars are fmin and fmax.
func checkMinMax(k *Site) Expr {
	if k.t(0).Scalar() {
		return k.bad("a vector or a matrix")
	}
	return k.builtin(TReal)
}

// checkMoments: mean (of at least one element), variance and sd (of at
// least two).
func checkMoments(least int) func(k *Site) Expr {
	return func(k *Site) Expr {
		t := k.t(0)
		if t.Scalar() || t.Len() < least {
			return k.bad("a vector or a matrix (of at least 2 elements for variance and sd)")
		}
		return k.builtin(TReal)
	}
}

func checkDotSelf(k *Site) Expr {
	if k.t(0).Kind != Vector {
		return k.bad("a vector")
	}
	return k.builtin(TReal)
}

// checkRowsCols: rows_dot_product, columns_dot_product, rows_dot_self and
// columns_dot_self (a vector is one column).
func checkRowsCols(rows bool) func(k *Site) Expr {
	return func(k *Site) Expr {
		t := k.t(0)
		if len(k.Args) == 2 {
			u := k.t(1)
			if t.Kind == Int || t.Kind == Real || !SameShape(t, u) {
				k.Errorf(k.Pos, "%s takes two matrices (or vectors) of one shape, got %s and %s", k.Name, t, u)
				return nil
			}
		} else if t.Scalar() {
			return k.bad("a matrix or a vector")
		}
		if rows {
			return k.builtin(VecType(t.Rows))
		}
		return k.builtin(VecType(max(t.Cols, 1)))
	}
}

func checkVecToVec(k *Site) Expr {
	if k.t(0).Kind != Vector {
		return k.bad("a vector")
	}
	return k.builtin(k.t(0))
}

func checkHeadTail(k *Site) Expr {
	t := k.t(0)
	if t.Kind != Vector || k.Ints[0] < 0 || k.Ints[0] > t.Rows {
		return k.bad("a vector and a length between 0 and its size")
	}
	return k.builtin(t.Oriented(k.Ints[0]))
}

func checkSegment(k *Site) Expr {
	t, i, n := k.t(0), k.Ints[0], k.Ints[1]
	if t.Kind != Vector || i < 1 || n < 0 || i+n-1 > t.Rows {
		return k.bad("a vector, a start (1-based) and a length that fit in it")
	}
	return k.builtin(t.Oriented(n))
}

func checkRepMatrix(k *Site) Expr {
	if !k.t(0).Scalar() || k.Ints[0] < 0 || k.Ints[1] < 0 {
		return k.bad("a scalar and two sizes")
	}
	return k.builtin(MatType(k.Ints[0], k.Ints[1]))
}

// checkDiagPreMultiply: diag_pre_multiply(v, M) is diag(v) * M.
func checkDiagPreMultiply(k *Site) Expr {
	t, m := k.t(0), k.t(1)
	if t.Kind != Vector || m.Kind != Matrix || m.Rows != t.Rows {
		k.Errorf(k.Pos, "%s takes a vector[n] and a matrix[n, c], got %s and %s", k.Name, t, m)
		return nil
	}
	return k.builtin(m)
}

// checkToVector: a vector (or int[N]) as it is, a matrix column by column
// (Stan's order).
func checkToVector(k *Site) Expr {
	if k.t(0).Scalar() {
		return k.bad("a vector or a matrix")
	}
	return k.builtin(VecType(k.t(0).Len()))
}

func checkAppendRow(k *Site) Expr {
	t, u := k.t(0), k.t(1)
	if t.Kind == Matrix || u.Kind == Matrix {
		k.Errorf(k.Pos, "%s takes vectors or scalars, got %s and %s", k.Name, t, u)
		return nil
	}
	return k.builtin(VecType(t.Len() + u.Len()))
}

// checkColRow: col(M, j) (a vector) and row(M, i) (a row_vector).
func checkColRow(row bool) func(k *Site) Expr {
	return func(k *Site) Expr {
		t := k.t(0)
		size, what, rt := t.Cols, "column", VecType(t.Rows)
		if row {
			size, what, rt = t.Rows, "row", RowVecType(t.Cols)
		}
		if t.Kind != Matrix || k.Ints[0] < 1 || k.Ints[0] > size {
			return k.bad(fmt.Sprintf("a matrix and a %s index (1-based) within it", what))
		}
		return k.builtin(rt)
	}
}

func checkBlock(k *Site) Expr {
	t := k.t(0)
	i, j, nr, nc := k.Ints[0], k.Ints[1], k.Ints[2], k.Ints[3]
	if t.Kind != Matrix || i < 1 || j < 1 || nr < 1 || nc < 1 || i+nr-1 > t.Rows || j+nc-1 > t.Cols {
		return k.bad("a matrix, a first row and column (1-based) and a number of rows and columns that fit in it")
	}
	return k.builtin(MatType(nr, nc))
}

// sizeOf is which size a size function gives.
type sizeOf int

const (
	sizeRows     sizeOf = iota // rows
	sizeCols                   // cols (1 for a vector)
	sizeElements               // num_elements
	sizeFirst                  // size: of an array its first size, else num_elements
)

// checkSize: rows, cols, num_elements and size are constants.
func checkSize(which sizeOf) func(k *Site) Expr {
	return func(k *Site) Expr {
		t := k.t(0)
		var n int
		switch which {
		case sizeRows:
			n = t.Rows
		case sizeCols:
			n = 1
			if t.Kind == Matrix {
				n = t.Cols
			}
		default: // num_elements, size
			if t.Scalar() {
				return k.bad("a vector or a matrix")
			}
			n = t.Len()
			if which == sizeFirst && t.Array > 0 {
				n = t.Rows
			}
		}
		return &Num{ExprBase: ExprBase{k.Pos, TInt}, V: float64(n)}
	}
}

func checkGPExpQuadCov(k *Site) Expr {
	if k.t(0).Kind != Vector || !k.t(1).Scalar() || !k.t(2).Scalar() {
		return k.badf("takes x (a vector), alpha and rho (scalars), got %s", TypeList([]Type{k.t(0), k.t(1), k.t(2)}))
	}
	n := k.t(0).Rows
	return matCall(k, MatType(n, n), stdlib.NewGPExpQuadCov(n), k.Args...)
}

func checkDiagMatrix(k *Site) Expr {
	if k.t(0).Kind != Vector {
		return k.badf("takes a vector, got %s", k.t(0))
	}
	n := k.t(0).Rows
	return matCall(k, MatType(n, n), stdlib.NewDiagMatrix(n), k.Args...)
}

func checkRepVector(k *Site) Expr {
	n, ok := FoldConst(k.Args[1])
	if !ok || k.t(1).Kind != Int || n < 0 || !k.t(0).Scalar() {
		return k.badf("takes a scalar and a size known before inference (rep_vector(x, N))")
	}
	size, ok := ExactInt(n)
	if !ok {
		return k.badf("%s", BigIntMsg(k.Args[1], n))
	}
	return matCall(k, VecType(size), stdlib.NewRepVector(size), k.Args[0])
}

func checkCholesky(k *Site) Expr {
	if k.t(0).Kind != Matrix || k.t(0).Rows != k.t(0).Cols {
		return k.badf("takes a square matrix, got %s", k.t(0))
	}
	n := k.t(0).Rows
	return matCall(k, MatType(n, n), stdlib.NewCholesky(n), k.Args...)
}

// VecTranspose is v' for a vector or a row_vector v: the same values in
// the other orientation (a column vector's transpose is a row_vector, a
// row_vector's a column vector; Type.Row). It is an operator's node, not a
// function of the table.
var VecTranspose = &Function{Name: "transpose"}

// Rng is NAME_rng(params): a draw from a family on each evaluation,
// allowed in the derived block only (posterior predictive quantities).
type Rng struct {
	ExprBase
	Dist *stdlib.Family
	Args []Expr
}

// CdfArgMessage says which argument of a CDF call was bad.
func CdfArgMessage(e *NaryCall, j int, x float64, want string) string {
	name := "y"
	if j > 0 {
		name = e.CDFOf.Params[j-1].Name
	}
	return fmt.Sprintf("%s: argument %d (%s) must be %s, got %g", e.Name, j+1, name, want, x)
}
