package ir

import (
	"math"
	"strconv"
)

// ApplyOp is a binary operator on numbers; intDiv makes / and % those of
// integers, as in Stan: the quotient truncated toward zero and the
// remainder with the sign of the dividend. A division of integers by zero
// is NaN here: the callers that know the values refuse it first
// (intDivByZero), and the tape's op counts it (intOp).
func ApplyOp(op BinOp, x, y float64, intDiv bool) float64 {
	switch op {
	case OpAdd:
		return x + y
	case OpSub:
		return x - y
	case OpMul, OpEMul:
		return x * y
	case OpDiv, OpEDiv:
		if intDiv && op == OpDiv {
			return intQuo(x, y)
		}
		return x / y
	case OpMod:
		return intRem(x, y)
	case OpPow:
		return math.Pow(x, y)
	case OpEq:
		return BoolToFloat(x == y)
	case OpNe:
		return BoolToFloat(x != y)
	case OpLt:
		return BoolToFloat(x < y)
	case OpLe:
		return BoolToFloat(x <= y)
	case OpGt:
		return BoolToFloat(x > y)
	case OpGe:
		return BoolToFloat(x >= y)
	case OpAnd:
		return BoolToFloat(x != 0 && y != 0)
	case OpOr:
		return BoolToFloat(x != 0 || y != 0)
	}
	panic("ir: unknown operator")
}

// asInt64 is x as an int64 when it is an integer in int64's range.
func asInt64(x float64) (int64, bool) {
	if x != math.Trunc(x) || x < -(1<<63) || x >= 1<<63 {
		return 0, false
	}
	return int64(x), true
}

// intQuo is x / y for integers, truncated toward zero (Go's, C's and
// Stan's); NaN when y is 0. The quotient is computed in int64, exactly,
// where the operands fit.
func intQuo(x, y float64) float64 {
	if y == 0 {
		return math.NaN()
	}
	a, ok1 := asInt64(x)
	b, ok2 := asInt64(y)
	if ok1 && ok2 && !(a == math.MinInt64 && b == -1) {
		return float64(a / b)
	}
	return math.Trunc(x / y)
}

// intRem is x % y for integers, with the sign of x; NaN when y is 0.
func intRem(x, y float64) float64 {
	if y == 0 {
		return math.NaN()
	}
	a, ok1 := asInt64(x)
	b, ok2 := asInt64(y)
	if ok1 && ok2 {
		return float64(a % b)
	}
	return math.Mod(x, y)
}

// IntDivByZero reports whether e, of values x and y, divides an integer
// by zero (/, %/% or % on ints).
func IntDivByZero(e *Binary, y float64) bool {
	return y == 0 && (e.Op == OpMod || e.Op == OpDiv && e.T.Kind == Int)
}

func BoolToFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// DivByZeroMsg is the error of an integer division by zero at e.
func DivByZeroMsg(e *Binary) string {
	return "integer division by zero in " + FormatExpr(e)
}

// ExactInt is v as an int when it is an integer within the integers a
// float64 holds exactly (±2^53); a size, an index or a bound beyond them
// is an error, never a wrapped-around int.
func ExactInt(v float64) (int, bool) {
	if v != math.Trunc(v) || math.Abs(v) > MaxExactInt {
		return 0, false
	}
	return int(v), true
}

// BigIntMsg is the error of an integer expression e of value v beyond
// exactInt.
func BigIntMsg(e Expr, v float64) string {
	return FormatExpr(e) + " is " + strconv.FormatFloat(v, 'g', 6, 64) + ", beyond the integers a float64 holds exactly (2^53)"
}
