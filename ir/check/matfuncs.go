package check

import (
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// vecDensity resolves a multivariate log density of y with parameters
// args, for y ~ name(args) and name_lpdf(y | args).
func (r *resolver) vecDensity(fam *stdlib.Family, y ir.Expr, args []ir.Expr, pos lang.Pos) ir.Expr {
	if len(args) != len(fam.Params) {
		r.errorf(pos, "%s takes %d parameter%s (%s), got %d", fam.Name, len(fam.Params), ir.Plural1(len(fam.Params)), paramList(fam), len(args))
		return nil
	}
	ts := make([]ir.Type, 1+len(args))
	ts[0] = y.Type()
	for i, a := range args {
		ts[1+i] = a.Type()
	}
	n, ok := ir.VecSize(fam.Vec, ts)
	if !ok {
		r.errorf(pos, "%s: %s; got %s and %s", fam.Name, fam.Vec.Want, ts[0], ir.TypeList(ts[1:]))
		return nil
	}
	return &ir.MatCall{ExprBase: ir.ExprBase{P: pos, T: ir.TReal}, Name: fam.Name, Op: fam.Vec.New(n), Args: append([]ir.Expr{y}, args...)}
}
