package lang

// Inspect traverses the CST rooted at n in depth-first source order,
// calling f for each node; if f returns false, Inspect skips the node's
// children. Nil children are skipped. Only the tests walk the whole tree
// (the position checks of TestPositions and FuzzParse); package ir walks
// the parts it lowers itself.
func Inspect(n Node, f func(Node) bool) {
	if n == nil || !f(n) {
		return
	}
	switch n := n.(type) {
	case *File:
		for _, b := range n.Blocks {
			Inspect(b, f)
		}
	case *Block:
		for _, it := range n.Items {
			Inspect(it, f)
		}
	case *Item:
		switch {
		case n.Decl != nil:
			Inspect(n.Decl, f)
		case n.Func != nil:
			Inspect(n.Func, f)
		case n.Stmt != nil:
			Inspect(n.Stmt, f)
		}
	case *FuncDef:
		if n.Result != nil { // nil for a void function
			Inspect(n.Result, f)
		}
		for _, s := range n.Body {
			Inspect(s, f)
		}
	case *Decl:
		Inspect(n.Type, f)
		if n.From != nil {
			Inspect(n.From, f)
		}
		inspectExpr(n.Init, f)
	case *Type:
		for _, b := range n.Bounds {
			Inspect(b, f)
		}
		for _, d := range n.Dims {
			inspectExpr(d, f)
		}
		for _, b := range n.After {
			Inspect(b, f)
		}
	case *Bound:
		inspectExpr(n.Value, f)
	case *Stmt:
		switch {
		case n.Decl != nil:
			Inspect(n.Decl, f)
		case n.For != nil:
			Inspect(n.For, f)
		case n.If != nil:
			Inspect(n.If, f)
		case n.Target != nil:
			Inspect(n.Target, f)
		case n.Return != nil:
			Inspect(n.Return, f)
		case n.Message != nil:
			Inspect(n.Message, f)
		case n.Simple != nil:
			Inspect(n.Simple, f)
		}
	case *If:
		inspectExpr(n.Cond, f)
		for _, s := range n.Then {
			Inspect(s, f)
		}
		if n.ElseIf != nil {
			Inspect(n.ElseIf, f)
		}
		for _, s := range n.Else {
			Inspect(s, f)
		}
	case *For:
		inspectExpr(n.Lo, f)
		inspectExpr(n.Hi, f)
		for _, s := range n.Body {
			Inspect(s, f)
		}
	case *Message:
		for _, a := range n.Args {
			inspectExpr(a, f)
		}
	case *Simple:
		inspectExpr(n.LHS, f)
		if n.Tilde != nil {
			Inspect(n.Tilde, f)
		}
		inspectExpr(n.Assign, f)
	case *Expr:
		Inspect(n.Left, f)
		for _, r := range n.Rest {
			Inspect(r, f)
		}
	case *OpTerm:
		Inspect(n.Term, f)
	case *Term:
		Inspect(n.Left, f)
		for _, r := range n.Rest {
			Inspect(r, f)
		}
	case *OpUnary:
		Inspect(n.X, f)
	case *Unary:
		if n.Power != nil {
			Inspect(n.Power, f)
		} else if n.X != nil {
			Inspect(n.X, f)
		}
	case *Power:
		Inspect(n.Base, f)
		if n.Exp != nil {
			Inspect(n.Exp, f)
		}
	case *Postfix:
		Inspect(n.Prim, f)
		for _, ix := range n.Indexes {
			Inspect(ix, f)
		}
	case *Index:
		for _, sl := range n.Slots {
			inspectExpr(sl.Lo, f)
			inspectExpr(sl.Hi, f)
		}
	case *Primary:
		if n.Call != nil {
			Inspect(n.Call, f)
		}
		inspectExpr(n.Paren, f)
	case *Call:
		for _, a := range n.Args {
			inspectExpr(a, f)
		}
		for _, a := range n.Given {
			inspectExpr(a, f)
		}
	}
}

// inspectExpr avoids passing a typed nil *Expr as a non-nil Node.
func inspectExpr(e *Expr, f func(Node) bool) {
	if e != nil {
		Inspect(e, f)
	}
}
