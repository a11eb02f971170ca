package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// localDecl resolves name: type [= expr] in the model block: real, int,
// vector[n] or matrix[r, c], without bounds; the sizes are constants.
func (r *resolver) localDecl(d *lang.Decl) ir.Stmt {
	if d.Type.Base == lang.BaseRowVector {
		return r.rowDecl(d, r.localDecl)
	}
	if d.Type.IsArray {
		return r.arrayLocal(d)
	}
	p, tp := r.at(d.Pos), r.at(d.Type.Pos)
	if d.From != nil || d.Standardized {
		r.errorf(p, "a local variable takes no from or standardized: those bind data in the data block")
		return nil
	}
	if len(d.Type.AllBounds()) > 0 {
		r.errorf(tp, "local variables take no bounds; constrain latents in the latent block")
		return nil
	}
	base := d.Type.Base
	want := map[lang.BaseType]int{lang.BaseInt: 0, lang.BaseReal: 0, lang.BaseVector: 1, lang.BaseMatrix: 2}[base]
	if base == lang.BaseInt && len(d.Type.Dims) > 0 {
		want = min(len(d.Type.Dims), 2) // an integer array int[n] or int[n, k]
	}
	if len(d.Type.Dims) != want {
		r.errorf(tp, "%s takes %d size%s here, got %d", base, want, ir.Plural1(want), len(d.Type.Dims))
		return nil
	}
	t := ir.TReal
	switch {
	case base == lang.BaseInt && want == 1:
		n, ok := r.sizeExpr(d.Type.Dims[0])
		if !ok {
			return nil
		}
		t = ir.VecType(n)
		t.IntElems = true
	case base == lang.BaseInt && want == 2:
		rows, ok1 := r.sizeExpr(d.Type.Dims[0])
		cols, ok2 := r.sizeExpr(d.Type.Dims[1])
		if !ok1 || !ok2 {
			return nil
		}
		t = ir.MatType(rows, cols)
		t.IntElems = true
	case base == lang.BaseInt:
		t = ir.TInt
	case base == lang.BaseVector:
		n, ok := r.sizeExpr(d.Type.Dims[0])
		if !ok {
			return nil
		}
		t = ir.VecType(n)
	case base == lang.BaseMatrix:
		rows, ok1 := r.sizeExpr(d.Type.Dims[0])
		cols, ok2 := r.sizeExpr(d.Type.Dims[1])
		if !ok1 || !ok2 {
			return nil
		}
		t = ir.MatType(rows, cols)
	}
	if v := r.lookupQuiet(d.Name); v != nil {
		r.errorf(p, "%s is already declared as %s at %d:%d; pick another name", d.Name, v.KindName(), v.Pos.Line, v.Pos.Col)
		return nil
	}
	var init ir.Expr
	if d.Init != nil {
		if init = r.expr(d.Init); init == nil {
			return nil
		}
		if !r.assignable(t, init, d.Name) {
			return nil
		}
	}
	v := r.newVar(d.Name, p, ir.LocalVar, t)
	v.DataOnly = init == nil || !dependsOnUnknowns(init)
	if x, ok := ir.FoldConst(init); ok && init != nil && t.Kind == ir.Int {
		v.Known = []float64{x} // a size until it is assigned again
	}
	r.scopes[len(r.scopes)-1][d.Name] = v
	return &ir.LocalDecl{StmtBase: ir.StmtBase{P: p}, Local: v, Init: init}
}

// assignable checks that a value of x's type can be stored in a local of
// type t (an int local takes only ints; a scalar fills a vector).
func (r *resolver) assignable(t ir.Type, x ir.Expr, name string) bool {
	xt := x.Type()
	switch {
	case t.Kind == ir.Int && xt.Kind != ir.Int:
		r.errorf(x.Pos(), "%s is an int, and the value is %s", name, xt)
		return false
	case t.Scalar() && xt.Scalar(), ir.SameShape(t, xt):
		return true
	case !t.Scalar() && xt.Scalar():
		return true
	}
	r.errorf(x.Pos(), "%s is %s, and the value is %s", name, t, xt)
	return false
}

