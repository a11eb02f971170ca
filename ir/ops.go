package ir

import "math"

// applyOp is a binary operator on numbers; intDiv truncates a division of
// integers, as in Stan.
func applyOp(op BinOp, x, y float64, intDiv bool) float64 {
	switch op {
	case OpAdd:
		return x + y
	case OpSub:
		return x - y
	case OpMul, OpEMul:
		return x * y
	case OpDiv, OpEDiv:
		if intDiv && op == OpDiv {
			return math.Trunc(x / y)
		}
		return x / y
	case OpPow:
		return math.Pow(x, y)
	case OpEq:
		return b2f(x == y)
	case OpNe:
		return b2f(x != y)
	case OpLt:
		return b2f(x < y)
	case OpLe:
		return b2f(x <= y)
	case OpGt:
		return b2f(x > y)
	case OpGe:
		return b2f(x >= y)
	case OpAnd:
		return b2f(x != 0 && y != 0)
	case OpOr:
		return b2f(x != 0 || y != 0)
	}
	panic("ir: unknown operator")
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// stepFunc is a comparison of x against 0 (x = a - b), as an elementwise
// function of the tape: its value is 0 or 1 and its derivative 0 (a
// comparison of latent values is piecewise constant).
type stepFunc struct{ op BinOp }

func (s stepFunc) Name() string { return s.op.String() }

func (s stepFunc) Eval(y, x []float64) {
	for i, v := range x {
		y[i] = applyOp(s.op, v, 0, false)
	}
}

func (stepFunc) Deriv(dx, dy, y, x []float64) {}
