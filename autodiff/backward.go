package autodiff

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Backward computes the adjoints of every node that out depends on, for
// batch elements 0..batch-1, seeding d out/d out = 1 for each element (out
// must be a scalar). Adjoints of shared nodes (Params) are summed over the
// batch. Forward (or ForwardNodes over out's ancestors) must have run.
func (g *Graph) Backward(out Node, batch int) {
	g.ready(batch)
	g.adjFor(batch)
	g.clearAdjoints(batch)
	ro := &g.recs[out]
	if ro.flags&flagVar == 0 {
		return
	}
	if ro.flags&flagBatched == 0 {
		g.adjOf(out, 0)[0] = float64(batch)
	} else {
		for b := 0; b < batch; b++ {
			g.adjOf(out, b)[0] = 1
		}
	}
	for i := int(out); i >= 0; i-- {
		n := Node(i)
		r := &g.recs[n]
		if r.flags&flagVar == 0 || r.op == opInput || r.op == opParam {
			continue
		}
		// a node whose adjoint is zero passes nothing back; skipping it
		// also keeps the nodes out does not depend on (a local assigned
		// and then overwritten), whose values Forward never computed,
		// from adding 0 * (1/0) = NaN to their inputs
		if r.flags&flagBatched == 0 {
			if !zeroAdj(g.adjOf(n, 0)) {
				g.backNode(n, 0)
			}
			continue
		}
		if batch > 1 && g.productBatched(r) {
			if r.op == opAffine {
				for b := 0; b < batch; b++ {
					g.affineOffsetBack(r, b)
				}
			}
			g.matVecBatchBack(n, batch)
			continue
		}
		for b := 0; b < batch; b++ {
			if !zeroAdj(g.adjOf(n, b)) {
				g.backNode(n, b)
			}
		}
	}
}

// clearAdjoints zeroes the adjoints of batch elements 0..batch-1 of every
// node, not the whole arena: after Alloc for a larger batch (the CIS
// kernel's samples, the PSIS draws), a gradient of one row cleared the
// arena of all of them (48 MB for 20 draws over 100000 rows, the most of
// the time of one gradient).
func (g *Graph) clearAdjoints(batch int) {
	for i := range g.recs {
		r := &g.recs[i]
		if r.flags&flagVar == 0 {
			continue
		}
		n := int(r.n)
		if r.flags&flagBatched != 0 {
			n *= batch
		}
		clear(g.adj[r.doff : int(r.doff)+n])
	}
}

// zeroAdj reports whether every element of an adjoint is zero.
func zeroAdj(d []float64) bool {
	for _, x := range d {
		if x != 0 {
			return false
		}
	}
	return true
}

// acc adds d * (partial) into the adjoint of input a at element i,
// broadcasting a scalar input.
func accAt(da []float64, i int, v float64) {
	if len(da) == 1 {
		da[0] += v
	} else {
		da[i] += v
	}
}

