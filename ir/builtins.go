package ir

import (
	"fmt"
	"strings"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// Builtin is a library function composed of the tape's own operations:
// mean, variance, sd, head, tail, segment, cumulative_sum, softmax,
// log_softmax, rep_matrix, diag_pre_multiply. Ints holds the arguments
// that must be known before inference (sizes and offsets).
type Builtin struct {
	exprBase
	Name string
	Args []Expr
	Ints []int
}

// builtin resolves the functions of Builtin and the size queries rows,
// cols and num_elements (constants), reporting whether name is one.
func (r *resolver) builtin(c *lang.Call) (Expr, bool) {
	// vector arguments, then integer arguments known before inference
	shape := map[string][2]int{"mean": {1, 0}, "variance": {1, 0}, "sd": {1, 0}, "head": {1, 1}, "tail": {1, 1},
		"segment": {1, 2}, "cumulative_sum": {1, 0}, "softmax": {1, 0}, "log_softmax": {1, 0},
		"rep_matrix": {1, 2}, "diag_pre_multiply": {2, 0}, "rows": {1, 0}, "cols": {1, 0}, "num_elements": {1, 0},
		"to_vector": {1, 0}, "append_row": {2, 0}, "col": {1, 1}, "row": {1, 1}, "block": {1, 4},
		"min": {1, 0}, "max": {1, 0}, "prod": {1, 0}, "dot_self": {1, 0}, "size": {1, 0},
		"rows_dot_product": {2, 0}, "columns_dot_product": {2, 0}, "rows_dot_self": {1, 0}, "columns_dot_self": {1, 0}}
	sh, ok := shape[c.Name]
	if !ok || (c.Name == "min" || c.Name == "max") && len(c.Args) == 2 { // min(a, b): fmin
		return nil, false
	}
	pos := r.at(c.Pos)
	if c.Bar || len(c.Args) != sh[0]+sh[1] {
		r.errorf(pos, "%s takes %d argument%s, got %d", c.Name, sh[0]+sh[1], plural1(sh[0]+sh[1]), len(c.Args))
		return nil, true
	}
	args := make([]Expr, sh[0])
	for i := range args {
		if args[i] = r.expr(c.Args[i]); args[i] == nil {
			return nil, true
		}
	}
	ints := make([]int, sh[1])
	for i := range ints {
		x := r.expr(c.Args[sh[0]+i])
		if x == nil {
			return nil, true
		}
		v, ok := foldConst(x)
		if !ok || x.Type().Kind != Int {
			r.errorf(x.Pos(), "argument %d of %s must be an integer known before inference", sh[0]+i+1, c.Name)
			return nil, true
		}
		ints[i] = int(v)
	}
	t := args[0].Type()
	bad := func(want string) (Expr, bool) {
		r.errorf(pos, "%s takes %s, got %s", c.Name, want, t)
		return nil, true
	}
	mk := func(rt Type) (Expr, bool) {
		return &Builtin{exprBase: exprBase{pos, rt}, Name: c.Name, Args: args, Ints: ints}, true
	}
	num := func(v int) (Expr, bool) { return &Num{exprBase: exprBase{pos, tInt}, V: float64(v)}, true }
	switch c.Name {
	case "rows":
		return num(t.Rows)
	case "cols":
		if t.Kind == Matrix {
			return num(t.Cols)
		}
		return num(1)
	case "num_elements", "size":
		if t.Scalar() {
			return bad("a vector or a matrix")
		}
		return num(t.Len())
	case "mean", "variance", "sd":
		if t.Scalar() || c.Name != "mean" && t.Len() < 2 {
			return bad("a vector or a matrix (of at least 2 elements for variance and sd)")
		}
		return mk(tReal)
	case "rows_dot_product", "columns_dot_product":
		u := args[1].Type()
		if t.Kind == Int || t.Kind == Real || !sameShape(t, u) {
			r.errorf(pos, "%s takes two matrices (or vectors) of one shape, got %s and %s", c.Name, t, u)
			return nil, true
		}
		if c.Name == "rows_dot_product" {
			return mk(vecType(t.Rows))
		}
		return mk(vecType(max(t.Cols, 1)))
	case "rows_dot_self", "columns_dot_self":
		if t.Scalar() {
			return bad("a matrix or a vector")
		}
		if c.Name == "rows_dot_self" {
			return mk(vecType(t.Rows))
		}
		return mk(vecType(max(t.Cols, 1)))
	case "cumulative_sum", "softmax", "log_softmax":
		if t.Kind != Vector {
			return bad("a vector")
		}
		return mk(t)
	case "head", "tail":
		if t.Kind != Vector || ints[0] < 0 || ints[0] > t.Rows {
			return bad("a vector and a length between 0 and its size")
		}
		return mk(vecType(ints[0]))
	case "segment":
		if t.Kind != Vector || ints[0] < 1 || ints[1] < 0 || ints[0]+ints[1]-1 > t.Rows {
			return bad("a vector, a start (1-based) and a length that fit in it")
		}
		return mk(vecType(ints[1]))
	case "rep_matrix":
		if !t.Scalar() || ints[0] < 1 || ints[1] < 1 {
			return bad("a scalar and two sizes")
		}
		return mk(matType(ints[0], ints[1]))
	case "to_vector": // a vector (or int[N]) as it is, a matrix column by column (Stan's order)
		if t.Scalar() {
			return bad("a vector or a matrix")
		}
		return mk(vecType(t.Len()))
	case "append_row":
		u := args[1].Type()
		if t.Kind == Matrix || u.Kind == Matrix {
			r.errorf(pos, "append_row takes vectors or scalars, got %s and %s", t, u)
			return nil, true
		}
		return mk(vecType(t.Len() + u.Len()))
	case "col", "row":
		size, what := t.Cols, "column"
		if c.Name == "row" {
			size, what = t.Rows, "row"
		}
		if t.Kind != Matrix || ints[0] < 1 || ints[0] > size {
			return bad(fmt.Sprintf("a matrix and a %s index (1-based) within it", what))
		}
		if c.Name == "row" {
			return &Builtin{exprBase: exprBase{pos, vecType(t.Cols)}, Name: "matrow", Args: args, Ints: ints}, true
		}
		return mk(vecType(t.Rows))
	case "block":
		i, j, nr, nc := ints[0], ints[1], ints[2], ints[3]
		if t.Kind != Matrix || i < 1 || j < 1 || nr < 1 || nc < 1 || i+nr-1 > t.Rows || j+nc-1 > t.Cols {
			return bad("a matrix, a first row and column (1-based) and a number of rows and columns that fit in it")
		}
		return mk(matType(nr, nc))
	case "min", "max", "prod":
		if t.Scalar() {
			return bad("a vector or a matrix")
		}
		return mk(tReal)
	case "dot_self":
		if t.Kind != Vector {
			return bad("a vector")
		}
		return mk(tReal)
	default: // diag_pre_multiply(v, M): diag(v) * M
		m := args[1].Type()
		if t.Kind != Vector || m.Kind != Matrix || m.Rows != t.Rows {
			r.errorf(pos, "diag_pre_multiply takes a vector[n] and a matrix[n, c], got %s and %s", t, m)
			return nil, true
		}
		return mk(m)
	}
}

// builtin lowers a Builtin to the tape.
func (cp *compiler) builtin(e *Builtin) autodiff.Node {
	g := cp.g
	a := make([]autodiff.Node, len(e.Args))
	for i, x := range e.Args {
		a[i] = cp.expr(x)
	}
	x := a[0]
	n := e.Args[0].Type().Len()
	switch e.Name {
	case "row":
		return g.Reshape(x, 1, n)
	case "mean":
		return g.Div(g.Sum(x), cp.num(float64(n)))
	case "variance", "sd":
		dev := g.Sub(x, g.Div(g.Sum(x), cp.num(float64(n))))
		v := g.Div(g.Sum(g.Mul(dev, dev)), cp.num(float64(n-1)))
		if e.Name == "sd" {
			return g.Sqrt(v)
		}
		return v
	case "head":
		return g.Slice(x, 0, e.Ints[0])
	case "tail":
		return g.Slice(x, n-e.Ints[0], n)
	case "segment":
		return g.Slice(x, e.Ints[0]-1, e.Ints[0]-1+e.Ints[1])
	case "cumulative_sum":
		el := make([]autodiff.Node, n)
		for i := range el {
			el[i] = g.Index(x, i)
			if i > 0 {
				el[i] = g.Add(el[i-1], el[i])
			}
		}
		return g.Stack(el...)
	case "softmax":
		return g.Exp(g.Sub(x, g.LogSumExp(x)))
	case "log_softmax":
		return g.Sub(x, g.LogSumExp(x))
	case "rep_matrix":
		el := make([]autodiff.Node, e.Ints[0]*e.Ints[1])
		for i := range el {
			el[i] = x
		}
		return g.Reshape(g.Stack(el...), e.Ints[0], e.Ints[1])
	case "to_vector":
		t := e.Args[0].Type()
		if t.Kind != Matrix {
			return x
		}
		idx := make(gather, 0, n) // column by column
		for j := 0; j < t.Cols; j++ {
			for i := 0; i < t.Rows; i++ {
				idx = append(idx, i*t.Cols+j)
			}
		}
		return g.Custom(idx, n, x)
	case "append_row":
		return g.Custom(concat{n, e.Args[1].Type().Len()}, e.T.Len(), x, a[1])
	case "col":
		t := e.Args[0].Type()
		idx := make(gather, t.Rows)
		for i := range idx {
			idx[i] = i*t.Cols + e.Ints[0] - 1
		}
		return g.Custom(idx, t.Rows, x)
	case "matrow":
		c := e.Args[0].Type().Cols
		return g.Slice(x, (e.Ints[0]-1)*c, e.Ints[0]*c)
	case "block":
		t := e.Args[0].Type()
		i0, j0, nr, nc := e.Ints[0]-1, e.Ints[1]-1, e.Ints[2], e.Ints[3]
		idx := make(gather, 0, nr*nc)
		for i := i0; i < i0+nr; i++ {
			for j := j0; j < j0+nc; j++ {
				idx = append(idx, i*t.Cols+j)
			}
		}
		return g.Reshape(g.Custom(idx, nr*nc, x), nr, nc)
	case "min", "max", "prod":
		return g.Custom(reduce(e.Name), 1, x)
	case "dot_self":
		return g.Dot(x, x)
	case "rows_dot_product", "columns_dot_product", "rows_dot_self", "columns_dot_self":
		y := x
		if len(a) == 2 {
			y = a[1]
		}
		t := e.Args[0].Type()
		rows, cols := t.Rows, max(t.Cols, 1) // a vector is one column
		el := []autodiff.Node{}
		if strings.HasPrefix(e.Name, "rows") {
			for i := 0; i < rows; i++ {
				el = append(el, g.Dot(g.Slice(x, i*cols, (i+1)*cols), g.Slice(y, i*cols, (i+1)*cols)))
			}
		} else {
			for j := 0; j < cols; j++ {
				idx := make(gather, rows)
				for i := range idx {
					idx[i] = i*cols + j
				}
				el = append(el, g.Dot(g.Custom(idx, rows, x), g.Custom(idx, rows, y)))
			}
		}
		return g.Stack(el...)
	default: // diag_pre_multiply
		t := e.T
		el := make([]autodiff.Node, t.Len())
		for i := 0; i < t.Rows; i++ {
			vi := g.Index(x, i)
			for j := 0; j < t.Cols; j++ {
				el[i*t.Cols+j] = g.Mul(vi, g.Index2(a[1], i, j))
			}
		}
		return g.Reshape(g.Stack(el...), t.Rows, t.Cols)
	}
}

// Rng is NAME_rng(params): a draw from a family on each evaluation,
// allowed in the derived block only (posterior predictive quantities).
type Rng struct {
	exprBase
	Dist *stdlib.Family
	Args []Expr
}

// rngCall resolves NAME_rng(params), reporting whether name is one.
func (r *resolver) rngCall(c *lang.Call) (Expr, bool) {
	name, ok := strings.CutSuffix(c.Name, "_rng")
	if !ok {
		return nil, false
	}
	fam, ok := stdlib.Lookup(name)
	if !ok {
		return nil, false
	}
	pos := r.at(c.Pos)
	if !r.inDerived {
		r.errorf(pos, "%s draws at random: it belongs in the derived block", c.Name)
		return nil, true
	}
	if c.Bar || len(c.Args) != len(fam.Params) {
		r.errorf(pos, "%s takes %d argument%s (%s), got %d", c.Name, len(fam.Params), plural1(len(fam.Params)), paramList(fam), len(c.Args))
		return nil, true
	}
	t := tReal
	if fam.Discrete {
		t = tInt
	}
	args := make([]Expr, len(c.Args))
	for i, a := range c.Args {
		if args[i] = r.expr(a); args[i] == nil {
			return nil, true
		}
		switch at := args[i].Type(); {
		case at.Scalar():
		case at.Kind == Vector && (t.Scalar() || t.Rows == at.Rows):
			t = vecType(at.Rows)
		default:
			r.errorf(args[i].Pos(), "argument %d of %s is %s; the arguments are scalars or vectors of one length", i+1, c.Name, at)
			return nil, true
		}
	}
	return &Rng{exprBase: exprBase{pos, t}, Dist: fam, Args: args}, true
}

// rng lowers an Rng to a random op anchored on the latent input.
func (cp *compiler) rng(e *Rng) autodiff.Node {
	in := []autodiff.Node{cp.g.Index(cp.c.latent, 0)}
	for _, a := range e.Args {
		in = append(in, cp.expr(a))
	}
	op := stdlib.NewRandOp(e.Dist, e.T.Len())
	cp.c.rngs = append(cp.c.rngs, op)
	return cp.g.Custom(op, e.T.Len(), in...)
}

// SeedRNG seeds the draws of the derived quantities' NAME_rng calls.
func (c *Compiled) SeedRNG(seed uint64) {
	for i, op := range c.rngs {
		op.Seed(seed, 0x726e67+uint64(i))
	}
}

// UsesRNG reports whether the model draws random numbers (NAME_rng in
// derived quantities): then Constrain consumes a random stream, and the
// draws of a run must be constrained in order on one compiled model.
func (c *Compiled) UsesRNG() bool { return len(c.rngs) > 0 }

// concat is the autodiff op of append_row: out = (a, b).
type concat [2]int

func (concat) Name() string { return "append_row" }

func (o concat) Forward(out []float64, in [][]float64) {
	copy(out[:o[0]], in[0])
	copy(out[o[0]:], in[1])
}

func (o concat) Backward(_, dout []float64, _ [][]float64, din [][]float64) {
	for k, d := range din {
		if d == nil {
			continue
		}
		part := dout[:o[0]]
		if k == 1 {
			part = dout[o[0]:]
		}
		for i, v := range part {
			d[i] += v
		}
	}
}

// reduce is the autodiff op of min, max and prod over a vector. min and
// max pass the adjoint to the first element that attains them (NaN if
// any element is NaN); prod's derivative in x_i is the product of the
// others (exact at zeros).
type reduce string

func (o reduce) Name() string { return string(o) }

func (o reduce) Forward(out []float64, in [][]float64) {
	out[0] = o.value(in[0])
}

func (o reduce) value(x []float64) float64 {
	switch o {
	case "prod":
		p := 1.0
		for _, v := range x {
			p *= v
		}
		return p
	}
	return x[o.arg(x)]
}

// arg is the index of the first extreme element (of a NaN if any).
func (o reduce) arg(x []float64) int {
	k := 0
	for i, v := range x {
		switch {
		case v != v:
			return i
		case o == "min" && v < x[k], o == "max" && v > x[k]:
			k = i
		}
	}
	return k
}

func (o reduce) Backward(_, dout []float64, in [][]float64, din [][]float64) {
	dx, x := din[0], in[0]
	if dx == nil {
		return
	}
	if o != "prod" {
		dx[o.arg(x)] += dout[0]
		return
	}
	// the product of the others: prod / x_i without zeros; with one zero
	// only its own derivative is not 0; with two or more, none is
	zeros, at, p := 0, -1, 1.0
	for i, v := range x {
		if v == 0 {
			zeros, at = zeros+1, i
			continue
		}
		p *= v
	}
	switch zeros {
	case 0:
		for i, v := range x {
			dx[i] += dout[0] * p / v
		}
	case 1:
		dx[at] += dout[0] * p
	}
}
