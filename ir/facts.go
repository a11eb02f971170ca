package ir

// StmtExprs are the expressions a statement evaluates itself (not those of
// the statements it contains).
func StmtExprs(s Stmt) []Expr {
	switch s := s.(type) {
	case *Tilde:
		return append([]Expr{s.LHS}, s.Args...)
	case *Assign:
		return append([]Expr{s.X}, s.Idx...)
	case *LocalDecl:
		if s.Init != nil {
			return []Expr{s.Init}
		}
	case *If:
		return []Expr{s.Cond}
	case *Target:
		return []Expr{s.X}
	case *For:
		if s.While != nil {
			return []Expr{s.Lo, s.Hi, s.While}
		}
		return []Expr{s.Lo, s.Hi}
	case *Message:
		var es []Expr
		for _, p := range s.Parts {
			if p.X != nil {
				es = append(es, p.X)
			}
		}
		return es
	}
	return nil
}
