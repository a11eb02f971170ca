package ir

func FoldConst(e Expr) (float64, bool) {
	switch e := e.(type) {
	case *Num:
		return e.V, true
	case *Ref:
		if (e.Var.Kind == SizeVar || e.Var.Kind == DataVar) && e.Var.Type.Scalar() && len(e.Var.Value) == 1 {
			return e.Var.Value[0], true
		}
		if e.Var.Kind == LocalVar && len(e.Var.Known) == 1 {
			return e.Var.Known[0], true
		}
	case *Unary:
		x, ok := FoldConst(e.X)
		return -x, ok
	case *Binary:
		x, ok1 := FoldConst(e.X)
		y, ok2 := FoldConst(e.Y)
		if !ok1 || !ok2 {
			return 0, false
		}
		if IntDivByZero(e, y) {
			return 0, false
		}
		return ApplyOp(e.Op, x, y, e.T.Kind == Int), true
	case *Not:
		x, ok := FoldConst(e.X)
		return BoolToFloat(x == 0), ok
	case *Cond:
		c, ok := FoldConst(e.C)
		if !ok {
			return 0, false
		}
		if c != 0 {
			return FoldConst(e.A)
		}
		return FoldConst(e.B)
	}
	return 0, false
}

func Plural1(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
