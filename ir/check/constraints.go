package check

import (
	"math"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// vecLatent declares a latent with a vector constraint: simplex[K],
// ordered[K], positive_ordered[K] (vectors) or cholesky_factor_corr[K] (a
// K x K matrix).
func (r *resolver) vecLatent(d *lang.Decl, kind ir.VarKind, mk func(K int) stdlib.VecBijection) {
	p, tp := r.at(d.Pos), r.at(d.Type.Pos)
	base := d.Type.Base
	if kind != ir.LatentVar {
		r.errorf(tp, "%s is a type for latents; declare %s %s as a vector (or a matrix)", base, kind, d.Name)
		return
	}
	if len(d.Type.Dims) != 1 {
		r.errorf(tp, "%s needs one size, as in %s[K]", base, base)
		return
	}
	if len(d.Type.AllBounds()) > 0 {
		r.errorf(tp, "%s takes no bounds", base)
		return
	}
	if d.Init != nil {
		r.errorf(r.at(d.Init.Pos), "latent %s cannot have a value: its value is what inference is about", d.Name)
		return
	}
	k, ok := r.sizeExpr(d.Type.Dims[0])
	if !ok {
		return
	}
	if k < 1 || base == lang.BaseSimplex && k < 2 {
		r.errorf(tp, "%s[%d] is too small", base, k)
		return
	}
	vb := mk(k)
	t := ir.VecType(k)
	if base == lang.BaseCholeskyFactorCorr {
		t = ir.MatType(k, k)
	}
	v := r.newVar(d.Name, p, ir.LatentVar, t)
	v.VecBij = vb
	v.Offset, v.XOffset = r.m.LatentDim, r.m.XDim
	r.m.LatentDim += vb.UDim()
	r.m.XDim += t.Len()
	r.m.Latents = append(r.m.Latents, v)
	r.declare(v)
}

// exprBounds reports whether a type's bounds are not all constants (they
// then depend on earlier latents or params).
func (r *resolver) exprBounds(t *lang.Type) bool {
	for _, b := range t.AllBounds() {
		n := len(r.errs)
		x := r.expr(b.Value)
		r.errs = r.errs[:n]
		if x == nil {
			return false // reported by bounds
		}
		if _, ok := ir.FoldConst(x); !ok || b.Which == "offset" || b.Which == "multiplier" {
			return true // latents, params, a data vector (elementwise), or an affine transform
		}
	}
	return false
}

// boundedLatent declares a real or vector latent whose bounds are
// expressions of earlier latents, params and data (beta: real<lower=0,
// upper=1 - alpha>).
func (r *resolver) boundedLatent(d *lang.Decl, p lang.Pos) {
	tp := r.at(d.Type.Pos)
	base := d.Type.Base
	if base != lang.BaseReal && base != lang.BaseVector {
		r.errorf(tp, "bounds that depend on other variables are supported for real and vector latents")
		return
	}
	t := ir.TReal
	if base == lang.BaseVector {
		if len(d.Type.Dims) != 1 {
			r.errorf(tp, "vector needs one size, as in vector[N]")
			return
		}
		n, ok := r.sizeExpr(d.Type.Dims[0])
		if !ok {
			return
		}
		t = ir.VecType(n)
	}
	if d.Init != nil {
		r.errorf(r.at(d.Init.Pos), "latent %s cannot have a value: its value is what inference is about", d.Name)
		return
	}
	v := r.newVar(d.Name, p, ir.LatentVar, t)
	for _, b := range d.Type.AllBounds() {
		x := r.expr(b.Value)
		if x == nil {
			return
		}
		if !x.Type().Scalar() && !ir.SameShape(x.Type(), t) {
			r.errorf(x.Pos(), "the %s bound of %s is %s; it must be a scalar or of the shape of %s (%s)", b.Which, d.Name, x.Type(), d.Name, t)
			return
		}
		if local := ir.ReadsLocal(x); local != nil {
			what := map[string]string{"lower": "lower bound", "upper": "upper bound"}[b.Which]
			if what == "" {
				what = b.Which
			}
			e := r.errorf(x.Pos(), "the %s of %s reads %s, which the data block computes; such a %s is not supported", what, d.Name, local.Name, what)
			e.Hint = "give it as data, a constant or an expression of the latents declared before"
			return
		}
		slot := map[string]*ir.Expr{"lower": &v.LowerX, "upper": &v.UpperX, "offset": &v.OffsetX, "multiplier": &v.MultX}[b.Which]
		if *slot != nil {
			r.errorf(r.at(b.Pos), "%s given twice", b.Which)
			return
		}
		*slot = x
	}
	if v.Affine() && (v.LowerX != nil || v.UpperX != nil) {
		r.errorf(tp, "%s has bounds and an offset or multiplier; give one or the other", d.Name)
		return
	}
	if m, ok := ir.FoldConst(v.MultX); ok && v.MultX != nil && !(m > 0 && !math.IsInf(m, 0)) {
		r.errorf(v.MultX.Pos(), "the multiplier of %s must be positive and finite, got %g", d.Name, m)
		return
	}
	v.Offset, v.XOffset = r.m.LatentDim, r.m.XDim
	r.m.LatentDim += t.Len()
	r.m.XDim += t.Len()
	r.m.Latents = append(r.m.Latents, v)
	r.declare(v)
}
