package lower

import (
	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/stdlib"
)

// hmm puts an hmm_marginal call's op behind Stan's checks (HmmOp, one per
// call site) and registers them; Gamma and rho known before inference
// (data) are checked here, once, at the call.
func (cp *compiler) hmm(v *stdlib.HMMMarginal, e *ir.MatCall, args []autodiff.Node) *HmmOp {
	K, N := e.Args[0].Type().Rows, e.Args[0].Type().Cols
	h := cp.hmmOps[e]
	if h == nil {
		h = &HmmOp{VecOp: v, Rejections: Rejections{Op: e.Name, Pos: e.Pos(), Unit: "evaluation", Derived: cp.inDerived}, K: K}
		if cp.hmmOps == nil {
			cp.hmmOps = map[*ir.MatCall]*HmmOp{}
		}
		cp.hmmOps[e] = h
		cp.addRejecter(&h.Rejections)
	}
	g := cp.g
	if g.IsConst(args[1]) && g.IsConst(args[2]) {
		if msg := ir.HmmArgs(g.Value(args[1], 0), g.Value(args[2], 0), K); msg != "" {
			cp.fail(e.Pos(), "%s: %s", e.Name, msg)
		}
	}
	cp.heavy(e.Pos(), e.Name, "", ir.HmmWork(K, N)/ir.MaxHMMWork, ir.HmmBytes(K, N))
	return h
}

// HmmOp is stdlib's hmm_marginal behind Stan's checks of Gamma and rho: a
// draw where they fail is rejected (-Inf, no gradient; NaN in the derived
// block), counted, with the reason.
type HmmOp struct {
	stdlib.VecOp
	Rejections
	K int
}

// Forward checks Gamma and rho, then evaluates.
func (o *HmmOp) Forward(out []float64, in [][]float64) {
	o.Evals.Add(1)
	if !ir.HmmValid(in[1], in[2], o.K) {
		o.Reject(ir.HmmArgs(in[1], in[2], o.K))
		out[0] = o.Rejected()
		return
	}
	o.VecOp.Forward(out, in)
}

// Backward sends no adjoints from a rejected evaluation.
func (o *HmmOp) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	if !ir.HmmValid(in[1], in[2], o.K) {
		return
	}
	o.VecOp.Backward(out, dout, in, din)
}

// Clone is a fresh op with its own scratch that has rejected nothing.
func (o *HmmOp) Clone() stdlib.VecOp {
	v := o.VecOp.Clone()
	if v == nil {
		return nil
	}
	return &HmmOp{VecOp: v, Rejections: o.Rejections.Fresh(), K: o.K}
}

// Counts is the op's count of rejections.
func (o *HmmOp) Counts() *Rejections { return &o.Rejections }

// Fresh is r's description with nothing counted, for a copy of its op.
func (r *Rejections) Fresh() Rejections {
	return Rejections{Op: r.Op, Pos: r.Pos, Unit: r.Unit, Derived: r.Derived, Done: r.Done}
}
