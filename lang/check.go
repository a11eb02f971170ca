package lang

import "fmt"

// Checks on the tree participle built. They are not a second grammar: the
// tree is already well formed, and these are rules about it that the
// grammar does not express (or that are better worded as checks): known,
// unique block names and a model block, one item per line unless
// separated by ";", bounds before sizes and at most one of each kind, and
// settings whose value is a literal.

// checkTree checks f; partial is set for the partial tree participle
// returns with an error, where only the complete items are checked.
func (s *scanned) checkTree(f *File, partial bool) *Error {
	if f == nil {
		return nil
	}
	seen := map[string]*Block{}
	for _, b := range f.Blocks {
		if partial && !s.isPunct(s.index(b.Pos.Offset)+1, "{") {
			break // the block participle stopped in, before its "{"
		}
		if !isOneOf(b.Kind, BlockKinds) {
			hint := ""
			if sug := Suggest(b.Kind, BlockKinds); sug != "" {
				hint = fmt.Sprintf("did you mean %q?", sug)
			}
			if h, ok := stanBlockHints[b.Kind]; ok {
				hint = h
			}
			return s.errAt(b.Pos.Offset, hint, "unknown block %q; the blocks are %s", b.Kind, BlockList())
		}
		if old, dup := seen[b.Kind]; dup {
			p := old.Position()
			return s.errAt(b.Pos.Offset, "", "duplicate %s block (the first is at %d:%d); merge them", b.Kind, p.Line, p.Col)
		}
		seen[b.Kind] = b
		for k, it := range b.Items {
			if it.EndPos.Line == 0 {
				break // the item participle stopped in
			}
			if k > 0 {
				prev := b.Items[k-1]
				semi := prev.Decl != nil && prev.Decl.Semi || prev.Stmt != nil && prev.Stmt.Semi
				if e := s.separated(prev.EndPos.Offset, it.Pos.Offset, semi, prev.Stmt != nil && prev.Stmt.Braced(), prev.Decl != nil, b.Kind, false); e != nil {
					return e
				}
			}
			if it.Stmt != nil && it.Stmt.bare() && b.Kind == "functions" {
				return s.errTok(s.index(it.EndPos.Offset), hintFunction, "a function is written as in mscppl, not Stan")
			}
			if it.Stmt != nil && it.Stmt.bare() && b.Kind != "infer" {
				return s.missingTilde(s.index(it.EndPos.Offset), where{kind: b.Kind, start: s.index(it.Pos.Offset)})
			}
			if e := s.checkItem(b.Kind, it); e != nil {
				return e
			}
		}
	}
	if _, ok := seen["model"]; !ok && !partial {
		return s.errAt(0, "", "the file has no model { ... } block")
	}
	return nil
}

// separated checks that an item ending just before byte end and the next
// one, starting at byte start, are on different lines or separated by ";".
func (s *scanned) separated(end, start int, semi, isFor, isDecl bool, kind string, inLoop bool) *Error {
	first := s.index(start)
	last := s.index(end) - 1
	if semi || isFor || s.tok(last).line != s.tok(first).line {
		return nil
	}
	if w := s.text(first); isDecl && (w == "lower" || w == "upper") && s.isPunct(first+1, "=") {
		return s.errTok(first, "bounds follow the type name in <...>, as in real<lower=0> or vector<lower=0>[N]", "unexpected %s after the declaration", s.desc(first))
	}
	return s.sepError(first, kind, inLoop)
}

func (s *scanned) checkItem(kind string, it *Item) *Error {
	if kind == "infer" {
		return s.checkSetting(it)
	}
	if d := it.Decl; d != nil {
		return s.checkType(d.Type)
	}
	if fd := it.Func; fd != nil {
		for _, st := range fd.Body {
			if e := s.checkStmt(st); e != nil {
				return e
			}
		}
		return nil
	}
	return s.checkStmt(it.Stmt)
}

func (s *scanned) checkStmt(st *Stmt) *Error {
	var body []*Stmt
	switch {
	case st.For != nil:
		body = st.For.Body
	case st.While != nil:
		body = st.While.Body
	case st.Scope != nil:
		body = st.Scope.Body
	default:
		return nil
	}
	for k, b := range body {
		if b.EndPos.Line == 0 {
			break
		}
		if k > 0 {
			prev := body[k-1]
			if e := s.separated(prev.EndPos.Offset, b.Pos.Offset, prev.HasSemi(), prev.Braced(), false, "", true); e != nil {
				return e
			}
		}
		if b.bare() {
			return s.missingTilde(s.index(b.EndPos.Offset), where{inLoop: true, start: s.index(b.Pos.Offset)})
		}
		if e := s.checkStmt(b); e != nil {
			return e
		}
	}
	return nil
}

func (s *scanned) checkType(t *Type) *Error {
	seen := map[string]bool{}
	for _, b := range t.Bounds {
		if seen[b.Which] {
			return s.errAt(b.Pos.Offset, "", "the %s bound is given twice", b.Which)
		}
		seen[b.Which] = true
	}
	if len(t.After) > 0 {
		lt := s.index(t.After[0].Pos.Offset) - 1
		return s.errTok(lt, fmt.Sprintf("write %s<lower=...>[...]: bounds come before the sizes, as in Stan", t.Base), "bounds must come before the sizes")
	}
	return nil
}

// checkSetting: an item of the infer block is name = literal.
func (s *scanned) checkSetting(it *Item) *Error {
	var sim *Simple
	if it.Stmt != nil {
		sim = it.Stmt.Simple
	}
	key, ok := "", false
	if sim != nil {
		key, ok = sim.LHS.Ident()
	}
	if !ok {
		if i := s.index(it.Pos.Offset); sim != nil && s.isIdent(i) {
			return s.errTok(i+1, hintSetting, "unexpected %s; expected \"=\" after the setting %q", s.desc(i+1), s.text(i))
		}
		return s.errAt(it.Pos.Offset, hintSetting, "the infer block holds settings such as samples = 10")
	}
	if sim.Assign == nil {
		i := s.index(sim.LHS.EndPos.Offset)
		return s.errTok(i, hintSetting, "unexpected %s; expected \"=\" after the setting %q", s.desc(i), key)
	}
	v := sim.Assign
	if _, ok := v.NumberLit(); ok {
		return nil
	}
	if _, ok := v.StringLit(); ok {
		return nil
	}
	if _, ok := v.Ident(); ok {
		return nil
	}
	from, to := s.index(v.Pos.Offset), s.index(v.EndPos.Offset)
	return s.errTok(from, `a setting's value is a number, a string or a name, as in family = "fullrank"`,
		"the value of the setting %q must be a literal, not %s", key, s.span(from, to))
}

// stanBlockHints say where Stan's one-word blocks went.
var stanBlockHints = map[string]string{
	"parameters": "Stan's parameters are latent { } here (param { } holds parameters learned by maximum likelihood)",
}
