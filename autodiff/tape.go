package autodiff

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

type opcode uint8

const (
	opInput opcode = iota
	opParam
	opConst
	opAdd
	opSub
	opMul
	opDiv
	opPow
	opNeg
	opExp
	opLog
	opSqrt
	opLog1p
	opExpm1
	opMap
	opSum
	opDot
	opLogSumExp
	opMatVec
	opAddN
	opIndex
	opSlice
	opStack
	opCustom
	opAffine // c + m v: a = m, b = v, c = args[argOff]
)

const (
	flagBatched = 1 << iota // depends on an Input
	flagVar                 // depends on an Input or a Param (needs gradients)
	flagView                // a constant whose value is views[ext], not in consts
)

// record is one node of the tape: flat, with integer indices.
type record struct {
	op         opcode
	flags      uint8
	a, b       Node  // first two inputs
	argOff     int32 // n-ary inputs: args[argOff : argOff+argN]
	argN       int32
	n          int32 // length of the value
	rows, cols int32 // matrix shape (cols == 0 for vectors)
	lo         int32 // Index/Slice offset
	off        int32 // offset of the value in the arena (constants: in consts)
	doff       int32 // offset of the adjoint in adj (non-constant nodes)
	stride     int32 // n for batched nodes, 0 for shared ones
	ext        int32 // index into funcs or ops (a view constant: into views)
}

// Graph is a static computation graph: the explicit tape of the model. It
// is built once and evaluated many times, for batches of inputs.
type Graph struct {
	recs  []record
	args  []Node
	funcs []Func
	ops   []Op

	consts     []float64   // values of constant nodes (off indexes here), shared by Clone's copies
	views      [][]float64 // values of view constants (ConstView), not copied
	vals       []float64   // values of non-constant nodes
	adj        []float64   // adjoints of the non-constant nodes, for adjBatch rows
	adjBatch   int         // rows the adjoint arena holds (0: not laid out yet)
	maxBatch   int         // 0 when the arenas must be laid out (again)
	allocBatch int         // batch size of the current arenas

	// scratch for custom ops
	in, din [][]float64
	// scratch for matVecBatch: the batch of vectors transposed (Alloc
	// sizes it for the largest batched matrix-vector product)
	vT []float64
	// scratch for Ancestors: mark[n] == stamp for the nodes visited
	mark  []uint32
	stamp uint32
	stack []Node
}

// New returns an empty graph.
func New() *Graph { return &Graph{} }

// NumNodes is the number of nodes.
func (g *Graph) NumNodes() int { return len(g.recs) }

func (g *Graph) push(r record) Node {
	r.flags &= flagBatched | flagVar // a node computed from a view is not one
	if r.flags&flagBatched != 0 {
		r.stride = r.n
	}
	if r.flags&flagVar == 0 {
		// constant folding: evaluate now into the constant store
		r.off = int32(len(g.consts))
		g.consts = append(g.consts, make([]float64, r.n)...)
		g.recs = append(g.recs, r)
		n := Node(len(g.recs) - 1)
		g.eval(n, 0)
		return n
	}
	r.off = -1
	g.recs = append(g.recs, r)
	g.maxBatch = 0 // the arenas must be laid out again
	return Node(len(g.recs) - 1)
}

// Len is the number of scalars of a node's value.
func (g *Graph) Len(n Node) int { return int(g.recs[n].n) }

// Shape returns (rows, cols) for a matrix node and (len, 0) for a vector.
func (g *Graph) Shape(n Node) (rows, cols int) {
	r := g.recs[n]
	if r.cols == 0 {
		return int(r.n), 0
	}
	return int(r.rows), int(r.cols)
}

// IsConst reports whether the node depends only on constants.
func (g *Graph) IsConst(n Node) bool { return g.recs[n].flags&flagVar == 0 }

// Input adds a batched variable of length n.
func (g *Graph) Input(n int) Node {
	return g.push(record{op: opInput, flags: flagBatched | flagVar, n: int32(n)})
}

// Param adds a variable of length n shared by the whole batch.
func (g *Graph) Param(n int) Node {
	return g.push(record{op: opParam, flags: flagVar, n: int32(n)})
}

// Const adds a constant vector (copied).
func (g *Graph) Const(v []float64) Node {
	off := len(g.consts)
	g.consts = append(g.consts, v...)
	g.recs = append(g.recs, record{op: opConst, n: int32(len(v)), off: int32(off)})
	return Node(len(g.recs) - 1)
}

