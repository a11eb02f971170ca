package ir

import (
	"github.com/mscppl/mscppl/lang"
)

// baseAccepts reports whether a value of type t may stand for a parameter
// or result declared with base type base.
func baseAccepts(base lang.BaseType, t Type) bool {
	switch base {
	case lang.BaseInt:
		return t.Kind == Int
	case lang.BaseReal:
		return t.Scalar()
	case lang.BaseVector, lang.BaseRowVector:
		// a row_vector stands for a vector parameter, and a vector for a
		// row_vector one: the parameter has its declared orientation
		// (ParamOriented)
		return t.Kind == Vector
	case lang.BaseMatrix:
		return t.Kind == Matrix
	}
	return false
}

// ParamOriented is t, the type of a value passed for a parameter or
// returned as a result declared with base and no array dimensions, with
// the declared orientation: a row_vector for a row_vector, a column
// vector for a vector.
func ParamOriented(arrayDims int, base lang.BaseType, t Type) Type {
	if arrayDims == 0 && t.Kind == Vector && (base == lang.BaseVector || base == lang.BaseRowVector) {
		t.Row = base == lang.BaseRowVector
	}
	return t
}
