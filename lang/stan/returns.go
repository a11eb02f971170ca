package stan

import (
	"github.com/alecthomas/participle/v2/lexer"
	"github.com/mscppl/mscppl/lang"
)

// A function of the IR returns once, at its end. A Stan function may
// return inside an if (if (c) return a; ... return b;): singleReturn
// rewrites such a body of a function returning a scalar into one that
// assigns a local, result__ (Stan's names cannot end in __), on every path
// and returns it at the end; the statements after an if that returns on
// some branch go into the branches that do not.

// resultVar is the local a rewritten body assigns.
const resultVar = "result__"

// singleReturn rewrites body, the lowered statements of a function whose
// result has base type base (and no array dimension when scalar is set),
// so that it returns once at its end. It returns body unchanged when it
// already does, or when it cannot rewrite it (a result that is not a
// scalar, a return in a loop), leaving the IR to refuse it.
func singleReturn(body []*lang.Stmt, base lang.BaseType, scalar bool, pos lexer.Position) []*lang.Stmt {
	n := len(body)
	if n == 0 || !scalar || !returnsEarly(body[:n-1]) && body[n-1].Return != nil {
		return body
	}
	out, ok := assignReturns(body)
	if !ok {
		return body
	}
	init := numVal("0", pos)
	if base == lang.BaseReal {
		init = callVal("not_a_number", pos)
	}
	decl := &lang.Stmt{Pos: pos, EndPos: pos, Semi: true, Decl: &lang.Decl{Pos: pos, EndPos: pos, Name: resultVar,
		Type: &lang.Type{Pos: pos, EndPos: pos, Base: base}, Init: init.e, Semi: true}}
	ret := &lang.Stmt{Pos: pos, EndPos: pos, Semi: true, Return: identVal(resultVar, pos).e}
	return append(append([]*lang.Stmt{decl}, out...), ret)
}

// returnsEarly reports whether statements hold a return (at any depth).
func returnsEarly(ss []*lang.Stmt) bool {
	for _, s := range ss {
		switch {
		case s.Return != nil:
			return true
		case s.If != nil:
			for f := s.If; f != nil; f = f.ElseIf {
				if returnsEarly(f.Then) || returnsEarly(f.Else) {
					return true
				}
			}
		case s.For != nil && returnsEarly(s.For.Body), s.While != nil && returnsEarly(s.While.Body),
			s.Scope != nil && returnsEarly(s.Scope.Body):
			return true
		}
	}
	return false
}

// assignReturns rewrites ss so that each return e is result__ = e and
// nothing runs after it, reporting whether every path returns (and no
// return is in a loop or a scope).
func assignReturns(ss []*lang.Stmt) ([]*lang.Stmt, bool) {
	var out []*lang.Stmt
	for i, s := range ss {
		switch {
		case s.Return != nil:
			p := s.Pos
			set := &lang.Stmt{Pos: p, EndPos: s.EndPos, Semi: true, Simple: &lang.Simple{Pos: p, EndPos: s.EndPos,
				LHS: identVal(resultVar, p).e, Assign: s.Return}}
			return append(out, set), true
		case s.If != nil && returnsEarly([]*lang.Stmt{s}):
			f, ok := assignIf(s.If, ss[i+1:])
			if !ok {
				return nil, false
			}
			return append(out, &lang.Stmt{Pos: s.Pos, EndPos: s.EndPos, Semi: s.Semi, If: f}), true
		case returnsEarly([]*lang.Stmt{s}):
			return nil, false // a return in a loop or a scope
		}
		out = append(out, s)
	}
	return nil, false // a path that does not return
}

// assignIf rewrites the branches of if f followed by rest: each branch,
// then rest, with its returns assigned (a missing else is rest alone).
func assignIf(f *lang.If, rest []*lang.Stmt) (*lang.If, bool) {
	nf := &lang.If{Pos: f.Pos, EndPos: f.EndPos, Cond: f.Cond}
	var ok bool
	if nf.Then, ok = assignReturns(concat(f.Then, rest)); !ok {
		return nil, false
	}
	switch {
	case f.ElseIf != nil:
		if nf.ElseIf, ok = assignIf(f.ElseIf, rest); !ok {
			return nil, false
		}
	default:
		if nf.Else, ok = assignReturns(concat(f.Else, rest)); !ok {
			return nil, false
		}
	}
	return nf, true
}

func concat(a, b []*lang.Stmt) []*lang.Stmt {
	return append(append([]*lang.Stmt(nil), a...), b...)
}

// voidReturn is the Return of the lowered return; of a void function,
// which voidReturns removes (lang's return takes a value).
var voidReturn = &lang.Expr{}

// voidReturns rewrites the lowered body of a void function so that it has
// no return: the statements after an if that returns on some branch go
// into the branches that do not, and a return ends its path. It returns
// the first return it cannot remove (in a loop or a scope), if any.
func voidReturns(ss []*lang.Stmt) ([]*lang.Stmt, *lang.Stmt) {
	var out []*lang.Stmt
	for i, s := range ss {
		switch {
		case s.Return != nil:
			return out, nil
		case s.If != nil && returnsEarly([]*lang.Stmt{s}):
			f, bad := voidIf(s.If, ss[i+1:])
			if bad != nil {
				return nil, bad
			}
			return append(out, &lang.Stmt{Pos: s.Pos, EndPos: s.EndPos, Semi: s.Semi, If: f}), nil
		case returnsEarly([]*lang.Stmt{s}):
			return nil, s // a return in a loop or a scope
		}
		out = append(out, s)
	}
	return out, nil
}

// voidIf rewrites the branches of if f followed by rest: each branch,
// then rest, without its returns (a missing else is rest alone).
func voidIf(f *lang.If, rest []*lang.Stmt) (*lang.If, *lang.Stmt) {
	nf := &lang.If{Pos: f.Pos, EndPos: f.EndPos, Cond: f.Cond}
	var bad *lang.Stmt
	if nf.Then, bad = voidReturns(concat(f.Then, rest)); bad != nil {
		return nil, bad
	}
	if f.ElseIf != nil {
		nf.ElseIf, bad = voidIf(f.ElseIf, rest)
	} else {
		nf.Else, bad = voidReturns(concat(f.Else, rest))
	}
	return nf, bad
}