// ConstView adds a constant vector that is v itself, not a copy: the
// graph reads v and never writes it, and the caller must not change it
// while the graph is in use. The compiled copies of a model share their
// data (a 10^6 x 10 matrix is 80 MB) through it.
func (g *Graph) ConstView(v []float64) Node {
	g.views = append(g.views, v)
	g.recs = append(g.recs, record{op: opConst, flags: flagView, n: int32(len(v)), ext: int32(len(g.views) - 1)})
	return Node(len(g.recs) - 1)
}

// ConstMatrixView is ConstView for a row-major rows x cols matrix.
func (g *Graph) ConstMatrixView(rows, cols int, v []float64) Node {
	checkShape("ConstMatrixView", rows, cols, v)
	return g.asMatrix(g.ConstView(v), rows, cols)
}

// ConstMatrix adds a constant row-major rows x cols matrix (copied).
func (g *Graph) ConstMatrix(rows, cols int, v []float64) Node {
	checkShape("ConstMatrix", rows, cols, v)
	return g.asMatrix(g.Const(v), rows, cols)
}

// checkShape panics unless v holds the rows x cols values of a matrix.
func checkShape(what string, rows, cols int, v []float64) {
	if len(v) != rows*cols {
		panic(fmt.Sprintf("autodiff: %s %dx%d with %d values", what, rows, cols, len(v)))
	}
}

// asMatrix records node n as a rows x cols matrix.
func (g *Graph) asMatrix(n Node, rows, cols int) Node {
	g.recs[n].rows, g.recs[n].cols = int32(rows), int32(cols)
	return n
}

func (g *Graph) flags(ns ...Node) uint8 {
	var f uint8
	for _, n := range ns {
		f |= g.recs[n].flags
	}
	return f
}

func (g *Graph) binary(op opcode, a, b Node) Node {
	ra, rb := g.recs[a], g.recs[b]
	r := record{op: op, a: a, b: b, flags: g.flags(a, b)}
	switch {
	case ra.n == rb.n:
		r.n, r.rows, r.cols = ra.n, ra.rows, ra.cols
		if rb.cols != 0 {
			r.rows, r.cols = rb.rows, rb.cols
		}
	case ra.n == 1:
		r.n, r.rows, r.cols = rb.n, rb.rows, rb.cols
	case rb.n == 1:
		r.n, r.rows, r.cols = ra.n, ra.rows, ra.cols
	default:
		panic(fmt.Sprintf("autodiff: elementwise operation on lengths %d and %d", ra.n, rb.n))
	}
	return g.push(r)
}

// Add is a + b elementwise (a scalar broadcasts).
func (g *Graph) Add(a, b Node) Node { return g.binary(opAdd, a, b) }

// Sub is a - b elementwise.
func (g *Graph) Sub(a, b Node) Node { return g.binary(opSub, a, b) }

// Mul is a * b elementwise.
func (g *Graph) Mul(a, b Node) Node { return g.binary(opMul, a, b) }

// Div is a / b elementwise.
func (g *Graph) Div(a, b Node) Node { return g.binary(opDiv, a, b) }

// Pow is a ^ b elementwise.
func (g *Graph) Pow(a, b Node) Node { return g.binary(opPow, a, b) }

func (g *Graph) unary(op opcode, a Node) Node {
	ra := g.recs[a]
	return g.push(record{op: op, a: a, flags: ra.flags, n: ra.n, rows: ra.rows, cols: ra.cols})
}

// Neg is -a.
func (g *Graph) Neg(a Node) Node { return g.unary(opNeg, a) }

// Exp is exp(a) elementwise.
func (g *Graph) Exp(a Node) Node { return g.unary(opExp, a) }

// Log is log(a) elementwise.
func (g *Graph) Log(a Node) Node { return g.unary(opLog, a) }

// Sqrt is sqrt(a) elementwise.
func (g *Graph) Sqrt(a Node) Node { return g.unary(opSqrt, a) }

// Log1p is log(1 + a) elementwise.
func (g *Graph) Log1p(a Node) Node { return g.unary(opLog1p, a) }

// Expm1 is exp(a) - 1 elementwise.
func (g *Graph) Expm1(a Node) Node { return g.unary(opExpm1, a) }

