package check

import (
	"strings"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// rngCall resolves NAME_rng(params), reporting whether name is one.
func (r *resolver) rngCall(c *lang.Call) (ir.Expr, bool) {
	name, ok := strings.CutSuffix(c.Name, "_rng")
	if !ok {
		return nil, false
	}
	fam, ok := stdlib.Lookup(name)
	if !ok || !fam.Scalar() {
		return nil, false
	}
	pos := r.at(c.Pos)
	if !r.inDerived && !r.anyBlock {
		r.errorf(pos, "%s draws at random: it belongs in the derived block", c.Name)
		return nil, true
	}
	if c.Bar || len(c.Args) != len(fam.Params) {
		r.errorf(pos, "%s takes %d argument%s (%s), got %d", c.Name, len(fam.Params), ir.Plural1(len(fam.Params)), paramList(fam), len(c.Args))
		return nil, true
	}
	t := ir.TReal
	if fam.Discrete {
		t = ir.TInt
	}
	args := make([]ir.Expr, len(c.Args))
	for i, a := range c.Args {
		if args[i] = r.expr(a); args[i] == nil {
			return nil, true
		}
		switch at := args[i].Type(); {
		case at.Scalar():
		case at.Kind == ir.Vector && (t.Scalar() || t.Rows == at.Rows):
			t = ir.VecType(at.Rows)
		default:
			r.errorf(args[i].Pos(), "argument %d of %s is %s; the arguments are scalars or vectors of one length", i+1, c.Name, at)
			return nil, true
		}
	}
	return &ir.Rng{ExprBase: ir.ExprBase{P: pos, T: t}, Dist: fam, Args: args}, true
}
