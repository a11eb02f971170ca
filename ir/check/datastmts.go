package check

import (
	"fmt"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// This file holds the statements of the data block (Stan's transformed
// data), compound assignment (x += e) and the assignment of a row, a
// column or a block of a local matrix (Xc[:, j] = v).

// dataBlock resolves the data block: declarations bound to the data file,
// and, after or between them, statements run once before inference, in
// order (loops, ifs, scopes, locals, element and slice assignments). A
// declaration whose variable the block's statements assign, or whose value
// is not a constant, is computed there and is not read from the data file.
func (r *resolver) dataBlock(b *lang.Block) {
	computed := map[string]bool{}
	var ss []*lang.Stmt
	for _, it := range b.Items {
		if it.Stmt != nil {
			ss = append(ss, it.Stmt)
		}
	}
	assignedRoots(ss, computed)
	r.scopes = append(r.scopes, map[string]*ir.Var{})
	r.inData = true
	defer func() { r.scopes, r.inData = r.scopes[:len(r.scopes)-1], false }()
	for _, it := range b.Items {
		switch {
		case it.Decl != nil && r.computedDecl(it.Decl, computed):
			r.dataLocal(it.Decl)
		case it.Decl != nil:
			r.decl(it.Decl, ir.DataVar)
		case r.newDefinition(it.Stmt):
			r.transformedData(it.Stmt)
		default:
			r.prelude = append(r.prelude, r.stmts([]*lang.Stmt{it.Stmt})...)
		}
	}
}

// newDefinition reports whether s is name = expr for a name not declared
// yet (a transformed data definition whose type is its value's).
func (r *resolver) newDefinition(s *lang.Stmt) bool {
	if s.Simple == nil || s.Simple.Assign == nil {
		return false
	}
	name, ok := plainName(s.Simple.LHS)
	return ok && r.lookupQuiet(name) == nil
}

// computedDecl reports whether a data declaration is computed in the data
// block: its variable is assigned there, or its value is a vector, a
// matrix or a scalar that is not a constant.
func (r *resolver) computedDecl(d *lang.Decl, computed map[string]bool) bool {
	if computed[d.Name] {
		return true
	}
	if d.Init == nil || d.From != nil || d.Standardized {
		return false
	}
	if len(d.Type.Dims) > 0 {
		return true
	}
	n := len(r.errs)
	x := r.expr(d.Init)
	r.errs = r.errs[:n] // reported again by the declaration
	if x == nil {
		return false
	}
	_, ok := ir.FoldConst(x)
	return !ok
}

// dataLocal resolves a data declaration computed in the data block: a
// local of the whole model, computed before the model block.
func (r *resolver) dataLocal(d *lang.Decl) {
	p := r.at(d.Pos)
	if d.From != nil || d.Standardized {
		r.errorf(p, "%s is computed in the data block, so it takes no from or standardized", d.Name)
		return
	}
	if len(d.Type.AllBounds()) > 0 {
		e := r.errorf(r.at(d.Type.Pos), "%s is computed in the data block; bounds on computed data are not supported yet", d.Name)
		e.Hint = "remove the bounds, or read " + d.Name + " from the data file"
		// declared without them, so that its uses are not reported too
		t := *d.Type
		t.Bounds, t.After = nil, nil
		dd := *d
		dd.Type = &t
		d = &dd
	}
	if old, ok := r.global[d.Name]; ok {
		r.errorf(p, "%s is already declared as %s at %d:%d", d.Name, old.Kind, old.Pos.Line, old.Pos.Col)
		return
	}
	st := r.localDecl(d)
	if st == nil {
		return
	}
	v := st.(*ir.LocalDecl).Local
	delete(r.scopes[len(r.scopes)-1], d.Name)
	v.DataOnly = true
	r.declare(v)
	r.prelude = append(r.prelude, st)
}

// assignedRoots adds to out the names that statements assign (x = e,
// x[i] = e, x[:, j] = e, x += e), in nested loops, ifs and scopes too.
func assignedRoots(ss []*lang.Stmt, out map[string]bool) {
	for _, s := range ss {
		switch {
		case s.For != nil:
			assignedRoots(s.For.Body, out)
		case s.While != nil:
			assignedRoots(s.While.Body, out)
		case s.Scope != nil:
			assignedRoots(s.Scope.Body, out)
		case s.If != nil:
			for f := s.If; f != nil; f = f.ElseIf {
				assignedRoots(f.Then, out)
				assignedRoots(f.Else, out)
			}
		case s.Simple != nil && (s.Simple.Assign != nil || s.Simple.Compound != ""):
			if name, ok := rootName(s.Simple.LHS); ok {
				out[name] = true
			}
		}
	}
}

// rootName is the name of x, x[i] or x[i, :]: an identifier with indexes.
func rootName(e *lang.Expr) (string, bool) {
	if len(e.Rest) > 0 || len(e.Left.Rest) > 0 || e.Left.Left.Power == nil || e.Left.Left.Power.Exp != nil {
		return "", false
	}
	pf := e.Left.Left.Power.Base
	if pf.Prim.Ident == nil || pf.Trans {
		return "", false
	}
	return *pf.Prim.Ident, true
}

// compoundOps are the compound assignments: x op= e is x = x op e.
var compoundOps = map[string]ir.BinOp{"+=": ir.OpAdd, "-=": ir.OpSub, "*=": ir.OpMul, "/=": ir.OpDiv}

// rhs resolves the value an assignment stores: e of x = e, or x op e of a
// compound assignment x op= e.
func (r *resolver) rhs(sm *lang.Simple) ir.Expr {
	if sm.Compound == "" {
		return r.expr(sm.Assign)
	}
	x, y := r.expr(sm.LHS), r.expr(sm.Value)
	if x == nil || y == nil {
		return nil
	}
	return r.binary(compoundOps[sm.Compound], x, y, r.at(sm.Pos))
}

// sliceAssign resolves M[i, :] = v, M[:, j] = v, M[a:b, j] = v, v[a:b] = w
// or M[a:b, c:d] = B for a local: the value is computed once, then stored
// element by element by a loop (a scalar value fills the slice).
func (r *resolver) sliceAssign(v *ir.Var, sl *ir.Slice, x ir.Expr, p lang.Pos) ir.Stmt {
	if !x.Type().Scalar() && !ir.SameShape(sl.Type(), x.Type()) {
		r.errorf(x.Pos(), "%s is %s, and the value is %s", ir.FormatExpr(sl), sl.Type(), x.Type())
		return nil
	}
	if (v.Type.Kind == ir.Int || v.Type.IntElems) && x.Type().Kind != ir.Int && !x.Type().IntElems {
		r.errorf(x.Pos(), "%s holds integers, and the value is %s", v.Name, x.Type())
		return nil
	}
	tmp := r.newVar(ir.FormatExpr(sl), p, ir.LocalVar, x.Type())
	tmp.DataOnly = !dependsOnUnknowns(x)
	v.DataOnly = v.DataOnly && tmp.DataOnly
	et := ir.TReal
	if v.Type.IntElems {
		et = ir.TInt
	}
	ref := func(w *ir.Var) ir.Expr { return &ir.Ref{ExprBase: ir.ExprBase{P: p, T: w.Type}, Var: w} }
	intNum := func(k int) ir.Expr { return &ir.Num{ExprBase: ir.ExprBase{P: p, T: ir.TInt}, V: float64(k)} }
	// the kept dimensions, in order: the loop variables run over them
	var loops []*ir.Var
	var idx []ir.Expr
	var src []ir.Expr // the index into the value of each kept dimension
	dims := 1
	if v.Type.Kind == ir.Matrix {
		dims = 2
	}
	for d := 0; d < dims; d++ {
		if !sl.Keep[d] {
			idx = append(idx, sl.Index(d))
			continue
		}
		k := r.newVar([]string{"row", "column"}[d], p, ir.LoopVar, ir.TInt)
		loops = append(loops, k)
		// element k of the value is element Lo + k - 1 of the slice
		idx = append(idx, &ir.Binary{ExprBase: ir.ExprBase{P: p, T: ir.TInt}, Op: ir.OpAdd, X: ref(k), Y: intNum(sl.Lo[d] - 1)})
		src = append(src, ref(k))
	}
	val := ref(tmp)
	if !x.Type().Scalar() {
		val = &ir.Index{ExprBase: ir.ExprBase{P: p, T: et}, X: ref(tmp), Idx: src}
	}
	var body ir.Stmt = &ir.Assign{StmtBase: ir.StmtBase{P: p}, Local: v, Idx: idx, X: val}
	for i := len(loops) - 1; i >= 0; i-- {
		d := 0
		if sl.Keep[1] && (i == 1 || !sl.Keep[0]) {
			d = 1
		}
		n := sl.Hi[d] - sl.Lo[d] + 1
		body = &ir.For{StmtBase: ir.StmtBase{P: p}, Var: loops[i], Lo: intNum(1), Hi: intNum(n), Body: []ir.Stmt{body}}
	}
	return &stmtList{StmtBase: ir.StmtBase{P: p}, list: []ir.Stmt{&ir.LocalDecl{StmtBase: ir.StmtBase{P: p}, Local: tmp, Init: x}, body}}
}

// stmtList is statements the resolver made of one (a slice assignment):
// r.stmts splices them in place, so no later stage sees a stmtList.
type stmtList struct {
	ir.StmtBase
	list []ir.Stmt
}

// exprTilde is e ~ dist(args) for an expression e of latents (a local, a
// transform): the term dist_lpdf(e | args) of the log density, as Stan's.
func exprTilde(lhs ir.Expr, fam *stdlib.Family, args []ir.Expr, cp, p lang.Pos, text string) ir.Stmt {
	name := fam.Name + "_lpdf"
	if fam.Discrete {
		name = fam.Name + "_lpmf"
	}
	d := &ir.Density{ExprBase: ir.ExprBase{P: cp, T: ir.TReal}, Name: name, Dist: fam, Args: append([]ir.Expr{lhs}, args...)}
	return &ir.Target{StmtBase: ir.StmtBase{P: p}, X: d, Text: text}
}

// jacobianNote notes, as Stan warns, a ~ whose left side is a non-linear
// transform of a latent: the density is then that of the transform, and
// without the log-Jacobian it is not the density of the latent.
func (r *resolver) jacobianNote(lhs ir.Expr) {
	if linearIn(lhs) {
		return
	}
	p := lhs.Pos()
	r.m.Notes = append(r.m.Notes, fmt.Sprintf("%s:%d:%d: the left of ~ (%s) is a non-linear transform of a latent; "+
		"its density is not the latent's unless the log absolute Jacobian is added with target +=", p.File, p.Line, p.Col, ir.FormatExpr(lhs)))
}

// linearIn reports whether e is an affine function of the latents, params
// and locals it refers to (sums, differences, products and quotients by
// data, indexes and slices), as Stan's check of the left of ~ is.
func linearIn(e ir.Expr) bool {
	if !dependsOnUnknowns(e) {
		return true
	}
	switch e := e.(type) {
	case *ir.Ref:
		return true
	case *ir.Index:
		return linearIn(e.X)
	case *ir.Slice:
		return linearIn(e.X)
	case *ir.Unary:
		return linearIn(e.X)
	case *ir.Binary:
		switch e.Op {
		case ir.OpAdd, ir.OpSub:
			return linearIn(e.X) && linearIn(e.Y)
		case ir.OpMul, ir.OpEMul:
			return !dependsOnUnknowns(e.X) && linearIn(e.Y) || !dependsOnUnknowns(e.Y) && linearIn(e.X)
		case ir.OpDiv, ir.OpEDiv:
			return !dependsOnUnknowns(e.Y) && linearIn(e.X)
		}
	}
	return false
}

// markSizeUse records where the local ints of a size or bound x are first
// used as one.
func markSizeUse(x ir.Expr, p lang.Pos) {
	ir.WalkExpr(x, func(e ir.Expr) {
		if ref, ok := e.(*ir.Ref); ok && ref.Var.Kind == ir.LocalVar && ref.Var.Known != nil && ref.Var.SizeUse == nil {
			ref.Var.SizeUse = &p
		}
	})
}

// changeKnown is called before v is assigned again: a local int used as a
// size cannot change (the size would be wrong in a loop), and one not used
// as a size yet is no longer known.
func (r *resolver) changeKnown(v *ir.Var, p lang.Pos) bool {
	if v.SizeUse != nil {
		e := r.errorf(p, "%s is used as a size or an index known before inference at %d:%d, so it cannot be assigned again", v.Name, v.SizeUse.Line, v.SizeUse.Col)
		e.Hint = "declare another int for the new value"
		return false
	}
	v.Known = nil
	return true
}