// reassign resolves name = expr for an existing local: statements run in
// order, so later uses see the new value.
func (r *resolver) reassign(v *ir.Var, sm *lang.Simple, p lang.Pos) ir.Stmt {
	if r.sealedAssign(v, r.at(sm.LHS.Pos)) || !r.changeKnown(v, p) {
		return nil
	}
	x := r.rhs(sm)
	if x == nil || !r.assignable(v.Type, x, v.Name) {
		return nil
	}
	if !v.Type.Scalar() && x.Type().Scalar() {
		r.errorf(x.Pos(), "%s is %s; assign it a value of that shape, or assign its elements", v.Name, v.Type)
		return nil
	}
	v.DataOnly = v.DataOnly && !dependsOnUnknowns(x)
	return r.afterAssign(&ir.Assign{StmtBase: ir.StmtBase{P: p}, Local: v, X: x}, v, true, p)
}

// elementAssign resolves name[i] = expr or name[i, j] = expr (or a matrix
// row name[i] = vector) for a local vector or matrix.
func (r *resolver) elementAssign(sm *lang.Simple, p lang.Pos) ir.Stmt {
	lp := r.at(sm.LHS.Pos)
	e := sm.LHS
	if len(e.Rest) > 0 || len(e.Left.Rest) > 0 || e.Left.Left.Power == nil || e.Left.Left.Power.Exp != nil {
		r.errorf(lp, "the left of = must be a name or an element of a local, as in eta = X * w or v[t] = x")
		return nil
	}
	pf := e.Left.Left.Power.Base
	if pf.Prim.Ident == nil || len(pf.Indexes) != 1 {
		r.errorf(lp, "the left of = must be a name or an element of a local, as in eta = X * w or v[t] = x")
		return nil
	}
	name := *pf.Prim.Ident
	v := r.lookup(name, lp)
	if v == nil {
		return nil
	}
	if v.Kind != ir.LocalVar {
		r.errorf(lp, "cannot assign to an element of %s %s; only locals declared in the model block (v: vector[T]) can be filled element by element", v.Kind, name)
		return nil
	}
	if r.sealedAssign(v, lp) {
		return nil
	}
	lhs := r.postfix(pf)
	if lhs == nil {
		return nil
	}
	x := r.rhs(sm)
	if x == nil {
		return nil
	}
	ix, ok := lhs.(*ir.Index)
	if sl, isSlice := lhs.(*ir.Slice); isSlice {
		return r.afterAssign(r.sliceAssign(v, sl, x, p), v, false, p)
	} else if !ok {
		r.errorf(lp, "the left of = takes indices or ranges, as in v[t] = x or M[:, j] = v")
		return nil
	}
	if !ir.SameShape(lhs.Type(), x.Type()) {
		r.errorf(x.Pos(), "%s is %s, and the value is %s", ir.FormatExpr(lhs), lhs.Type(), x.Type())
		return nil
	}
	if (v.Type.Kind == ir.Int || v.Type.IntElems) && x.Type().Kind != ir.Int {
		r.errorf(x.Pos(), "%s holds integers, and the value is %s", name, x.Type())
		return nil
	}
	v.DataOnly = v.DataOnly && !dependsOnUnknowns(x)
	return r.afterAssign(&ir.Assign{StmtBase: ir.StmtBase{P: p}, Local: v, Idx: ix.Idx, X: x}, v, false, p)
}

