package ir

import (
	"fmt"
	"strings"

	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// Stan's arrays. An array shares the flat layout of a vector or matrix,
// so that the operations on those apply to it unchanged; Type.Array
// records that it is an array, for messages and for the type of an
// element:
//
//	array[N] real, array[N] int      a Vector (IntElems for int), Array 1
//	array[N, M] real                 a Matrix, row-major, Array 2
//	array[N] vector[K]               a Matrix whose rows are the vectors, Array 1
//	array[N] simplex[K] (ordered,    the same, constrained row by row by
//	positive_ordered)                stdlib.StackVec (latents)
//
// A declaration of an array type is resolved as the declaration of its
// representation (arrayRep) and its variable then marked.

// arrayString names an array type as Stan writes it.
func arrayString(t Type) string {
	elem := "real"
	if t.IntElems {
		elem = "int"
	}
	switch {
	case t.Kind == Vector:
		return fmt.Sprintf("array[%d] %s", t.Rows, elem)
	case t.Array == 2:
		return fmt.Sprintf("array[%d, %d] %s", t.Rows, t.Cols, elem)
	}
	return fmt.Sprintf("array[%d] vector[%d]", t.Rows, t.Cols)
}

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
func (r *resolver) arrayDecl(d *lang.Decl, kind VarKind) {
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
func (r *resolver) arrayLocal(d *lang.Decl) Stmt {
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
	if ld, ok := st.(*LocalDecl); ok {
		ld.Local.Type.Array = n
	}
	return st
}

// vecArrayLatent declares array[N] simplex[K] (or ordered, ...): an
// N x K matrix whose rows are constrained by the transform, stacked.
func (r *resolver) vecArrayLatent(d *lang.Decl, kind VarKind, mk func(K int) stdlib.VecBijection, size *lang.Expr) {
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
	v.Type = matType(n, k)
	r.m.LatentDim += (n - 1) * ud // n = 0 (as in Stan): no rows at all
	r.m.XDim += (n - 1) * k
}

// arrayLiteral resolves {a, b, c}: an array of scalars (of ints when all
// are ints) or of vectors or 1-D arrays of one length (the rows of a
// matrix).
func (r *resolver) arrayLiteral(pos lang.Pos, elems []*lang.Expr) Expr {
	args := make([]Expr, len(elems))
	for i, e := range elems {
		if args[i] = r.expr(e); args[i] == nil {
			return nil
		}
	}
	t0 := args[0].Type()
	ints := true
	for _, a := range args {
		at := a.Type()
		ok := at.Scalar() && t0.Scalar() || at.Kind == Vector && t0.Kind == Vector && at.Rows == t0.Rows && at.Array == t0.Array
		if !ok {
			r.errorf(a.Pos(), "the elements of an array are all scalars or all vectors of one length: %s beside %s", at, t0)
			return nil
		}
		ints = ints && (at.Kind == Int || at.IntElems)
	}
	t := Type{Kind: Vector, Rows: len(args), Array: 1, IntElems: ints}
	if t0.Kind == Vector {
		t = Type{Kind: Matrix, Rows: len(args), Cols: t0.Rows, Array: 1 + t0.Array, IntElems: ints}
	}
	return &Builtin{ExprBase: ExprBase{pos, t}, Name: "{...}", Def: ArrayLit, Args: args}
}

// ArrayLit is the function of an array literal {a, b, c}: a constant
// when every element is known when the model is compiled (so that
// x[{1, 3}] indexes as an int array does), else their concatenation.
var ArrayLit = &Function{Name: "{...}"}

// arrayColumn resolves a[:, k] of a 2-D array (or of an array of
// vectors): column k as a 1-D array, where k may be a loop variable or
// any int known when the model is compiled. ok is false when ix is not
// of that form.
func (r *resolver) arrayColumn(x Expr, ix *lang.Index) (Expr, bool) {
	t := x.Type()
	if t.Kind != Matrix || t.Array == 0 || len(ix.Slots) != 2 {
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
	if k.Type().Kind != Int {
		r.errorf(k.Pos(), "an index must be an integer, got %s", k.Type())
		return nil, true
	}
	rt := vecType(t.Rows)
	rt.Array = 1
	if v, ok := foldConst(k); ok {
		if v < 1 || v > float64(t.Cols) {
			r.errorf(k.Pos(), "index %g is out of range: %s has %d columns (indices start at 1)", v, FormatExpr(x), t.Cols)
			return nil, true
		}
		return &Slice{ExprBase: ExprBase{x.Pos(), rt}, X: x, Lo: [2]int{1, int(v)}, Hi: [2]int{t.Rows, int(v)}, Keep: [2]bool{true, false}}, true
	}
	return &Builtin{ExprBase: ExprBase{x.Pos(), rt}, Name: "column", Def: ArrayCol, Args: []Expr{x, k}}, true
}

// ArrayCol is a[:, k] with k known when the model is compiled (the
// compiler lowers it itself: lowerArrayCol).
var ArrayCol = &Function{Name: "column"}

// arrayRowsType is the type of a[g] for an array a of vectors or a 2-D
// array, with an int array g of n elements: n rows.
func arrayRowsType(t Type, n int) Type {
	rt := matType(n, t.Cols)
	rt.Array, rt.IntElems = t.Array, t.IntElems
	return rt
}

// arraySliced gives a slice of an array its array dimensions: a range of
// elements is an array, part of one vector element a vector.
func arraySliced(x Expr, t Type) {
	s, ok := x.(*Slice)
	if !ok || t.Array == 0 {
		return
	}
	switch {
	case s.T.Kind == Matrix:
		s.T.Array = t.Array
	case t.Kind == Vector || t.Array == 2 || s.Keep[0]:
		s.T.Array = 1
	}
	s.T.IntElems = t.IntElems
}

// paramType names a function parameter's declared type.
func paramType(arrayDims int, base lang.BaseType) string {
	if arrayDims == 0 {
		return base.String()
	}
	return fmt.Sprintf("array[%s] %s", strings.Repeat(",", arrayDims-1), base)
}

// paramAccepts reports whether a value of type t may stand for a
// function parameter or result declared as base with arrayDims array
// dimensions (array[] real takes a 1-D real or int array, array[,] real a
// 2-D array, array[] vector an array of vectors).
func paramAccepts(arrayDims int, base lang.BaseType, t Type) bool {
	switch arrayDims {
	case 0:
		return baseAccepts(base, t)
	case 1:
		switch base {
		case lang.BaseReal:
			return t.Kind == Vector && t.Array == 1
		case lang.BaseInt:
			return t.Kind == Vector && t.Array == 1 && t.IntElems
		case lang.BaseVector:
			return t.Kind == Matrix && t.Array == 1
		}
	case 2:
		return base == lang.BaseReal && t.Kind == Matrix && t.Array == 2 ||
			base == lang.BaseInt && t.Kind == Matrix && t.Array == 2 && t.IntElems
	}
	return false
}

// ---- the vocabulary's array functions (entries in builtins.go) ---------------

func checkDims(k *site) Expr {
	t := k.t(0)
	var dims []float64
	switch {
	case t.Scalar():
	case t.Kind == Vector:
		dims = []float64{float64(t.Rows)}
	default:
		dims = []float64{float64(t.Rows), float64(t.Cols)}
	}
	if len(dims) == 0 {
		return k.bad("an array, a vector or a matrix")
	}
	rt := intArrayType(len(dims))
	rt.Array = 1
	return &Builtin{ExprBase: ExprBase{k.pos, rt}, Name: k.name, Def: k.def,
		Args: []Expr{&Num{ExprBase: ExprBase{k.pos, TInt}, V: dims[0]}, &Num{ExprBase: ExprBase{k.pos, TInt}, V: dims[len(dims)-1]}}[:len(dims)]}
}

func checkToArray1D(k *site) Expr {
	t := k.t(0)
	if t.Scalar() {
		return k.bad("an array, a vector or a matrix")
	}
	rt := vecType(t.Len())
	rt.Array, rt.IntElems = 1, t.IntElems
	return k.builtin(rt)
}

func checkToMatrix(k *site) Expr {
	t := k.t(0)
	if t.Kind != Matrix {
		return k.bad("a 2-D array, an array of vectors or a matrix")
	}
	return k.builtin(matType(t.Rows, t.Cols))
}

func checkRepArray(k *site) Expr {
	sizes := make([]int, len(k.args)-1)
	for i, a := range k.args[1:] {
		n, ok := foldConst(a)
		if !ok || a.Type().Kind != Int || n < 0 {
			return k.badf("takes a scalar and sizes known before inference (rep_array(x, N) or rep_array(x, N, M))")
		}
		if sizes[i], ok = ExactInt(n); !ok {
			return k.badf("%s", BigIntMsg(a, n))
		}
	}
	if !k.t(0).Scalar() {
		return k.badf("takes a scalar to repeat, got %s", k.t(0))
	}
	t := vecType(sizes[0])
	if len(sizes) == 2 {
		t = matType(sizes[0], sizes[1])
	}
	t.Array, t.IntElems = len(sizes), k.t(0).Kind == Int
	return matCall(k, t, stdlib.NewRepVector(t.Len()), k.args[0])
}
