package check

import (
	"regexp"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

// Locals sized by a loop variable, as Stan allows (for i in 1..N {
// v: vector[i] ... }): a value's type has fixed sizes here, so such a
// loop is unrolled while it is resolved, its body resolved once per value
// of the loop variable, which is then an int local known before inference
// (as the loop would be unrolled when compiled anyway).

// maxSizedLoop bounds the iterations of a loop unrolled for its locals'
// sizes.
const maxSizedLoop = 10000

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// mentions reports whether e names one of names.
func mentions(e *lang.Expr, names map[string]bool) bool {
	if e == nil {
		return false
	}
	for _, id := range identRE.FindAllString(lang.FormatExpr(e), -1) {
		if names[id] {
			return true
		}
	}
	return false
}

// sizedByLoop reports whether a declaration in body, at any depth, has a
// size that names one of names: the variable of the loop whose body it is
// and those of the loops nested in it whose bounds name them.
func sizedByLoop(body []*lang.Stmt, names map[string]bool) bool {
	for _, s := range body {
		switch {
		case s.Decl != nil:
			t := s.Decl.Type
			for _, d := range append(append([]*lang.Expr(nil), t.Array...), t.Dims...) {
				if mentions(d, names) {
					return true
				}
			}
		case s.For != nil:
			inner := names
			if mentions(s.For.Lo, names) || mentions(s.For.Hi, names) {
				inner = map[string]bool{s.For.Var: true}
				for k := range names {
					inner[k] = true
				}
			}
			if sizedByLoop(s.For.Body, inner) {
				return true
			}
		case s.If != nil:
			for f := s.If; f != nil; f = f.ElseIf {
				if sizedByLoop(f.Then, names) || sizedByLoop(f.Else, names) {
					return true
				}
			}
		case s.While != nil:
			if sizedByLoop(s.While.Body, names) {
				return true
			}
		case s.Scope != nil:
			if sizedByLoop(s.Scope.Body, names) {
				return true
			}
		}
	}
	return false
}

// sizedLoop resolves the loop f, whose body declares a local sized by its
// variable, unrolled: for each value t of lo..hi, an int local of the
// loop variable's name set to t, then the body.
func (r *resolver) sizedLoop(f *lang.For, lo, hi ir.Expr, p lang.Pos) ir.Stmt {
	lv, ok1 := ir.FoldConst(lo)
	hv, ok2 := ir.FoldConst(hi)
	if !ok1 || !ok2 {
		r.errorf(p, "the loop over %s declares a local sized by %s, so its bounds must be known before inference (data, sizes and the variables of such loops)", f.Var, f.Var)
		return nil
	}
	if hv-lv+1 > maxSizedLoop {
		e := r.errorf(p, "the loop over %s declares a local sized by %s, and runs %g times: loops with such locals are unrolled, up to %d iterations", f.Var, f.Var, hv-lv+1, maxSizedLoop)
		e.Hint = "declare the local before the loop with the largest size, and use a slice of it"
		return nil
	}
	var out []ir.Stmt
	for t := lv; t <= hv; t++ {
		v := r.newVar(f.Var, p, ir.LocalVar, ir.TInt)
		v.Known, v.DataOnly = []float64{t}, true
		out = append(out, &ir.LocalDecl{StmtBase: ir.StmtBase{P: p}, Local: v, Init: &ir.Num{ExprBase: ir.ExprBase{P: p, T: ir.TInt}, V: t}})
		r.scopes = append(r.scopes, map[string]*ir.Var{f.Var: v}, map[string]*ir.Var{})
		n := len(r.errs)
		r.loops++
		body := r.stmts(f.Body)
		r.loops--
		if j := ir.HasJump(body); j != nil {
			r.errorf(j.Pos(), "%s is not supported in a loop that declares a local sized by its variable (%s)", j.Word(), f.Var)
		}
		out = append(out, body...)
		r.scopes = r.scopes[:len(r.scopes)-2]
		if len(r.errs) > n {
			return nil // one report, not one per iteration
		}
	}
	return &stmtList{StmtBase: ir.StmtBase{P: p}, list: out}
}