// Map applies an elementwise function.
func (g *Graph) Map(f Func, a Node) Node {
	ra := g.recs[a]
	g.funcs = append(g.funcs, f)
	return g.push(record{op: opMap, a: a, flags: ra.flags, n: ra.n, rows: ra.rows, cols: ra.cols, ext: int32(len(g.funcs) - 1)})
}

// Sum is the sum of the elements (a scalar).
func (g *Graph) Sum(a Node) Node {
	return g.push(record{op: opSum, a: a, flags: g.recs[a].flags, n: 1})
}

// Dot is the inner product (a scalar).
func (g *Graph) Dot(a, b Node) Node {
	if g.recs[a].n != g.recs[b].n {
		panic(fmt.Sprintf("autodiff: Dot of lengths %d and %d", g.recs[a].n, g.recs[b].n))
	}
	return g.push(record{op: opDot, a: a, b: b, flags: g.flags(a, b), n: 1})
}

// LogSumExp is log(sum(exp(a))) computed stably (a scalar).
func (g *Graph) LogSumExp(a Node) Node {
	return g.push(record{op: opLogSumExp, a: a, flags: g.recs[a].flags, n: 1})
}

// MatVec is the matrix-vector product m v.
func (g *Graph) MatVec(m, v Node) Node {
	rm := g.recs[m]
	if rm.cols == 0 || rm.cols != g.recs[v].n {
		panic(fmt.Sprintf("autodiff: MatVec of shape %dx%d with length %d", rm.rows, rm.cols, g.recs[v].n))
	}
	return g.push(record{op: opMatVec, a: m, b: v, flags: g.flags(m, v), n: rm.rows})
}

// Affine is c + m v, the matrix-vector product m v with the scalar c added
// to each element (the linear predictor alpha + X * beta of a regression),
// with the bits of Add(c, MatVec(m, v)) but without the product's node:
// for a batch over a shared matrix the intercept is added in the product's
// kernel, so the predictor is one pass and one buffer per batch element,
// not two.
func (g *Graph) Affine(c, m, v Node) Node {
	rm := g.recs[m]
	if rm.cols == 0 || rm.cols != g.recs[v].n || g.recs[c].n != 1 {
		panic(fmt.Sprintf("autodiff: Affine of shape %dx%d with length %d and an offset of length %d", rm.rows, rm.cols, g.recs[v].n, g.recs[c].n))
	}
	r := record{op: opAffine, a: m, b: v, flags: g.flags(c, m, v), n: rm.rows, argOff: int32(len(g.args)), argN: 1}
	g.args = append(g.args, c)
	return g.push(r)
}

// affineOffset is the offset node c of an Affine record.
func (g *Graph) affineOffset(r *record) Node { return g.args[r.argOff] }

// AddN is the sum of same-length nodes.
func (g *Graph) AddN(xs ...Node) Node {
	if len(xs) == 0 {
		panic("autodiff: AddN of nothing")
	}
	n := g.recs[xs[0]].n
	for _, x := range xs {
		if g.recs[x].n != n {
			panic("autodiff: AddN of different lengths")
		}
	}
	r := record{op: opAddN, flags: g.flags(xs...), n: n, argOff: int32(len(g.args)), argN: int32(len(xs))}
	g.args = append(g.args, xs...)
	return g.push(r)
}

// Index is element i (0-based) of a, a scalar.
func (g *Graph) Index(a Node, i int) Node {
	if i < 0 || i >= int(g.recs[a].n) {
		panic(fmt.Sprintf("autodiff: Index %d of length %d", i, g.recs[a].n))
	}
	return g.push(record{op: opIndex, a: a, flags: g.recs[a].flags, n: 1, lo: int32(i)})
}

// Index2 is element (i, j) (0-based) of a matrix.
func (g *Graph) Index2(m Node, i, j int) Node {
	return g.Index(m, i*int(g.recs[m].cols)+j)
}

// Row is row i (0-based) of a matrix, as a vector.
func (g *Graph) Row(m Node, i int) Node {
	c := int(g.recs[m].cols)
	return g.Slice(m, i*c, (i+1)*c)
}

