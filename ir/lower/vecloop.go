package lower

import (
	"fmt"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/stdlib"
)

// Vectorised loops (issue 12). A loop over data rows written the Stan way,
//
//	for n in 1..N { target += log_mix(theta, normal_lpdf(y[n] | mu[1], sigma[1]), ...) }
//	for n in 1..N { y[n] ~ normal(a + b * x[n], sigma) }
//
// unrolls to N copies of its body's nodes, and the tape then pays its
// dispatch per node and per batch element. When every statement of the
// body is a target += or a ~ (or an assignment, below) whose loop variable
// appears only as the sole index of data vectors (transformed data
// included), shifted or not by a known integer (y[t - 1]), or as a
// number, the loop is compiled once over its whole range instead: y[n]
// becomes the slice y[lo..hi], scalar operations and functions become
// elementwise on it, a density call inside an expression becomes the
// elementwise log density, and each statement adds the sum over the
// range. A vector indexed through an integer data vector,
// a[g[n]] (a hierarchical model's group effect; a may be a local defined
// before the loop), becomes one gather of a over the range. A statement
// mu[n] = e that fills a local vector declared before the loop over its
// whole length makes mu the vector e (the body's later statements may read
// mu[n]), and a scalar the body defines (eta = a + b * x[n]) holds one
// value per n, a vector over the range; an inner loop with known bounds
// is unrolled inside (Stan's arK: mu = alpha; for k in 1..K { mu = mu +
// beta[k] * y[t - k] }); and X[n] * beta, a data matrix's row times a
// vector, is one matrix-vector product of the rows lo..hi. That is the
// same log density, term for term.
// Loops that index latents by the loop variable (a state-space model's
// z[t]), define locals of other shapes, assign locals of the enclosing
// block otherwise, branch, nest loops with bounds that depend on n or
// call functions that are not elementwise are unrolled as before.

// vecLoop is the loop being compiled over its whole range.
type vecLoop struct {
	v      *ir.Var
	lo, hi int
}

// vecAssigned, during vectorizable, holds the locals of the statements
// checked so far: the vectors the body assigns whole (mu[n] = ... over
// the local's full length), which later statements may read as mu[n] and
// no other way, and the scalars the body declares, one value per n, which
// later statements may read and assign.
type vecAssigned map[*ir.Var]vecLocal

type vecLocal int

const (
	vecWhole       vecLocal = iota + 1 // mu, filled by mu[n] = ...
	vecScalar                          // eta, declared in the body, one value per n
	vecScalarFixed                     // eta, declared in the body, one value for all n (or none yet)
)

