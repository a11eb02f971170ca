package lower

import (
	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
)

// hmm registers an hmm_marginal call's checks; Gamma and rho known before
// inference (data) are checked here, once, at the call.
func (cp *compiler) hmm(h *ir.HmmOp, e *ir.MatCall, args []autodiff.Node) {
	g := cp.g
	if g.IsConst(args[1]) && g.IsConst(args[2]) {
		if msg := ir.HmmArgs(g.Value(args[1], 0), g.Value(args[2], 0), h.K); msg != "" {
			cp.fail(e.Pos(), "%s: %s", e.Name, msg)
		}
	}
	h.Derived = cp.inDerived
	cp.addRejecter(&h.Rejections)
	K, N := e.Args[0].Type().Rows, e.Args[0].Type().Cols
	cp.heavy(e.Pos(), e.Name, "", ir.HmmWork(K, N)/ir.MaxHMMWork, ir.HmmBytes(K, N))
}
