package stan

import (
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

// Expressions are lowered bottom-up into lang's expression tree. A lowered
// expression (val) remembers how loosely it binds in lang's grammar
// (level), so that a parent takes it as its operand directly when the
// grammar allows and wraps it in parentheses otherwise: lang's chains are
// flat and package ir applies the precedences, so an operand is spliced
// into a chain only when that gives back the same tree.

// Levels of a lowered expression, loosest first: a conditional, a chain
// of Expr operators (1 to 5, the precedence of its loosest operator, as
// ir applies them), a product (Term), a signed operand (Unary), a power,
// a postfix or primary.
const (
	levCond    = 0
	levTerm    = 6
	levUnary   = 7
	levPower   = 8
	levPostfix = 9
)

// exprPrec is the precedence of lang's Expr operators, Stan's.
var exprPrec = map[string]int{"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "+": 5, "-": 5}

// stanPrec is Stan's precedence of its binary operators (higher binds
// tighter), all left-associative.
var stanPrec = map[string]int{"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4,
	"+": 5, "-": 5, "*": 6, "/": 6, "%": 6, "%/%": 6, "\\": 7, ".*": 8, "./": 8}

// termOps are lang's product operators, all of one precedence; Stan's
// integer division %/% is lang's / on integers (both truncate).
var termOps = map[string]string{"*": "*", "/": "/", ".*": ".*", "./": "./", "%/%": "/"}

// unsupportedOps are Stan's operators the IR has no counterpart for.
var unsupportedOps = map[string]string{
	"%":  "the modulus operator %",
	"\\": `the left division operator \ (A \ b)`,
	".^": "the elementwise power .^",
}

// val is a lowered expression.
type val struct {
	e     *lang.Expr
	level int
	sh    shape
	end   lexer.Position
	// lastSingle is set on a postfix whose last index takes single
	// elements
	lastSingle bool
}

// ---- building lang's nodes ------------------------------------------------

func exprOfUnary(u *lang.Unary, pos, end lexer.Position) *lang.Expr {
	return &lang.Expr{Pos: pos, EndPos: end, Left: &lang.Term{Pos: pos, Left: u}}
}

func exprOfPostfix(p *lang.Postfix, pos, end lexer.Position) *lang.Expr {
	return exprOfUnary(&lang.Unary{Pos: pos, Power: &lang.Power{Pos: pos, Base: p}}, pos, end)
}

func exprOfPrimary(p *lang.Primary) *lang.Expr {
	return exprOfPostfix(&lang.Postfix{Pos: p.Pos, Prim: p}, p.Pos, p.EndPos)
}

// paren wraps v in parentheses: a primary.
func paren(v val) val {
	p := &lang.Primary{Pos: v.e.Pos, EndPos: v.end, Paren: v.e}
	return val{e: exprOfPrimary(p), level: levPostfix, sh: v.sh, end: v.end}
}

// asTerm returns v as a Term, parenthesised if it binds more loosely.
func asTerm(v val) *lang.Term {
	if v.level < levTerm {
		v = paren(v)
	}
	return v.e.Left
}

// asUnary returns v as a Unary.
func asUnary(v val) *lang.Unary {
	if v.level < levUnary {
		v = paren(v)
	}
	return v.e.Left.Left
}

// asPostfix returns v as a Postfix.
func asPostfix(v val) *lang.Postfix {
	if v.level < levPostfix {
		v = paren(v)
	}
	return v.e.Left.Left.Power.Base
}

// binary builds l op r for one of lang's Expr operators.
func binary(op string, opPos lexer.Position, l, r val) val {
	p := exprPrec[op]
	out := &lang.Expr{Pos: l.e.Pos, EndPos: r.end}
	switch {
	case l.level >= levTerm:
		out.Left = asTerm(l)
	case l.level >= p:
		out.Left, out.Rest = l.e.Left, append(out.Rest, l.e.Rest...)
	default:
		out.Left = asTerm(paren(l))
	}
	ot := &lang.OpTerm{Pos: opPos}
	if op == "<" || op == ">" {
		ot.Cmp = op
	} else {
		ot.Op = op
	}
	switch {
	case r.level >= levTerm:
		ot.Term = asTerm(r)
		out.Rest = append(out.Rest, ot)
	case r.level > p:
		ot.Term = r.e.Left
		out.Rest = append(append(out.Rest, ot), r.e.Rest...)
	default:
		ot.Term = asTerm(paren(r))
		out.Rest = append(out.Rest, ot)
	}
	return val{e: out, level: p, end: r.end}
}

// product builds l op r for one of lang's Term operators.
func product(op string, opPos lexer.Position, l, r val) val {
	t := asTerm(l)
	nt := &lang.Term{Pos: t.Pos, Left: t.Left, Rest: append(append([]*lang.OpUnary(nil), t.Rest...), &lang.OpUnary{Pos: opPos, Op: op, X: asUnary(r)})}
	return val{e: &lang.Expr{Pos: l.e.Pos, EndPos: r.end, Left: nt}, level: levTerm, end: r.end}
}

// ---- lowering Stan's expressions -------------------------------------------

func (l *lowerer) expr(e *Expr) val {
	c := l.chain(e.Chain.Left, chainOps(e.Chain.Rest))
	if e.Then == nil {
		return c
	}
	a, b := l.expr(e.Then), l.expr(e.Else)
	if c.level == levCond {
		c = paren(c)
	}
	ce := c.e
	if c.level >= levTerm {
		ce = &lang.Expr{Pos: c.e.Pos, EndPos: c.end, Left: asTerm(c)}
	}
	out := &lang.Expr{Pos: ce.Pos, EndPos: b.end, Left: ce.Left, Rest: ce.Rest, Then: a.e, Else: b.e}
	return val{e: out, level: levCond, sh: a.sh, end: b.end}
}

// opnd is a binary operator and its right operand, from either kind of
// chain.
type opnd struct {
	op  string
	pos lexer.Position
	x   *Unary
}

func chainOps(rest []*OpX) []opnd {
	out := make([]opnd, len(rest))
	for i, o := range rest {
		out[i] = opnd{o.Op, o.Pos, o.X}
	}
	return out
}

func boundOps(rest []*BoundOp) []opnd {
	out := make([]opnd, len(rest))
	for i, o := range rest {
		out[i] = opnd{o.Op, o.Pos, o.X}
	}
	return out
}

// chain applies Stan's precedences to a flat chain (precedence climbing,
// all operators left-associative).
func (l *lowerer) chain(first *Unary, rest []opnd) val {
	vals := []val{l.unary(first)}
	for _, o := range rest {
		vals = append(vals, l.unary(o.x))
	}
	k := 0
	var climb func(lhs val, min int) val
	climb = func(lhs val, min int) val {
		for k < len(rest) && stanPrec[rest[k].op] >= min {
			o := rest[k]
			k++
			rhs := vals[k]
			for k < len(rest) && stanPrec[rest[k].op] > stanPrec[o.op] {
				rhs = climb(rhs, stanPrec[o.op]+1)
			}
			lhs = l.apply(o, lhs, rhs)
		}
		return lhs
	}
	return climb(vals[0], 0)
}

// apply lowers one binary operation.
func (l *lowerer) apply(o opnd, a, b val) val {
	if what, ok := unsupportedOps[o.op]; ok {
		l.refuse(o.pos, "%s is not supported", what)
		return a
	}
	if a.sh.arr > 0 || b.sh.arr > 0 {
		if _, arith := termOps[o.op]; arith || o.op == "+" || o.op == "-" {
			l.refuse(o.pos, "%s is not defined on arrays in Stan (an array is no vector)", o.op)
		}
	}
	if op, ok := termOps[o.op]; ok {
		if (o.op == "*" || o.op == "/") && (a.sh.rowish || b.sh.rowish) {
			return l.rowProduct(o, a, b)
		}
		v := product(op, o.pos, a, b)
		v.sh.base = arith(a.sh, b.sh)
		if o.op != "*" && o.op != "/" && (a.sh.rowish || b.sh.rowish) {
			v.sh = rowShape
		}
		return v
	}
	v := binary(o.op, o.pos, a, b)
	if o.op == "+" || o.op == "-" {
		v.sh.base = arith(a.sh, b.sh)
		if a.sh.rowish || b.sh.rowish {
			v.sh = rowShape
		}
	} else {
		v.sh.base = "int" // comparisons and logical operators
	}
	return v
}

// rowShape is the shape of a Stan row_vector, a vector in the IR.
var rowShape = shape{base: "row_vector", rowish: true}

// rowProduct lowers a * b or a / b where a row_vector (a vector in the
// IR) is an operand, as Stan means it: times or over a scalar it is
// elementwise, a row_vector times a vector is their dot product, a
// row_vector times a matrix is the row (M' * r in the IR), and a vector
// times a row_vector their outer product (v * to_vector(r)', the
// language's). The others are refused.
func (l *lowerer) rowProduct(o opnd, a, b val) val {
	switch {
	case o.op == "*" && a.sh.scalar(), b.sh.scalar():
		v := product(o.op, o.pos, a, b)
		v.sh = rowShape
		return v
	case o.op == "*" && a.sh.rowish && b.sh.base == "vector" && b.sh.arr == 0 && !b.sh.rowish:
		v := callVal("dot_product", o.pos, a, b)
		v.sh = shape{base: "real"}
		return v
	case o.op == "*" && a.sh.rowish && b.sh.base == "matrix" && b.sh.arr == 0:
		v := product("*", o.pos, transposed(b), a)
		v.sh = rowShape
		return v
	}
	if o.op == "*" && b.sh.rowish && a.sh.base == "vector" && a.sh.arr == 0 && !a.sh.rowish {
		// the outer product: the row made the language's row_vector,
		// to_vector(r)' (r is a vector or a matrix row in the IR)
		row := transposed(callVal("to_vector", b.e.Pos, b))
		row.end = b.end
		v := product("*", o.pos, a, row)
		v.sh = shape{base: "matrix"}
		return v
	}
	l.rowRefuse(o.pos, "as an operand of "+o.op+" here")
	return a
}

// transposed is x' (x known to be a matrix).
func transposed(x val) val {
	pf := asPostfix(x)
	if pf.Trans {
		pf = asPostfix(paren(x))
	}
	npf := &lang.Postfix{Pos: pf.Pos, Prim: pf.Prim, Indexes: pf.Indexes, Trans: true}
	return val{e: exprOfPostfix(npf, npf.Pos, x.end), level: levPostfix, sh: shape{base: "matrix"}, end: x.end}
}

// arith is the base type of an arithmetic result, as far as known.
func arith(a, b shape) string {
	switch {
	case a.base == "int" && b.base == "int" && a.arr == 0 && b.arr == 0:
		return "int"
	case a.scalar() && b.scalar():
		return "real"
	}
	return ""
}

func (l *lowerer) unary(u *Unary) val {
	if u.Power != nil {
		return l.power(u.Power)
	}
	x := l.unary(u.X)
	nu := &lang.Unary{Pos: u.Pos, Op: u.Op, X: asUnary(x)}
	sh := x.sh
	if u.Op == "!" {
		sh = shape{base: "int"}
	}
	return val{e: exprOfUnary(nu, u.Pos, x.end), level: levUnary, sh: sh, end: x.end}
}

func (l *lowerer) power(p *Power) val {
	b := l.postfix(p.Base)
	if p.Exp == nil {
		return b
	}
	if p.Op == ".^" {
		l.refuse(p.Pos, "%s is not supported", unsupportedOps[".^"])
	}
	x := l.unary(p.Exp)
	np := &lang.Power{Pos: p.Pos, Base: asPostfix(b), Exp: asUnary(x)}
	e := exprOfUnary(&lang.Unary{Pos: p.Pos, Power: np}, p.Pos, x.end)
	return val{e: e, level: levPower, sh: shape{base: arith(b.sh, x.sh)}, end: x.end}
}

func (l *lowerer) postfix(p *Postfix) val {
	v := l.primary(p.Prim)
	for _, o := range p.Ops {
		pf := asPostfix(v)
		if o.Trans {
			switch {
			case v.sh.rowish && !v.sh.mrow:
				// a Stan row_vector that is a vector of the language, or
				// may be: its transpose is to_vector(r)
				if pf.Prim.Paren != nil && len(pf.Indexes) == 0 && !pf.Trans {
					v.e = pf.Prim.Paren // to_vector(2 * r), not to_vector((2 * r))
				}
				v = callVal("to_vector", v.e.Pos, v)
				v.sh = shape{base: "vector"}
				v.end = o.EndPos
				continue
			case v.sh.base == "vector" && v.sh.arr == 0:
				// and the transpose of a vector a row_vector
				v.sh = rowShape
				v.end = o.EndPos
				continue
			case pf.Trans:
				pf = asPostfix(paren(v))
			}
			npf := &lang.Postfix{Pos: pf.Pos, Prim: pf.Prim, Indexes: pf.Indexes, Trans: true}
			sh := shape{}
			switch {
			case v.sh.base == "matrix" && v.sh.arr == 0:
				sh.base = "matrix"
			case v.sh.mrow: // a row_vector of the language: r' is the column vector
				sh.base = "vector"
			}
			v = val{e: exprOfPostfix(npf, npf.Pos, o.EndPos), level: levPostfix, sh: sh, end: o.EndPos}
			continue
		}
		// a[i][j] is a[i, j] when a[i] takes single elements (a row of a
		// matrix then is no row_vector of the IR's)
		merge := v.lastSingle && !pf.Trans && len(pf.Indexes) > 0
		if pf.Trans {
			pf = asPostfix(paren(v))
		}
		ix := &lang.Index{Pos: o.Pos, EndPos: o.EndPos}
		indexes := append([]*lang.Index(nil), pf.Indexes...)
		if k := len(indexes); merge {
			prev := indexes[k-1]
			ix = &lang.Index{Pos: prev.Pos, EndPos: o.EndPos, Slots: append([]*lang.Slot(nil), prev.Slots...)}
			indexes = indexes[:k-1]
		}
		var single []bool
		sure := true // every slot is known to take one element
		for _, s := range o.Index {
			ns := &lang.Slot{Pos: s.Pos, Colon: s.Colon}
			if s.Lo == nil && !s.Colon && s.Hi == nil && len(o.Index) > 1 {
				ns.Colon = true // Stan's omitted index, a[k, ], is every element: a[k, :]
			}
			one := !ns.Colon
			if s.Lo != nil {
				lo := l.expr(s.Lo)
				ns.Lo = lo.e
				one = one && !lo.sh.nonScalar()
				sure = sure && one && lo.sh.scalar()
			} else {
				sure = false
			}
			if s.Hi != nil {
				ns.Hi = l.expr(s.Hi).e
			}
			ix.Slots = append(ix.Slots, ns)
			single = append(single, one)
		}
		npf := &lang.Postfix{Pos: pf.Pos, Prim: pf.Prim, Indexes: append(indexes, ix)}
		v = val{e: exprOfPostfix(npf, npf.Pos, o.EndPos), level: levPostfix, sh: v.sh.index(single), end: o.EndPos,
			lastSingle: sure}
	}
	return v
}

func (l *lowerer) primary(p *Primary) val {
	np := &lang.Primary{Pos: p.Pos, EndPos: p.EndPos}
	sh := shape{}
	switch {
	case p.Imag != nil:
		l.refuse(p.Pos, "complex numbers (%s) are not supported", *p.Imag)
		np.Number = new(string)
		*np.Number = "0"
	case p.Number != nil:
		n := strings.ReplaceAll(*p.Number, "_", "") // Stan's 10_000
		if strings.HasSuffix(n, ".") {
			n += "0" // Stan's 5. is 5.0
		}
		n = strings.Replace(strings.Replace(n, ".e", ".0e", 1), ".E", ".0E", 1)
		np.Number = &n
		sh.base = "real"
		if !strings.ContainsAny(n, ".eE") {
			sh.base = "int"
			l.checkIntLiteral(n, p.Pos)
		}
	case p.String != nil:
		if !l.inMessage {
			l.refuse(p.Pos, "a string is a value only in print, reject and fatal_error")
		}
		// lang's strings hold the unquoted text
		str := strings.TrimSuffix(strings.TrimPrefix(*p.String, `"`), `"`)
		if u, err := strconv.Unquote(*p.String); err == nil {
			str = u
		}
		np.String = &str
	case p.Call != nil:
		if _, user := l.funcs[p.Call.Name]; user && l.declared(p.Call.Name) {
			// (a variable may take the name of a library function)
			l.refuse(p.Call.Pos, "%s is a variable here, which hides the function %s", p.Call.Name, p.Call.Name)
		}
		if l.voids[p.Call.Name] && p.Call != l.stmtCall && !l.declared(p.Call.Name) {
			e := l.refuse(p.Call.Pos, "%s is a void function: it returns no value, and is not a value in an expression", p.Call.Name)
			e.Hint = "call it as a statement: " + p.Call.Name + "(...);"
		}
		np.Call, sh = l.call(p.Call)
	case p.Ident != nil:
		np.Ident = p.Ident
		sh = l.lookup(*p.Ident)
	case p.Paren != nil:
		x := l.expr(p.Paren)
		np.Paren = x.e
		sh = x.sh
	case p.Array != nil:
		for _, e := range p.Array {
			x := l.expr(e)
			np.Array = append(np.Array, x.e)
			sh = x.sh
		}
		sh.arr++
		sh.rowish = false
	default:
		// [a, b] of scalars is the row_vector to_vector({a, b})
		var elems []*lang.Expr
		for _, e := range p.Row {
			x := l.expr(e)
			if !x.sh.scalar() {
				l.refuse(e.Pos, "a row-vector literal [a, b, ...] is supported with scalar elements only")
			}
			elems = append(elems, x.e)
		}
		if len(elems) == 0 {
			l.refuse(p.Pos, "an empty row-vector literal [] is not supported")
		}
		arr := exprOfPrimary(&lang.Primary{Pos: p.Pos, EndPos: p.EndPos, Array: elems})
		np.Call = &lang.Call{Pos: p.Pos, EndPos: p.EndPos, Name: "to_vector", Args: []*lang.Expr{arr}}
		sh = rowShape
	}
	return val{e: exprOfPrimary(np), level: levPostfix, sh: sh, end: p.EndPos}
}

// unsupportedCalls are Stan's functions and statements whose meaning the
// IR cannot give, named in the message.
var unsupportedCalls = map[string]string{
	"target":                "target() (the log density accumulated so far)",
	"get_lp":                "get_lp()",
	"algebra_solver":        "the algebraic solver algebra_solver",
	"algebra_solver_newton": "the algebraic solver algebra_solver_newton",
	"solve_newton":          "the algebraic solver solve_newton",
	"solve_powell":          "the algebraic solver solve_powell",
	"map_rect":              "map_rect",
	"reduce_sum":            "reduce_sum",
	"reduce_sum_static":     "reduce_sum_static",
	"integrate_1d":          "integrate_1d",
}

// rowFuncs are Stan's functions that make a row_vector, with the IR's
// function that makes the same values as a vector.
var rowFuncs = map[string]string{"to_row_vector": "to_vector", "rep_row_vector": "rep_vector"}

func (l *lowerer) call(c *Call) (_ *lang.Call, sh shape) {
	if what, ok := unsupportedCalls[c.Name]; ok {
		l.refuse(c.Pos, "%s is not supported", what)
	}
	if strings.HasSuffix(c.Name, "_jacobian") {
		l.refuse(c.Pos, "_jacobian functions (%s) are not supported", c.Name)
	}
	l.checkCall(c)
	l.checkRemoved(c)
	l.checkODE(c)
	nc := &lang.Call{Pos: c.Pos, EndPos: c.EndPos, Name: c.Name, Bar: c.Bar}
	if name, ok := rowFuncs[c.Name]; ok {
		nc.Name = name
		defer func() { sh = rowShape }()
	}
	ps := l.params[c.Name]
	l.checkDataArgs(c)
	for i, a := range c.Args {
		x := l.expr(a)
		if i < len(ps) && ps[i].arr == 0 && x.sh.arr == 0 && (ps[i].base == "row_vector" && x.sh.base == "vector" || ps[i].base == "vector" && x.sh.base == "row_vector") {
			l.refuse(a.Pos, "%s takes a %s here, not a %s", c.Name, ps[i].base, x.sh.base)
		}
		if x.sh.rowish && ir.RowRefused(c.Name) {
			l.rowRefuse(a.Pos, "as an argument of "+c.Name)
		}
		nc.Args = append(nc.Args, x.e)
	}
	for _, a := range c.Given {
		x := l.expr(a)
		if x.sh.rowish && ir.RowRefused(c.Name) {
			l.rowRefuse(a.Pos, "as an argument of "+c.Name)
		}
		nc.Given = append(nc.Given, x.e)
	}
	return nc, l.result(c.Name)
}

// boundVal lowers the value of a bound.
func (l *lowerer) boundVal(b *BoundChain) val { return l.chain(b.Left, boundOps(b.Rest)) }
