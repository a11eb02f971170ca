package lower

import (
	"fmt"
	"math"

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
		if msg := HmmArgs(g.Value(args[1], 0), g.Value(args[2], 0), K); msg != "" {
			cp.fail(e.Pos(), "%s: %s", e.Name, msg)
		}
	}
	cp.heavy(e.Pos(), e.Name, "", ir.HmmWork(K, N)/ir.MaxHMMWork, ir.HmmBytes(K, N))
	return h
}

// hmmSimplexTol is Stan's tolerance on the sums of the rows of Gamma and of
// rho (CONSTRAINT_TOLERANCE).
const hmmSimplexTol = 1e-8

// HmmArgs is why Gamma (K x K, row-major) and rho are not what
// hmm_marginal takes, as Stan checks them: each row of Gamma and rho a
// simplex (entries non-negative, sum 1 within 1e-8); "" when they are.
func HmmArgs(gam, rho []float64, K int) string {
	simplex := func(v []float64, what string, idx func(j int) string) string {
		sum := 0.0
		for j, x := range v {
			if !(x >= 0) || math.IsInf(x, 1) {
				return fmt.Sprintf("%s = %g: its entries must be probabilities (non-negative)", idx(j), x)
			}
			sum += x
		}
		if math.Abs(sum-1) > hmmSimplexTol {
			return fmt.Sprintf("%s sums to %.10g, not 1 (a simplex, within %g, as Stan requires)", what, sum, hmmSimplexTol)
		}
		return ""
	}
	for i := 0; i < K; i++ {
		row := gam[i*K : (i+1)*K]
		if msg := simplex(row, fmt.Sprintf("row %d of Gamma", i+1), func(j int) string { return fmt.Sprintf("Gamma[%d, %d]", i+1, j+1) }); msg != "" {
			return msg
		}
	}
	return simplex(rho[:K], "rho", func(j int) string { return fmt.Sprintf("rho[%d]", j+1) })
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
	if !hmmValid(in[1], in[2], o.K) {
		o.Reject(HmmArgs(in[1], in[2], o.K))
		out[0] = o.Rejected()
		return
	}
	o.VecOp.Forward(out, in)
}

// Backward sends no adjoints from a rejected evaluation.
func (o *HmmOp) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	if !hmmValid(in[1], in[2], o.K) {
		return
	}
	o.VecOp.Backward(out, dout, in, din)
}

// hmmValid is hmmArgs(...) == "" without allocating.
func hmmValid(gam, rho []float64, K int) bool {
	ok := func(v []float64) bool {
		sum := 0.0
		for _, x := range v {
			if !(x >= 0) || math.IsInf(x, 1) {
				return false
			}
			sum += x
		}
		return math.Abs(sum-1) <= hmmSimplexTol
	}
	for i := 0; i < K; i++ {
		if !ok(gam[i*K : (i+1)*K]) {
			return false
		}
	}
	return ok(rho[:K])
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
