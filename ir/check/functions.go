package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

// maxInlineDepth bounds nested calls of user functions (recursion is not
// supported: every call is inlined).
const maxInlineDepth = 32

// functions records the user functions of the functions block.
func (r *resolver) functions(b *lang.Block) {
	r.funcs, r.called = map[string]*lang.FuncDef{}, map[string]bool{}
	for _, it := range b.Items {
		fd := it.Func
		if fd == nil {
			r.errorf(r.at(it.Pos), "the functions block holds functions: name(x: real, v: vector) -> real { ...; return expr }")
			continue
		}
		p := r.at(fd.Pos)
		if _, dup := r.funcs[fd.Name]; dup {
			r.errorf(p, "function %s is defined twice", fd.Name)
			continue
		}
		if ir.BuiltinName(fd.Name) {
			r.errorf(p, "%s is a built-in name; pick another name for the function", fd.Name)
			continue
		}
		if dup := duplicateParam(fd); dup != nil {
			first := fd.Params[slices.IndexFunc(fd.Params, func(q *lang.Param) bool { return q.Name == dup.Name })]
			fp := r.at(first.Pos)
			r.errorf(r.at(dup.Pos), "function %s has two parameters named %s (the first at %d:%d)", fd.Name, dup.Name, fp.Line, fp.Col)
			continue
		}
		n := len(fd.Body)
		if fd.Void {
			if i := slices.IndexFunc(fd.Body, func(s *lang.Stmt) bool { return s.Return != nil }); i >= 0 {
				r.errorf(r.at(fd.Body[i].Pos), "%s is a void function: it returns no value (it ends at its last statement)", fd.Name)
				continue
			}
		} else if n == 0 || fd.Body[n-1].Return == nil {
			r.errorf(p, "function %s must end with return expr", fd.Name)
			continue
		}
		r.funcs[fd.Name] = fd
	}
}

// duplicateParam is the first parameter of fd whose name an earlier one
// has (nil when the names are distinct).
func duplicateParam(fd *lang.FuncDef) *lang.Param {
	seen := map[string]bool{}
	for _, p := range fd.Params {
		if seen[p.Name] {
			return p
		}
		seen[p.Name] = true
	}
	return nil
}

// inline resolves a call of a user function: its parameters become
// locals bound to the arguments, and its body is resolved in a scope that
// sees only them (as in Stan, a function sees no model variables).
func (r *resolver) inline(c *lang.Call, fd *lang.FuncDef) ir.Expr {
	pos := r.at(c.Pos)
	r.called[fd.Name] = true
	if c.Bar {
		if !takesBar(c.Name) {
			r.errorf(pos, ir.BarMessage, c.Name)
			return nil
		}
		if len(c.Args) != 1 {
			r.errorf(pos, "%s takes one value before the bar: %s(y | ...)", c.Name, c.Name)
			return nil
		}
		// a user's density called f(y | theta) is f(y, theta)
		bar := *c
		bar.Args, bar.Given, bar.Bar = append(append([]*lang.Expr(nil), c.Args...), c.Given...), nil, false
		c = &bar
	}
	if fd.Void {
		e := r.errorf(pos, "%s is a void function: it returns no value, and is called as a statement, %s(...)", fd.Name, fd.Name)
		e.Hint = "call it on a line of its own"
		return nil
	}
	stmts, done := r.bind(c, fd, pos)
	if done == nil {
		return nil
	}
	n := len(fd.Body)
	body := r.stmts(fd.Body[:n-1])
	result := r.expr(fd.Body[n-1].Return)
	if result == nil {
		done()
		return nil
	}
	if rd := fd.Result.ArrayDims(); !ir.ParamAccepts(rd, fd.Result.Base, result.Type()) {
		r.errorf(result.Pos(), "%s returns %s, declared %s", fd.Name, result.Type(), ir.ParamType(rd, fd.Result.Base))
		done()
		return nil
	}
	t := ir.ParamOriented(fd.Result.ArrayDims(), fd.Result.Base, result.Type())
	if fd.Result.Base == lang.BaseReal && t.Kind == ir.Int {
		t = ir.TReal
	}
	if fd.Result.Base == lang.BaseReal {
		t.IntElems = false
	}
	if done() {
		return nil
	}
	return &ir.Inline{ExprBase: ir.ExprBase{P: pos, T: t}, Name: fd.Name, Call: c.String(), Stmts: append(stmts, body...), Result: result}
}