// vectorLoop compiles s once over lo..hi when its body allows it, and
// reports whether it did.
func (cp *compiler) vectorLoop(s *ir.For, lo, hi int) bool {
	if cp.unroll || cp.vec != nil || hi <= lo || !cp.vectorizable(s, lo, hi) {
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
// accepts, with the data vectors it indexes long enough for lo..hi; or
// one of the assignments and inner loops vecBodyOK describes.
func (cp *compiler) vectorizable(s *ir.For, lo, hi int) bool {
	if len(s.Body) == 0 {
		return false
	}
	cp.vecAsg = vecAssigned{}
	defer func() { cp.vecAsg = nil }()
	return cp.vecBodyOK(s.Body, s.Var, lo, hi)
}

// vecBodyOK checks the statements of a vectorisable loop's body (see
// vectorizable). Besides target += and ~ it takes
//   - scalars of the body (eta = e, eta: real, assigned again): their
//     values, one per n or one for all, are tracked so that a statement
//     depends on n exactly when the unrolled one would;
//   - mu[n] = e for a vector local declared before the loop, over its
//     whole length, with e not reading mu;
//   - inner loops with bounds known before inference, checked for each
//     value of their variable (they are unrolled inside the vectorised
//     loop).
func (cp *compiler) vecBodyOK(body []ir.Stmt, v *ir.Var, lo, hi int) bool {
	for _, st := range body {
		var es []ir.Expr
		switch st := st.(type) {
		case *ir.For:
			if !cp.knownInt(st.Lo, v) || !cp.knownInt(st.Hi, v) {
				return false
			}
			klo, khi := cp.intExpr(st.Lo), cp.intExpr(st.Hi)
			if khi < klo || khi-klo >= 1000 {
				return false
			}
			saved := cp.ints[st.Var.ID]
			for k := klo; k <= khi; k++ {
				cp.ints[st.Var.ID] = k
				if !cp.vecBodyOK(st.Body, v, lo, hi) {
					cp.ints[st.Var.ID] = saved
					return false
				}
			}
			cp.ints[st.Var.ID] = saved
			continue
		case *ir.LocalDecl:
			// eta = e or eta: real, a scalar of the body
			l := st.Local
			if !l.Type.Scalar() {
				return false
			}
			cp.vecAsg[l] = vecScalarFixed
			if st.Init != nil {
				ok, d := cp.vecExprOK(st.Init, v, lo, hi)
				if !ok {
					return false
				}
				if d {
					cp.vecAsg[l] = vecScalar
				}
			}
			continue
		case *ir.Assign:
			l := st.Local
			ok, d := cp.vecExprOK(st.X, v, lo, hi)
			if len(st.Idx) == 0 && (cp.vecAsg[l] == vecScalar || cp.vecAsg[l] == vecScalarFixed || l.Pos == st.Pos() && l.Type.Scalar()) {
				// a scalar of the body, declared by its first assignment
				// (eta = e) or assigned again
				if !ok {
					return false
				}
				cp.vecAsg[l] = vecScalarFixed
				if d {
					cp.vecAsg[l] = vecScalar
				}
				continue
			}
			if cp.vecFillOK(st, v, lo, hi, ok) { // m[k, n] = e (matfill.go)
				continue
			}
			// mu[n] = e for a vector local declared before the loop and the
			// loop over its whole length; e must not read mu
			if !ok || len(st.Idx) != 1 || !IsRefTo(st.Idx[0], v) || l.Type.Kind != ir.Vector ||
				lo != 1 || hi != l.Type.Rows || !cp.outerLocal(l) || cp.vecAsg[l] != 0 || refersTo(st.X, l) {
				return false
			}
			cp.vecAsg[l] = vecWhole
			continue
		case *ir.Target:
			es = []ir.Expr{st.X}
		case *ir.Tilde:
			if st.Root != nil && st.Root.Kind == ir.LatentVar {
				return false
			}
			es = append([]ir.Expr{st.LHS}, st.Args...)
		default:
			return false
		}
		dep := false
		for _, e := range es {
			ok, d := cp.vecExprOK(e, v, lo, hi)
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
func (cp *compiler) vecExprOK(e ir.Expr, v *ir.Var, lo, hi int) (ok, dep bool) {
	if !e.Type().Scalar() {
		return false, false
	}
	all := func(es ...ir.Expr) (bool, bool) {
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
	case *ir.Num:
		return true, false
	case *ir.Ref:
		if e.Var == v {
			return true, true
		}
		switch cp.vecAsg[e.Var] {
		case vecScalar: // one value per n
			return true, true
		case vecScalarFixed:
			return true, false
		case vecWhole:
			return false, false
		}
		k := e.Var.Kind
		return k == ir.DataVar || k == ir.ParamVar || k == ir.LatentVar || k == ir.LoopVar || cp.outerLocal(e.Var), false
	case *ir.Index:
		base, isRef := e.X.(*ir.Ref)
		if !isRef {
			return false, false
		}
		if len(e.Idx) == 1 {
			if r, isV := e.Idx[0].(*ir.Ref); isV && r.Var == v {
				// y[n]: a data vector (or transformed data), or a local
				// vector assigned whole, long enough for the range
				t := base.Var.Type
				whole := cp.vecAsg[base.Var] == vecWhole || base.Var.Kind == ir.LocalVar && cp.vecAsg[base.Var] == 0 && cp.env[base.Var.ID] >= 0
				return (whole || cp.dataValues(base.Var) != nil) && t.Kind == ir.Vector && lo >= 1 && hi <= t.Rows, true
			}
			if c, isOff := cp.loopOffset(e.Idx[0], v); isOff {
				// y[n - c] or y[n + c]: data (or transformed data) shifted
				// by a constant, in bounds over the range
				t := base.Var.Type
				return cp.dataValues(base.Var) != nil && t.Kind == ir.Vector && lo+c >= 1 && hi+c <= t.Rows, true
			}
			if cp.vecAsg[base.Var] != 0 {
				return false, false
			}
			if in, isIdx := e.Idx[0].(*ir.Index); isIdx {
				if ok, d := cp.vecExprOK(in, v, lo, hi); ok && d {
					// a[g[n]]: a vector gathered by an integer data vector
					// whose indices over the range are all in bounds (an
					// unrolled loop reports the one that is not)
					return cp.gatherIndices(base.Var, in, lo, hi) != nil, true
				}
				return false, false
			}
		}
		for _, ie := range e.Idx {
			if ok, d := cp.vecExprOK(ie, v, lo, hi); !ok || d || ie.Type().Kind != ir.Int {
				return false, false
			}
		}
		k := base.Var.Kind
		return k == ir.DataVar || k == ir.ParamVar || k == ir.LatentVar || cp.outerLocal(base.Var), false
	case *ir.Unary:
		return all(e.X)
	case *ir.Not:
		return all(e.X)
	case *ir.Binary:
		if e.MatVec {
			return false, false
		}
		return all(e.X, e.Y)
	case *ir.NaryCall:
		return all(e.Args...)
	case *ir.Cond:
		// c ? a : b with c known before inference and not the loop
		// variable (an inner loop's j == 1): the branch taken
		if refersTo(e.C, v) {
			return false, false
		}
		if taken, known := cp.known(e.C); known {
			return cp.vecExprOK(taken(e), v, lo, hi)
		}
		return false, false
	case *ir.Density:
		if _, has := stdlib.LogDensityFunc(e.Name); !has {
			return false, false
		}
		return all(e.Args...)
	case *ir.Call:
		if rows := cp.rowDotRows(e, v, lo, hi); rows != nil {
			// X[n] * beta: the rows of a data matrix times a vector
			return true, true
		}
		if !e.Def.Elementwise || len(e.Args) != 1 {
			return false, false
		}
		return all(e.Args...)
	}
	return false, false
}

// rowDotRows returns the values of rows lo..hi of X for dot(X[n], b) (X[n]
// * b) with X a data matrix (or transformed data) indexed by the loop
// variable v and b a vector expression that reads neither v nor the
// body's locals; nil for any other expression.
func (cp *compiler) rowDotRows(e *ir.Call, v *ir.Var, lo, hi int) []float64 {
	if e.Def != ir.FnDot || len(e.Args) != 2 || !ir.IsMatrixRow(e.Args[0]) {
		return nil
	}
	ix := e.Args[0].(*ir.Index)
	base, ok := ix.X.(*ir.Ref)
	if !ok || !IsRefTo(ix.Idx[0], v) {
		return nil
	}
	t := base.Var.Type
	vals := cp.dataValues(base.Var)
	if vals == nil || lo < 1 || hi > t.Rows || len(vals) != t.Rows*t.Cols {
		return nil
	}
	if refersTo(e.Args[1], v) {
		return nil
	}
	for l := range cp.vecAsg { // the body's own locals have one value per n
		if refersTo(e.Args[1], l) {
			return nil
		}
	}
	return vals[(lo-1)*t.Cols : hi*t.Cols]
}

// vecRowDot compiles dot(X[n], b) over the loop's range as one
// matrix-vector product of X's rows lo..hi (-1 when e is not one).
func (cp *compiler) vecRowDot(e *ir.Call) autodiff.Node {
	if cp.vec == nil {
		return -1
	}
	rows := cp.rowDotRows(e, cp.vec.v, cp.vec.lo, cp.vec.hi)
	if rows == nil {
		return -1
	}
	t := e.Args[0].(*ir.Index).X.Type()
	m := cp.g.ConstMatrix(cp.vec.hi-cp.vec.lo+1, t.Cols, append([]float64(nil), rows...))
	return cp.g.MatVec(m, cp.expr(e.Args[1]))
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
func (cp *compiler) vecIndex(e *ir.Index) autodiff.Node {
	x := cp.expr(e.X)
	l := cp.vec
	c, _ := cp.loopOffset(e.Idx[0], l.v) // 0 for x[n]
	if !cp.g.IsConst(x) {                // a local: its slice
		if l.lo+c == 1 && l.hi+c == cp.g.Len(x) {
			return x
		}
		return cp.g.Slice(x, l.lo-1+c, l.hi+c)
	}
	return cp.g.Const(append([]float64(nil), cp.g.Value(x, 0)[l.lo-1+c:l.hi+c]...))
}

// vecAssign compiles mu[n] = e over the loop's range (the whole of mu):
// mu becomes the vector e.
func (cp *compiler) vecAssign(s *ir.Assign) {
	v := s.Local
	if len(s.Idx) == 2 { // m[k, n] = e (matfill.go)
		cp.vecFillAssign(s)
		return
	}
	x := cp.broadcast(cp.expr(s.X), v.Type)
	cp.env[v.ID], cp.elems[v.ID] = x, nil
	cp.localDeps[v.ID] = cp.depsOf(s.X, nil)
}

// IsRefTo reports whether e is the variable v.
func IsRefTo(e ir.Expr, v *ir.Var) bool {
	r, ok := e.(*ir.Ref)
	return ok && r.Var == v
}

// refersTo reports whether e reads the variable v.
func refersTo(e ir.Expr, v *ir.Var) bool {
	if IsRefTo(e, v) {
		return true
	}
	for _, c := range ir.Children(e) {
		if refersTo(c, v) {
			return true
		}
	}
	return false
}

// isVecIndex reports whether e is x[n] (or x[n + c], x[n - c]) for the
// loop being vectorised.
func (cp *compiler) isVecIndex(e *ir.Index) bool {
	if cp.vec == nil || len(e.Idx) != 1 {
		return false
	}
	if IsRefTo(e.Idx[0], cp.vec.v) {
		return true
	}
	_, ok := cp.loopOffset(e.Idx[0], cp.vec.v)
	return ok
}

// loopOffset returns c for an index that is the loop variable v plus an
// integer c known before inference (n + c, c + n, n - c, nested), and
// whether it is one; the plain n is not.
func (cp *compiler) loopOffset(e ir.Expr, v *ir.Var) (int, bool) {
	b, ok := e.(*ir.Binary)
	if !ok || b.MatVec || b.T.Kind != ir.Int {
		return 0, false
	}
	off := func(x ir.Expr) (int, bool) { // v + c, v itself included
		if IsRefTo(x, v) {
			return 0, true
		}
		return cp.loopOffset(x, v)
	}
	switch b.Op {
	case ir.OpAdd:
		if c, ok := off(b.X); ok && cp.knownInt(b.Y, v) {
			return c + cp.intExpr(b.Y), true
		}
		if c, ok := off(b.Y); ok && cp.knownInt(b.X, v) {
			return c + cp.intExpr(b.X), true
		}
	case ir.OpSub:
		if c, ok := off(b.X); ok && cp.knownInt(b.Y, v) {
			return c - cp.intExpr(b.Y), true
		}
	}
	return 0, false
}

// knownInt reports whether e is an integer computed from numbers, sizes,
// integer data scalars and loop variables other than v (known before
// inference, so intExpr cannot fail on it).
func (cp *compiler) knownInt(e ir.Expr, v *ir.Var) bool {
	if e.Type().Kind != ir.Int {
		return false
	}
	switch e := e.(type) {
	case *ir.Num:
		return true
	case *ir.Ref:
		k := e.Var.Kind
		return e.Var != v && (k == ir.SizeVar || k == ir.LoopVar || k == ir.DataVar && e.Var.Type.Scalar())
	case *ir.Binary:
		return !e.MatVec && e.Op != ir.OpDiv && e.Op != ir.OpMod && cp.knownInt(e.X, v) && cp.knownInt(e.Y, v)
	case *ir.Unary:
		return cp.knownInt(e.X, v)
	}
	return false
}

// dataValues returns the values of a data variable or of a local computed
// from data alone (transformed data) defined before the loop, nil for
// anything else.
func (cp *compiler) dataValues(v *ir.Var) []float64 {
	switch {
	case v.Kind == ir.DataVar:
		if n := cp.env[v.ID]; n >= 0 && cp.g.IsConst(n) {
			return cp.g.Value(n, 0)
		}
		return v.Value
	case v.Kind == ir.LocalVar && v.DataOnly && cp.env[v.ID] >= 0 && cp.g.IsConst(cp.env[v.ID]):
		return cp.g.Value(cp.env[v.ID], 0)
	}
	return nil
}

// outerLocal reports whether v is a local defined before the loop (the
// body of a vectorised loop defines none), whole or element by element.
func (cp *compiler) outerLocal(v *ir.Var) bool {
	return v.Kind == ir.LocalVar && (cp.env[v.ID] >= 0 || cp.elems[v.ID] != nil)
}

// gatherIndices returns the 0-based indices g[lo..hi] - 1 of a[g[n]] over
// the loop's range, or nil unless a is a data, param, latent or outer local
// vector and
// g[n] is an integer data vector indexed by the loop variable with every
// index in 1..len(a).
func (cp *compiler) gatherIndices(a *ir.Var, in *ir.Index, lo, hi int) []int {
	if a.Type.Kind != ir.Vector || !(a.Kind == ir.DataVar || a.Kind == ir.ParamVar || a.Kind == ir.LatentVar || cp.outerLocal(a)) || in.Type().Kind != ir.Int {
		return nil
	}
	gv, ok := in.X.(*ir.Ref)
	if !ok {
		return nil
	}
	vals := cp.dataValues(gv.Var)
	if len(vals) < hi {
		return nil
	}
	idx := make([]int, hi-lo+1)
	for k, x := range vals[lo-1 : hi] {
		if !(x >= 1 && x <= float64(a.Type.Rows)) || x != float64(int(x)) {
			return nil
		}
		idx[k] = int(x) - 1
	}
	return idx
}

// vecGather is a[g[n]] over the loop's range, one gather node (nil when e
// is not a gather of the loop).
func (cp *compiler) vecGather(e *ir.Index) autodiff.Node {
	if cp.vec == nil || len(e.Idx) != 1 {
		return -1
	}
	in, ok := e.Idx[0].(*ir.Index)
	base, isRef := e.X.(*ir.Ref)
	if !ok || !isRef || !cp.isVecIndex(in) {
		return -1
	}
	idx := cp.gatherIndices(base.Var, in, cp.vec.lo, cp.vec.hi)
	if idx == nil {
		cp.fail(e.Pos(), "internal: %s is not a gather", ir.FormatExpr(e))
	}
	return cp.g.Custom(stdlib.Gather(idx), len(idx), cp.expr(e.X))
}