// ifStmt resolves if cond { } else if cond { } else { }. Each branch is a
// scope of its own.
func (r *resolver) ifStmt(f *lang.If) ir.Stmt {
	p := r.at(f.Pos)
	cond := r.expr(f.Cond)
	if cond == nil {
		return nil
	}
	if !cond.Type().Scalar() {
		r.errorf(cond.Pos(), "the condition of if must be a scalar, got %s", cond.Type())
		return nil
	}
	branch := func(ss []*lang.Stmt) []ir.Stmt {
		r.scopes = append(r.scopes, map[string]*ir.Var{})
		defer func() { r.scopes = r.scopes[:len(r.scopes)-1] }()
		return r.stmts(ss)
	}
	out := &ir.If{StmtBase: ir.StmtBase{P: p}, Cond: cond, Then: branch(f.Then)}
	switch {
	case f.ElseIf != nil:
		if s := r.ifStmt(f.ElseIf); s != nil {
			out.Else = []ir.Stmt{s}
		}
	default:
		out.Else = branch(f.Else)
	}
	return out
}

// target resolves target += expr.
func (r *resolver) target(e *lang.Expr, p lang.Pos) ir.Stmt {
	x := r.expr(e)
	if x == nil {
		return nil
	}
	if x.Type().Kind == ir.Matrix {
		r.errorf(x.Pos(), "target += takes a scalar or a vector (its sum is added), got %s", x.Type())
		return nil
	}
	return &ir.Target{StmtBase: ir.StmtBase{P: p}, X: x, Text: "target += " + ir.FormatExpr(x)}
}

// densityCall resolves NAME_lpdf(y | args) and NAME_lpmf(y | args).
func (r *resolver) densityCall(c *lang.Call) (ir.Expr, bool) {
	name, suffix := c.Name, ""
	for _, s := range []string{"_lpdf", "_lpmf", "_lupdf", "_lupmf"} {
		if strings.HasSuffix(name, s) {
			name, suffix = strings.TrimSuffix(name, s), s
		}
	}
	if suffix == "" {
		return nil, false
	}
	pos := r.at(c.Pos)
	fam, ok := stdlib.Lookup(name)
	if !ok {
		e := r.errorf(pos, "unknown distribution %q in %s", name, c.Name)
		if s := lang.Suggest(name, stdlib.FamilyNames()); s != "" {
			e.Hint = fmt.Sprintf("did you mean %s%s?", s, suffix)
		}
		return nil, true
	}
	if fam.GLMOf != "" || fam.Vec != nil {
		if len(c.Args) != 1 || !c.Bar {
			r.errorf(pos, "write %s(y | %s): the value, a bar, then the parameters", c.Name, paramList(fam))
			return nil, true
		}
		y := r.expr(c.Args[0])
		if fam.GLMOf != "" {
			return r.glmDensity(c, fam, y, pos), true
		}
		args := make([]ir.Expr, len(c.Given))
		for i, a := range c.Given {
			if args[i] = r.expr(a); args[i] == nil {
				return nil, true
			}
		}
		if y == nil {
			return nil, true
		}
		return r.vecDensity(fam, y, args, pos), true
	}
	discrete := strings.Contains(suffix, "pmf")
	if discrete != fam.Discrete {
		want := "_lpdf"
		if fam.Discrete {
			want = "_lpmf"
		}
		r.errorf(pos, "%s is %s: write %s%s", fam.Name, map[bool]string{true: "discrete", false: "continuous"}[fam.Discrete], fam.Name, want)
		return nil, true
	}
	if len(c.Args) != 1 || !c.Bar && len(fam.Params) > 0 { // std_normal_lpdf(y) has no bar
		r.errorf(pos, "write %s(y | %s): the value, a bar, then the parameters", c.Name, paramList(fam))
		return nil, true
	}
	if len(c.Given) != len(fam.Params) {
		r.errorf(pos, "%s takes %d parameter%s (%s), got %d", c.Name, len(fam.Params), ir.Plural1(len(fam.Params)), paramList(fam), len(c.Given))
		return nil, true
	}
	args := make([]ir.Expr, 0, 1+len(c.Given))
	for _, a := range append([]*lang.Expr{c.Args[0]}, c.Given...) {
		x := r.expr(a)
		if x == nil {
			return nil, true
		}
		args = append(args, x)
	}
	yt := args[0].Type()
	if yt.Kind == ir.Matrix {
		r.errorf(args[0].Pos(), "the value of %s must be a scalar or a vector, not %s", c.Name, yt)
		return nil, true
	}
	for i, a := range args[1:] {
		at := a.Type()
		if !at.Scalar() && !(at.Kind == ir.Vector && yt.Kind == ir.Vector && at.Rows == yt.Rows) {
			r.errorf(a.Pos(), "parameter %d (%s) of %s is %s, but the value is %s; parameters are scalars or vectors of the same length", i+1, fam.Params[i].Name, c.Name, at, yt)
			return nil, true
		}
	}
	return &ir.Density{ExprBase: ir.ExprBase{P: pos, T: ir.TReal}, Name: c.Name, Dist: fam, Args: args}, true
}

