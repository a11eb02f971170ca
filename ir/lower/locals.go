package lower

import (
	"math"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// density returns the vectorised log density of a family (one per family).
func (cp *compiler) density(f *stdlib.Family) *stdlib.SumLogDensity {
	op := cp.ops[f]
	if op == nil {
		op = stdlib.NewSumLogDensity(f)
		cp.ops[f] = op
	}
	return op
}

// localDecl starts a local: with its initial value, or with its elements
// unassigned. Inside a loop it starts afresh at every iteration.
func (cp *compiler) localDecl(s *ir.LocalDecl) {
	v := s.Local
	cp.env[v.ID], cp.elems[v.ID], cp.localDeps[v.ID] = -1, nil, nil
	if s.Init != nil {
		cp.env[v.ID] = cp.broadcast(cp.expr(s.Init), v.Type)
		cp.localDeps[v.ID] = cp.depsOf(s.Init, nil)
		return
	}
	if !v.Type.Scalar() {
		if n := v.Type.Len(); n > maxElements {
			cp.fail(s.Pos(), "local %s (%s) has %.4g elements, more than the limit of %d (2 GiB of float64) on one value; reduce the sizes", v.Name, v.Type, float64(v.Type.Rows)*float64(max(1, v.Type.Cols)), maxElements)
		}
		el := make([]autodiff.Node, v.Type.Len())
		for i := range el {
			el[i] = -1
		}
		cp.elems[v.ID] = el
	}
}

// broadcast repeats a scalar node into a value of type t.
func (cp *compiler) broadcast(n autodiff.Node, t ir.Type) autodiff.Node {
	if t.Scalar() || cp.g.Len(n) == t.Len() {
		return n
	}
	el := make([]autodiff.Node, t.Len())
	for i := range el {
		el[i] = n
	}
	return cp.g.Stack(el...)
}

// assign sets a local, or elements of one.
func (cp *compiler) assign(s *ir.Assign) {
	v := s.Local
	deps := cp.depsOf(s.X, nil)
	if s.Idx == nil {
		cp.env[v.ID], cp.elems[v.ID] = cp.expr(s.X), nil
		cp.localDeps[v.ID] = deps
		return
	}
	el := cp.elems[v.ID]
	if el == nil { // split the current value into its elements
		el = make([]autodiff.Node, v.Type.Len())
		cur := cp.env[v.ID]
		for i := range el {
			el[i] = -1
			if cur >= 0 {
				el[i] = cp.g.Index(cur, i)
			}
		}
		cp.elems[v.ID] = el
	}
	cp.env[v.ID] = -1 // stacked again when the whole value is used
	x := cp.expr(s.X)
	idx := make([]int, len(s.Idx))
	for i, ie := range s.Idx {
		idx[i] = cp.intExpr(ie)
	}
	t := v.Type
	cp.checkIndex(v, idx, s.Pos())
	switch {
	case t.Kind == ir.Vector:
		el[idx[0]-1] = x
	case len(idx) == 2:
		el[(idx[0]-1)*t.Cols+idx[1]-1] = x
	default: // a matrix row
		for j := 0; j < t.Cols; j++ {
			el[(idx[0]-1)*t.Cols+j] = cp.lazyIndex(x, j)
		}
	}
	cp.localDeps[v.ID] = ir.MergeDeps(cp.localDeps[v.ID], deps)
}

func (cp *compiler) checkIndex(v *ir.Var, idx []int, p lang.Pos) {
	for i, k := range idx {
		size := v.Type.Rows
		if i == 1 {
			size = v.Type.Cols
		}
		if k < 1 || k > size {
			cp.fail(p, "index %d is out of range: %s has %d %s (indices start at 1)", k, v.Name, size, ir.Plural(v.Type, i))
		}
	}
}

// localElem reads an element of a local filled element by element.
func (cp *compiler) localElem(v *ir.Var, idx []int, p lang.Pos) autodiff.Node {
	cp.checkIndex(v, idx, p)
	k := idx[0] - 1
	if len(idx) == 2 {
		k = (idx[0]-1)*v.Type.Cols + idx[1] - 1
	}
	n := cp.elems[v.ID][k]
	if n == -1 {
		cp.fail(p, "element %s of local %s is used before it is assigned", ir.ComponentName(v, k), v.Name)
	}
	return cp.elemNode(n)
}

// stackLocal makes the whole value of a local filled element by element.
func (cp *compiler) stackLocal(v *ir.Var, p lang.Pos) autodiff.Node {
	el := cp.elems[v.ID]
	for k, n := range el {
		if n == -1 {
			cp.fail(p, "element %s of local %s is used before it is assigned", ir.ComponentName(v, k), v.Name)
		}
	}
	n := cp.stackElems(el, v.Type)
	cp.env[v.ID] = n
	return n
}

// target adds target += x: the sum of x.
func (cp *compiler) target(s *ir.Target) {
	var n autodiff.Node
	var mvn *mvnTerm
	if e, ok := s.X.(*ir.MatCall); ok {
		var args []autodiff.Node
		n, args = cp.matCall(e)
		mvn = cp.mvnOf(e, args)
	} else {
		n = cp.expr(s.X)
	}
	if cp.g.Len(n) > 1 {
		n = cp.g.Sum(n)
	}
	cp.addTerm(Factor{Node: n, Pos: s.Pos(), Text: s.Text, deps: cp.depsOf(s.X, nil), mvn: mvn})
}

// piecewise compiles an if whose condition c depends on latents or params:
// both branches are compiled; the terms each adds count only where its
// branch is taken, and a local either branch changed takes the value of
// the branch taken (Select routes the gradient to that branch: the log
// density is differentiated piecewise).
func (cp *compiler) piecewise(s *ir.If, c autodiff.Node) {
	g := cp.g
	env0 := append([]autodiff.Node(nil), cp.env...)
	elems0 := ir.CopyElems(cp.elems)
	deps0 := append([][]int(nil), cp.localDeps...)
	cdeps := cp.depsOf(s.Cond, nil)
	branch := func(body []ir.Stmt, taken bool) ([]autodiff.Node, [][]autodiff.Node, [][]int) {
		copy(cp.env, env0)
		cp.elems = ir.CopyElems(elems0)
		copy(cp.localDeps, deps0)
		nf := len(cp.c.Factors)
		cp.conds = append(cp.conds, condition{c, taken, cdeps})
		cp.block(body)
		cp.conds = cp.conds[:len(cp.conds)-1]
		for k := nf; k < len(cp.c.Factors); k++ {
			f := &cp.c.Factors[k]
			if taken {
				f.Node = g.Custom(stdlib.NewSelect(1), 1, c, f.Node, cp.num(0))
			} else {
				f.Node = g.Custom(stdlib.NewSelect(1), 1, c, cp.num(0), f.Node)
			}
			f.deps = ir.MergeDeps(f.deps, cdeps)
			// a conditional density is no plain draw of its row
			f.mvn = nil
			if f.Prior != nil { // a conditional prior cannot be sampled directly
				for _, p := range f.Prior.LhsPos {
					cp.covered[p]--
				}
				f.deps = ir.MergeDeps(f.deps, f.Prior.LhsPos)
			}
			f.Prior, f.Tilde = nil, nil
		}
		return append([]autodiff.Node(nil), cp.env...), ir.CopyElems(cp.elems), append([][]int(nil), cp.localDeps...)
	}
	envT, elT, depT := branch(s.Then, true)
	envE, elE, depE := branch(s.Else, false)
	var nan autodiff.Node = -1
	sel := func(a, b autodiff.Node, unset bool) autodiff.Node {
		a, b = cp.elemNode(a), cp.elemNode(b)
		if unset && cp.inDerived && (a < 0) != (b < 0) {
			// in the derived block, a scalar set in one branch only is NaN
			// where the other is taken, as Stan's generated quantities
			// start (a back-pointer set when a comparison succeeds)
			if nan < 0 {
				nan = g.Const([]float64{math.NaN()})
			}
			if a < 0 {
				a = nan
			} else {
				b = nan
			}
		}
		if a == b || a < 0 || b < 0 {
			if a != b {
				return -1 // set in one branch only: not usable after the if
			}
			return a
		}
		return g.Custom(stdlib.NewSelect(g.Len(a)), g.Len(a), c, a, b)
	}
	for id := range cp.env {
		v := cp.m.Vars[id]
		cp.env[id] = sel(envT[id], envE[id], v.Kind == ir.LocalVar && v.Type.Scalar() && env0[id] < 0)
		switch {
		case elT[id] != nil && elE[id] != nil:
			el := make([]autodiff.Node, len(elT[id]))
			for k := range el {
				el[k] = sel(elT[id][k], elE[id][k], true)
			}
			cp.elems[id] = el
		default:
			cp.elems[id] = nil
		}
		if depT[id] != nil || depE[id] != nil {
			cp.localDeps[id] = ir.MergeDeps(ir.MergeDeps(append([]int(nil), depT[id]...), depE[id]), cdeps)
		}
	}
}
