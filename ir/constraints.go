package ir

import (
	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// vecLatent declares a latent with a vector constraint: simplex[K],
// ordered[K], positive_ordered[K] (vectors) or cholesky_factor_corr[K] (a
// K x K matrix).
func (r *resolver) vecLatent(d *lang.Decl, kind VarKind, mk func(K int) stdlib.VecBijection) {
	p, tp := r.at(d.Pos), r.at(d.Type.Pos)
	base := d.Type.Base
	if kind != LatentVar {
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
	if k < 1 || base == "simplex" && k < 2 {
		r.errorf(tp, "%s[%d] is too small", base, k)
		return
	}
	vb := mk(k)
	t := vecType(k)
	if base == "cholesky_factor_corr" {
		t = matType(k, k)
	}
	v := r.newVar(d.Name, p, LatentVar, t)
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
		if _, ok := foldConst(x); !ok { // latents, params, or a data vector (elementwise)
			return true
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
	if base != "real" && base != "vector" {
		r.errorf(tp, "bounds that depend on other variables are supported for real and vector latents")
		return
	}
	t := tReal
	if base == "vector" {
		if len(d.Type.Dims) != 1 {
			r.errorf(tp, "vector needs one size, as in vector[N]")
			return
		}
		n, ok := r.sizeExpr(d.Type.Dims[0])
		if !ok {
			return
		}
		t = vecType(n)
	}
	if d.Init != nil {
		r.errorf(r.at(d.Init.Pos), "latent %s cannot have a value: its value is what inference is about", d.Name)
		return
	}
	v := r.newVar(d.Name, p, LatentVar, t)
	for _, b := range d.Type.AllBounds() {
		x := r.expr(b.Value)
		if x == nil {
			return
		}
		if !x.Type().Scalar() && !sameShape(x.Type(), t) {
			r.errorf(x.Pos(), "the %s bound of %s is %s; it must be a scalar or of the shape of %s (%s)", b.Which, d.Name, x.Type(), d.Name, t)
			return
		}
		if b.Which == "lower" {
			if v.LowerX != nil {
				r.errorf(r.at(b.Pos), "lower bound given twice")
				return
			}
			v.LowerX = x
		} else {
			if v.UpperX != nil {
				r.errorf(r.at(b.Pos), "upper bound given twice")
				return
			}
			v.UpperX = x
		}
	}
	v.Offset, v.XOffset = r.m.LatentDim, r.m.XDim
	r.m.LatentDim += t.Len()
	r.m.XDim += t.Len()
	r.m.Latents = append(r.m.Latents, v)
	r.declare(v)
}

// specialLeaf builds the constrained value and the log-Jacobian of a latent
// with a vector constraint or expression bounds.
func (cp *compiler) specialLeaf(v *Var) {
	g, c := cp.g, cp.c
	u := g.Slice(c.latent, v.Offset, v.Offset+v.UDim())
	var x, jac autodiff.Node
	if v.VecBij != nil {
		n := v.Type.Len()
		out := g.Custom(v.VecBij.Op(), n+1, u)
		x, jac = g.Slice(out, 0, n), g.Index(out, n)
		if v.Type.Kind == Matrix {
			x = g.Reshape(x, v.Type.Rows, v.Type.Cols)
		}
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
			c.bounded = append(c.bounded, boundedLatent{v, lo, hi})
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
			if r, ok := v.Derived.(*Ref); ok && r.Var.Kind == LocalVar && cp.env[r.Var.ID] < 0 && cp.elems[r.Var.ID] == nil {
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

// DerivedUsesLatents reports whether constrained latent component j is a
// derived quantity that depends on latents (directly or through other
// derived quantities); false for one of params and data alone.
func (m *Model) DerivedUsesLatents(j int) bool {
	for _, v := range m.Latents {
		if j >= v.XOffset && j < v.XOffset+v.Type.Len() {
			return v.Derived == nil || usesLatents(v.Derived)
		}
	}
	return true
}

func usesLatents(e Expr) bool {
	found := false
	walkExpr(e, func(x Expr) {
		if r, ok := x.(*Ref); ok && r.Var.Kind == LatentVar {
			if r.Var.Derived == nil || usesLatents(r.Var.Derived) {
				found = true
			}
		}
		if r, ok := x.(*Ref); ok && r.Var.Kind == LocalVar && !r.Var.DataOnly {
			found = true // a local of the derived block's statements
		}
		switch x.(type) {
		case *Inline, *Rng:
			found = true // conservatively; a draw varies per evaluation
		}
	})
	return found
}

// walkExpr calls f on e and its subexpressions.
func walkExpr(e Expr, f func(Expr)) {
	f(e)
	for _, c := range children(e) {
		walkExpr(c, f)
	}
}

// children are the direct subexpressions of e (not the statements of an
// inlined function).
func children(e Expr) []Expr {
	switch e := e.(type) {
	case *Index:
		return append([]Expr{e.X}, e.Idx...)
	case *Unary:
		return []Expr{e.X}
	case *Not:
		return []Expr{e.X}
	case *Cond:
		return []Expr{e.C, e.A, e.B}
	case *Binary:
		return []Expr{e.X, e.Y}
	case *Call:
		return e.Args
	case *Density:
		return e.Args
	case *NaryCall:
		return e.Args
	case *MatCall:
		return e.Args
	case *Builtin:
		return e.Args
	case *Rng:
		return e.Args
	case *Slice:
		out := []Expr{e.X}
		for _, d := range e.Dyn {
			if d != nil {
				out = append(out, d)
			}
		}
		return out
	case *Inline:
		return []Expr{e.Result}
	case *ODECall:
		return append([]Expr{e.Y0, e.T0, e.TS}, e.Args...)
	}
	return nil
}
