package ir

import (
	"math"
	"strconv"
	"strings"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/lang"
)

// applyOp is a binary operator on numbers; intDiv makes / and % those of
// integers, as in Stan: the quotient truncated toward zero and the
// remainder with the sign of the dividend. A division of integers by zero
// is NaN here: the callers that know the values refuse it first
// (intDivByZero), and the tape's op counts it (intOp).
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
			return intQuo(x, y)
		}
		return x / y
	case OpMod:
		return intRem(x, y)
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

// intDivByZero reports whether e, of values x and y, divides an integer
// by zero (/, %/% or % on ints).
func intDivByZero(e *Binary, y float64) bool {
	return y == 0 && (e.Op == OpMod || e.Op == OpDiv && e.T.Kind == Int)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// stepFunc is a comparison of x against 0, as an elementwise function of
// the tape: its value is 0 or 1 and its derivative 0 (a comparison of
// latent values is piecewise constant).
type stepFunc struct{ op BinOp }

func (s stepFunc) Name() string { return s.op.String() }

func (s stepFunc) Eval(y, x []float64) {
	for i, v := range x {
		y[i] = applyOp(s.op, v, 0, false)
	}
}

func (stepFunc) Deriv(dx, dy, y, x []float64) {}

// cmpOp is a comparison or a logical operator of two values on the tape,
// elementwise (an input of length 1 is broadcast): exact as IEEE's (inf ==
// inf is 1, NaN == NaN is 0), never through x - y. Its derivative is 0.
type cmpOp struct{ op BinOp }

func (o cmpOp) Name() string { return o.op.String() }

func (o cmpOp) Forward(out []float64, in [][]float64) {
	x, y := in[0], in[1]
	for i := range out {
		out[i] = applyOp(o.op, bcast(x, i), bcast(y, i), false)
	}
}

func (cmpOp) Backward(_, _ []float64, _ [][]float64, _ [][]float64) {}

// ForwardBatch is Forward over a batch of scalars (autodiff.BatchForwarder:
// the step programs of state-space models).
func (o cmpOp) ForwardBatch(out []float64, in [][]float64) bool {
	o.Forward(out, in)
	return true
}

// intOp is the integer quotient (/ or %/% on ints) or remainder (%) of two
// values on the tape, known only per draw (an int local set under an if
// on latents). A division by zero gives NaN, and the op keeps its first
// dividend so that the run can report it at the operator (DrawError).
type intOp struct {
	op  BinOp
	e   *Binary
	bad bool
	x   float64 // the dividend of the first division by zero
}

func (o *intOp) Name() string { return o.op.String() }

func (o *intOp) Forward(out []float64, in [][]float64) {
	x, y := in[0], in[1]
	for i := range out {
		a, b := bcast(x, i), bcast(y, i)
		out[i] = applyOp(o.op, a, b, true)
		if b == 0 && !o.bad {
			o.bad, o.x = true, a
		}
	}
}

func (*intOp) Backward(_, _ []float64, _ [][]float64, _ [][]float64) {}

// bcast is x[i], or x[0] for a value broadcast from length 1.
func bcast(x []float64, i int) float64 {
	if len(x) == 1 {
		return x[0]
	}
	return x[i]
}

// divByZeroMsg is the error of an integer division by zero at e.
func divByZeroMsg(e *Binary) string {
	return "integer division by zero in " + FormatExpr(e)
}

// intOp compiles the integer quotient or remainder e of the nodes x and y:
// a divisor known before inference (data, sizes, loop variables) that is
// zero is an error at e now; one known only per draw is checked at each
// evaluation (Compiled.RNGError reports it).
func (cp *compiler) intOp(e *Binary, x, y autodiff.Node) autodiff.Node {
	g := cp.g
	if g.IsConst(y) {
		for _, v := range g.Value(y, 0) {
			if v == 0 {
				cp.fail(e.Pos(), "%s", divByZeroMsg(e))
			}
		}
	}
	op := &intOp{op: e.Op, e: e}
	if !g.IsConst(x) || !g.IsConst(y) {
		cp.c.intOps = append(cp.c.intOps, intSite{op, strings.Join(cp.loopCtx, ", ")})
	}
	return g.Custom(op, max(g.Len(x), g.Len(y)), x, y) // a loop compiled over its range (vecloop.go) has longer values than e's type
}

// intSite is an integer division known only per draw, and the loops
// around it.
type intSite struct {
	op    *intOp
	loops string
}

// intError is the first integer division by zero at a draw, positioned
// at its operator; nil when there was none.
func (c *Compiled) intError() error {
	for _, s := range c.intOps {
		if !s.op.bad {
			continue
		}
		e := lang.Errorf(s.op.e.Pos(), "%s at a posterior draw (the dividend was %g)", divByZeroMsg(s.op.e), s.op.x)
		if s.loops != "" {
			e.Msg += " (at " + s.loops + ")"
		}
		e.Hint = "an integer divisor that depends on the latents can be 0; test it with if before dividing"
		return lang.ErrorList{e}
	}
	return nil
}

// exactInt is v as an int when it is an integer within the integers a
// float64 holds exactly (±2^53); a size, an index or a bound beyond them
// is an error, never a wrapped-around int.
func exactInt(v float64) (int, bool) {
	if v != math.Trunc(v) || math.Abs(v) > maxExactInt {
		return 0, false
	}
	return int(v), true
}

// bigIntMsg is the error of an integer expression e of value v beyond
// exactInt.
func bigIntMsg(e Expr, v float64) string {
	return FormatExpr(e) + " is " + strconv.FormatFloat(v, 'g', 6, 64) + ", beyond the integers a float64 holds exactly (2^53)"
}