// callStmt resolves a statement that is an expression alone: the call of
// a void function, name(args), whose body runs in place, its parameters
// locals bound to the arguments.
func (r *resolver) callStmt(sm *lang.Simple, p lang.Pos) ir.Stmt {
	c := sm.CallStmt()
	if c == nil {
		e := r.errorf(r.at(sm.LHS.Pos), "an expression alone is not a statement")
		e.Hint = `a statement is "x ~ dist(...)", "name = expr" or the call of a void function, name(args)`
		return nil
	}
	pos := r.at(c.Pos)
	fd, ok := r.funcs[c.Name]
	if !ok || !fd.Void {
		e := r.errorf(pos, "%s(...) alone is not a statement: only a void function is called as one, and %s returns a value", c.Name, c.Name)
		if !ok {
			e.Hint = "assign its value, as in x = " + c.String()
		}
		return nil
	}
	r.called[fd.Name] = true
	stmts, done := r.bind(c, fd, pos)
	if done == nil {
		return nil
	}
	body := r.stmts(fd.Body)
	if done() {
		return nil
	}
	return &stmtList{StmtBase: ir.StmtBase{P: p}, list: append(stmts, body...)}
}

// bind starts the inlining of the call c of fd at pos: it checks the
// arguments, enters the function's scope and returns the statements that
// bind its parameters to them, and done, which words the errors of the
// body (callErrors), leaves the scope and reports whether the call failed
// (done is nil when the arguments are wrong: nothing to leave).
func (r *resolver) bind(c *lang.Call, fd *lang.FuncDef, pos lang.Pos) (stmts []ir.Stmt, done func() bool) {
	if len(c.Args) != len(fd.Params) {
		r.errorf(pos, "%s takes %d argument%s, got %d", fd.Name, len(fd.Params), ir.Plural1(len(fd.Params)), len(c.Args))
		return nil, nil
	}
	if r.depth >= maxInlineDepth {
		r.errorf(pos, "calls of %s nest more than %d deep; recursive functions are not supported", fd.Name, maxInlineDepth)
		return nil, nil
	}
	args := make([]ir.Expr, len(c.Args))
	for i, a := range c.Args {
		if args[i] = r.expr(a); args[i] == nil {
			return nil, nil
		}
		if prm := fd.Params[i]; !ir.ParamAccepts(prm.ArrayDims(), prm.Base, args[i].Type()) {
			r.errorf(args[i].Pos(), "argument %d of %s (%s) must be %s, got %s", i+1, fd.Name, prm.Name, ir.ParamType(prm.ArrayDims(), prm.Base), args[i].Type())
			return nil, nil
		}
	}
	// the body sees its parameters only
	scope, leave := r.enterFunction()
	nerr, nrep := len(r.errs), r.repeats
	for i, prm := range fd.Params {
		pt := ir.ParamOriented(prm.ArrayDims(), prm.Base, args[i].Type())
		if prm.Base == lang.BaseReal && prm.ArrayDims() > 0 {
			pt.IntElems = false // an int array passed as array[] real
		}
		v := r.newVar(prm.Name, r.at(prm.Pos), ir.LocalVar, pt)
		scope[prm.Name] = v
		stmts = append(stmts, &ir.Assign{StmtBase: ir.StmtBase{P: pos}, Local: v, X: args[i]})
	}
	return stmts, func() bool {
		failed := len(r.errs) > nerr || r.repeats > nrep
		r.callErrors(nerr, nrep, c, pos)
		leave()
		return failed
	}
}

