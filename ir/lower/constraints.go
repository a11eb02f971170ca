package lower

import (
	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/stdlib"
)

// specialLeaf builds the constrained value and the log-Jacobian of a latent
// with a vector constraint or expression bounds.
func (cp *compiler) specialLeaf(v *ir.Var) {
	g, c := cp.g, cp.c
	u := g.Slice(c.LatentNode, v.Offset, v.Offset+v.UDim())
	var x, jac autodiff.Node
	if v.VecBij != nil {
		n := v.Type.Len()
		out := g.Custom(v.VecBij.Op(), n+1, u)
		x, jac = g.Slice(out, 0, n), g.Index(out, n)
		if v.Type.Kind == ir.Matrix {
			x = g.Reshape(x, v.Type.Rows, v.Type.Cols)
		}
	} else if v.Affine() {
		x, jac = cp.affineLeaf(v, u)
	} else {
		var lo, hi autodiff.Node = -1, -1
		if v.LowerX != nil {
			lo = cp.expr(v.LowerX)
		}
		if v.UpperX != nil {
			hi = cp.expr(v.UpperX)
		}
		switch {
		case lo >= 0 && hi >= 0: // x = lo + (hi - lo) inv_logit(u)
			c.Bounded = append(c.Bounded, boundedLatent{v, lo, hi})
			w := g.Sub(hi, lo)
			x = g.Add(lo, g.Mul(w, g.Map(stdlib.InvLogitFunc, u)))
			jac = g.Sum(g.Add(g.Log(w), g.Add(g.Map(stdlib.LogInvLogitFunc, u), g.Map(stdlib.LogInvLogitFunc, g.Neg(u)))))
			if v.Type.Scalar() && g.Len(w) == 1 {
				jac = g.Add(g.Log(w), g.Add(g.Map(stdlib.LogInvLogitFunc, u), g.Map(stdlib.LogInvLogitFunc, g.Neg(u))))
			}
		case lo >= 0: // x = lo + exp(u)
			x, jac = g.Add(lo, g.Exp(u)), g.Sum(u)
		default: // x = hi - exp(u)
			x, jac = g.Sub(hi, g.Exp(u)), g.Sum(u)
		}
		if v.Type.Scalar() {
			x = g.Index(x, 0)
		}
	}
	if g.Len(jac) > 1 {
		jac = g.Sum(jac)
	}
	cp.jac = append(cp.jac, jac)
	cp.env[v.ID] = x
	c.varNode[v.ID] = x
}

// affineLeaf is the constrained value x = offset + multiplier * u of a latent
// declared with an offset or a multiplier (0 and 1 when not given), and
// its log-Jacobian, log(multiplier) summed over the elements.
func (cp *compiler) affineLeaf(v *ir.Var, u autodiff.Node) (x, jac autodiff.Node) {
	g := cp.g
	x = u
	jac = g.Const([]float64{0})
	if v.MultX != nil {
		m := cp.expr(v.MultX)
		x = g.Mul(m, u)
		jac = g.Sum(g.Log(m))
		if n := g.Len(u); g.Len(m) == 1 && n > 1 {
			jac = g.Mul(g.Const([]float64{float64(n)}), jac)
		}
	}
	if v.OffsetX != nil {
		x = g.Add(cp.expr(v.OffsetX), x)
	}
	if v.Type.Scalar() {
		x = g.Index(x, 0)
	}
	return x, jac
}

// derived computes the derived quantities after the model body. They add
// nothing to the log joint.
func (cp *compiler) derived() {
	cp.inDerived = true
	defer func() { cp.inDerived = false }()
	for _, v := range cp.m.Latents {
		if v.Derived == nil {
			continue
		}
		func() {
			defer cp.recoverError()
			if r, ok := v.Derived.(*ir.Ref); ok && r.Var.Kind == ir.LocalVar && cp.env[r.Var.ID] < 0 && cp.elems[r.Var.ID] == nil {
				if len(cp.errs) > 0 { // its assignment failed, and was reported
					panic(compileError{})
				}
				cp.fail(v.Pos, "derived quantity %s is declared but never assigned", v.Name)
			}
			n := cp.expr(v.Derived)
			if v.Type.Scalar() && cp.g.Len(n) != 1 {
				n = cp.g.Index(n, 0)
			}
			cp.env[v.ID] = n
			cp.c.varNode[v.ID] = n
		}()
	}
}
