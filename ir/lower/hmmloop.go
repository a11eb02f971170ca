package lower

import (
	"fmt"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/stdlib"
)

// The forward algorithm as Stan users write it (posteriordb's
// hmm_example, hmm_drive):
//
//	for t in 2..N {
//	  for k in 1..K {
//	    for j in 1..K {
//	      acc[j] = gamma[t - 1, j] + log(theta[j, k]) + normal_lpdf(y[t] | mu[k], 1)
//	    }
//	    gamma[t, k] = log_sum_exp(acc)
//	  }
//	}
//
// is a recursion over t, so it cannot be vectorised over t as it stands,
// and unrolled it is about 10 K^2 scalar nodes per t. Its structure is
// gamma[t, k] = log_sum_exp_j(gamma[t-1, j] + W[t, j, k]) + E[t, k],
// where W[t, j, k] is the sum of the rest of acc[j]'s terms that depend
// on j and E[t, k] of those that do not (the emission, computed once per
// k instead of once per j): W and E are compiled once for each (j, k) and
// k, vectorised over t as vecloop.go compiles a loop over data rows, and
// the recursion is one stdlib.HMMForward node whose value is the rows
// gamma[lo..hi]. The j loop's body may define scalars before acc[j] (as
// hmm_example's logtheta) and branch on conditions known before inference
// (if j == 1 { ... }); W may depend on t (data indexed by t), j and k, in
// any way the vectorised loops accept. gamma's rows lo..hi are then
// elements of that node (made when read), and acc holds its last values (t = hi, k = K),
// as after the unrolled loop. Anything else is unrolled as before.

// fwdLoop is a forward loop matched by matchForward.
type fwdLoop struct {
	t, k, j    *ir.Var
	lo, hi, K  int
	gamma, acc *ir.Var
	pre        []ir.Stmt // the j body's statements before acc[j] = ...
	terms      []ir.Expr // acc[j]'s addends but gamma[t - 1, j] that depend on j
	eterms     []ir.Expr // those that do not (the emission): added after log_sum_exp
}

// forwardLoop compiles s as one hmm_forward node when it is the forward
// algorithm (above), and reports whether it did.
func (cp *compiler) forwardLoop(s *ir.For, lo, hi int) bool {
	if cp.unroll || cp.vec != nil {
		return false
	}
	f, ok := cp.matchForward(s, lo, hi)
	if !ok {
		return false
	}
	cp.loopCtx = append(cp.loopCtx, fmt.Sprintf("%s in %d..%d", s.Var.Name, lo, hi))
	cp.compileForward(f)
	cp.loopCtx = cp.loopCtx[:len(cp.loopCtx)-1]
	return true
}

// knownRange returns the bounds of an inner loop when they are known
// before inference and do not depend on v.
func (cp *compiler) knownRange(f *ir.For, v *ir.Var) (lo, hi int, ok bool) {
	if !cp.knownInt(f.Lo, v) || !cp.knownInt(f.Hi, v) {
		return 0, 0, false
	}
	return cp.intExpr(f.Lo), cp.intExpr(f.Hi), true
}