// Slice is a[lo:hi].
func (g *Graph) Slice(a Node, lo, hi int) Node {
	if lo < 0 || hi > int(g.recs[a].n) || lo > hi {
		panic(fmt.Sprintf("autodiff: Slice [%d:%d] of length %d", lo, hi, g.recs[a].n))
	}
	return g.push(record{op: opSlice, a: a, flags: g.recs[a].flags, n: int32(hi - lo), lo: int32(lo)})
}

// Reshape views a node of length r*c as an r x c matrix (row-major).
func (g *Graph) Reshape(a Node, r, c int) Node {
	if r*c != int(g.recs[a].n) {
		panic(fmt.Sprintf("autodiff: Reshape of length %d to %dx%d", g.recs[a].n, r, c))
	}
	return g.push(record{op: opSlice, a: a, flags: g.recs[a].flags, n: int32(r * c), rows: int32(r), cols: int32(c)})
}

// Stack makes a vector of scalar nodes.
func (g *Graph) Stack(xs ...Node) Node {
	for _, x := range xs {
		if g.recs[x].n != 1 {
			panic("autodiff: Stack of a non-scalar")
		}
	}
	r := record{op: opStack, flags: g.flags(xs...), n: int32(len(xs)), argOff: int32(len(g.args)), argN: int32(len(xs))}
	g.args = append(g.args, xs...)
	return g.push(r)
}

// Custom applies a user operation with an output of length outLen.
func (g *Graph) Custom(op Op, outLen int, ins ...Node) Node {
	r := record{op: opCustom, flags: g.flags(ins...), n: int32(outLen), argOff: int32(len(g.args)), argN: int32(len(ins)), ext: int32(len(g.ops))}
	g.ops = append(g.ops, op)
	g.args = append(g.args, ins...)
	if len(ins) > len(g.in) {
		g.in = make([][]float64, len(ins))
		g.din = make([][]float64, len(ins))
	}
	return g.push(r)
}

// Alloc lays out the value and adjoint arenas for batches of up to maxBatch
// elements. Input and Param values are kept. Evaluation allocates nothing.
func (g *Graph) Alloc(maxBatch int) {
	if maxBatch < 1 {
		maxBatch = 1
	}
	type saved struct {
		n Node
		v []float64
	}
	var keep []saved
	if g.vals != nil {
		for i, r := range g.recs {
			if (r.op == opInput || r.op == opParam) && r.off >= 0 {
				b := 1
				if r.op == opInput {
					b = g.maxBatchOld()
				}
				keep = append(keep, saved{Node(i), append([]float64(nil), g.vals[r.off:int(r.off)+b*int(r.n)]...)})
			}
		}
	}
	size := 0
	for i := range g.recs {
		r := &g.recs[i]
		if r.flags&flagVar == 0 {
			continue
		}
		r.off = int32(size)
		if r.flags&flagBatched != 0 {
			size += maxBatch * int(r.n)
		} else {
			size += int(r.n)
		}
	}
	// the constants stay in their store, which the graph's copies share
	g.adj, g.adjBatch = nil, 0 // the old adjoints are not kept: free them first
	g.vals = make([]float64, size)
	g.maxBatch = maxBatch
	g.allocBatch = maxBatch
	nT := 0
	for i := range g.recs {
		if r := &g.recs[i]; r.op == opMatVec || r.op == opAffine {
			nT = max(nT, matMulTScratch(int(g.recs[r.a].cols), maxBatch))
		}
	}
	if len(g.vT) < nT {
		g.vT = make([]float64, nT)
	}
	for _, k := range keep {
		r := g.recs[k.n]
		copy(g.vals[r.off:int(r.off)+min(len(k.v), maxBatch*int(r.n))], k.v)
	}
	g.adjFor(1) // the gradients of one row; Backward of more grows them
}

func (g *Graph) maxBatchOld() int { return g.allocBatch }

