package ir

import (
	"strconv"
	"strings"
)

// FormatExpr renders an IR expression in .msc syntax, for messages.
func FormatExpr(e Expr) string {
	var b strings.Builder
	formatExpr(&b, e, -10)
	return b.String()
}

func Prec(e Expr) int {
	switch e := e.(type) {
	case *Binary:
		switch e.Op {
		case OpOr, OpAnd:
			return -2
		case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
			return -1
		case OpAdd, OpSub:
			return 1
		case OpMul, OpDiv, OpEMul, OpEDiv, OpMod:
			return 2
		default:
			return 4
		}
	case *Unary, *Not:
		return 3
	case *Cond:
		return -3
	}
	return 5
}

func formatExpr(b *strings.Builder, e Expr, outer int) {
	p := Prec(e)
	if p < outer {
		b.WriteByte('(')
		defer b.WriteByte(')')
	}
	switch e := e.(type) {
	case *Num:
		b.WriteString(strconv.FormatFloat(e.V, 'g', -1, 64))
	case *Ref:
		b.WriteString(e.Var.Name)
	case *Index:
		formatExpr(b, e.X, 5)
		b.WriteByte('[')
		for i, x := range e.Idx {
			if i > 0 {
				b.WriteString(", ")
			}
			formatExpr(b, x, -10)
		}
		b.WriteByte(']')
	case *Unary:
		b.WriteByte('-')
		formatExpr(b, e.X, 3)
	case *Not:
		b.WriteByte('!')
		formatExpr(b, e.X, 3)
	case *Cond:
		formatExpr(b, e.C, -2)
		b.WriteString(" ? ")
		formatExpr(b, e.A, -3)
		b.WriteString(" : ")
		formatExpr(b, e.B, -3)
	case *Inline:
		b.WriteString(e.Name + "(...)")
	case *ODECall:
		b.WriteString(e.Name + "(" + e.Fn + ", ...)")
	case *MatCall:
		if e.Postfix {
			formatExpr(b, e.Args[0], 5)
			b.WriteByte('\'')
			return
		}
		b.WriteString(e.Name + "(...)")
	case *Builtin:
		if e.Def == VecTranspose {
			formatExpr(b, e.Args[0], 5)
			b.WriteByte('\'')
			return
		}
		if e.Def == ArrayLit {
			b.WriteByte('{')
			for i, a := range e.Args {
				if i > 0 {
					b.WriteString(", ")
				}
				formatExpr(b, a, 0)
			}
			b.WriteByte('}')
			return
		}
		b.WriteString(e.Name + "(...)")
	case *Rng:
		b.WriteString(e.Dist.Name + "_rng(...)")
	case *Slice:
		formatExpr(b, e.X, 5)
		b.WriteString("[...]")
	case *NaryCall:
		b.WriteString(e.Name + "(")
		for i, x := range e.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			formatExpr(b, x, -10)
		}
		b.WriteByte(')')
	case *Density:
		b.WriteString(e.Name + "(")
		for i, x := range e.Args {
			switch i {
			case 0:
			case 1:
				b.WriteString(" | ")
			default:
				b.WriteString(", ")
			}
			formatExpr(b, x, -10)
		}
		b.WriteByte(')')
	case *Binary:
		l, r := p, p+1
		if e.Op == OpPow {
			l, r = p+1, p
		}
		formatExpr(b, e.X, l)
		b.WriteString(" " + e.Op.String() + " ")
		formatExpr(b, e.Y, r)
	case *Call:
		b.WriteString(e.Name)
		b.WriteByte('(')
		for i, x := range e.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			formatExpr(b, x, -10)
		}
		b.WriteByte(')')
	}
}