// matchForward recognises the forward loop's shape and checks that W can
// be compiled over lo..hi for every (j, k).
func (cp *compiler) matchForward(s *ir.For, lo, hi int) (*fwdLoop, bool) {
	t := s.Var
	if len(s.Body) != 1 {
		return nil, false
	}
	kf, ok := s.Body[0].(*ir.For)
	if !ok || len(kf.Body) != 2 {
		return nil, false
	}
	klo, K, ok := cp.knownRange(kf, t)
	if !ok || klo != 1 || K < 1 {
		return nil, false
	}
	jf, ok1 := kf.Body[0].(*ir.For)
	setG, ok2 := kf.Body[1].(*ir.Assign)
	if !ok1 || !ok2 || len(jf.Body) == 0 {
		return nil, false
	}
	jlo, jhi, ok := cp.knownRange(jf, t)
	if !ok || jlo != 1 || jhi != K {
		return nil, false
	}
	setAcc, ok := jf.Body[len(jf.Body)-1].(*ir.Assign)
	if !ok {
		return nil, false
	}
	f := &fwdLoop{t: t, k: kf.Var, j: jf.Var, lo: lo, hi: hi, K: K, gamma: setG.Local, acc: setAcc.Local, pre: jf.Body[:len(jf.Body)-1]}
	// gamma[t, k] = log_sum_exp(acc)
	g, acc := f.gamma, f.acc
	if g.Type.Kind != ir.Matrix || g.Type.Cols != K || lo < 2 || hi > g.Type.Rows || !cp.outerLocal(g) ||
		len(setG.Idx) != 2 || !IsRefTo(setG.Idx[0], t) || !IsRefTo(setG.Idx[1], f.k) {
		return nil, false
	}
	lse, ok := setG.X.(*ir.Call)
	if !ok || lse.Def == nil || lse.Def != ir.FnLogSumExp || len(lse.Args) != 1 || !IsRefTo(lse.Args[0], acc) {
		return nil, false
	}
	// acc[j] = gamma[t - 1, j] + the terms of W
	if acc == g || acc.Type.Kind != ir.Vector || acc.Type.Rows != K || !cp.outerLocal(acc) ||
		len(setAcc.Idx) != 1 || !IsRefTo(setAcc.Idx[0], f.j) {
		return nil, false
	}
	found := false
	for _, a := range addends(setAcc.X) {
		if ix, ok := a.(*ir.Index); ok && !found && IsRefTo(ix.X, g) && len(ix.Idx) == 2 && IsRefTo(ix.Idx[1], f.j) {
			if c, ok := cp.loopOffset(ix.Idx[0], t); ok && c == -1 {
				found = true
				continue
			}
		}
		if refersTo(a, g) || refersTo(a, acc) {
			return nil, false
		}
		f.terms = append(f.terms, a)
	}
	// the terms that depend neither on j nor on the j body's scalars are
	// the same for every j: log_sum_exp_j(x_j + e) = log_sum_exp_j(x_j) + e
	pl := preLocals(f.pre, nil)
	var jt []ir.Expr
	for _, a := range f.terms {
		dep := refersTo(a, f.j)
		for _, l := range pl {
			dep = dep || refersTo(a, l)
		}
		if dep {
			jt = append(jt, a)
		} else {
			f.eterms = append(f.eterms, a)
		}
	}
	f.terms = jt
	if !found {
		return nil, false
	}
	for _, st := range f.pre {
		if stmtRefersTo(st, g) || stmtRefersTo(st, acc) {
			return nil, false
		}
	}
	// every W[., j, k] compiles over the range
	cp.vecAsg = vecAssigned{}
	defer func() { cp.vecAsg = nil }()
	sk, sj := cp.ints[f.k.ID], cp.ints[f.j.ID]
	defer func() { cp.ints[f.k.ID], cp.ints[f.j.ID] = sk, sj }()
	for k := 1; k <= K; k++ {
		cp.ints[f.k.ID] = k
		for j := 1; j <= K; j++ {
			cp.ints[f.j.ID] = j
			clear(cp.vecAsg)
			if !cp.fwdPreOK(f.pre, t, lo, hi) {
				return nil, false
			}
			for _, a := range append(f.terms, f.eterms...) {
				if ok, _ := cp.vecExprOK(a, t, lo, hi); !ok {
					return nil, false
				}
			}
		}
	}
	return f, true
}