// adjFor lays out the adjoint arena for gradients of up to batch rows
// when it holds fewer, keeping the adjoints already there. The values are
// laid out for the largest batch evaluated (the kernel's samples, the
// PSIS draws), the adjoints for the largest batch differentiated (Alloc:
// one row, for the gradients of the warm start and of the params): at
// 10^6 rows that is 150 MB less for each chain.
func (g *Graph) adjFor(batch int) {
	if batch <= g.adjBatch {
		return
	}
	old, oldBatch := g.adj, g.adjBatch
	rows := func(r *record, batch int) int { // the rows of r's adjoint
		if r.flags&flagBatched != 0 {
			return batch
		}
		return 1
	}
	size := 0
	for i := range g.recs {
		if r := &g.recs[i]; r.flags&flagVar != 0 {
			size += int(r.n) * rows(r, batch)
		}
	}
	adj := make([]float64, size)
	off := 0
	for i := range g.recs {
		r := &g.recs[i]
		if r.flags&flagVar == 0 {
			continue
		}
		if old != nil {
			copy(adj[off:off+int(r.n)*rows(r, oldBatch)], old[r.doff:])
		}
		r.doff = int32(off)
		off += int(r.n) * rows(r, batch)
	}
	g.adj, g.adjBatch = adj, batch
}

// RowFloats is the number of float64 values each row of a batch adds to
// the values Alloc reserves (the adjoints take as many again): what a
// caller checks before asking for a batch of n rows.
func (g *Graph) RowFloats() int {
	n := 0
	for i := range g.recs {
		if r := &g.recs[i]; r.flags&flagVar != 0 && r.flags&flagBatched != 0 {
			n += int(r.n)
		}
	}
	return n
}

// Value is node n's value for batch element b (b is ignored for nodes that
// do not depend on an Input). Write Inputs and Params through it.
func (g *Graph) Value(n Node, b int) []float64 { return g.val(n, b) }

// Grad is the adjoint of node n for batch element b after Backward (for a
// Param, summed over the batch).
func (g *Graph) Grad(n Node, b int) []float64 {
	r := &g.recs[n]
	if r.flags&flagVar == 0 {
		return nil
	}
	g.adjFor(b + 1)
	o := int(r.doff)
	if r.flags&flagBatched != 0 {
		o += b * int(r.n)
	}
	return g.adj[o : o+int(r.n)]
}

func (g *Graph) val(n Node, b int) []float64 {
	r := &g.recs[n]
	if r.flags&flagVar == 0 { // a constant
		if r.flags&flagView != 0 {
			return g.views[r.ext]
		}
		return g.consts[r.off : r.off+r.n]
	}
	o := int(r.off) + b*int(r.stride) // stride: 0 for a node shared by the batch
	return g.vals[o : o+int(r.n)]
}

func (g *Graph) adjOf(n Node, b int) []float64 {
	r := &g.recs[n]
	if r.flags&flagVar == 0 {
		return nil
	}
	o := int(r.doff)
	if r.flags&flagBatched != 0 {
		o += b * int(r.n)
	}
	return g.adj[o : o+int(r.n)]
}

func (g *Graph) ready(batch int) {
	if g.maxBatch == 0 || batch > g.maxBatch {
		panic(fmt.Sprintf("autodiff: evaluation with batch %d after Alloc(%d); call Alloc first", batch, g.maxBatch))
	}
}

// Forward evaluates every node for batch elements 0..batch-1.
func (g *Graph) Forward(batch int) {
	g.ready(batch)
	for i := range g.recs {
		g.forwardNode(Node(i), batch)
	}
}

// ForwardNodes evaluates only the given nodes, in order (from Ancestors).
func (g *Graph) ForwardNodes(order []Node, batch int) {
	g.ready(batch)
	for _, n := range order {
		g.forwardNode(n, batch)
	}
}

func (g *Graph) forwardNode(n Node, batch int) {
	r := &g.recs[n]
	if r.flags&flagVar == 0 || r.op == opInput || r.op == opParam {
		return
	}
	if r.flags&flagBatched == 0 {
		g.eval(n, 0)
		return
	}
	if batch > 1 && g.productBatched(r) {
		g.matVecBatch(n, batch)
		return
	}
	if batch > 1 && g.evalBatch(n, batch) {
		return
	}
	for b := 0; b < batch; b++ {
		g.eval(n, b)
	}
}

// unaryLoop applies the elementwise op of r to x, writing y (one row or a
// whole batch).
func (g *Graph) unaryLoop(r *record, y, x []float64) {
	switch r.op {
	case opNeg:
		for i, v := range x {
			y[i] = -v
		}
	case opExp:
		for i, v := range x {
			y[i] = math.Exp(v)
		}
	case opLog:
		for i, v := range x {
			y[i] = math.Log(v)
		}
	case opSqrt:
		for i, v := range x {
			y[i] = math.Sqrt(v)
		}
	case opLog1p:
		for i, v := range x {
			y[i] = math.Log1p(v)
		}
	case opExpm1:
		for i, v := range x {
			y[i] = math.Expm1(v)
		}
	default: // opMap
		g.funcs[r.ext].Eval(y, x)
	}
}

