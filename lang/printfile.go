package lang

import (
	"strings"
)

// FormatFile renders a file's tree as .msc source: one item per line,
// blocks and bodies indented by two spaces, expressions as FormatExpr
// writes them. Comments are not in the tree and are not printed. It is
// how a tree built otherwise (a Stan program lowered by package
// lang/stan) is shown as the .msc program it is; parsing the result gives
// back the same tree, positions aside.
func FormatFile(f *File) string {
	var p filePrinter
	for i, b := range f.Blocks {
		if i > 0 {
			p.b.WriteByte('\n')
		}
		p.line(0, b.Kind+" {")
		for k, it := range b.Items {
			switch {
			case it.Decl != nil:
				p.line(1, declLine(it.Decl, k+1 < len(b.Items) && b.Items[k+1].Decl == nil))
			case it.Func != nil:
				p.funcDef(it.Func)
			default:
				p.stmt(1, it.Stmt)
			}
		}
		p.line(0, "}")
	}
	return p.b.String()
}

type filePrinter struct{ b strings.Builder }

func (p *filePrinter) line(depth int, s string) {
	p.b.WriteString(strings.Repeat("  ", depth))
	p.b.WriteString(s)
	p.b.WriteByte('\n')
}

func (p *filePrinter) funcDef(fd *FuncDef) {
	var ps []string
	for _, a := range fd.Params {
		t := a.Base.String()
		if a.Array {
			t = "array[" + strings.Join(a.Commas, "") + "] " + t
		}
		ps = append(ps, a.Name+": "+t)
	}
	result := "void"
	if !fd.Void {
		result = FormatType(fd.Result)
	}
	p.line(1, fd.Name+"("+strings.Join(ps, ", ")+") -> "+result+" {")
	p.stmts(2, fd.Body)
	p.line(1, "}")
}

func (p *filePrinter) stmts(depth int, ss []*Stmt) {
	for k, s := range ss {
		if s.Decl != nil {
			p.line(depth, declLine(s.Decl, k+1 < len(ss) && ss[k+1].Decl == nil))
			continue
		}
		p.stmt(depth, s)
	}
}

func (p *filePrinter) stmt(depth int, s *Stmt) {
	switch {
	case s.Decl != nil:
		p.line(depth, formatDecl(s.Decl))
	case s.For != nil:
		p.line(depth, "for "+s.For.Var+" in "+FormatExpr(s.For.Lo)+".."+FormatExpr(s.For.Hi)+" {")
		p.stmts(depth+1, s.For.Body)
		p.line(depth, "}")
	case s.While != nil:
		p.line(depth, "while "+FormatExpr(s.While.Cond)+" {")
		p.stmts(depth+1, s.While.Body)
		p.line(depth, "}")
	case s.Break:
		p.line(depth, "break")
	case s.Continue:
		p.line(depth, "continue")
	case s.If != nil:
		p.ifStmt(depth, s.If, "")
		p.line(depth, "}")
	case s.Target != nil:
		p.line(depth, "target += "+FormatExpr(s.Target))
	case s.Return != nil:
		p.line(depth, "return "+FormatExpr(s.Return))
	case s.Message != nil:
		args := make([]string, len(s.Message.Args))
		for i, a := range s.Message.Args {
			args[i] = FormatExpr(a)
		}
		p.line(depth, s.Message.Kind+"("+strings.Join(args, ", ")+")")
	case s.Scope != nil:
		p.line(depth, "{")
		p.stmts(depth+1, s.Scope.Body)
		p.line(depth, "}")
	case s.Simple != nil:
		sm := s.Simple
		lhs := FormatExpr(sm.LHS)
		switch {
		case sm.Tilde != nil:
			p.line(depth, lhs+" ~ "+formatCall(sm.Tilde))
		case sm.Assign != nil:
			p.line(depth, lhs+" = "+FormatExpr(sm.Assign))
		case sm.Compound == "": // a call of a void function
			p.line(depth, lhs)
		default:
			p.line(depth, lhs+" "+sm.Compound+" "+FormatExpr(sm.Value))
		}
	}
}

// ifStmt prints if c { ... } [} else if ... | } else { ...], without the
// closing brace.
func (p *filePrinter) ifStmt(depth int, f *If, lead string) {
	p.line(depth, lead+"if "+FormatExpr(f.Cond)+" {")
	p.stmts(depth+1, f.Then)
	switch {
	case f.ElseIf != nil:
		p.ifStmt(depth, f.ElseIf, "} else ")
	case f.Else != nil:
		p.line(depth, "} else {")
		p.stmts(depth+1, f.Else)
	}
}

func formatCall(c *Call) string {
	return FormatExpr(&Expr{Left: &Term{Left: &Unary{Power: &Power{Base: &Postfix{Prim: &Primary{Call: c}}}}}})
}

// declLine is a declaration's line, ended by ";" when its type ends with
// its bounds (s: real<lower=0>) and a statement follows (stmtNext), whose
// first word would otherwise be read as the right of a comparison with
// the last bound.
func declLine(d *Decl, stmtNext bool) string {
	if stmtNext && d.Init == nil && len(d.Type.Dims) == 0 && len(d.Type.AllBounds()) > 0 {
		return formatDecl(d) + ";"
	}
	return formatDecl(d)
}

func formatDecl(d *Decl) string {
	s := d.Name + ": " + FormatType(d.Type)
	if d.Init != nil {
		s += " = " + FormatExpr(d.Init)
	}
	return s
}

// FormatType renders a type in source form: array[N] real<lower=0>,
// vector<lower=0>[N], array[] real.
func FormatType(t *Type) string {
	var b strings.Builder
	if t.IsArray {
		b.WriteString("array[")
		if len(t.Array) > 0 {
			b.WriteString(exprList(t.Array))
		} else {
			b.WriteString(strings.Join(t.Unsized, ""))
		}
		b.WriteString("] ")
	}
	b.WriteString(t.Base.String())
	if bs := t.AllBounds(); len(bs) > 0 {
		var parts []string
		for _, bd := range bs {
			parts = append(parts, bd.Which+"="+FormatExpr(bd.Value))
		}
		b.WriteString("<" + strings.Join(parts, ", ") + ">")
	}
	if len(t.Dims) > 0 {
		b.WriteString("[" + exprList(t.Dims) + "]")
	}
	return b.String()
}

func exprList(es []*Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = FormatExpr(e)
	}
	return strings.Join(parts, ", ")
}