// fwdPreOK checks the statements of the j body before acc[j] = ...:
// scalars of the body, declared and assigned, and ifs on conditions known
// before inference that do not read t (the branch taken is checked).
func (cp *compiler) fwdPreOK(body []ir.Stmt, t *ir.Var, lo, hi int) bool {
	for _, st := range body {
		switch st := st.(type) {
		case *ir.LocalDecl:
			if !st.Local.Type.Scalar() {
				return false
			}
			cp.vecAsg[st.Local] = vecScalarFixed
			if st.Init != nil {
				ok, d := cp.vecExprOK(st.Init, t, lo, hi)
				if !ok {
					return false
				}
				if d {
					cp.vecAsg[st.Local] = vecScalar
				}
			}
		case *ir.Assign:
			a := cp.vecAsg[st.Local]
			if len(st.Idx) != 0 || !st.Local.Type.Scalar() || (a != vecScalar && a != vecScalarFixed && st.Local.Pos != st.Pos()) {
				return false
			}
			ok, d := cp.vecExprOK(st.X, t, lo, hi)
			if !ok {
				return false
			}
			cp.vecAsg[st.Local] = vecScalarFixed
			if d {
				cp.vecAsg[st.Local] = vecScalar
			}
		case *ir.If:
			if refersTo(st.Cond, t) || !cp.knownAtCompile(st.Cond) {
				return false
			}
			branch := st.Else
			if cp.constExpr(st.Cond) != 0 {
				branch = st.Then
			}
			if !cp.fwdPreOK(branch, t, lo, hi) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// compileForward compiles a matched forward loop: W for each (j, k) over
// the range, the hmm_forward node, and gamma's rows lo..hi and acc's last
// values as its elements.
func (cp *compiler) compileForward(f *fwdLoop) {
	g, K, n := cp.g, f.K, f.hi-f.lo+1
	// the row before the first, assigned before the loop
	prev := make([]autodiff.Node, K)
	for j := range prev {
		prev[j] = cp.localElem(f.gamma, []int{f.lo - 1, j + 1}, f.gamma.Pos)
	}
	init := g.Stack(prev...)
	ws := make([]autodiff.Node, K*K) // W[j, k]
	es := make([]autodiff.Node, K)   // E[k]
	var deps []int
	sum := func(terms []ir.Expr) autodiff.Node {
		w := autodiff.Node(-1)
		for _, a := range terms {
			x := cp.expr(a)
			if w < 0 {
				w = x
			} else {
				w = g.Add(w, x)
			}
			deps = cp.depsOf(a, deps)
		}
		if w < 0 {
			w = cp.num(0)
		}
		return w
	}
	cp.vec = &vecLoop{v: f.t, lo: f.lo, hi: f.hi}
	sk, sj := cp.ints[f.k.ID], cp.ints[f.j.ID]
	for k := 1; k <= K; k++ {
		cp.ints[f.k.ID] = k
		for j := 1; j <= K; j++ {
			cp.ints[f.j.ID] = j
			cp.block(f.pre)
			ws[(j-1)*K+k-1] = sum(f.terms)
		}
		es[k-1] = sum(f.eterms)
	}
	cp.ints[f.k.ID], cp.ints[f.j.ID] = sk, sj
	cp.vec = nil
	ins := append(append([]autodiff.Node{init}, ws...), es...)
	out := g.Custom(stdlib.NewHMMForward(K, n), n*K, ins...)
	el := cp.elems[f.gamma.ID]
	if el == nil {
		el = cp.splitLocal(f.gamma)
	}
	cp.env[f.gamma.ID] = -1
	for i := 0; i < n*K; i++ {
		el[(f.lo-1)*K+i] = cp.lazyIndex(out, i)
	}
	cp.localDeps[f.gamma.ID] = ir.MergeDeps(cp.localDeps[f.gamma.ID], deps)
	// acc as the last iteration (t = hi, k = K) left it
	ael := cp.elems[f.acc.ID]
	if ael == nil {
		ael = cp.splitLocal(f.acc)
	}
	cp.env[f.acc.ID] = -1
	last := func(x autodiff.Node) autodiff.Node {
		if g.Len(x) > 1 {
			return g.Index(x, n-1)
		}
		return x
	}
	for j := 1; j <= K; j++ {
		ael[j-1] = g.Add(g.Add(cp.elemNode(el[(f.hi-2)*K+j-1]), last(ws[(j-1)*K+K-1])), last(es[K-1]))
	}
	cp.localDeps[f.acc.ID] = ir.MergeDeps(cp.localDeps[f.acc.ID], cp.localDeps[f.gamma.ID])
}

// splitLocal makes the elements of a local assigned whole (or not at
// all: every element unassigned) so that they can be assigned one by
// one.
func (cp *compiler) splitLocal(v *ir.Var) []autodiff.Node {
	el := make([]autodiff.Node, v.Type.Len())
	cur := cp.env[v.ID]
	for i := range el {
		el[i] = -1
		if cur >= 0 {
			el[i] = cp.g.Index(cur, i)
		}
	}
	cp.elems[v.ID] = el
	return el
}

// preLocals adds to dst the locals the statements declare or assign.
func preLocals(body []ir.Stmt, dst []*ir.Var) []*ir.Var {
	for _, st := range body {
		switch st := st.(type) {
		case *ir.LocalDecl:
			dst = append(dst, st.Local)
		case *ir.Assign:
			dst = append(dst, st.Local)
		case *ir.If:
			dst = preLocals(st.Else, preLocals(st.Then, dst))
		}
	}
	return dst
}

// addends are the terms of a sum a + b + ... (scalar additions only).
func addends(e ir.Expr) []ir.Expr {
	if b, ok := e.(*ir.Binary); ok && b.Op == ir.OpAdd && !b.MatVec && b.T.Scalar() {
		return append(addends(b.X), addends(b.Y)...)
	}
	return []ir.Expr{e}
}

// stmtRefersTo reports whether a statement (of a loop body) reads or
// assigns v.
func stmtRefersTo(s ir.Stmt, v *ir.Var) bool {
	switch s := s.(type) {
	case *ir.LocalDecl:
		return s.Local == v || s.Init != nil && refersTo(s.Init, v)
	case *ir.Assign:
		if s.Local == v || refersTo(s.X, v) {
			return true
		}
		for _, i := range s.Idx {
			if refersTo(i, v) {
				return true
			}
		}
	case *ir.If:
		if refersTo(s.Cond, v) {
			return true
		}
		for _, b := range [][]ir.Stmt{s.Then, s.Else} {
			for _, x := range b {
				if stmtRefersTo(x, v) {
					return true
				}
			}
		}
	}
	return false
}
