package check

import (
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

// message resolves print(...) or reject(...).
func (r *resolver) message(m *lang.Message, p lang.Pos) ir.Stmt {
	out := &ir.Message{StmtBase: ir.StmtBase{P: p}, Reject: m.Kind == "reject"}
	ok := true
	for _, a := range m.Args {
		if s := stringLit(a); s != nil {
			out.Parts = append(out.Parts, ir.MessagePart{Str: *s})
			continue
		}
		x := r.expr(a)
		if x == nil {
			ok = false
			continue
		}
		out.Parts = append(out.Parts, ir.MessagePart{X: x})
	}
	if !ok {
		return nil
	}
	return out
}

// firstMessage is the first print or reject in ss, at any depth: in loops,
// ifs and the bodies of the functions their expressions call.
func firstMessage(ss []ir.Stmt) *ir.Message {
	for _, s := range ss {
		var found *ir.Message
		switch s := s.(type) {
		case *ir.Message:
			return s
		case *ir.For:
			found = firstMessage(s.Body)
		case *ir.If:
			if found = firstMessage(s.Then); found == nil {
				found = firstMessage(s.Else)
			}
		}
		for _, e := range ir.StmtExprs(s) {
			ir.WalkExpr(e, func(x ir.Expr) {
				if in, ok := x.(*ir.Inline); ok && found == nil {
					found = firstMessage(in.Stmts)
				}
			})
		}
		if found != nil {
			return found
		}
	}
	return nil
}

// refuseMessages reports a print or reject in the body of the right-hand
// side of an ODE (the solver evaluates it at its own steps, where neither
// is supported).
func (r *resolver) refuseMessages(body []ir.Stmt, result ir.Expr, fn, solver string) {
	m := firstMessage(body)
	if m == nil && result != nil {
		ir.WalkExpr(result, func(x ir.Expr) {
			if in, ok := x.(*ir.Inline); ok && m == nil {
				m = firstMessage(in.Stmts)
			}
		})
	}
	if m != nil {
		kind := "print"
		if m.Reject {
			kind = "reject"
		}
		e := r.errorf(m.Pos(), "%s is not supported in %s, the right-hand side of %s (the solver evaluates it at its own steps)", kind, fn, solver)
		e.Hint = "check the arguments before the solver's call, in the model block"
	}
}
