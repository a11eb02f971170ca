package autodiff

import (
	"fmt"
	"slices"
)

// This file holds step programs: the part of a graph that one time step of
// a state-space model evaluates, compiled into a small straight-line
// program whose values are scalars per batch element (one particle, or one
// time step of a trajectory). A step reads elements of the batched Input
// (the latent vector) through input slots that the caller fills with one
// value per batch element, and reads the nodes that do not depend on the
// Input (params, data and what is computed from them) from the graph,
// where they are evaluated once per change of the params. Steps of the
// same shape (the same instructions, differing only in which data and
// params they read) share one StepTemplate, which evaluates either one
// step over a batch of particles or all its steps at once along a
// trajectory, forward and backward.

// operand kinds
const (
	srcNone  uint8 = iota // no operand
	srcLocal              // a value computed by the program: slab slot idx
	srcInput              // input slot idx
	srcExt                // external idx: a node that does not depend on the Input
)

type operand struct {
	kind uint8
	idx  int32
}

type stepInstr struct {
	node Node // the node of the program it was compiled from
	op   opcode
	y    int32 // local slot of the value
	a, b operand
	args []operand // AddN, Custom
}

// StepProgram is the compiled form of one time step (see above).
type StepProgram struct {
	g      *Graph
	instrs []stepInstr
	segEnd []int // segment k is instrs[segEnd[k-1]:segEnd[k]]
	outs   []operand
	ext    []Node // the external nodes, by index
	nloc   int
}

