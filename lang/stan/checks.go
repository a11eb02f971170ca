package stan

import (
	"github.com/alecthomas/participle/v2/lexer"
	"github.com/mscppl/mscppl/lang"
)

// Stan checks the constraints of the transformed parameters after their
// block and rejects a draw that violates one. The lowering says the same
// in statements after the transformed parameters' in the model block:
// if the constraint is violated, target += negative_infinity(). Bounds
// (on reals, vectors, matrices and arrays of them) and simplexes (and
// one-dimensional arrays of simplexes, with Stan's tolerance 1e-8) are
// checked; the other constrained types get a note saying that they are
// not.

// simplexTolerance is Stan's CONSTRAINT_TOLERANCE.
const simplexTolerance = "1e-8"

// checks returns the statements checking the constraints of the
// transformed parameters declared at the top of block b.
func (l *lowerer) checks(b *Block) []*lang.Stmt {
	var out []*lang.Stmt
	for _, s := range b.Stmts {
		if s.Decl == nil {
			continue
		}
		t := s.Decl.Type
		for _, d := range append([]*Declarator{s.Decl.First}, s.Decl.More...) {
			pos := d.Pos
			x := identVal(d.Name, pos)
			arr := len(t.Array) + len(d.Old)
			var cond val
			have := false
			or := func(c val) {
				if have {
					cond = binary("||", pos, cond, c)
				} else {
					cond, have = c, true
				}
			}
			for _, bd := range t.Bounds {
				op, agg := "<", "min"
				switch bd.Which {
				case "upper":
					op, agg = ">", "max"
				case "lower":
				default:
					continue // offset and multiplier are refused
				}
				v := x
				if arr > 0 || t.Base != "real" && t.Base != "int" {
					v = callVal(agg, pos, x)
				}
				l.quiet, l.quietWas = true, l.quiet
				or(binary(op, pos, v, l.boundVal(bd.Value)))
				l.quiet = l.quietWas
			}
			switch {
			case t.Base == "simplex" && arr <= 1:
				v := x
				if arr == 1 {
					v = indexVal(x, identVal(loopVar, pos))
				}
				sum := binary("-", pos, callVal("sum", pos, v), numVal("1", pos))
				c := binary("||", pos, binary(">", pos, callVal("abs", pos, sum), numVal(simplexTolerance, pos)),
					binary("<", pos, callVal("min", pos, v), numVal("0", pos)))
				if arr == 0 {
					or(c)
					break
				}
				l.quiet, l.quietWas = true, l.quiet
				var n *lang.Expr
				if len(t.Array) > 0 {
					n = l.expr(t.Array[0]).e
				} else {
					n = l.expr(d.Old[0]).e
				}
				l.quiet = l.quietWas
				out = append(out, &lang.Stmt{Pos: pos, EndPos: pos, For: &lang.For{Pos: pos, EndPos: pos, Var: loopVar,
					Lo: numVal("1", pos).e, Hi: n, Body: []*lang.Stmt{reject(c, pos)}}})
			case t.Base != "int" && t.Base != "real" && t.Base != "vector" && t.Base != "matrix":
				l.note(t.Pos, "the constraint of %s is not checked on each draw", describe(t))
			}
			if have {
				out = append(out, reject(cond, pos))
			}
		}
	}
	return out
}

// loopVar is the loop variable of the checks over arrays: a name Stan
// programs cannot use (Stan reserves names ending in __).
const loopVar = "k__"

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

func indexVal(x, i val) val {
	pf := asPostfix(x)
	ix := &lang.Index{Pos: i.e.Pos, EndPos: i.end, Slots: []*lang.Slot{{Pos: i.e.Pos, Lo: i.e}}}
	npf := &lang.Postfix{Pos: pf.Pos, Prim: pf.Prim, Indexes: append(append([]*lang.Index(nil), pf.Indexes...), ix)}
	return val{e: exprOfPostfix(npf, npf.Pos, i.end), level: levPostfix, end: i.end}
}
