package lang

import "strings"

// String renders an expression in source form.
func (e *Expr) String() string {
	var b strings.Builder
	e.write(&b)
	return b.String()
}

func (e *Expr) write(b *strings.Builder) {
	e.Left.write(b)
	for _, r := range e.Rest {
		b.WriteString(" " + r.Op + " ")
		r.Term.write(b)
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
		for i, a := range ix.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			a.write(b)
		}
		b.WriteByte(']')
	}
}

func (p *Primary) write(b *strings.Builder) {
	switch {
	case p.Number != nil:
		b.WriteString(*p.Number)
	case p.String != nil:
		b.WriteString(`"` + *p.String + `"`)
	case p.Call != nil:
		p.Call.write(b)
	case p.Ident != nil:
		b.WriteString(*p.Ident)
	case p.Paren != nil:
		b.WriteByte('(')
		p.Paren.write(b)
		b.WriteByte(')')
	}
}

func (c *Call) write(b *strings.Builder) {
	b.WriteString(c.Name + "(")
	for i, a := range c.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		a.write(b)
	}
	b.WriteByte(')')
}

// String renders a call in source form.
func (c *Call) String() string {
	var b strings.Builder
	c.write(&b)
	return b.String()
}