// CompileStep compiles the nodes that the targets of each segment depend
// on into a step program. latent is the batched Input; the program reads
// element pos[k] of it through input slot k (pos[k] < 0: no element), and
// every node it evaluates must be a scalar computed by a supported
// operation from scalars (elementwise operations, Sum, AddN, Index, and
// Custom ops with a scalar output whose batched inputs are scalars).
// Segment k can then be evaluated alone, after the segments it reads
// (SegmentReads). The outputs are the targets of all segments, in order.
func (g *Graph) CompileStep(latent Node, pos []int, segments ...[]Node) (*StepProgram, error) {
	p := &StepProgram{g: g}
	where := map[Node]operand{}
	extOf := map[Node]int32{}
	var err error
	resolve := func(m Node) operand {
		if o, ok := where[m]; ok {
			return o
		}
		r := &g.recs[m]
		if r.flags&flagBatched != 0 {
			if err == nil {
				err = fmt.Errorf("autodiff: a step reads node %d (%s of length %d) that it cannot evaluate", m, opName(r.op), r.n)
			}
			return operand{}
		}
		j, ok := extOf[m]
		if !ok {
			j = int32(len(p.ext))
			p.ext = append(p.ext, m)
			extOf[m] = j
		}
		return operand{kind: srcExt, idx: j}
	}
	for _, targets := range segments {
		for _, n := range g.Ancestors(targets...) {
			r := &g.recs[n]
			if r.flags&flagBatched == 0 || n == latent {
				continue
			}
			if _, ok := where[n]; ok {
				continue
			}
			if r.op == opIndex && r.a == latent {
				slot := -1
				for s, q := range pos {
					if q >= 0 && q == int(r.lo) {
						slot = s
					}
				}
				if slot < 0 {
					return nil, fmt.Errorf("autodiff: a step reads element %d of the input, which is not one of its slots", r.lo)
				}
				where[n] = operand{kind: srcInput, idx: int32(slot)}
				continue
			}
			if r.n != 1 {
				return nil, fmt.Errorf("autodiff: a step evaluates node %d (%s) of length %d; steps hold scalars", n, opName(r.op), r.n)
			}
			in := stepInstr{node: n, op: r.op, y: int32(p.nloc)}
			switch r.op {
			case opAdd, opSub, opMul, opDiv, opPow:
				in.a, in.b = resolve(r.a), resolve(r.b)
			case opNeg, opExp, opLog, opSqrt, opLog1p, opExpm1, opMap, opSum:
				in.a = resolve(r.a)
			case opIndex:
				if g.recs[r.a].n != 1 {
					return nil, fmt.Errorf("autodiff: a step indexes a batched vector (node %d)", n)
				}
				in.a = resolve(r.a)
			case opAddN, opCustom:
				for _, a := range g.args[r.argOff : r.argOff+r.argN] {
					o := resolve(a)
					if o.kind != srcExt && g.recs[a].n != 1 {
						return nil, fmt.Errorf("autodiff: a step passes a batched vector to %s", opName(r.op))
					}
					in.args = append(in.args, o)
				}
			default:
				return nil, fmt.Errorf("autodiff: a step cannot evaluate %s (node %d)", opName(r.op), n)
			}
			if err != nil {
				return nil, err
			}
			if r.op == opCustom && len(in.args) > len(g.in) {
				return nil, fmt.Errorf("autodiff: custom op with %d inputs", len(in.args))
			}
			where[n] = operand{kind: srcLocal, idx: in.y}
			p.nloc++
			p.instrs = append(p.instrs, in)
		}
		p.segEnd = append(p.segEnd, len(p.instrs))
	}
	for _, targets := range segments {
		for _, t := range targets {
			if g.recs[t].n != 1 {
				return nil, fmt.Errorf("autodiff: a step output of length %d", g.recs[t].n)
			}
			p.outs = append(p.outs, resolve(t))
		}
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// SegmentReads reports whether segment k reads values that an earlier
// segment computes.
func (p *StepProgram) SegmentReads(k int) bool {
	lo := 0
	if k > 0 {
		lo = p.segEnd[k-1]
	}
	first := int32(-1)
	if lo < len(p.instrs) {
		first = p.instrs[lo].y
	} else {
		first = int32(p.nloc)
	}
	reads := func(o operand) bool { return o.kind == srcLocal && o.idx < first }
	for _, in := range p.instrs[lo:p.segEnd[k]] {
		if reads(in.a) || reads(in.b) {
			return true
		}
		for _, o := range in.args {
			if reads(o) {
				return true
			}
		}
	}
	return false
}

// Externals are the nodes outside the program that it reads.
func (p *StepProgram) Externals() []Node { return p.ext }

// SameShape reports whether q evaluates the same instructions as p on its
// own externals, so that one template serves both.
func (p *StepProgram) SameShape(q *StepProgram) bool {
	if p.g != q.g || len(p.instrs) != len(q.instrs) || len(p.ext) != len(q.ext) || len(p.outs) != len(q.outs) || len(p.segEnd) != len(q.segEnd) {
		return false
	}
	g := p.g
	for i := range p.segEnd {
		if p.segEnd[i] != q.segEnd[i] {
			return false
		}
	}
	for i := range p.outs {
		if p.outs[i] != q.outs[i] {
			return false
		}
	}
	for j := range p.ext {
		ra, rb := &g.recs[p.ext[j]], &g.recs[q.ext[j]]
		if ra.n != rb.n || ra.flags&flagVar != rb.flags&flagVar {
			return false
		}
	}
	for i := range p.instrs {
		a, b := &p.instrs[i], &q.instrs[i]
		if a.op != b.op || a.y != b.y || a.a != b.a || a.b != b.b || len(a.args) != len(b.args) {
			return false
		}
		for k := range a.args {
			if a.args[k] != b.args[k] {
				return false
			}
		}
		ra, rb := &g.recs[a.node], &g.recs[b.node]
		switch a.op {
		case opIndex:
			if ra.lo != rb.lo {
				return false
			}
		case opMap:
			if !sameImpl(g.funcs[ra.ext], g.funcs[rb.ext]) {
				return false
			}
		case opCustom:
			if !sameImpl(g.ops[ra.ext], g.ops[rb.ext]) {
				return false
			}
		}
	}
	return true
}

// BatchForwarder is implemented by Ops that can evaluate a batch of scalar
// outputs at once: out[b] is the op's value for batch element b, whose
// input j is in[j][b], or in[j][0] when len(in[j]) == 1 (shared by the
// batch). The values must be those of Forward called per element. It
// reports false when it cannot (Forward is then called per element).
type BatchForwarder interface {
	ForwardBatch(out []float64, in [][]float64) bool
}

// ShapeHash is a hash of what SameShape compares but the identity of the
// Funcs and Ops: programs of the same shape have the same hash.
func (p *StepProgram) ShapeHash() uint64 {
	h := uint64(14695981039346656037)
	mix := func(v int64) {
		h ^= uint64(v)
		h *= 1099511628211
	}
	opnd := func(o operand) { mix(int64(o.kind)<<32 | int64(o.idx)) }
	mix(int64(len(p.instrs)))
	for _, e := range p.segEnd {
		mix(int64(e))
	}
	for _, o := range p.outs {
		opnd(o)
	}
	for _, e := range p.ext {
		r := &p.g.recs[e]
		mix(int64(r.n)<<8 | int64(r.flags&flagVar))
	}
	for i := range p.instrs {
		in := &p.instrs[i]
		mix(int64(in.op)<<32 | int64(in.y))
		opnd(in.a)
		opnd(in.b)
		mix(int64(len(in.args)))
		for _, o := range in.args {
			opnd(o)
		}
		if in.op == opIndex {
			mix(int64(p.g.recs[in.node].lo))
		}
	}
	return h
}

// Keyed is implemented by Ops and Funcs that are equal to others with the
// same key (for example a new op value per call of one function), so that
// steps using them can share a template.
type Keyed interface{ Key() any }

// sameImpl reports whether two Funcs or Ops compute the same thing: the
// same comparable value, or the same key.
func sameImpl(a, b any) (same bool) {
	ka, oka := a.(Keyed)
	kb, okb := b.(Keyed)
	if oka && okb {
		a, b = ka.Key(), kb.Key()
	}
	defer func() {
		if recover() != nil { // values of an uncomparable type
			same = false
		}
	}()
	return a == b
}

func opName(op opcode) string {
	names := [...]string{"input", "param", "const", "add", "sub", "mul", "div", "pow", "neg", "exp", "log",
		"sqrt", "log1p", "expm1", "map", "sum", "dot", "log_sum_exp", "matvec", "add_n", "index", "slice", "stack", "custom", "affine"}
	if int(op) < len(names) {
		return names[op]
	}
	return fmt.Sprint("op", op)
}

// ---- templates ---------------------------------------------------------------

// StepTemplate evaluates the steps of one shape: one step over a batch of
// particles (Forward), or all its steps at once along a trajectory, the
// batch element b being its step b (ForwardAll, BackwardAll). It is not
// safe for concurrent use, and it uses the graph's scratch space.
type StepTemplate struct {
	p        *StepProgram
	g        *Graph
	steps    int
	extNodes [][]Node    // [j][k]: external j of step k
	extLen   []int       // length of external j
	extVar   []bool      // external j depends on a Param
	extVals  [][]float64 // [j]: steps x extLen[j] values

	// BackwardAll keeps the adjoint contributions to the externals that
	// depend on params apart, per operand and step, for StepGradient to
	// add them in the order of a whole-graph Backward
	cb      [][]int32   // [instr][operand a, b, args...]: index into contrib, or -1
	contrib [][]float64 // steps x extLen values each
	nodes   [][]Node    // [instr][k]: the node of instruction i in step k
	border  []int       // the instructions in the order of Backward (descending node)
	exact   bool

	stride  int // slab rows per local slot (the largest batch)
	slab    []float64
	dslab   []float64
	inputs  [][]float64 // per input slot, set by SetInput
	dinputs [][]float64
	// scratch: the views of a custom op's arguments
	av, dv     [][]float64
	ai, di, an []int
	// the current evaluation: step k broadcast (Forward), or -1 (ForwardAll)
	k int
}

// NewStepTemplate makes a template for steps of the same shape (SameShape).
// Call GatherExternals before evaluating and after the params change.
func NewStepTemplate(progs []*StepProgram) *StepTemplate {
	p := progs[0]
	g := p.g
	t := &StepTemplate{p: p, g: g, steps: len(progs), k: -1}
	nslots := 0
	for _, in := range p.instrs {
		for _, o := range append([]operand{in.a, in.b}, in.args...) {
			if o.kind == srcInput && int(o.idx) >= nslots {
				nslots = int(o.idx) + 1
			}
		}
	}
	for _, o := range p.outs {
		if o.kind == srcInput && int(o.idx) >= nslots {
			nslots = int(o.idx) + 1
		}
	}
	t.inputs = make([][]float64, max(nslots, 2))
	nargs := 0
	for _, in := range p.instrs {
		nargs = max(nargs, len(in.args))
	}
	t.av, t.dv = make([][]float64, nargs), make([][]float64, nargs)
	t.ai, t.di, t.an = make([]int, nargs), make([]int, nargs), make([]int, nargs)
	t.dinputs = make([][]float64, len(t.inputs))
	for j, e := range p.ext {
		r := &g.recs[e]
		nodes := make([]Node, len(progs))
		for k, q := range progs {
			nodes[k] = q.ext[j]
		}
		t.extNodes = append(t.extNodes, nodes)
		t.extLen = append(t.extLen, int(r.n))
		t.extVar = append(t.extVar, r.flags&flagVar != 0)
		t.extVals = append(t.extVals, make([]float64, len(progs)*int(r.n)))
	}
	t.exact = true
	for i, in := range p.instrs {
		nodes := make([]Node, len(progs))
		for k, q := range progs {
			nodes[k] = q.instrs[i].node
		}
		t.nodes = append(t.nodes, nodes)
		ops := append([]operand{in.a, in.b}, in.args...)
		cb := make([]int32, len(ops))
		for q, o := range ops {
			cb[q] = -1
			if o.kind == srcExt && t.extVar[o.idx] {
				cb[q] = int32(len(t.contrib))
				t.contrib = append(t.contrib, make([]float64, len(progs)*t.extLen[o.idx]))
			}
			if in.op == opCustom && o.kind == srcExt && t.extLen[o.idx] != 1 {
				// the op may sum several terms into the adjoint of a
				// scalar input, which Backward adds one by one
				t.exact = false
			}
		}
		t.cb = append(t.cb, cb)
	}
	// Backward's order: descending node index (the same in every step, for
	// the order of the adjoint contributions to be that of Backward)
	t.border = make([]int, len(p.instrs))
	for i := range t.border {
		t.border[i] = i
	}
	slices.SortFunc(t.border, func(a, b int) int { return int(t.nodes[b][0]) - int(t.nodes[a][0]) })
	for k := range progs {
		for i := 1; i < len(t.border); i++ {
			if t.nodes[t.border[i-1]][k] < t.nodes[t.border[i]][k] {
				t.exact = false
			}
		}
	}
	t.gather(true)
	t.Reserve(len(progs))
	return t
}

// Steps is the number of steps of the template.
func (t *StepTemplate) Steps() int { return t.steps }

// Reserve readies batches of up to n elements (ForwardAll needs Steps()).
func (t *StepTemplate) Reserve(n int) {
	n = max(n, t.steps, 1)
	if n <= t.stride {
		return
	}
	t.stride = n
	t.slab = make([]float64, n*t.p.nloc)
	t.dslab = make([]float64, n*t.p.nloc)
	for s := range t.dinputs {
		t.dinputs[s] = make([]float64, n)
	}
}

// GatherExternals copies the current values of the external nodes that
// depend on params (which the caller has evaluated, for example by
// ForwardNodes over the ancestors of all externals) into the template.
func (t *StepTemplate) GatherExternals() { t.gather(false) }

func (t *StepTemplate) gather(consts bool) {
	for j, nodes := range t.extNodes {
		if t.extVar[j] == consts {
			continue
		}
		n := t.extLen[j]
		for k, e := range nodes {
			copy(t.extVals[j][k*n:(k+1)*n], t.g.val(e, 0))
		}
	}
}

// SetInput sets the values of input slot s for the next evaluation: one
// per batch element (v is read, not copied).
func (t *StepTemplate) SetInput(s int, v []float64) { t.inputs[s] = v }

// Forward evaluates segment seg of step k (0-based within the template)
// for batch elements 0..batch-1.
func (t *StepTemplate) Forward(seg, k, batch int) {
	t.Reserve(batch)
	t.k = k
	t.run(seg, batch)
}

// ForwardAll evaluates every segment of all the template's steps at once:
// batch element b is step b, and input slot s holds its value per step.
func (t *StepTemplate) ForwardAll() {
	t.k = -1
	for seg := range t.p.segEnd {
		t.run(seg, t.steps)
	}
}

// Output writes output i of the last evaluation into dst (one value per
// batch element, len(dst) elements).
func (t *StepTemplate) Output(i int, dst []float64) {
	v, inc := t.view(t.p.outs[i], len(dst))
	if inc == 0 {
		x := v[0]
		for b := range dst {
			dst[b] = x
		}
		return
	}
	copy(dst, v[:len(dst)])
}

// OutputSum returns the sum of output i over the batch of the last evaluation.
func (t *StepTemplate) OutputSum(i, batch int) float64 {
	v, inc := t.view(t.p.outs[i], batch)
	s := 0.0
	for b := 0; b < batch; b++ {
		s += v[b*inc]
	}
	return s
}

// view returns the values of an operand over the batch and its increment
// per batch element (0 for a broadcast value).
func (t *StepTemplate) view(o operand, batch int) ([]float64, int) {
	switch o.kind {
	case srcLocal:
		s := int(o.idx) * t.stride
		return t.slab[s : s+batch], 1
	case srcInput:
		return t.inputs[o.idx], 1
	}
	n := t.extLen[o.idx]
	if t.k >= 0 {
		return t.extVals[o.idx][t.k*n : (t.k+1)*n], 0
	}
	return t.extVals[o.idx], n
}

// dview is view for adjoints (BackwardAll): nil for externals that need
// none; cb is the operand's contribution buffer.
func (t *StepTemplate) dview(o operand, batch int, cb int32) ([]float64, int) {
	switch o.kind {
	case srcLocal:
		s := int(o.idx) * t.stride
		return t.dslab[s : s+batch], 1
	case srcInput:
		return t.dinputs[o.idx], 1
	}
	if cb < 0 {
		return nil, 0
	}
	return t.contrib[cb], t.extLen[o.idx]
}

// argViews sets the views of a custom op's arguments (and their adjoints).
func (t *StepTemplate) argViews(args []operand, batch int, adj bool, cb []int32) {
	for j, o := range args {
		t.av[j], t.ai[j] = t.view(o, batch)
		t.an[j] = 1
		if o.kind == srcExt {
			t.an[j] = t.extLen[o.idx]
		}
		if adj {
			t.dv[j], t.di[j] = t.dview(o, batch, cb[2+j])
		}
	}
}

// batchArgs sets ins to the whole-batch views of the arguments of
// argViews, reporting false when one is not a scalar.
func (t *StepTemplate) batchArgs(ins [][]float64, batch int) bool {
	for j := range ins {
		if t.an[j] != 1 {
			return false
		}
		if t.ai[j] == 0 {
			ins[j] = t.av[j][:1]
		} else {
			ins[j] = t.av[j][:batch]
		}
	}
	return true
}

func (t *StepTemplate) run(seg, batch int) {
	p, g := t.p, t.g
	lo := 0
	if seg > 0 {
		lo = p.segEnd[seg-1]
	}
	for i := lo; i < p.segEnd[seg]; i++ {
		in := &p.instrs[i]
		r := &g.recs[in.node]
		ys := int(in.y) * t.stride
		y := t.slab[ys : ys+batch]
		switch in.op {
		case opAdd, opSub, opMul, opDiv, opPow:
			// broadcast operands: one of them at most (else the node would
			// not be batched); the scratch then holds it
			a, ia := t.view(in.a, batch)
			c, ic := t.view(in.b, batch)
			switch {
			case ia == 1 && ic == 1:
				binaryLoop(in.op, y, a[:batch], c[:batch])
			case ia == 1:
				binaryScalarRight(in.op, y, a[:batch], c[0])
			default:
				binaryScalarLeft(in.op, y, a[0], c[:batch])
			}
		case opNeg, opExp, opLog, opSqrt, opLog1p, opExpm1, opMap:
			a, _ := t.view(in.a, batch)
			g.unaryLoop(r, y, a[:batch])
		case opSum:
			a, _ := t.view(in.a, batch)
			for b := range y {
				s := 0.0
				s += a[b]
				y[b] = s
			}
		case opIndex:
			a, _ := t.view(in.a, batch)
			copy(y, a[:batch])
		case opAddN:
			a, ia := t.view(in.args[0], batch)
			for b := range y {
				y[b] = a[b*ia]
			}
			for _, o := range in.args[1:] {
				a, ia := t.view(o, batch)
				for b := range y {
					y[b] += a[b*ia]
				}
			}
		case opCustom:
			op := g.ops[r.ext]
			ins := g.in[:len(in.args)]
			t.argViews(in.args, batch, false, nil)
			if bf, ok := op.(BatchForwarder); ok && t.batchArgs(ins, batch) && bf.ForwardBatch(y, ins) {
				continue
			}
			for b := range y {
				for j := range ins {
					o := b * t.ai[j]
					ins[j] = t.av[j][o : o+t.an[j]]
				}
				op.Forward(y[b:b+1], ins)
			}
		}
	}
}

// BackwardAll computes, after ForwardAll, the adjoints of the sum over all
// steps of the outputs seeds (output indices): those of the program's
// values, of its inputs (InputGrad) and the contributions to the
// externals that depend on params, which StepGradient takes into the
// graph.
func (t *StepTemplate) BackwardAll(seeds ...int) {
	p, g := t.p, t.g
	batch := t.steps
	t.k = -1
	clear(t.dslab)
	for s := range t.dinputs {
		clear(t.dinputs[s][:batch])
	}
	for _, c := range t.contrib {
		clear(c)
	}
	for _, i := range seeds {
		o := p.outs[i]
		if o.kind != srcLocal {
			continue // an input or external output: no instruction to seed
		}
		d, inc := t.dview(o, batch, -1)
		for b := 0; b < batch; b++ {
			d[b*inc]++
		}
	}
	for _, i := range t.border {
		in := &p.instrs[i]
		cb := t.cb[i]
		r := &g.recs[in.node]
		ys := int(in.y) * t.stride
		y, dy := t.slab[ys:ys+batch], t.dslab[ys:ys+batch]
		switch in.op {
		case opAdd, opSub, opMul, opDiv, opPow:
			x1, i1 := t.view(in.a, batch)
			x2, i2 := t.view(in.b, batch)
			d1, j1 := t.dview(in.a, batch, cb[0])
			d2, j2 := t.dview(in.b, batch, cb[1])
			for b, d := range dy {
				if d == 0 {
					continue
				}
				ga, gc := binaryPartials(in.op, x1[b*i1], x2[b*i2], y[b], d2 != nil)
				if d1 != nil {
					d1[b*j1] += d * ga
				}
				if d2 != nil {
					d2[b*j2] += d * gc
				}
			}
		case opNeg, opExp, opLog, opSqrt, opLog1p, opExpm1:
			x, _ := t.view(in.a, batch)
			dx, _ := t.dview(in.a, batch, cb[0])
			for b, d := range dy {
				dx[b] += unaryAdjoint(in.op, d, x[b], y[b])
			}
		case opMap:
			x, _ := t.view(in.a, batch)
			dx, _ := t.dview(in.a, batch, cb[0])
			g.funcs[r.ext].Deriv(dx[:batch], dy, y, x[:batch])
		case opSum, opIndex:
			dx, _ := t.dview(in.a, batch, cb[0])
			for b, d := range dy {
				dx[b] += d
			}
		case opAddN:
			for j, o := range in.args {
				dx, inc := t.dview(o, batch, cb[2+j])
				if dx == nil {
					continue
				}
				for b, d := range dy {
					dx[b*inc] += d
				}
			}
		case opCustom:
			op := g.ops[r.ext]
			ins, dins := g.in[:len(in.args)], g.din[:len(in.args)]
			t.argViews(in.args, batch, true, t.cb[i])
			for b := range dy {
				for j := range ins {
					o, n := b*t.ai[j], t.an[j]
					ins[j] = t.av[j][o : o+n]
					if dv := t.dv[j]; dv != nil {
						o := b * t.di[j]
						dins[j] = dv[o : o+n]
					} else {
						dins[j] = nil
					}
				}
				op.Backward(y[b:b+1], dy[b:b+1], ins, dins)
			}
		}
	}
}

// InputGrad is the adjoint of input slot s per batch element after BackwardAll.
func (t *StepTemplate) InputGrad(s int) []float64 { return t.dinputs[s][:t.steps] }

// ClearAdjoints zeroes the adjoints of the given nodes, which must not
// depend on an Input: the part of the arena that a StepGradient over them
// touches, instead of the whole arena.
func (g *Graph) ClearAdjoints(order []Node) {
	g.adjFor(1)
	for _, n := range order {
		r := &g.recs[n]
		if r.flags&flagVar == 0 {
			continue
		}
		if r.flags&flagBatched != 0 {
			panic("autodiff: ClearAdjoints of a batched node")
		}
		clear(g.adj[r.doff : r.doff+r.n])
	}
}

// binaryScalarRight is y = a op c elementwise for a scalar c (the values of
// binaryLoop with c broadcast).
func binaryScalarRight(op opcode, y, a []float64, c float64) {
	y = y[:len(a)]
	switch op {
	case opAdd:
		for i, v := range a {
			y[i] = v + c
		}
	case opSub:
		for i, v := range a {
			y[i] = v - c
		}
	case opMul:
		for i, v := range a {
			y[i] = v * c
		}
	case opDiv:
		for i, v := range a {
			y[i] = v / c
		}
	default:
		for i, v := range a {
			y[i] = pow(v, c)
		}
	}
}

// binaryScalarLeft is y = a op c elementwise for a scalar a.
func binaryScalarLeft(op opcode, y []float64, a float64, c []float64) {
	y = y[:len(c)]
	switch op {
	case opAdd:
		for i, v := range c {
			y[i] = a + v
		}
	case opSub:
		for i, v := range c {
			y[i] = a - v
		}
	case opMul:
		for i, v := range c {
			y[i] = a * v
		}
	case opDiv:
		for i, v := range c {
			y[i] = a / v
		}
	default:
		for i, v := range c {
			y[i] = pow(a, v)
		}
	}
}

// StepGradient takes the adjoint contributions that the templates'
// BackwardAll computed for the externals that depend on params into the
// graph's adjoints and propagates them back through the shared nodes (the
// params-only part of the graph): the param gradient of a state-space
// model along a trajectory. The contributions are added in the order a
// whole-graph Backward adds them (by descending consumer node,
// interleaved with the shared nodes), so that the gradient is the same to
// the bit when Exact.
type StepGradient struct {
	g       *Graph
	shared  []Node
	tpls    []*StepTemplate
	entries []stepEntry
	// Exact: no batched node belongs to two steps, every template's steps
	// order their nodes alike, and no custom op sums several contributions
	// to one external: the adjoints are added as by Backward.
	Exact bool
}

type stepEntry struct {
	consumer, target Node
	tpl, buf, off, q int32
}

// NewStepGradient prepares the gradient for the templates, whose
// externals have the ancestors shared (from Ancestors).
func (g *Graph) NewStepGradient(tpls []*StepTemplate, shared []Node) *StepGradient {
	sg := &StepGradient{g: g, shared: shared, tpls: tpls, Exact: true}
	seen := map[Node]bool{}
	for ti, t := range tpls {
		sg.Exact = sg.Exact && t.exact
		for i, in := range t.p.instrs {
			for _, n := range t.nodes[i] {
				if seen[n] {
					sg.Exact = false
				}
				seen[n] = true
			}
			for q, o := range append([]operand{in.a, in.b}, in.args...) {
				cb := t.cb[i][q]
				if cb < 0 {
					continue
				}
				n := t.extLen[o.idx]
				for k := 0; k < t.steps; k++ {
					sg.entries = append(sg.entries, stepEntry{consumer: t.nodes[i][k], target: t.extNodes[o.idx][k],
						tpl: int32(ti), buf: cb, off: int32(k * n), q: int32(q)})
				}
			}
		}
	}
	slices.SortFunc(sg.entries, func(a, b stepEntry) int {
		if a.consumer != b.consumer {
			return int(b.consumer) - int(a.consumer)
		}
		return int(a.q - b.q)
	})
	return sg
}

// Backward adds the contributions of the templates' last BackwardAll into
// the adjoints of the shared nodes and propagates them back to the params.
// The caller has cleared the shared nodes' adjoints (ClearAdjoints) and
// may have added seeds of its own (terms of params alone) before.
func (sg *StepGradient) Backward() {
	g := sg.g
	g.adjFor(1)
	e := sg.entries
	apply := func(x *stepEntry) {
		t := sg.tpls[x.tpl]
		da := g.adjOf(x.target, 0)
		c := t.contrib[x.buf][x.off:]
		for i := range da {
			da[i] += c[i]
		}
	}
	for i := len(sg.shared) - 1; i >= 0; i-- {
		n := sg.shared[i]
		for len(e) > 0 && e[0].consumer > n {
			apply(&e[0])
			e = e[1:]
		}
		r := &g.recs[n]
		if r.flags&flagVar == 0 || r.op == opInput || r.op == opParam {
			continue
		}
		if r.flags&flagBatched != 0 {
			panic("autodiff: StepGradient over a batched node")
		}
		g.backNode(n, 0)
	}
	for i := range e {
		apply(&e[i])
	}
}
