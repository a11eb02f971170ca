package lower

import (
	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
)

// slice lowers a Slice.
func (cp *compiler) slice(e *ir.Slice) autodiff.Node {
	g := cp.g
	x := cp.expr(e.X)
	if e.X.Type().Kind == ir.Vector {
		return g.Slice(x, e.Lo[0]-1, e.Hi[0])
	}
	lo, hi := e.Lo, e.Hi
	t := e.X.Type()
	for d, ie := range e.Dyn {
		if ie == nil {
			continue
		}
		v := cp.intExpr(ie)
		if size := [2]int{t.Rows, t.Cols}[d]; v < 1 || v > size {
			cp.fail(ie.Pos(), "index %d is out of range: %s has %d %s (indices start at 1)", v, ir.FormatExpr(e.X), size, ir.Plural(t, d))
		}
		lo[d], hi[d] = v, v
	}
	var el []autodiff.Node
	for i := lo[0]; i <= hi[0]; i++ {
		for j := lo[1]; j <= hi[1]; j++ {
			el = append(el, g.Index2(x, i-1, j-1))
		}
	}
	n := g.Stack(el...)
	if e.T.Kind == ir.Matrix {
		return g.Reshape(n, e.T.Rows, e.T.Cols)
	}
	return n
}
