package ir

import (
	"fmt"
	"math"

	"github.com/mscppl/mscppl/lang"
)

// Check is the constraint of a quantity of the transformed block (Stan's
// transformed parameters), checked on each evaluation of the log joint by
// the reject statement that follows the block's statements
// (Message.Check): its parts are the quantity's value and then its
// bounds, lower first, those given, each a scalar or of the value's
// shape. As in Stan, the bounds are inclusive (check_greater_or_equal),
// a simplex's elements are non-negative and sum to 1 within 1e-8, an
// ordered vector increases strictly (a positive_ordered one from 0 or
// more), and a Cholesky factor of a correlation matrix is lower
// triangular with a positive diagonal and rows of length 1 within 1e-8;
// NaN violates every constraint.
type Check struct {
	Name         string
	Type         Type
	Lower, Upper bool
	// Vec is the vector constraint (BaseSimplex, ...), or BaseReal for none
	Vec lang.BaseType
	// Text is the constraint as written: <lower=0>, simplex, ...
	Text string
}

// CheckTolerance is Stan's CONSTRAINT_TOLERANCE: how far a simplex's sum
// and a correlation factor's row lengths may be from 1.
const CheckTolerance = 1e-8

// Rejects reports whether a reject statement rejects, given the values of
// its expression parts: always for reject(...), when the constraint is
// violated for a check. It allocates nothing.
func (s *Message) Rejects(vals [][]float64) bool {
	if s.Check == nil {
		return true
	}
	_, _, what := s.Check.violation(vals)
	return what != okay
}

// Reason is the message of a reject statement that rejects, given the
// values of its expression parts.
func (s *Message) Reason(vals [][]float64) string {
	if s.Check == nil {
		return s.Text(vals)
	}
	return s.Check.Reason(vals)
}

// what a check found
const (
	okay = iota
	belowLower
	aboveUpper
	negative    // an element of a simplex (or the first of a positive_ordered vector) below 0
	badSum      // a simplex's sum
	notAbove    // an element of an ordered vector not above the one before
	notLower    // an element of a Cholesky factor above the diagonal that is not 0
	badDiagonal // a diagonal element of a Cholesky factor not positive
	notUnitRow  // a row of a Cholesky factor not of length 1
	notFinite   // NaN in a vector constraint's value
)

// violation is the first element (0-based, row-major) of the value that
// violates the constraint, the bound or sum it is compared with, and what
// the violation is (okay for none).
func (c *Check) violation(vals [][]float64) (int, float64, int) {
	x, k := vals[0], 1
	at := func(b []float64, i int) float64 { // a scalar bound, or element i
		if len(b) > 1 {
			return b[i]
		}
		return b[0]
	}
	if c.Lower {
		for i, xi := range x {
			if b := at(vals[k], i); !(xi >= b) {
				return i, b, belowLower
			}
		}
		k++
	}
	if c.Upper {
		for i, xi := range x {
			if b := at(vals[k], i); !(xi <= b) {
				return i, b, aboveUpper
			}
		}
	}
	rows, cols := 1, len(x) // a vector, or the rows of an array of vectors
	if c.Type.Kind == Matrix {
		rows, cols = c.Type.Rows, c.Type.Cols
	}
	for r := range rows {
		if i, b, what := c.vecViolation(x[r*cols:(r+1)*cols], r); what != okay {
			return r*cols + i, b, what
		}
	}
	return 0, 0, okay
}

// vecViolation checks one vector (row r of a Cholesky factor's matrix)
// against the vector constraint.
func (c *Check) vecViolation(x []float64, r int) (int, float64, int) {
	for i, xi := range x {
		if math.IsNaN(xi) && c.Vec.Vector() {
			return i, 0, notFinite
		}
	}
	switch c.Vec {
	case lang.BaseSimplex:
		sum := 0.0
		for i, xi := range x {
			if xi < 0 {
				return i, 0, negative
			}
			sum += xi
		}
		if !(math.Abs(sum-1) <= CheckTolerance) {
			return 0, sum, badSum
		}
	case lang.BaseOrdered, lang.BasePositiveOrdered:
		if c.Vec == lang.BasePositiveOrdered && len(x) > 0 && x[0] < 0 {
			return 0, 0, negative
		}
		for i := 1; i < len(x); i++ {
			if !(x[i] > x[i-1]) {
				return i, x[i-1], notAbove
			}
		}
	case lang.BaseCholeskyFactorCorr:
		sum := 0.0
		for j, xj := range x {
			switch {
			case j > r && xj != 0:
				return j, 0, notLower
			case j == r && !(xj > 0):
				return j, 0, badDiagonal
			}
			sum += xj * xj
		}
		if !(math.Abs(sum-1) <= CheckTolerance) {
			return 0, math.Sqrt(sum), notUnitRow
		}
	}
	return 0, 0, okay
}

// Reason words the first violation of the constraint by the values vals
// of the check's parts ("" when there is none).
func (c *Check) Reason(vals [][]float64) string {
	i, b, what := c.violation(vals)
	x := vals[0]
	row := c.Name // the vector of a vector constraint: x, or x[r] of an array
	cols := len(x)
	if c.Type.Kind == Matrix {
		cols = c.Type.Cols
		if c.Type.Array > 0 {
			row = fmt.Sprintf("%s[%d]", c.Name, i/cols+1)
		}
	}
	kind := c.Vec.String() + map[lang.BaseType]string{lang.BaseOrdered: " vector", lang.BasePositiveOrdered: " vector",
		lang.BaseCholeskyFactorCorr: " matrix"}[c.Vec]
	switch what {
	case belowLower:
		return fmt.Sprintf("%s is %s, below its lower bound %s", c.elem(i), formatNum(x[i]), formatNum(b))
	case aboveUpper:
		return fmt.Sprintf("%s is %s, above its upper bound %s", c.elem(i), formatNum(x[i]), formatNum(b))
	case notFinite:
		return fmt.Sprintf("%s is nan: %s is not a valid %s", c.elem(i), row, kind)
	case negative:
		return fmt.Sprintf("%s is %s, negative: %s is not a valid %s", c.elem(i), formatNum(x[i]), row, kind)
	case badSum:
		return fmt.Sprintf("the elements of %s sum to %s, not 1 (within %g): %s is not a valid simplex", row, formatNum(b), CheckTolerance, row)
	case notAbove:
		return fmt.Sprintf("%s is %s, not above the element before it, %s: %s is not a valid %s", c.elem(i), formatNum(x[i]), formatNum(b), row, kind)
	case notLower:
		return fmt.Sprintf("%s is %s, above the diagonal: %s is not a valid %s (lower triangular)", c.elem(i), formatNum(x[i]), c.Name, kind)
	case badDiagonal:
		return fmt.Sprintf("%s is %s, on the diagonal: %s is not a valid %s (positive diagonal)", c.elem(i), formatNum(x[i]), c.Name, kind)
	case notUnitRow:
		return fmt.Sprintf("row %d of %s has length %s, not 1 (within %g): %s is not a valid %s", i/cols+1, c.Name, formatNum(b), CheckTolerance, c.Name, kind)
	}
	return ""
}

// elem names element i (row-major) of the checked value as written: x,
// x[i] or x[i, j].
func (c *Check) elem(i int) string {
	switch {
	case c.Type.Scalar():
		return c.Name
	case c.Type.Kind == Matrix:
		return fmt.Sprintf("%s[%d, %d]", c.Name, i/c.Type.Cols+1, i%c.Type.Cols+1)
	}
	return fmt.Sprintf("%s[%d]", c.Name, i+1)
}