func paramList(f *stdlib.Family) string {
	names := make([]string, len(f.Params))
	for i, ps := range f.Params {
		names[i] = ps.Name
	}
	return strings.Join(names, ", ")
}

// transformedData resolves name = expr in the data block: a value computed
// from data once, before the model (Stan's transformed data).
func (r *resolver) transformedData(s *lang.Stmt) {
	p := r.at(s.Pos)
	sm := s.Simple
	name, ok := "", false
	if sm != nil && sm.Assign != nil {
		name, ok = plainName(sm.LHS)
	}
	if !ok {
		r.errorf(p, "a data block holds declarations (name: type) and transformed data (name = expression of data)")
		return
	}
	x := r.expr(sm.Assign)
	if x == nil {
		return
	}
	v := r.newVar(name, r.at(sm.LHS.Pos), ir.LocalVar, x.Type())
	v.DataOnly = true
	r.declare(v)
	r.prelude = append(r.prelude, &ir.Assign{StmtBase: ir.StmtBase{P: p}, Local: v, X: x})
}

// dependsOnUnknowns reports whether e involves a latent or a param, directly
// or through a local defined from them (conservatively: any model-block
// local counts unless it is transformed data, and so do inlined functions
// and random draws).
func dependsOnUnknowns(e ir.Expr) bool {
	found := false
	ir.WalkExpr(e, func(x ir.Expr) {
		switch x := x.(type) {
		case *ir.Ref:
			switch x.Var.Kind {
			case ir.LatentVar, ir.ParamVar:
				found = true
			case ir.LocalVar:
				found = found || !x.Var.DataOnly
			}
		case *ir.Inline, *ir.Rng:
			found = true
		}
	})
	return found
}

// cdfCall resolves NAME_cdf, NAME_lcdf and NAME_lccdf of a distribution
// that has them, reporting whether name is one: with a bar,
// NAME_lcdf(y | params) sums over a vector y and NAME_cdf(y | params)
// multiplies (as Stan's); without, they apply elementwise like any scalar
// function of several arguments. A distribution without a CDF is named as
// such.
func (r *resolver) cdfCall(c *lang.Call) (ir.Expr, bool) {
	name, kind, ok := cdfName(c.Name)
	if !ok {
		return nil, false
	}
	fam, known := stdlib.Lookup(name)
	if !known && !ir.UnsupportedStan(name) {
		return nil, false
	}
	f := map[string]*stdlib.NaryFunc{}
	if known {
		f = map[string]*stdlib.NaryFunc{"_lcdf": fam.LogCDF, "_lccdf": fam.LogCCDF, "_cdf": fam.LogCDF}
	}
	if f[kind] == nil {
		e := r.errorf(r.at(c.Pos), "%s has no CDF in mscppl", name)
		if !known {
			e.Msg += ": the distribution is not supported yet"
		}
		e.Hint = "the families with NAME_cdf, NAME_lcdf and NAME_lccdf are " + strings.Join(ir.CDFFamilies(), ", ")
		return nil, true
	}
	x, ok := r.cdfApply(c, f[kind], fam)
	if x != nil && kind == "_cdf" {
		// NAME_cdf is exp(NAME_lcdf): the product over a vector y
		x = ir.FnCall("exp", x.Pos(), x.Type(), x)
	}
	return x, ok
}

