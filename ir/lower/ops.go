package lower

import (
	"strings"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

// stepFunc is a comparison of x against 0, as an elementwise function of
// the tape: its value is 0 or 1 and its derivative 0 (a comparison of
// latent values is piecewise constant).
type stepFunc struct{ op ir.BinOp }

func (s stepFunc) Name() string { return s.op.String() }

func (s stepFunc) Eval(y, x []float64) {
	for i, v := range x {
		y[i] = ir.ApplyOp(s.op, v, 0, false)
	}
}

func (stepFunc) Deriv(dx, dy, y, x []float64) {}

// cmpOp is a comparison or a logical operator of two values on the tape,
// elementwise (an input of length 1 is broadcast): exact as IEEE's (inf ==
// inf is 1, NaN == NaN is 0), never through x - y. Its derivative is 0.
type cmpOp struct{ op ir.BinOp }

func (o cmpOp) Name() string { return o.op.String() }

func (o cmpOp) Forward(out []float64, in [][]float64) {
	x, y := in[0], in[1]
	for i := range out {
		out[i] = ir.ApplyOp(o.op, bcast(x, i), bcast(y, i), false)
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
	op  ir.BinOp
	e   *ir.Binary
	bad bool
	x   float64 // the dividend of the first division by zero
}

func (o *intOp) Name() string { return o.op.String() }

func (o *intOp) Forward(out []float64, in [][]float64) {
	x, y := in[0], in[1]
	for i := range out {
		a, b := bcast(x, i), bcast(y, i)
		out[i] = ir.ApplyOp(o.op, a, b, true)
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

// intOp compiles the integer quotient or remainder e of the nodes x and y:
// a divisor known before inference (data, sizes, loop variables) that is
// zero is an error at e now; one known only per draw is checked at each
// evaluation (Compiled.RNGError reports it).
func (cp *compiler) intOp(e *ir.Binary, x, y autodiff.Node) autodiff.Node {
	g := cp.g
	if g.IsConst(y) {
		for _, v := range g.Value(y, 0) {
			if v == 0 {
				cp.fail(e.Pos(), "%s", ir.DivByZeroMsg(e))
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
func IntError(c *Compiled) error {
	for _, s := range c.intOps {
		if !s.op.bad {
			continue
		}
		e := lang.Errorf(s.op.e.Pos(), "%s at a posterior draw (the dividend was %g)", ir.DivByZeroMsg(s.op.e), s.op.x)
		if s.loops != "" {
			e.Msg += " (at " + s.loops + ")"
		}
		e.Hint = "an integer divisor that depends on the latents can be 0; test it with if before dividing"
		return lang.ErrorList{e}
	}
	return nil
}
