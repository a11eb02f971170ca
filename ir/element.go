package ir

// Element is element k (0-based) of an elementwise vector expression (a
// scalar is its own element), or false when e is not elementwise.
func Element(e Expr, k int) (Expr, bool) {
	t := e.Type()
	if t.Scalar() {
		return e, true
	}
	if t.Kind != Vector {
		return nil, false
	}
	et := TReal
	num := func(v int) Expr { return &Num{ExprBase: ExprBase{P: e.Pos(), T: TInt}, V: float64(v)} }
	switch e := e.(type) {
	case *Ref:
		if t.IntElems {
			et = TInt
		}
		return &Index{ExprBase: ExprBase{P: e.Pos(), T: et}, X: e, Idx: []Expr{num(k + 1)}}, true
	case *Slice: // x[a:b]: element k is x[a + k]; M[a:b, j]: M[a + k, j]
		xt := e.X.Type()
		switch {
		case xt.Kind == Vector:
			if xt.IntElems {
				et = TInt
			}
			return &Index{ExprBase: ExprBase{P: e.Pos(), T: et}, X: e.X, Idx: []Expr{num(e.Lo[0] + k)}}, true
		case xt.Kind == Matrix && e.Keep[0] && !e.Keep[1]:
			return &Index{ExprBase: ExprBase{P: e.Pos(), T: et}, X: e.X, Idx: []Expr{num(e.Lo[0] + k), e.Index(1)}}, true
		}
		return nil, false
	case *Builtin: // col(M, j): element k is M[k + 1, j]
		if e.Def == nil || e.Def != FnCol || e.Args[0].Type().Kind != Matrix {
			return nil, false
		}
		return &Index{ExprBase: ExprBase{P: e.Pos(), T: et}, X: e.Args[0], Idx: []Expr{num(k + 1), num(e.Ints[0])}}, true
	case *Unary:
		x, ok := Element(e.X, k)
		if !ok {
			return nil, false
		}
		return &Unary{ExprBase: ExprBase{P: e.Pos(), T: x.Type()}, X: x}, true
	case *Binary:
		if e.MatVec {
			return nil, false
		}
		switch e.Op {
		case OpMul, OpDiv:
			if !e.X.Type().Scalar() && !e.Y.Type().Scalar() {
				return nil, false // a product of two vectors is not elementwise
			}
		case OpPow:
			return nil, false
		}
		x, ok1 := Element(e.X, k)
		y, ok2 := Element(e.Y, k)
		if !ok1 || !ok2 {
			return nil, false
		}
		op := e.Op
		switch op {
		case OpEMul:
			op = OpMul
		case OpEDiv:
			op = OpDiv
		}
		rt := TReal
		if op.Logical() {
			rt = TInt
		}
		return &Binary{ExprBase: ExprBase{P: e.Pos(), T: rt}, Op: op, X: x, Y: y}, true
	case *Call:
		if e.Def == nil || !e.Def.Elementwise || len(e.Args) != 1 {
			return nil, false
		}
		x, ok := Element(e.Args[0], k)
		if !ok {
			return nil, false
		}
		return &Call{ExprBase: ExprBase{P: e.Pos(), T: TReal}, Name: e.Name, Def: e.Def, Args: []Expr{x}}, true
	case *NaryCall:
		args := make([]Expr, len(e.Args))
		for i, a := range e.Args {
			var ok bool
			if args[i], ok = Element(a, k); !ok {
				return nil, false
			}
		}
		return &NaryCall{ExprBase: ExprBase{P: e.Pos(), T: TReal}, Name: e.Name, Fn: e.Fn, Args: args}, true
	}
	return nil, false
}