// batchVals is the value of a batched node over the first batch rows:
// contiguous, since a batched node's rows follow each other.
func (g *Graph) batchVals(n Node, batch int) []float64 {
	r := &g.recs[n]
	o := int(r.off)
	return g.vals[o : o+batch*int(r.n)]
}

// evalBatch evaluates an elementwise node over the whole batch at once
// when its inputs are batched like it (one dispatch instead of one per
// row), reporting whether it could.
func (g *Graph) evalBatch(n Node, batch int) bool {
	r := &g.recs[n]
	batched := func(a Node) bool {
		ra := &g.recs[a]
		return ra.flags&flagBatched != 0 && ra.n == r.n && int(ra.stride) == int(ra.n)
	}
	if int(r.stride) != int(r.n) {
		return false
	}
	// shared: one value for the whole batch (a constant, or a node of the
	// params alone), of length 1 or the node's
	shared := func(a Node) []float64 {
		ra := &g.recs[a]
		if ra.flags&flagBatched != 0 || ra.n != 1 && ra.n != r.n {
			return nil
		}
		return g.val(a, 0)
	}
	switch r.op {
	case opAdd, opSub, opMul, opDiv, opPow:
		// the arithmetic of eval, row after row
		y, k := g.batchVals(n, batch), int(r.n)
		switch {
		case batched(r.a) && batched(r.b):
			binaryLoop(r.op, y, g.batchVals(r.a, batch), g.batchVals(r.b, batch))
		case batched(r.a) && shared(r.b) != nil:
			x, c := g.batchVals(r.a, batch), shared(r.b)
			if len(c) == 1 {
				binaryScalarRight(r.op, y, x, c[0])
				break
			}
			for b := 0; b < batch; b++ {
				binaryLoop(r.op, y[b*k:(b+1)*k], x[b*k:(b+1)*k], c)
			}
		case batched(r.b) && shared(r.a) != nil:
			c, x := shared(r.a), g.batchVals(r.b, batch)
			if len(c) == 1 {
				binaryScalarLeft(r.op, y, c[0], x)
				break
			}
			for b := 0; b < batch; b++ {
				binaryLoop(r.op, y[b*k:(b+1)*k], c, x[b*k:(b+1)*k])
			}
		default:
			return false
		}
	case opIndex:
		ra := &g.recs[r.a]
		if ra.flags&flagBatched == 0 || int(ra.stride) != int(ra.n) {
			return false
		}
		y, x, m := g.batchVals(n, batch), g.batchVals(r.a, batch), int(ra.n)
		for b := range y {
			y[b] = x[b*m+int(r.lo)]
		}
	case opNeg, opExp, opLog, opSqrt, opLog1p, opExpm1, opMap:
		if !batched(r.a) {
			return false
		}
		g.unaryLoop(r, g.batchVals(n, batch), g.batchVals(r.a, batch))
	default:
		return false
	}
	return true
}

// Ancestors returns, in topological order, the non-constant nodes that the
// targets depend on, the targets included. Its cost is proportional to the
// number of nodes returned (times a log factor), not to the size of the
// graph, so that a model can ask for the nodes of each of its many small
// parts. It uses scratch space of the graph: like evaluation, it is not safe
// for concurrent use.
func (g *Graph) Ancestors(targets ...Node) []Node {
	if len(g.mark) < len(g.recs) {
		g.mark = append(g.mark, make([]uint32, len(g.recs)-len(g.mark))...)
	}
	g.stamp++
	if g.stamp == 0 { // wrapped around: old marks could collide
		clear(g.mark)
		g.stamp = 1
	}
	stamp := g.stamp
	var out []Node
	stack := g.stack[:0]
	push := func(n Node) {
		if g.mark[n] == stamp || g.recs[n].flags&flagVar == 0 {
			return
		}
		g.mark[n] = stamp
		out = append(out, n)
		stack = append(stack, n)
	}
	for _, t := range targets {
		push(t)
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		r := &g.recs[n]
		switch r.op {
		case opAddN, opStack, opCustom:
			for _, a := range g.args[r.argOff : r.argOff+r.argN] {
				push(a)
			}
		case opInput, opParam, opConst:
		case opAffine:
			push(r.a)
			push(r.b)
			push(g.affineOffset(r))
		default:
			push(r.a)
			if hasB(r.op) {
				push(r.b)
			}
		}
	}
	g.stack = stack
	// nodes are created after their arguments, so index order is a
	// topological order
	if len(out)*16 < len(g.recs) {
		slices.Sort(out)
		return out
	}
	out = out[:0]
	for i, m := range g.mark[:len(g.recs)] {
		if m == stamp {
			out = append(out, Node(i))
		}
	}
	return out
}

