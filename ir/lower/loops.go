package lower

import (
	"fmt"

	"github.com/mscppl/mscppl/ir"
)

// While loops, break and continue, compiled as the other loops are: each
// iteration is unrolled onto the tape, so what decides the iterations (a
// while loop's condition, the if around a break) must be known before
// inference.

// endIteration takes the break or continue that ended an iteration of the
// loop being compiled, reporting whether it was break (the loop ends).
func (cp *compiler) endIteration() bool {
	j := cp.jump
	cp.jump = nil
	return j != nil && j.Break
}

// whileLoop compiles while cond { body }: the body once per iteration,
// while cond, evaluated before each, is not 0; up to ir.MaxWhile
// iterations and the graph's node limit.
func (cp *compiler) whileLoop(s *ir.For) {
	before := cp.g.NumNodes()
	for t := 1; ; t++ {
		c := cp.expr(s.While)
		if !cp.g.IsConst(c) {
			cp.fail(s.While.Pos(), "the condition of while depends on the latents: a while loop is unrolled when the model is compiled, so its condition may read only data, constants, loop variables and the locals computed from them")
		}
		if cp.g.Value(c, 0)[0] == 0 {
			return
		}
		if t > ir.MaxWhile {
			cp.fail(s.Pos(), "the while loop has run %d times and its condition still holds; loops are unrolled when the model is compiled, up to %d iterations", ir.MaxWhile, ir.MaxWhile)
		}
		cp.ints[s.Var.ID] = t
		cp.loopCtx = append(cp.loopCtx, fmt.Sprintf("iteration %d of while", t))
		nerr := len(cp.errs)
		cp.block(s.Body)
		cp.loopCtx = cp.loopCtx[:len(cp.loopCtx)-1]
		if len(cp.errs) > nerr {
			cp.jump = nil
			return
		}
		if cp.g.NumNodes() > cp.max {
			cp.fail(s.Pos(), "the while loop has unrolled to %d graph nodes in %d iterations, more than the limit of %d; reduce the loop sizes or raise --max-nodes", cp.g.NumNodes()-before, t, cp.max)
		}
		if cp.endIteration() {
			return
		}
	}
}

// jumpUnderLatents refuses an if on the latents around a break or
// continue: whether the loop goes on would be known only at inference.
func (cp *compiler) jumpUnderLatents(s *ir.If) {
	j := ir.HasJump(s.Then)
	if j == nil {
		j = ir.HasJump(s.Else)
	}
	if j != nil {
		cp.fail(j.Pos(), "%s under an if whose condition (at %d:%d) depends on the latents is not supported: loops are unrolled when the model is compiled", j.Word(), s.Pos().Line, s.Pos().Col)
	}
}
