package lang

import (
	"strconv"
	"strings"
)

// FormatExpr renders an expression in source form, for messages and tests:
// binary operators are surrounded by single spaces, arguments and indices
// are separated by ", ", parentheses are kept as written, and numbers keep
// their spelling. Parsing the result gives back the same tree.
func FormatExpr(e *Expr) string {
	if e == nil {
		return ""
	}
	var b strings.Builder
	e.write(&b)
	return b.String()
}

// String renders an expression in source form (see FormatExpr).
func (e *Expr) String() string { return FormatExpr(e) }

func (e *Expr) write(b *strings.Builder) {
	e.Left.write(b)
	for _, r := range e.Rest {
		b.WriteString(" " + r.Operator() + " ")
		r.Term.write(b)
	}
	if e.Then != nil {
		b.WriteString(" ? ")
		e.Then.write(b)
		b.WriteString(" : ")
		e.Else.write(b)
	}
}

func (t *Term) write(b *strings.Builder) {
	t.Left.write(b)
	for _, r := range t.Rest {
		b.WriteString(" " + r.Op + " ")
		r.X.write(b)
	}
}

func (u *Unary) write(b *strings.Builder) {
	if u.Power != nil {
		u.Power.write(b)
		return
	}
	b.WriteString(u.Op)
	u.X.write(b)
}

func (p *Power) write(b *strings.Builder) {
	p.Base.write(b)
	if p.Exp != nil {
		b.WriteString("^")
		p.Exp.write(b)
	}
}

func (p *Postfix) write(b *strings.Builder) {
	p.Prim.write(b)
	for _, ix := range p.Indexes {
		b.WriteByte('[')
		for i, sl := range ix.Slots {
			if i > 0 {
				b.WriteString(", ")
			}
			if sl.Lo != nil {
				sl.Lo.write(b)
			}
			if sl.Colon {
				b.WriteByte(':')
				if sl.Hi != nil {
					sl.Hi.write(b)
				}
			}
		}
		b.WriteByte(']')
	}
	if p.Trans {
		b.WriteByte('\'')
	}
}

func (p *Primary) write(b *strings.Builder) {
	switch {
	case p.Number != nil:
		b.WriteString(*p.Number)
	case p.String != nil:
		b.WriteString(quote(*p.String))
	case p.Call != nil:
		p.Call.write(b)
	case p.Ident != nil:
		b.WriteString(*p.Ident)
	case p.Paren != nil:
		b.WriteByte('(')
		p.Paren.write(b)
		b.WriteByte(')')
	case p.Array != nil:
		b.WriteByte('{')
		writeList(b, p.Array)
		b.WriteByte('}')
	}
}

func (c *Call) write(b *strings.Builder) {
	b.WriteString(c.Name + "(")
	writeList(b, c.Args)
	if c.Bar {
		b.WriteString(" | ")
		writeList(b, c.Given)
	}
	b.WriteByte(')')
}

func writeList(b *strings.Builder, list []*Expr) {
	for i, a := range list {
		if i > 0 {
			b.WriteString(", ")
		}
		a.write(b)
	}
}

// quote re-escapes a string literal unquoted by the parser.
func quote(s string) string { return strconv.Quote(s) }

// String renders a call in source form.
func (c *Call) String() string {
	var b strings.Builder
	c.write(&b)
	return b.String()
}

// String renders a type in source form, as in vector<lower=0>[N].
func (t *Type) String() string {
	var b strings.Builder
	if t.IsArray {
		b.WriteString("array[")
		if len(t.Array) > 0 {
			writeList(&b, t.Array)
		} else {
			b.WriteString(strings.Repeat(",", len(t.Unsized)))
		}
		b.WriteString("] ")
	}
	b.WriteString(t.Base.String())
	if bs := t.AllBounds(); len(bs) > 0 {
		b.WriteByte('<')
		for i, x := range bs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(x.Which + "=")
			x.Value.write(&b)
		}
		b.WriteByte('>')
	}
	if len(t.Dims) > 0 {
		b.WriteByte('[')
		writeList(&b, t.Dims)
		b.WriteByte(']')
	}
	return b.String()
}
