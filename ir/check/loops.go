package check

import (
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

// While loops, break and continue. Every loop runs when the model is
// compiled (the tape holds each iteration), so a while loop's condition
// must be known then: data, constants, loop variables and the locals
// computed from them. The compiler (package ir/lower) evaluates it before
// each iteration, stops at MaxWhile iterations and at the graph's node
// limit, and refuses a condition that depends on the latents, and a break
// or continue under an if whose condition does, at their positions.

// whileStmt resolves while cond { body }: a For whose While is cond.
func (r *resolver) whileStmt(w *lang.While, p lang.Pos) ir.Stmt {
	cond := r.expr(w.Cond)
	if cond == nil {
		return nil
	}
	if !cond.Type().Scalar() {
		r.errorf(cond.Pos(), "the condition of while must be a scalar, got %s", cond.Type())
		return nil
	}
	v := r.newVar("while", p, ir.LoopVar, ir.TInt)
	r.scopes = append(r.scopes, map[string]*ir.Var{})
	r.loops++
	body := r.stmts(w.Body)
	r.loops--
	r.scopes = r.scopes[:len(r.scopes)-1]
	return &ir.For{StmtBase: ir.StmtBase{P: p}, Var: v, Lo: &ir.Num{ExprBase: ir.ExprBase{P: p, T: ir.TInt}, V: 1},
		Hi: &ir.Num{ExprBase: ir.ExprBase{P: p, T: ir.TInt}, V: ir.MaxWhile}, Body: body, While: cond}
}

// jump resolves break or continue, which belong in a loop.
func (r *resolver) jump(s *lang.Stmt, p lang.Pos) ir.Stmt {
	j := &ir.Jump{StmtBase: ir.StmtBase{P: p}, Break: s.Break}
	if r.loops == 0 {
		r.errorf(p, "%s is not inside a loop", j.Word())
		return nil
	}
	return j
}
