package ir

import (
	"fmt"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/stdlib"
)

// Vectorised loops (issue 12). A loop over data rows written the Stan way,
//
//	for n in 1..N { target += log_mix(theta, normal_lpdf(y[n] | mu[1], sigma[1]), ...) }
//	for n in 1..N { y[n] ~ normal(a + b * x[n], sigma) }
//
// unrolls to N copies of its body's nodes, and the tape then pays its
// dispatch per node and per batch element. When every statement of the
// body is a target += or a ~ whose loop variable appears only as the sole
// index of data vectors (or as a number), the loop is compiled once over
// its whole range instead: y[n] becomes the slice y[lo..hi], scalar
// operations and functions become elementwise on it, a density call
// inside an expression becomes the elementwise log density, and each
// statement adds the sum over the range. That is the same log density,
// term for term. Loops that index latents by the loop variable (a
// state-space model's z[t]), define locals, branch, nest loops or call
// functions that are not elementwise are unrolled as before.

// vectorizeLoops turns the lowering on; the tests compare it with the
// unrolled loop.
var vectorizeLoops = true

// vecLoop is the loop being compiled over its whole range.
type vecLoop struct {
	v      *Var
	lo, hi int
}

// vectorLoop compiles s once over lo..hi when its body allows it, and
// reports whether it did.
func (cp *compiler) vectorLoop(s *For, lo, hi int) bool {
	if !vectorizeLoops || cp.vec != nil || hi <= lo || !cp.vectorizable(s, lo, hi) {
		return false
	}
	cp.vec = &vecLoop{v: s.Var, lo: lo, hi: hi}
	cp.loopCtx = append(cp.loopCtx, fmt.Sprintf("%s in %d..%d", s.Var.Name, lo, hi))
	cp.block(s.Body)
	cp.loopCtx = cp.loopCtx[:len(cp.loopCtx)-1]
	cp.vec = nil
	return true
}

// vectorizable reports whether every statement of the loop's body is a
// target += or a ~ of a left-hand side that is not a latent, depends on
// the loop variable, and is built only of the expressions vecExprOK
// accepts, with the data vectors it indexes long enough for lo..hi.
func (cp *compiler) vectorizable(s *For, lo, hi int) bool {
	if len(s.Body) == 0 {
		return false
	}
	for _, st := range s.Body {
		var es []Expr
		switch st := st.(type) {
		case *Target:
			es = []Expr{st.X}
		case *Tilde:
			if st.Root != nil && st.Root.Kind == LatentVar {
				return false
			}
			es = append([]Expr{st.LHS}, st.Args...)
		default:
			return false
		}
		dep := false
		for _, e := range es {
			ok, d := cp.vecExprOK(e, s.Var, lo, hi)
			if !ok {
				return false
			}
			dep = dep || d
		}
		if !dep { // a statement repeated N times adds N copies: unroll it
			return false
		}
	}
	return true
}

// vecExprOK reports whether e can be compiled over the loop's range, and
// whether it depends on the loop variable v.
func (cp *compiler) vecExprOK(e Expr, v *Var, lo, hi int) (ok, dep bool) {
	if !e.Type().Scalar() {
		return false, false
	}
	all := func(es ...Expr) (bool, bool) {
		dep := false
		for _, x := range es {
			ok, d := cp.vecExprOK(x, v, lo, hi)
			if !ok {
				return false, false
			}
			dep = dep || d
		}
		return true, dep
	}
	switch e := e.(type) {
	case *Num:
		return true, false
	case *Ref:
		if e.Var == v {
			return true, true
		}
		k := e.Var.Kind
		return k == DataVar || k == ParamVar || k == LatentVar || k == LoopVar, false
	case *Index:
		base, isRef := e.X.(*Ref)
		if !isRef {
			return false, false
		}
		if len(e.Idx) == 1 {
			if r, isV := e.Idx[0].(*Ref); isV && r.Var == v {
				// y[n]: a data vector long enough for the range
				t := base.Var.Type
				return base.Var.Kind == DataVar && t.Kind == Vector && lo >= 1 && hi <= t.Rows, true
			}
		}
		for _, ie := range e.Idx {
			if ok, d := cp.vecExprOK(ie, v, lo, hi); !ok || d || ie.Type().Kind != Int {
				return false, false
			}
		}
		k := base.Var.Kind
		return k == DataVar || k == ParamVar || k == LatentVar, false
	case *Unary:
		return all(e.X)
	case *Not:
		return all(e.X)
	case *Binary:
		if e.MatVec {
			return false, false
		}
		return all(e.X, e.Y)
	case *NaryCall:
		return all(e.Args...)
	case *Density:
		if _, has := stdlib.LogDensityFunc(e.Name); !has {
			return false, false
		}
		return all(e.Args...)
	case *Call:
		if e.Fn == nil || e.Fn.Kind != stdlib.Elementwise || len(e.Args) != 1 {
			return false, false
		}
		return all(e.Args...)
	}
	return false, false
}

// vecLen is the length of the longest of the nodes: the loop's range when
// one of them depends on the loop variable, else 1.
func (cp *compiler) vecLen(ns []autodiff.Node) int {
	n := 1
	for _, x := range ns {
		n = max(n, cp.g.Len(x))
	}
	return n
}

// vecRange is the loop variable's values lo..hi as a constant vector.
func (cp *compiler) vecRange() autodiff.Node {
	l := cp.vec
	v := make([]float64, l.hi-l.lo+1)
	for i := range v {
		v[i] = float64(l.lo + i)
	}
	return cp.g.Const(v)
}

// vecIndex is the data vector x's elements lo..hi (x[n] over the range).
func (cp *compiler) vecIndex(e *Index) autodiff.Node {
	x := cp.expr(e.X)
	if !cp.g.IsConst(x) {
		cp.fail(e.Pos(), "internal: %s is not data", FormatExpr(e.X))
	}
	l := cp.vec
	return cp.g.Const(append([]float64(nil), cp.g.Value(x, 0)[l.lo-1:l.hi]...))
}

// isVecIndex reports whether e is x[n] for the loop being vectorised.
func (cp *compiler) isVecIndex(e *Index) bool {
	if cp.vec == nil || len(e.Idx) != 1 {
		return false
	}
	r, ok := e.Idx[0].(*Ref)
	return ok && r.Var == cp.vec.v
}