func (g *Graph) backNode(n Node, b int) {
	r := &g.recs[n]
	dy := g.adjOf(n, b)
	y := g.val(n, b)
	switch r.op {
	case opAdd, opSub, opMul, opDiv, opPow:
		x1, x2 := g.val(r.a, b), g.val(r.b, b)
		d1, d2 := g.adjOf(r.a, b), g.adjOf(r.b, b)
		for i, d := range dy {
			if d == 0 {
				continue
			}
			ga, gc := binaryPartials(r.op, at(x1, i), at(x2, i), y[i], d2 != nil)
			if d1 != nil {
				accAt(d1, i, d*ga)
			}
			if d2 != nil {
				accAt(d2, i, d*gc)
			}
		}
	case opNeg, opExp, opLog, opSqrt, opLog1p, opExpm1:
		x, dx := g.val(r.a, b), g.adjOf(r.a, b)
		for i, d := range dy {
			dx[i] += unaryAdjoint(r.op, d, x[i], y[i])
		}
	case opMap:
		g.funcs[r.ext].Deriv(g.adjOf(r.a, b), dy, y, g.val(r.a, b))
	case opSum:
		dx := g.adjOf(r.a, b)
		for i := range dx {
			dx[i] += dy[0]
		}
	case opDot:
		x1, x2 := g.val(r.a, b), g.val(r.b, b)
		if d1 := g.adjOf(r.a, b); d1 != nil {
			for i := range d1 {
				d1[i] += dy[0] * x2[i]
			}
		}
		if d2 := g.adjOf(r.b, b); d2 != nil {
			for i := range d2 {
				d2[i] += dy[0] * x1[i]
			}
		}
	case opLogSumExp:
		x, dx := g.val(r.a, b), g.adjOf(r.a, b)
		for i := range dx {
			dx[i] += dy[0] * math.Exp(x[i]-y[0])
		}
	case opMatVec, opAffine:
		if r.op == opAffine {
			g.affineOffsetBack(r, b)
		}
		m, v := g.val(r.a, b), g.val(r.b, b)
		rows, cols := int(g.recs[r.a].rows), int(g.recs[r.a].cols)
		if dv := g.adjOf(r.b, b); dv != nil {
			blas64.Gemv(blas.Trans, 1, blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: m},
				blas64.Vector{N: rows, Inc: 1, Data: dy}, 1, blas64.Vector{N: cols, Inc: 1, Data: dv})
		}
		if dm := g.adjOf(r.a, b); dm != nil {
			blas64.Ger(1, blas64.Vector{N: rows, Inc: 1, Data: dy}, blas64.Vector{N: cols, Inc: 1, Data: v},
				blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: dm})
		}
	case opAddN:
		for _, a := range g.args[r.argOff : r.argOff+r.argN] {
			if dx := g.adjOf(a, b); dx != nil {
				for i := range dx {
					dx[i] += dy[i]
				}
			}
		}
	case opIndex:
		if dx := g.adjOf(r.a, b); dx != nil {
			dx[r.lo] += dy[0]
		}
	case opSlice:
		if dx := g.adjOf(r.a, b); dx != nil {
			dx = dx[r.lo:]
			for i := range dy {
				dx[i] += dy[i]
			}
		}
	case opStack:
		for i, a := range g.args[r.argOff : r.argOff+r.argN] {
			if dx := g.adjOf(a, b); dx != nil {
				dx[0] += dy[i]
			}
		}
	case opCustom:
		args := g.args[r.argOff : r.argOff+r.argN]
		in, din := g.in[:len(args)], g.din[:len(args)]
		for i, a := range args {
			in[i] = g.val(a, b)
			din[i] = g.adjOf(a, b)
		}
		g.ops[r.ext].Backward(y, dy, in, din)
	}
}

// affineOffsetBack carries the adjoint of batch element b of an Affine
// node to its offset c: the sum of its nonzero elements, added in order
// (the additions of Add's backward pass, so the same bits).
func (g *Graph) affineOffsetBack(r *record, b int) {
	dc := g.adjOf(g.affineOffset(r), b)
	if dc == nil {
		return
	}
	for _, d := range g.adj[int(r.doff)+b*int(r.n) : int(r.doff)+(b+1)*int(r.n)] {
		if d != 0 {
			dc[0] += d
		}
	}
}

// matVecBatchBack: dV (batch x cols) += dY (batch x rows) M.
func (g *Graph) matVecBatchBack(n Node, batch int) {
	r := &g.recs[n]
	rm, rv := &g.recs[r.a], &g.recs[r.b]
	rows, cols := int(rm.rows), int(rm.cols)
	m := g.val(r.a, 0)
	dv := g.adj[rv.doff : int(rv.doff)+batch*cols]
	dy := g.adj[r.doff : int(r.doff)+batch*rows]
	impl := blas64.Implementation()
	for b := 0; b < batch; b++ {
		dvb := dv[b*cols : (b+1)*cols]
		dyb := dy[b*rows : (b+1)*rows]
		for i, d := range dyb {
			if d != 0 {
				impl.Daxpy(cols, d, m[i*cols:(i+1)*cols], 1, dvb, 1)
			}
		}
	}
}

// binaryPartials are the partial derivatives of y = a op c (op one of
// + - * / ^) with respect to a and c; gc only when wantC (pow's needs a
// log). The graph's backward pass and the step templates share them, so
// that both give the same bits.
func binaryPartials(op opcode, a, c, y float64, wantC bool) (ga, gc float64) {
	switch op {
	case opAdd:
		return 1, 1
	case opSub:
		return 1, -1
	case opMul:
		return c, a
	case opDiv:
		return 1 / c, -y / c
	}
	return powPartials(a, c, y, wantC)
}

// powPartials are binaryPartials of y = a^c (out of line, so that the
// others inline).
func powPartials(a, c, y float64, wantC bool) (ga, gc float64) {
	if c == 2 {
		ga = 2 * a
	} else {
		ga = c * pow(a, c-1)
	}
	if wantC && a > 0 {
		gc = y * math.Log(a)
	}
	return ga, gc
}

// unaryAdjoint is the adjoint d of y = op(x) carried to x (op one of neg,
// exp, log, sqrt, log1p, expm1). -d added is d subtracted, bit for bit.
func unaryAdjoint(op opcode, d, x, y float64) float64 {
	switch op {
	case opNeg:
		return -d
	case opExp:
		return d * y
	case opLog:
		return d / x
	case opSqrt:
		return d * 0.5 / y
	case opLog1p:
		return d / (1 + x)
	}
	return d * (y + 1)
}
