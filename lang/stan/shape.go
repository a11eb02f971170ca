package stan

import "github.com/alecthomas/participle/v2/lexer"

// shape is what the lowering knows of a Stan expression's type: enough
// to tell a row of a matrix (Stan's row_vector, a column vector in the
// IR) from the rest. The zero shape is unknown.
type shape struct {
	base   string // int, real, vector, row_vector, matrix, or "" (unknown)
	arr    int    // array dimensions
	rowish bool   // a row_vector in Stan
	// mrow: a row_vector in the language too (a declared row_vector, a
	// row of a matrix, a slice of one), whose transpose is then written
	// as in Stan; the other Stan rows are vectors of the language (v' of
	// a vector is v, rep_row_vector is rep_vector) or of either
	// orientation (2 * r), whose transpose the lowering writes to_vector
	mrow bool
}

// scalar reports whether the shape is known to be an int or a real.
func (s shape) scalar() bool { return s.arr == 0 && (s.base == "int" || s.base == "real") }

// nonScalar reports whether the shape is known not to be a scalar.
func (s shape) nonScalar() bool { return s.base != "" && !s.scalar() }

// index is the shape of s indexed by slots, each a single index (true) or
// a range or multi-index (false).
func (s shape) index(single []bool) shape {
	if s.base == "" {
		return shape{}
	}
	out := shape{base: s.base, arr: s.arr}
	k := min(len(single), s.arr)
	for _, one := range single[:k] {
		if one {
			out.arr--
		}
	}
	rest := single[k:]
	if len(rest) == 0 {
		out.rowish = out.base == "row_vector" && out.arr == 0 // an element of an array of row_vectors
		return out
	}
	switch {
	case (s.base == "vector" || s.base == "row_vector") && len(rest) == 1:
		if rest[0] {
			out.base = "real"
		}
	case s.base == "matrix" && len(rest) == 1:
		if rest[0] {
			out.base, out.rowish = "row_vector", out.arr == 0
		}
	case s.base == "matrix" && len(rest) == 2:
		switch {
		case rest[0] && rest[1]:
			out.base = "real"
		case rest[0]:
			out.base, out.rowish = "row_vector", out.arr == 0
		case rest[1]:
			out.base = "vector"
		}
	default:
		return shape{}
	}
	out.rowish = out.base == "row_vector" && out.arr == 0
	out.mrow = out.rowish && (s.base == "matrix" || s.mrow)
	return out
}

// lookup returns the declared shape of a name (unknown if undeclared).
func (l *lowerer) lookup(name string) shape {
	for i := len(l.scopes) - 1; i >= 0; i-- {
		if s, ok := l.scopes[i][name]; ok {
			return s
		}
	}
	return shape{}
}

// declared reports whether a name is a variable in scope.
func (l *lowerer) declared(name string) bool {
	for i := len(l.scopes) - 1; i >= 0; i-- {
		if _, ok := l.scopes[i][name]; ok {
			return true
		}
	}
	return false
}

// declare records a name's shape in the innermost scope.
func (l *lowerer) declare(name string, s shape) { l.scopes[len(l.scopes)-1][name] = s }

func (l *lowerer) push() { l.scopes = append(l.scopes, map[string]shape{}) }
func (l *lowerer) pop()  { l.scopes = l.scopes[:len(l.scopes)-1] }

// result is the shape of a call's result: a user function's declared
// result, else unknown.
func (l *lowerer) result(name string) shape {
	if s, ok := l.funcs[name]; ok {
		return s
	}
	return shape{}
}

// rowRefuse refuses a Stan row_vector where the lowering cannot give it
// Stan's meaning.
func (l *lowerer) rowRefuse(p lexer.Position, where string) {
	e := l.refuse(p, "a row_vector cannot be used %s", where)
	e.Hint = "transpose it (r', m[i]') to use it as a vector"
}
