package lower

import (
	"math"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/stdlib"
)

// Indexes known only per draw. An int local assigned under an if on the
// latents (a Viterbi back-pointer: bp[t, k] = j where a path through j is
// the best) has a value per draw, and so does an index read from it
// (y_star[t] = bp[t + 1, y_star[t + 1]]). The graph is static, so x[i]
// with such an i is a chain of selects over i's possible values 1..size,
// each a constant index; an i outside them gives NaN. Select routes the
// gradient to the element taken.

// perDraw returns the node of index expression ie when its value is known
// only per draw, else -1 (a constant index, read by intExpr).
func (cp *compiler) perDraw(ie ir.Expr) autodiff.Node {
	if ie.Type().Kind != ir.Int || cp.knownAtCompile(ie) {
		return -1
	}
	if cp.vec != nil { // a vectorised loop's indexes are its own matter
		return -1
	}
	local := false
	ir.WalkExpr(ie, func(x ir.Expr) {
		if r, ok := x.(*ir.Ref); ok && r.Var.Kind == ir.LocalVar {
			local = true
		}
	})
	if !local { // sizes, data, loop variables: a constant
		return -1
	}
	n := cp.expr(ie)
	if cp.g.IsConst(n) || cp.g.Len(n) != 1 {
		return -1
	}
	return n
}

// dynIndex compiles e, whose index d has the per-draw value node in.
func (cp *compiler) dynIndex(e *ir.Index, d int, in autodiff.Node) autodiff.Node {
	g := cp.g
	t := e.X.Type()
	size := t.Rows
	if d == 1 {
		size = t.Cols
	}
	n := e.T.Len()
	out := g.Const([]float64{math.NaN()})
	for k := size; k >= 1; k-- {
		idx := append([]ir.Expr(nil), e.Idx...)
		idx[d] = &ir.Num{ExprBase: ir.ExprBase{P: e.Idx[d].Pos(), T: ir.TInt}, V: float64(k)}
		el := cp.expr(&ir.Index{ExprBase: e.ExprBase, X: e.X, Idx: idx})
		is := g.Map(stepFunc{ir.OpEq}, g.Sub(in, cp.num(float64(k))))
		out = g.Custom(stdlib.NewSelect(n), n, is, el, out)
	}
	return out
}