// callErrors words the errors the body of a function gave when inlined at
// the call c (the errors from nerr on): the first is kept, at its line in
// the function, with the call of the model or derived block that triggered
// it (the outermost of nested calls); the ones after it follow
// from it (a declaration that failed is a name unknown below) and are
// dropped; and an error another call of the function has reported at the
// same place is not repeated (r.repeats counts the calls whose errors were
// dropped as repeats, so that the calls around them fail quietly too).
func (r *resolver) callErrors(nerr, nrep int, c *lang.Call, pos lang.Pos) {
	if r.repeats > nrep && len(r.errs) > nerr { // they follow from the repeat
		r.errs = r.errs[:nerr]
		r.repeats++
	}
	if len(r.errs) <= nerr {
		return
	}
	e := r.errs[nerr]
	r.errs = r.errs[:nerr+1]
	for _, old := range r.errs[:nerr] {
		if old.Pos == e.Pos && strings.HasPrefix(old.Msg, e.Msg+"; in the call ") {
			r.errs = r.errs[:nerr]
			r.repeats++
			return
		}
	}
	if r.depth == 1 { // the call of the model or derived block
		e.Msg += fmt.Sprintf("; in the call %s at %d:%d", c.String(), pos.Line, pos.Col)
	}
}

// enterFunction starts the resolution of a user function's body: a scope
// that sees only what is declared in it (its parameters, bound by the
// caller), one level deeper; leave restores the caller's scopes.
func (r *resolver) enterFunction() (scope map[string]*ir.Var, leave func()) {
	savedScopes, savedGlobal, savedAssigned, savedLoops := r.scopes, r.global, r.assigned, r.loops
	scope = map[string]*ir.Var{}
	r.scopes, r.global, r.assigned, r.loops = []map[string]*ir.Var{scope}, map[string]*ir.Var{}, map[string]lang.Pos{}, 0
	r.depth++
	return scope, func() {
		r.scopes, r.global, r.assigned, r.loops = savedScopes, savedGlobal, savedAssigned, savedLoops
		r.depth--
	}
}

// barSuffixes end the names of the user functions called with a bar,
// f(y | theta): densities, mass functions and their log CDFs.
var barSuffixes = []string{"_lpdf", "_lpmf", "_lcdf", "_lccdf"}

// takesBar reports whether a user function's name says it is called with
// a bar.
func takesBar(name string) bool {
	return slices.ContainsFunc(barSuffixes, func(s string) bool { return strings.HasSuffix(name, s) })
}

// userTilde resolves y ~ f(theta) for a user's density or mass function,
// f_lpdf or f_lpmf, as target += f_lpdf(y | theta) (nil when there is
// none of that name).
func (r *resolver) userTilde(sm *lang.Simple, p lang.Pos) ir.Stmt {
	call := sm.Tilde
	for _, s := range []string{"_lpdf", "_lpmf"} {
		if _, ok := r.funcs[call.Name+s]; !ok {
			continue
		}
		c := &lang.Call{Pos: call.Pos, EndPos: call.EndPos, Name: call.Name + s, Bar: true,
			Args: []*lang.Expr{sm.LHS}, Given: call.Args}
		x := &lang.Expr{Pos: call.Pos, EndPos: call.EndPos, Left: &lang.Term{Pos: call.Pos,
			Left: &lang.Unary{Pos: call.Pos, Power: &lang.Power{Pos: call.Pos,
				Base: &lang.Postfix{Pos: call.Pos, Prim: &lang.Primary{Pos: call.Pos, EndPos: call.EndPos, Call: c}}}}}}
		if st := r.target(x, p); st != nil {
			return st
		}
		return &stmtList{StmtBase: ir.StmtBase{P: p}} // the error is reported
	}
	return nil
}
