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
	case lang.BaseVector:
		return t.Kind == Vector
	case lang.BaseMatrix:
		return t.Kind == Matrix
	}
	return false
}
