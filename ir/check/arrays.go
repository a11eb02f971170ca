package check

import (
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// arrayRep is the type of an array type's representation (array[N]
// real<lower=0> is vector<lower=0>[N], array[N] vector[K] is
// matrix[N, K], array[N] simplex[K] stays simplex[K] and is stacked by
// the caller) and the number of array dimensions of the result.
func (r *resolver) arrayRep(t *lang.Type) (*lang.Type, int, bool) {
	tp := r.at(t.Pos)
	if len(t.Array) == 0 {
		r.errorf(tp, "a declaration gives the array's sizes, as in array[N] real (array[] real is for function parameters)")
		return nil, 0, false
	}
	rep := *t
	rep.IsArray, rep.Array, rep.Unsized = false, nil, nil
	na, nd := len(t.Array), len(t.Dims)
	_, vec := stdlib.LookupVecBijection(t.Base.String())
	switch {
	case t.Base == lang.BaseReal && nd == 0 && na == 1:
		rep.Base, rep.Dims = lang.BaseVector, t.Array
	case t.Base == lang.BaseInt && nd == 0 && na == 1:
		rep.Dims = t.Array
	case t.Base == lang.BaseReal && nd == 0 && na == 2:
		rep.Base, rep.Dims = lang.BaseMatrix, t.Array
		return &rep, 2, true
	case t.Base == lang.BaseVector && nd == 1 && na == 1:
		rep.Base, rep.Dims = lang.BaseMatrix, []*lang.Expr{t.Array[0], t.Dims[0]}
	case vec && t.Base != lang.BaseCholeskyFactorCorr && nd == 1 && na == 1:
	default:
		r.errorf(tp, "%s is not supported yet: arrays hold reals or ints (one or two sizes) or vectors, simplexes, ordered or positive_ordered vectors (one size)", t)
		return nil, 0, false
	}
	return &rep, 1, true
}

// arrayDecl resolves a data, param or latent declaration of an array type.
func (r *resolver) arrayDecl(d *lang.Decl, kind ir.VarKind) {
	rep, n, ok := r.arrayRep(d.Type)
	if !ok {
		return
	}
	first := len(r.m.Vars)
	dd := *d
	dd.Type = rep
	r.arrayType = d.Type
	defer func() { r.arrayType = nil }()
	if mk, ok := stdlib.LookupVecBijection(rep.Base.String()); ok {
		r.vecArrayLatent(&dd, kind, mk, d.Type.Array[0])
	} else {
		r.decl(&dd, kind)
	}
	if v := r.global[d.Name]; v != nil && v.ID >= first {
		v.Type.Array = n
	}
}

// arrayLocal resolves a local declaration of an array type.
func (r *resolver) arrayLocal(d *lang.Decl) ir.Stmt {
	rep, n, ok := r.arrayRep(d.Type)
	if !ok {
		return nil
	}
	if _, vec := stdlib.LookupVecBijection(rep.Base.String()); vec {
		r.errorf(r.at(d.Type.Pos), "%s is a type for latents; declare a local array of vectors (array[N] vector[K])", d.Type)
		return nil
	}
	dd := *d
	dd.Type = rep
	st := r.localDecl(&dd)
	if ld, ok := st.(*ir.LocalDecl); ok {
		ld.Local.Type.Array = n
	}
	return st
}

// vecArrayLatent declares array[N] simplex[K] (or ordered, ...): an
// N x K matrix whose rows are constrained by the transform, stacked.
func (r *resolver) vecArrayLatent(d *lang.Decl, kind ir.VarKind, mk func(K int) stdlib.VecBijection, size *lang.Expr) {
	n, ok := r.sizeExpr(size)
	if !ok {
		return
	}
	first := len(r.m.Vars)
	r.vecLatent(d, kind, mk)
	v := r.global[d.Name]
	if v == nil || v.ID < first {
		return
	}
	k, ud := v.Type.Rows, v.VecBij.UDim() // one row's
	v.VecBij = stdlib.StackVec(v.VecBij, n)
	v.Type = ir.MatType(n, k)
	r.m.LatentDim += (n - 1) * ud // n = 0 (as in Stan): no rows at all
	r.m.XDim += (n - 1) * k
}

// arrayLiteral resolves {a, b, c}: an array of scalars (of ints when all
// are ints) or of vectors or 1-D arrays of one length (the rows of a
// matrix).
func (r *resolver) arrayLiteral(pos lang.Pos, elems []*lang.Expr) ir.Expr {
	args := make([]ir.Expr, len(elems))
	for i, e := range elems {
		if args[i] = r.expr(e); args[i] == nil {
			return nil
		}
	}
	t0 := args[0].Type()
	ints := true
	for _, a := range args {
		at := a.Type()
		ok := at.Scalar() && t0.Scalar() || at.Kind == ir.Vector && t0.Kind == ir.Vector && at.Rows == t0.Rows && at.Array == t0.Array
		if !ok {
			r.errorf(a.Pos(), "the elements of an array are all scalars or all vectors of one length: %s beside %s", at, t0)
			return nil
		}
		ints = ints && (at.Kind == ir.Int || at.IntElems)
	}
	t := ir.Type{Kind: ir.Vector, Rows: len(args), Array: 1, IntElems: ints}
	if t0.Kind == ir.Vector {
		t = ir.Type{Kind: ir.Matrix, Rows: len(args), Cols: t0.Rows, Array: 1 + t0.Array, IntElems: ints}
	}
	return &ir.Builtin{ExprBase: ir.ExprBase{P: pos, T: t}, Name: "{...}", Def: ir.ArrayLit, Args: args}
}

// arrayColumn resolves a[:, k] of a 2-D array (or of an array of
// vectors): column k as a 1-D array, where k may be a loop variable or
// any int known when the model is compiled. ok is false when ix is not
// of that form.
func (r *resolver) arrayColumn(x ir.Expr, ix *lang.Index) (ir.Expr, bool) {
	t := x.Type()
	if t.Kind != ir.Matrix || t.Array == 0 || len(ix.Slots) != 2 {
		return nil, false
	}
	all, col := ix.Slots[0], ix.Slots[1]
	if !all.Colon || all.Lo != nil || all.Hi != nil || col.Colon || col.Lo == nil {
		return nil, false
	}
	k := r.expr(col.Lo)
	if k == nil {
		return nil, true
	}
	if k.Type().Kind != ir.Int {
		r.errorf(k.Pos(), "an index must be an integer, got %s", k.Type())
		return nil, true
	}
	rt := ir.VecType(t.Rows)
	rt.Array = 1
	if v, ok := ir.FoldConst(k); ok {
		if v < 1 || v > float64(t.Cols) {
			r.errorf(k.Pos(), "index %g is out of range: %s has %d columns (indices start at 1)", v, ir.FormatExpr(x), t.Cols)
			return nil, true
		}
		return &ir.Slice{ExprBase: ir.ExprBase{P: x.Pos(), T: rt}, X: x, Lo: [2]int{1, int(v)}, Hi: [2]int{t.Rows, int(v)}, Keep: [2]bool{true, false}}, true
	}
	return &ir.Builtin{ExprBase: ir.ExprBase{P: x.Pos(), T: rt}, Name: "column", Def: ir.ArrayCol, Args: []ir.Expr{x, k}}, true
}
