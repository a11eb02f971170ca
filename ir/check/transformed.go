package check

import (
	"fmt"
	"strings"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// transformed resolves the transformed block, Stan's transformed
// parameters: declarations (mu: vector[N], sigma: real<lower=0>,
// p: simplex[K]) and definitions, and the statements that assign them.
// Its statements are returned to run at the start of the model body, once
// per evaluation of the log joint, on the model's graph; its top-level
// names stay visible to the model and derived blocks, which cannot assign
// them (sealed), and each is reported like a derived quantity (a latent of
// no unconstrained dimension whose value is the local's). The constraint
// of a declaration is checked after the statements by a reject statement
// with an ir.Check: a violation rejects the draw, as Stan's does.
func (r *resolver) transformed(b *lang.Block) []ir.Stmt {
	// the block's scope is not popped: the model and derived blocks see it
	r.scopes = append(r.scopes, map[string]*ir.Var{})
	r.inTransformed = true
	defer func() { r.inTransformed = false }()
	first := len(r.m.Vars)
	var ss []*lang.Stmt
	var decls []*lang.Decl
	for _, it := range b.Items {
		switch {
		case it.Func != nil:
			r.errorf(r.at(it.Pos), "functions are defined in the functions block")
		case it.Decl != nil:
			decls = append(decls, it.Decl)
			d := *it.Decl
			d.Type = plainType(it.Decl.Type)
			ss = append(ss, &lang.Stmt{Pos: it.Pos, EndPos: it.EndPos, Decl: &d})
		default:
			ss = append(ss, it.Stmt)
		}
	}
	out := r.stmts(ss)
	markUnknowns(out, r.m.Vars[first:])
	top := r.scopes[len(r.scopes)-1]
	checks := map[*ir.Var]*ir.Check{}
	assigned := map[string]bool{}
	assignedRoots(ss, assigned)
	for _, d := range decls {
		v := top[d.Name]
		if v == nil || v.ID < first {
			continue // reported
		}
		if !assigned[d.Name] && d.Init == nil {
			e := r.errorf(r.at(d.Pos), "transformed %s is declared but never assigned in the transformed block", d.Name)
			e.Hint = fmt.Sprintf("assign it after its declaration, as in %s = ... (or %s[i] = ... in a loop)", d.Name, d.Name)
			continue
		}
		if s := r.constraintCheck(d, v); s != nil {
			out = append(out, s)
			checks[v] = s.Check
		}
	}
	if r.sealed == nil {
		r.sealed = map[*ir.Var]bool{}
	}
	for _, q := range r.reportLocals(first, top) {
		v := q.Derived.(*ir.Ref).Var
		r.sealed[v], v.Transformed = true, true
		q.Transformed, q.Check = true, checks[v]
	}
	return out
}

// plainType is t without its constraint: without bounds, and the vector
// or matrix a vector constraint's base stands for (array[N] simplex[K] is
// array[N] vector[K]; cholesky_factor_corr[K] is matrix[K, K]).
func plainType(t *lang.Type) *lang.Type {
	pt := *t
	pt.Bounds, pt.After = nil, nil
	if t.Base.Vector() {
		pt.Base = lang.BaseVector
		if t.Base == lang.BaseCholeskyFactorCorr && len(t.Dims) == 1 {
			pt.Base = lang.BaseMatrix
			pt.Dims = []*lang.Expr{t.Dims[0], t.Dims[0]}
		}
	}
	return &pt
}

// constraintCheck is the reject statement checking the constraint of the
// transformed quantity v declared by d, nil when it has none (or after an
// error).
func (r *resolver) constraintCheck(d *lang.Decl, v *ir.Var) *ir.Message {
	p := r.at(d.Pos)
	base := d.Type.Base
	c := &ir.Check{Name: v.Name, Type: v.Type, Vec: lang.BaseReal, Text: base.String()}
	s := &ir.Message{StmtBase: ir.StmtBase{P: p}, Reject: true, Check: c,
		Parts: []ir.MessagePart{{X: &ir.Ref{ExprBase: ir.ExprBase{P: p, T: v.Type}, Var: v}}}}
	if base.Vector() {
		if len(d.Type.AllBounds()) > 0 {
			r.errorf(r.at(d.Type.Pos), "%s takes no bounds", base)
			return nil
		}
		if _, ok := stdlib.LookupVecBijection(base.String()); !ok {
			return nil
		}
		c.Vec = base
		return s
	}
	var lo, hi ir.Expr
	for _, bd := range d.Type.AllBounds() {
		slot := map[string]*ir.Expr{"lower": &lo, "upper": &hi}[bd.Which]
		if slot == nil {
			r.errorf(r.at(bd.Pos), "an offset or multiplier applies to a latent (a Stan parameter); a transformed quantity takes bounds")
			return nil
		}
		if *slot != nil {
			r.errorf(r.at(bd.Pos), "%s bound given twice", bd.Which)
			return nil
		}
		x := r.expr(bd.Value)
		if x == nil {
			return nil
		}
		if xt := x.Type(); !xt.Scalar() && xt.Len() != v.Type.Len() {
			r.errorf(x.Pos(), "the %s bound of %s is %s; it must be a scalar or of the shape of %s (%s)", bd.Which, v.Name, xt, v.Name, v.Type)
			return nil
		}
		*slot = x
	}
	if lo == nil && hi == nil {
		return nil
	}
	a, oka := ir.FoldConst(lo)
	b, okb := ir.FoldConst(hi)
	if lo != nil && hi != nil && oka && okb && !(a < b) {
		r.errorf(r.at(d.Type.Pos), "the lower bound %g must be below the upper bound %g", a, b)
		return nil
	}
	for _, x := range []ir.Expr{lo, hi} {
		if x != nil {
			s.Parts = append(s.Parts, ir.MessagePart{X: x})
		}
	}
	c.Lower, c.Upper = lo != nil, hi != nil
	var bs []string
	for _, bd := range d.Type.AllBounds() {
		bs = append(bs, bd.Which+"="+bd.Value.String())
	}
	c.Text = "<" + strings.Join(bs, ", ") + ">"
	return s
}

// sealedAssign refuses an assignment, at p, to a quantity of the
// transformed block outside that block, reporting whether v is one.
func (r *resolver) sealedAssign(v *ir.Var, p lang.Pos) bool {
	if !r.sealed[v] {
		return false
	}
	e := r.errorf(p, "cannot assign to %s, a quantity of the transformed block (declared at %d:%d): only that block assigns it", v.Name, v.Pos.Line, v.Pos.Col)
	e.Hint = fmt.Sprintf("assign it in the transformed block, or define a new local from it (%s2 = %s)", v.Name, v.Name)
	return true
}

// ---- constrained locals --------------------------------------------------

// constrainedLocal resolves a local declaration whose type has a
// constraint (p: simplex[K], s: real<lower=0>, array[N] simplex[K]): the
// local of the unconstrained type, whose constraint is checked, as the
// transformed block's are, by a reject statement after its declaration
// with a value and after each assignment of it as a whole (at the
// statement, naming it), and at the end of the statements that declare
// it when elements of it are assigned one by one. A violation rejects the
// draw in the model block and stops the run in derived, as reject does.
func (r *resolver) constrainedLocal(s *lang.Stmt, p lang.Pos) ir.Stmt {
	d := s.Decl
	if len(d.Type.AllBounds()) == 0 && !d.Type.Base.Vector() || r.inData {
		return r.localDecl(d)
	}
	pd := *d
	pd.Type = plainType(d.Type)
	st := r.localDecl(&pd)
	ld, ok := st.(*ir.LocalDecl)
	if !ok {
		return st
	}
	chk := r.constraintCheck(d, ld.Local)
	if chk == nil {
		return st
	}
	if r.localChecks == nil {
		r.localChecks = map[*ir.Var]*lang.Decl{}
	}
	r.localChecks[ld.Local] = d
	r.pendingChecks = append(r.pendingChecks, ld.Local)
	if d.Init == nil {
		return st
	}
	return &stmtList{list: []ir.Stmt{st, atStmt(chk, p)}}
}

// atStmt is the check chk positioned at the statement p that assigned
// the local.
func atStmt(chk *ir.Message, p lang.Pos) *ir.Message {
	chk.P = p
	return chk
}

// afterAssign is the statement assigning the local v (at p), followed by
// v's constraint check when v is a constrained local: after an assignment
// of v as a whole; after an element's, at the end of v's statements
// (checksAtEnd).
func (r *resolver) afterAssign(st ir.Stmt, v *ir.Var, whole bool, p lang.Pos) ir.Stmt {
	d, ok := r.localChecks[v]
	if !ok || st == nil {
		return st
	}
	if !whole {
		r.elemAssigned[v] = true
		return st
	}
	n := len(r.errs)
	chk := r.constraintCheck(d, v)
	if chk == nil || len(r.errs) > n {
		return st
	}
	return &stmtList{list: []ir.Stmt{st, atStmt(chk, p)}}
}

// checksAtEnd are the checks, at the end of the statements that declared
// them (pending from mark on), of the constrained locals assigned element
// by element.
func (r *resolver) checksAtEnd(mark int) []ir.Stmt {
	var out []ir.Stmt
	for _, v := range r.pendingChecks[mark:] {
		if !r.elemAssigned[v] {
			continue
		}
		if chk := r.constraintCheck(r.localChecks[v], v); chk != nil {
			out = append(out, chk)
		}
	}
	r.pendingChecks = r.pendingChecks[:mark]
	return out
}