// cdfName splits NAME_cdf, NAME_lcdf and NAME_lccdf into the family's name
// and the suffix.
func cdfName(s string) (string, string, bool) {
	for _, suf := range []string{"_lccdf", "_lcdf", "_cdf"} {
		if name, ok := strings.CutSuffix(s, suf); ok && name != "" {
			return name, suf, true
		}
	}
	return "", "", false
}

// cdfApply is the call of a log CDF f with the arguments of c, summed over
// a vector y when c has a bar (or f takes y alone).
func (r *resolver) cdfApply(c *lang.Call, f *stdlib.NaryFunc, fam *stdlib.Family) (ir.Expr, bool) {
	pos := r.at(c.Pos)
	in := c.Args
	if c.Bar {
		if len(c.Args) != 1 {
			r.errorf(pos, ir.BarMessage, c.Name)
			return nil, true
		}
		in = append(append([]*lang.Expr{}, c.Args...), c.Given...)
	}
	if len(in) != f.Arity {
		if c.Bar {
			r.errorf(pos, "%s takes a value and %d parameter%s, got %d", c.Name, f.Arity-1, ir.Plural1(f.Arity-1), len(c.Given))
			return nil, true
		}
		r.errorf(pos, "%s takes %d argument%s, got %d", c.Name, f.Arity, ir.Plural1(f.Arity), len(c.Args))
		return nil, true
	}
	k := &ir.Site{Errorf: r.errorf, Pos: pos, Name: c.Name, Args: make([]ir.Expr, len(in))}
	for i, a := range in {
		if k.Args[i] = r.expr(a); k.Args[i] == nil {
			return nil, true
		}
	}
	x := ir.NaryNode(k, f)
	if x == nil {
		return nil, true
	}
	x.(*ir.NaryCall).CDFOf = fam
	if (c.Bar || f.Arity == 1) && x.Type().Kind == ir.Vector {
		// Stan's NAME_lcdf(y | ...) of a vector is the sum over its
		// elements (std_normal_lcdf(y) has no bar)
		return ir.FnCall("sum", pos, ir.TReal, x), true
	}
	return x, true
}

// derived resolves the derived block, Stan's generated quantities: its
// statements (definitions name = expr, local declarations, loops, if,
// element assignments, scopes) run on each posterior draw after the
// model, and every name the block declares or defines at its top level
// is reported like a latent: a derived quantity is a latent of no
// unconstrained dimension whose value is the local's at the end of the
// block. Names declared inside loops and scopes are not reported.
func (r *resolver) derived(b *lang.Block) {
	r.scopes = append(r.scopes, map[string]*ir.Var{})
	r.inDerived = true
	defer func() { r.scopes, r.inDerived = r.scopes[:len(r.scopes)-1], false }()
	first := len(r.m.Vars)
	var ss []*lang.Stmt
	for _, it := range b.Items {
		p := r.at(it.Pos)
		if it.Decl != nil {
			ss = append(ss, &lang.Stmt{Pos: it.Pos, EndPos: it.EndPos, Decl: it.Decl})
			continue
		}
		if it.Func != nil {
			r.errorf(p, "functions are defined in the functions block")
			continue
		}
		if sm := it.Stmt.Simple; sm != nil && sm.Assign != nil {
			if name, ok := plainName(sm.LHS); ok {
				if old := r.lookupQuiet(name); old != nil && old.Kind != ir.LocalVar {
					r.errorf(p, "%s is already declared as %s at %d:%d; pick another name", name, old.Kind, old.Pos.Line, old.Pos.Col)
					continue
				}
			}
		}
		ss = append(ss, it.Stmt)
	}
	r.m.Derived = r.stmts(ss)
	markUnknowns(r.m.Derived, r.m.Vars[first:])
	r.reportLocals(first, r.scopes[len(r.scopes)-1])
}

