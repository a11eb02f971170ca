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

// ArrayLit is the function of an array literal {a, b, c}: a constant
// when every element is known when the model is compiled (so that
// x[{1, 3}] indexes as an int array does), else their concatenation.
var ArrayLit = &Function{Name: "{...}"}

// ArrayCol is a[:, k] with k known when the model is compiled (the
// compiler lowers it itself: lowerArrayCol).
var ArrayCol = &Function{Name: "column"}

// arrayRowsType is the type of a[g] for an array a of vectors or a 2-D
// array, with an int array g of n elements: n rows.
func ArrayRowsType(t Type, n int) Type {
	rt := MatType(n, t.Cols)
	rt.Array, rt.IntElems = t.Array, t.IntElems
	return rt
}

// arraySliced gives a slice of an array its array dimensions: a range of
// elements is an array, part of one vector element a vector.
func ArraySliced(x Expr, t Type) {
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
func ParamType(arrayDims int, base lang.BaseType) string {
	if arrayDims == 0 {
		return base.String()
	}
	return fmt.Sprintf("array[%s] %s", strings.Repeat(",", arrayDims-1), base)
}

// paramAccepts reports whether a value of type t may stand for a
// function parameter or result declared as base with arrayDims array
// dimensions (array[] real takes a 1-D real or int array, array[,] real a
// 2-D array, array[] vector an array of vectors).
func ParamAccepts(arrayDims int, base lang.BaseType, t Type) bool {
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

func checkDims(k *Site) Expr {
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
	rt := IntArrayType(len(dims))
	rt.Array = 1
	return &Builtin{ExprBase: ExprBase{k.Pos, rt}, Name: k.Name, Def: k.Def,
		Args: []Expr{&Num{ExprBase: ExprBase{k.Pos, TInt}, V: dims[0]}, &Num{ExprBase: ExprBase{k.Pos, TInt}, V: dims[len(dims)-1]}}[:len(dims)]}
}

func checkToArray1D(k *Site) Expr {
	t := k.t(0)
	if t.Scalar() {
		return k.bad("an array, a vector or a matrix")
	}
	rt := VecType(t.Len())
	rt.Array, rt.IntElems = 1, t.IntElems
	return k.builtin(rt)
}

func checkToMatrix(k *Site) Expr {
	t := k.t(0)
	if t.Kind != Matrix {
		return k.bad("a 2-D array, an array of vectors or a matrix")
	}
	return k.builtin(MatType(t.Rows, t.Cols))
}

func checkRepArray(k *Site) Expr {
	sizes := make([]int, len(k.Args)-1)
	for i, a := range k.Args[1:] {
		n, ok := FoldConst(a)
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
	t := VecType(sizes[0])
	if len(sizes) == 2 {
		t = MatType(sizes[0], sizes[1])
	}
	t.Array, t.IntElems = len(sizes), k.t(0).Kind == Int
	return matCall(k, t, stdlib.NewRepVector(t.Len()), k.Args[0])
}
