package ir

// DerivedUsesLatents reports whether constrained latent component j is a
// derived quantity that depends on latents (directly or through other
// derived quantities); false for one of params and data alone.
func (m *Model) DerivedUsesLatents(j int) bool {
	for _, v := range m.Latents {
		if j >= v.XOffset && j < v.XOffset+v.Type.Len() {
			return v.Derived == nil || UsesLatents(v.Derived)
		}
	}
	return true
}

func UsesLatents(e Expr) bool {
	found := false
	WalkExpr(e, func(x Expr) {
		if r, ok := x.(*Ref); ok && r.Var.Kind == LatentVar {
			if r.Var.Derived == nil || UsesLatents(r.Var.Derived) {
				found = true
			}
		}
		if r, ok := x.(*Ref); ok && r.Var.Kind == LocalVar && !r.Var.DataOnly {
			found = true // a local of the derived block's statements
		}
		switch x.(type) {
		case *Inline, *Rng:
			found = true // conservatively; a draw varies per evaluation
		}
	})
	return found
}

// WalkExpr calls f on e and its subexpressions.
func WalkExpr(e Expr, f func(Expr)) {
	f(e)
	for _, c := range Children(e) {
		WalkExpr(c, f)
	}
}

// Children are the direct subexpressions of e (not the statements of an
// inlined function).
func Children(e Expr) []Expr {
	switch e := e.(type) {
	case *Index:
		return append([]Expr{e.X}, e.Idx...)
	case *Unary:
		return []Expr{e.X}
	case *Not:
		return []Expr{e.X}
	case *Cond:
		return []Expr{e.C, e.A, e.B}
	case *Binary:
		return []Expr{e.X, e.Y}
	case *Call:
		return e.Args
	case *Density:
		return e.Args
	case *NaryCall:
		return e.Args
	case *MatCall:
		return e.Args
	case *Builtin:
		return e.Args
	case *Rng:
		return e.Args
	case *Slice:
		out := []Expr{e.X}
		for _, d := range e.Dyn {
			if d != nil {
				out = append(out, d)
			}
		}
		return out
	case *Inline:
		return []Expr{e.Result}
	case *ODECall:
		return append([]Expr{e.Y0, e.T0, e.TS}, e.Args...)
	}
	return nil
}

// readsLocal is a local variable e reads (a variable the data block
// computes), or nil: the constraints of latents are built before the data
// block's statements run.
func ReadsLocal(e Expr) *Var {
	var out *Var
	WalkExpr(e, func(x Expr) {
		if r, ok := x.(*Ref); ok && out == nil && r.Var.Kind == LocalVar {
			out = r.Var
		}
	})
	return out
}