// reportLocals reports the locals of the scope top that are among the
// variables from first on (those the block declared or defined at its top
// level) like latents: each a latent of no unconstrained dimension whose
// value is the local's (Derived), an int reported as a real.
func (r *resolver) reportLocals(first int, top map[string]*ir.Var) []*ir.Var {
	var out []*ir.Var
	for _, v := range r.m.Vars[first:] {
		if v.Kind != ir.LocalVar || top[v.Name] != v {
			continue
		}
		t := v.Type
		if t.Kind == ir.Int {
			t = ir.TReal
		}
		q := r.newVar(v.Name, v.Pos, ir.LatentVar, t)
		q.Derived = &ir.Ref{ExprBase: ir.ExprBase{P: v.Pos, T: v.Type}, Var: v}
		q.Offset, q.XOffset = r.m.LatentDim, r.m.XDim
		r.m.XDim += t.Len()
		r.m.Latents = append(r.m.Latents, q)
		out = append(out, q)
	}
	return out
}

// markUnknowns sets DataOnly on the locals vs of the derived block's
// statements ss: a local is marked unless a value assigned to it depends on
// latents, random draws or such locals (usesLatents), or it is assigned
// under an if whose condition does (a fixed point, as assignments may come
// in any order). Params are fixed once fitted, so a derived local of
// params and data is exact (Model.DerivedUsesLatents).
func markUnknowns(ss []ir.Stmt, vs []*ir.Var) {
	for _, v := range vs {
		if v.Kind == ir.LocalVar {
			v.DataOnly = true
		}
	}
	changed := true
	unknown := func(v *ir.Var) {
		if v.DataOnly {
			v.DataOnly, changed = false, true
		}
	}
	var walk func(ss []ir.Stmt, under bool)
	walk = func(ss []ir.Stmt, under bool) {
		for _, s := range ss {
			switch s := s.(type) {
			case *ir.Assign:
				if under || ir.UsesLatents(s.X) || slices.ContainsFunc(s.Idx, ir.UsesLatents) {
					unknown(s.Local)
				}
			case *ir.LocalDecl:
				if under || s.Init != nil && ir.UsesLatents(s.Init) {
					unknown(s.Local)
				}
			case *ir.If:
				u := under || ir.UsesLatents(s.Cond)
				walk(s.Then, u)
				walk(s.Else, u)
			case *ir.For:
				walk(s.Body, under || s.While != nil && ir.UsesLatents(s.While))
			}
		}
	}
	for changed {
		changed = false
		walk(ss, false)
	}
}

// derivedStmt rejects the statements of the model that have no place in
// the derived or the transformed block (~ and target +=), reporting
// whether s is one.
func (r *resolver) derivedStmt(s *lang.Stmt, p lang.Pos) bool {
	inT := r.inTransformed && r.depth == 0 // (a function it calls may: Stan's _lp)
	if !r.inDerived && !inT || r.anyBlock || s.Target == nil && (s.Simple == nil || s.Simple.Tilde == nil) {
		return false
	}
	if inT {
		e := r.errorf(p, "the transformed block computes quantities once per evaluation of the log density: it holds declarations and the statements that assign them, not ~ or target +=")
		e.Hint = "move this statement to the model block"
		return true
	}
	e := r.errorf(p, "the derived block computes quantities on each posterior draw: it holds definitions, declarations, loops and if, not ~ or target +=")
	e.Hint = "draw from a distribution with NAME_rng, as in y_new = normal_rng(mu, sigma)"
	return true
}

