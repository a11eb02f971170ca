package stan

import (
	"github.com/alecthomas/participle/v2/lexer"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// Truncation, y ~ dist(args) T[L, U], is lowered as Stan's compiler
// lowers it: the ~, then a statement that rejects the draw when y is out
// of [L, U] and otherwise subtracts the log of the probability of [L, U]:
//
//	T[L, U]  target += -log_diff_exp(dist_lcdf(U | args), dist_lcdf(L | args))
//	T[L, ]   target += -dist_lccdf(L | args)
//	T[, U]   target += -dist_lcdf(U | args)
//
// For a mass function (a discrete family, or a user's NAME_lpmf), y >= L
// is y > L - 1, so L - 1 takes L's place in the CDFs. The distribution
// must have the CDFs this needs: a family of the stdlib registry
// (Family.LogCDF, LogCCDF) or the user's NAME_lcdf and NAME_lccdf.

// cdfs says which log CDFs a distribution has, and whether it is
// discrete.
func (l *lowerer) cdfs(name string) (lcdf, lccdf, discrete, known bool) {
	if fam, ok := stdlib.Lookup(name); ok {
		return fam.LogCDF != nil, fam.LogCCDF != nil, fam.Discrete, true
	}
	_, lcdf = l.funcs[name+"_lcdf"]
	_, lccdf = l.funcs[name+"_lccdf"]
	_, discrete = l.funcs[name+"_lpmf"]
	_, pdf := l.funcs[name+"_lpdf"]
	return lcdf, lccdf, discrete, discrete || pdf
}

// truncation returns the statement that follows y ~ dist(...) T[L, U]
// (nil after an error).
func (l *lowerer) truncation(sm *Simple, y val) []*lang.Stmt {
	tr, name, pos := sm.Trunc, sm.Tilde.Name, sm.Trunc.Pos
	if tr.Lo == nil && tr.Hi == nil {
		return nil // T[, ] truncates nothing
	}
	if !y.sh.scalar() {
		l.refuse(sm.LHS.Pos, "truncation T[...] of %s is not supported; truncate each element, in a loop", y.sh)
		return nil
	}
	lcdf, lccdf, discrete, known := l.cdfs(name)
	need, have := name+"_lcdf", lcdf
	if tr.Hi == nil {
		need, have = name+"_lccdf", lccdf
	}
	if !have {
		if known {
			l.refuse(pos, "truncation T[...] of %s needs %s, which mscppl does not have", name, need)
		} else {
			l.refuse(pos, "truncation T[...] of %s: the distribution is unknown", name)
		}
		return nil
	}
	for _, b := range []*Expr{tr.Lo, tr.Hi} {
		if b == nil {
			continue
		}
		l.quiet, l.quietWas = true, l.quiet
		sh := l.expr(b).sh
		l.quiet = l.quietWas
		switch {
		case sh.nonScalar():
			l.refuse(b.Pos, "a bound of T[...] is a scalar, not %s", sh)
			return nil
		case discrete && sh.base == "real":
			l.refuse(b.Pos, "the bounds of T[...] on %s, a mass function, are ints", name)
			return nil
		}
	}
	// every expression below is lowered again, into new nodes, without
	// reporting its errors twice
	l.quiet, l.quietWas = true, l.quiet
	defer func() { l.quiet = l.quietWas }()
	cdf := func(suffix string, at *Expr, minusOne bool) val {
		x := l.expr(at)
		if minusOne {
			x = binary("-", pos, x, numVal("1", pos))
		}
		c := &lang.Call{Pos: pos, EndPos: pos, Name: name + suffix, Bar: true, Args: []*lang.Expr{x.e}}
		for _, a := range sm.Tilde.Args {
			c.Given = append(c.Given, l.expr(a).e)
		}
		return val{e: exprOfPrimary(&lang.Primary{Pos: pos, EndPos: pos, Call: c}), level: levPostfix, end: pos}
	}
	var out, term val
	have = false
	or := func(c val) {
		if have {
			out = binary("||", pos, out, c)
		} else {
			out, have = c, true
		}
	}
	if tr.Lo != nil {
		or(binary("<", pos, l.expr(sm.LHS), l.expr(tr.Lo)))
	}
	if tr.Hi != nil {
		or(binary(">", pos, l.expr(sm.LHS), l.expr(tr.Hi)))
	}
	switch {
	case tr.Lo != nil && tr.Hi != nil:
		term = callVal("log_diff_exp", pos, cdf("_lcdf", tr.Hi, false), cdf("_lcdf", tr.Lo, discrete))
	case tr.Lo != nil:
		term = cdf("_lccdf", tr.Lo, discrete)
	default:
		term = cdf("_lcdf", tr.Hi, false)
	}
	return []*lang.Stmt{rejectElse(out, negate(term, pos), pos)}
}

// negate is -x.
func negate(x val, pos lexer.Position) val {
	return val{e: exprOfUnary(&lang.Unary{Pos: pos, Op: "-", X: asUnary(x)}, pos, x.end), level: levUnary, end: x.end}
}

// rejectElse is if (cond) target += negative_infinity(); else target += x.
func rejectElse(cond, x val, pos lexer.Position) *lang.Stmt {
	s := reject(cond, pos)
	s.If.Else = []*lang.Stmt{{Pos: pos, EndPos: pos, Target: x.e}}
	return s
}
