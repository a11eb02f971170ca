package check

import (
	"slices"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

// callFunction resolves a call of a built-in function: the arity, the
// arguments (the last def.ints of them folded to integers), then the
// entry's check.
func (r *resolver) callFunction(c *lang.Call, f *ir.Function) ir.Expr {
	pos := r.at(c.Pos)
	def := f
	if f.Alias != "" {
		def = ir.FunctionsByName[f.Alias]
	}
	if c.Bar {
		r.errorf(pos, ir.BarMessage, c.Name)
		return nil
	}
	if def.ODE != nil {
		return r.odeCall(c, pos, *def.ODE)
	}
	if !slices.Contains(def.Arity, len(c.Args)) {
		n, s := ir.ArityText(def.Arity)
		r.errorf(pos, "%s takes %s argument%s, got %d", c.Name, n, s, len(c.Args))
		return nil
	}
	k := &ir.Site{Errorf: r.errorf, Pos: pos, Name: c.Name, Def: def}
	nv := len(c.Args) - def.Ints
	k.Args = make([]ir.Expr, nv)
	for i := range k.Args {
		if k.Args[i] = r.expr(c.Args[i]); k.Args[i] == nil {
			return nil
		}
		if def.RowRefused && k.Args[i].Type().IsRow() {
			r.rowRefused(k.Args[i], c.Name)
			return nil
		}
	}
	k.Ints = make([]int, def.Ints)
	for i := range k.Ints {
		x := r.expr(c.Args[nv+i])
		if x == nil {
			return nil
		}
		v, ok := ir.FoldConst(x)
		if !ok && x.Type().Kind == ir.Int && !dependsOnUnknowns(x) && (def == ir.FnCol || def == ir.FnRow) {
			return r.dynColRow(k.Args[0], x, def == ir.FnCol, pos) // col(X, j) in a loop over j
		}
		if !ok || x.Type().Kind != ir.Int {
			r.errorf(x.Pos(), "argument %d of %s must be an integer known before inference", nv+i+1, c.Name)
			return nil
		}
		if k.Ints[i], ok = ir.ExactInt(v); !ok {
			r.errorf(x.Pos(), "%s", ir.BigIntMsg(x, v))
			return nil
		}
		markSizeUse(x, x.Pos())
	}
	return def.Check(k)
}