// vecTilde resolves y ~ a multivariate distribution: a term of the log
// density (the prior of a latent cannot be sampled directly then).
func (r *resolver) vecTilde(call *lang.Call, fam *stdlib.Family, lhs ir.Expr, p lang.Pos) ir.Stmt {
	if lhs == nil {
		return nil
	}
	args := make([]ir.Expr, len(call.Args))
	for i, a := range call.Args {
		if args[i] = r.expr(a); args[i] == nil {
			return nil
		}
	}
	root := rootVar(lhs)
	if (root == nil || root.Kind == ir.LocalVar) && dependsOnUnknowns(lhs) || root != nil && (root.Kind == ir.ParamVar || root.Kind == ir.SizeVar) {
		r.errorf(lhs.Pos(), "the left of ~ must be a latent or data variable (or an element of one)")
		return nil
	}
	d := r.vecDensity(fam, lhs, args, r.at(call.Pos))
	if d == nil {
		return nil
	}
	return &ir.Target{StmtBase: ir.StmtBase{P: p}, X: d, Text: ir.FormatExpr(lhs) + " ~ " + call.String()}
}

// glmMean resolves the parameters (X, alpha, beta, sigma) of normal_id_glm
// into the mean alpha + X * beta and sigma.
func (r *resolver) glmMean(fam *stdlib.Family, args []*lang.Expr, pos lang.Pos) (mu, sigma ir.Expr) {
	if len(args) != len(fam.Params) {
		r.errorf(pos, "%s takes %d parameters (%s), got %d", fam.Name, len(fam.Params), paramList(fam), len(args))
		return nil, nil
	}
	xs := make([]ir.Expr, 4)
	for i, a := range args {
		if xs[i] = r.expr(a); xs[i] == nil {
			return nil, nil
		}
	}
	if xs[0].Type().Kind != ir.Matrix || xs[2].Type().Kind != ir.Vector || !xs[3].Type().Scalar() && xs[3].Type().Kind != ir.Vector {
		r.errorf(pos, "%s takes X (a matrix), alpha (a scalar or vector), beta (a vector) and sigma", fam.Name)
		return nil, nil
	}
	xb := r.binary(ir.OpMul, xs[0], xs[2], pos)
	if xb == nil {
		return nil, nil
	}
	mu = r.binary(ir.OpAdd, xs[1], xb, pos)
	return mu, xs[3]
}

// glmTilde resolves y ~ normal_id_glm(X, alpha, beta, sigma) as
// y ~ normal(alpha + X * beta, sigma).
func (r *resolver) glmTilde(lhs ir.Expr, call *lang.Call, glm *stdlib.Family, p lang.Pos) ir.Stmt {
	mu, sigma := r.glmMean(glm, call.Args, r.at(call.Pos))
	if lhs == nil || mu == nil {
		return nil
	}
	if !ir.SameShape(lhs.Type(), mu.Type()) {
		r.errorf(r.at(call.Pos), "%s: y is %s but X * beta is %s", glm.Name, lhs.Type(), mu.Type())
		return nil
	}
	root := rootVar(lhs)
	if root == nil || root.Kind != ir.DataVar {
		r.errorf(lhs.Pos(), "the left of ~ %s must be data", glm.Name)
		return nil
	}
	fam, _ := stdlib.Lookup(glm.GLMOf)
	return &ir.Tilde{StmtBase: ir.StmtBase{P: p}, LHS: lhs, Dist: fam, Args: []ir.Expr{mu, sigma}, Root: root, Text: ir.FormatExpr(lhs) + " ~ " + call.String()}
}

// glmDensity resolves normal_id_glm_lpdf(y | X, alpha, beta, sigma) as
// normal_lpdf(y | alpha + X * beta, sigma) (y already resolved, nil after
// an error).
func (r *resolver) glmDensity(c *lang.Call, glm *stdlib.Family, y ir.Expr, pos lang.Pos) ir.Expr {
	mu, sigma := r.glmMean(glm, c.Given, pos)
	if y == nil || mu == nil {
		return nil
	}
	if !ir.SameShape(y.Type(), mu.Type()) {
		r.errorf(pos, "%s: y is %s but X * beta is %s", glm.Name, y.Type(), mu.Type())
		return nil
	}
	fam, _ := stdlib.Lookup(glm.GLMOf)
	return &ir.Density{ExprBase: ir.ExprBase{P: pos, T: ir.TReal}, Name: c.Name, Dist: fam, Args: []ir.Expr{y, mu, sigma}}
}