// Work is the number of values the nodes (of batch 1) write and read:
// each computed node's value and its inputs' (inputs, params and
// constants count nothing). A proxy for the cost of evaluating
// them that counts a matrix-vector product by its matrix and a sum by its
// vector, where NumNodes counts each node once.
func (g *Graph) Work(nodes []Node) int {
	w := 0
	for _, n := range nodes {
		r := &g.recs[n]
		switch r.op {
		case opInput, opParam, opConst: // not computed
			continue
		}
		w += int(r.n)
		switch r.op {
		case opAddN, opStack, opCustom:
			for _, a := range g.args[r.argOff : r.argOff+r.argN] {
				w += int(g.recs[a].n)
			}
		case opAffine:
			w += int(g.recs[r.a].n) + int(g.recs[r.b].n)
		default:
			w += int(g.recs[r.a].n)
			if hasB(r.op) {
				w += int(g.recs[r.b].n)
			}
		}
	}
	return w
}

func hasB(op opcode) bool {
	switch op {
	case opAdd, opSub, opMul, opDiv, opPow, opDot, opMatVec:
		return true
	}
	return false
}

// at returns x[i] with scalar broadcasting.
func at(x []float64, i int) float64 {
	if len(x) == 1 {
		return x[0]
	}
	return x[i]
}

// eval computes node n for batch element b.
func (g *Graph) eval(n Node, b int) {
	r := &g.recs[n]
	y := g.val(n, b)
	switch r.op {
	case opAdd, opSub, opMul, opDiv, opPow:
		x1, x2 := g.val(r.a, b), g.val(r.b, b)
		switch {
		case len(x1) == len(x2):
			binaryLoop(r.op, y, x1, x2)
		case len(x1) == 1: // a scalar broadcast, such as an intercept added to X * w
			binaryScalarLeft(r.op, y, x1[0], x2)
		case len(x2) == 1:
			binaryScalarRight(r.op, y, x1, x2[0])
		default:
			for i := range y {
				y[i] = scalarOp(r.op, at(x1, i), at(x2, i))
			}
		}
	case opNeg, opExp, opLog, opSqrt, opLog1p, opExpm1, opMap:
		g.unaryLoop(r, y, g.val(r.a, b))
	case opSum:
		s := 0.0
		for _, v := range g.val(r.a, b) {
			s += v
		}
		y[0] = s
	case opDot:
		s := 0.0
		x2 := g.val(r.b, b)
		for i, v := range g.val(r.a, b) {
			s += v * x2[i]
		}
		y[0] = s
	case opLogSumExp:
		y[0] = logSumExp(g.val(r.a, b))
	case opMatVec, opAffine:
		m, v := g.val(r.a, b), g.val(r.b, b)
		rows, cols := int(g.recs[r.a].rows), int(g.recs[r.a].cols)
		blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: m},
			blas64.Vector{N: cols, Inc: 1, Data: v}, 0, blas64.Vector{N: rows, Inc: 1, Data: y})
		if r.op == opAffine { // c + (m v)[i], as Add's binaryScalarLeft
			c := g.val(g.affineOffset(r), b)[0]
			for i, x := range y {
				y[i] = c + x
			}
		}
	case opAddN:
		args := g.args[r.argOff : r.argOff+r.argN]
		copy(y, g.val(args[0], b))
		for _, a := range args[1:] {
			x := g.val(a, b)
			for i := range y {
				y[i] += x[i]
			}
		}
	case opIndex:
		y[0] = g.val(r.a, b)[r.lo]
	case opSlice:
		copy(y, g.val(r.a, b)[r.lo:])
	case opStack:
		for i, a := range g.args[r.argOff : r.argOff+r.argN] {
			y[i] = g.val(a, b)[0]
		}
	case opCustom:
		args := g.args[r.argOff : r.argOff+r.argN]
		in := g.in[:len(args)]
		for i, a := range args {
			in[i] = g.val(a, b)
		}
		g.ops[r.ext].Forward(y, in)
	}
}

