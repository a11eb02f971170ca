package stan

import (
	"github.com/alecthomas/participle/v2/lexer"
	"github.com/mscppl/mscppl/lang"
)

// Helpers that build lang's tree: the statements and expressions the
// lowering writes that no Stan statement gives (truncation, returns).

// reject is if (cond) target += negative_infinity().
func reject(cond val, pos lexer.Position) *lang.Stmt {
	inf := callVal("negative_infinity", pos)
	return &lang.Stmt{Pos: pos, EndPos: pos, If: &lang.If{Pos: pos, EndPos: pos, Cond: cond.e,
		Then: []*lang.Stmt{{Pos: pos, EndPos: pos, Target: inf.e}}}}
}

func identVal(name string, pos lexer.Position) val {
	return val{e: exprOfPrimary(&lang.Primary{Pos: pos, EndPos: pos, Ident: &name}), level: levPostfix, end: pos}
}

func numVal(text string, pos lexer.Position) val {
	return val{e: exprOfPrimary(&lang.Primary{Pos: pos, EndPos: pos, Number: &text}), level: levPostfix, end: pos}
}

func callVal(name string, pos lexer.Position, args ...val) val {
	c := &lang.Call{Pos: pos, EndPos: pos, Name: name}
	for _, a := range args {
		c.Args = append(c.Args, a.e)
	}
	return val{e: exprOfPrimary(&lang.Primary{Pos: pos, EndPos: pos, Call: c}), level: levPostfix, end: pos}
}
