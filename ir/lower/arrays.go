package lower

import (
	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/stdlib"
)

// lowerArrayCol lowers a Builtin of arrayCol.
func (cp *compiler) lowerArrayCol(x lowering) autodiff.Node {
	t := x.Args[0].Type()
	k := cp.intExpr(x.Args[1])
	if k < 1 || k > t.Cols {
		cp.fail(x.Args[1].Pos(), "index %d is out of range: %s has %d columns (indices start at 1)", k, ir.FormatExpr(x.Args[0]), t.Cols)
	}
	idx := make(stdlib.Gather, t.Rows)
	for i := range idx {
		idx[i] = i*t.Cols + k - 1
	}
	return cp.g.Custom(idx, t.Rows, x.A[0])
}

// arrayColPositions are the unconstrained latent positions of a[:, k]
// on the left of ~ (all of a's when a has a vector constraint).
func (cp *compiler) arrayColPositions(e *ir.Builtin) []int {
	r, ok := e.Args[0].(*ir.Ref)
	if !ok || e.Def != ir.ArrayCol {
		return nil
	}
	if r.Var.Special() {
		return cp.lhsPositions(r)
	}
	t := r.Var.Type
	k := cp.intExpr(e.Args[1])
	out := make([]int, t.Rows)
	for i := range out {
		out[i] = r.Var.Offset + i*t.Cols + k - 1
	}
	return out
}