func binaryLoop(op opcode, y, a, b []float64) {
	b = b[:len(a)]
	y = y[:len(a)]
	switch op {
	case opAdd:
		for i := range a {
			y[i] = a[i] + b[i]
		}
	case opSub:
		for i := range a {
			y[i] = a[i] - b[i]
		}
	case opMul:
		for i := range a {
			y[i] = a[i] * b[i]
		}
	case opDiv:
		for i := range a {
			y[i] = a[i] / b[i]
		}
	default:
		for i := range a {
			y[i] = pow(a[i], b[i])
		}
	}
}

func scalarOp(op opcode, a, b float64) float64 {
	switch op {
	case opAdd:
		return a + b
	case opSub:
		return a - b
	case opMul:
		return a * b
	case opDiv:
		return a / b
	}
	return pow(a, b)
}

func pow(a, b float64) float64 {
	switch b {
	case 2:
		return a * a
	case 1:
		return a
	case 0.5:
		return math.Sqrt(a)
	}
	return math.Pow(a, b)
}

func logSumExp(x []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		if v > mx {
			mx = v
		}
	}
	if math.IsInf(mx, 0) {
		return mx
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - mx)
	}
	return mx + math.Log(s)
}

// productBatched reports whether r is a product of a shared matrix and a
// batch of vectors (a MatVec, or an Affine, whose node is also batched by
// a batched offset alone), which matVecBatch evaluates as one
// matrix-matrix product.
func (g *Graph) productBatched(r *record) bool {
	return (r.op == opMatVec || r.op == opAffine) && g.recs[r.a].flags&flagBatched == 0 && g.recs[r.b].flags&flagBatched != 0
}

// matVecBatch computes a shared matrix times a batch of vectors as one
// matrix-matrix product: Y (batch x rows) = V (batch x cols) M^T (for an
// Affine node plus the offset of each batch element, in the kernel), at every
// size in matMulT's summation order (the AVX2 kernel where the CPU has AVX2,
// else pure Go), so that every machine computes the same bits. Measured with
// S = 10 (-cpu 1): 351 x 35 (Ionosphere) 8.3 us with AVX2, against 42 us
// for the pure-Go matMulT and 37 us for gonum's Ddot per output (used here
// before, in another order); 100000 x 20, 1.3 ms against 6.5 and 7.7 ms.
func (g *Graph) matVecBatch(n Node, batch int) {
	r := &g.recs[n]
	rm, rv := &g.recs[r.a], &g.recs[r.b]
	rows, cols := int(rm.rows), int(rm.cols)
	m := g.val(r.a, 0)
	v := g.vals[rv.off : int(rv.off)+batch*cols]
	y := g.vals[r.off : int(r.off)+batch*rows]
	if k := matMulTScratch(cols, batch); len(g.vT) < k {
		g.vT = make([]float64, k) // only when Alloc did not size it
	}
	var c []float64 // a MatVec's: no offset
	if r.op == opAffine {
		rc := &g.recs[g.affineOffset(r)]
		if rc.flags&flagBatched != 0 {
			c = g.batchVals(g.affineOffset(r), batch)
		} else {
			c = g.val(g.affineOffset(r), 0)
		}
	}
	mulMatT(y, m, v, c, g.vT, rows, cols, batch)
}

// ForwardNodesAt evaluates the given nodes, in order, for batch element b
// alone, after an evaluation of at least b+1 rows (ForwardNodes) has laid
// the arenas out: the nodes not given keep the values of that evaluation,
// row b's included. A tool that evaluates more nodes after an evaluation
// of the whole batch goes so row by row, in the order a batch of one would.
func (g *Graph) ForwardNodesAt(order []Node, b int) {
	for _, n := range order {
		r := &g.recs[n]
		switch {
		case r.flags&flagVar == 0 || r.op == opInput || r.op == opParam:
		case r.flags&flagBatched == 0:
			g.eval(n, 0)
		default:
			g.eval(n, b)
		}
	}
}
