package stan

import (
	"fmt"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/mscppl/mscppl/lang"
)

// Parse parses a Stan program and lowers it to lang's syntax tree, the
// tree a .msc file parses to, so that package ir takes it unchanged. Notes
// are remarks that are not errors (Stan's deprecated forms, constraints
// that are not validated). The error, if any, is a lang.ErrorList.
func Parse(filename string, src []byte) (*lang.File, lang.ErrorList, error) {
	p, err := ParseProgram(filename, src)
	if err != nil {
		return nil, nil, err
	}
	return Lower(p, filename)
}

// role is what a Stan block becomes.
type role int

const (
	roleData role = iota
	roleTData
	roleParams
	roleTParams
	roleModel
	roleGQ
)

// blocks are Stan's program blocks other than functions, in the order
// Stan requires.
var blocks = []struct {
	name string
	role role
}{
	{"data", roleData},
	{"transformed data", roleTData},
	{"parameters", roleParams},
	{"transformed parameters", roleTParams},
	{"model", roleModel},
	{"generated quantities", roleGQ},
}

// context is where a declaration is: it decides what its constraints
// become.
type context int

const (
	ctxData   context = iota // data and transformed data: constraints checked on the data
	ctxLatent                // parameters: constraints are transforms
	ctxTParam                // transformed parameters: constraints checked by the transformed block
	ctxGQ                    // generated quantities: constraints not checked
	ctxLocal                 // locals of the model block and of functions
)

// lowerer lowers one program.
type lowerer struct {
	file   string
	errs   lang.ErrorList
	notes  lang.ErrorList
	scopes []map[string]shape
	funcs  map[string]shape
	// voids are the void functions (in funcs too, with no shape)
	voids map[string]bool
	// anyVoid are the functions with a void definition (overloads too)
	anyVoid map[string]bool
	// stmtCall is the call of a void function being lowered as a
	// statement (the one call of a void function that is not in an
	// expression)
	stmtCall *Call
	// fnVoid is set while the body of a void function lowers
	fnVoid bool
	// dataNames are the variables of the data block
	dataNames map[string]bool
	// params are the shapes of the user functions' arguments
	params map[string][]shape
	// inMessage is set while the arguments of print or reject lower
	// (where a string is a value)
	inMessage bool
	// quiet discards errors and notes (while an expression is lowered
	// again, truncation.go)
	quiet bool
	// quietWas saves quiet then
	quietWas bool
	// nanLocals is set in the generated quantities, whose real variables
	// are read before they are assigned (as NaN) in some programs
	nanLocals bool
	// role is the block being lowered, and fn the function (its name) when
	// in the functions block
	role role
	fn   string
	// tdAssigned holds the names the transformed data assign, while they
	// are lowered
	tdAssigned map[string]bool
	// oldArrays is set once the deprecation of real y[N] is noted
	oldArrays bool
	// args are the arguments of the function being lowered (read-only in
	// Stan), true for those that are not data-only
	args map[string]bool
	// dataArgs says, for each user function, which arguments are data
	// only
	dataArgs map[string][]bool
	// blockVars are the variables of the parameters, transformed
	// parameters and generated quantities blocks (their sizes are data)
	blockVars map[string]bool
}

func (l *lowerer) at(p lexer.Position) lang.Pos {
	q := lang.ToPos(p)
	if q.File == "" {
		q.File = l.file
	}
	return q
}

// refuse records a positioned error: a construct the IR cannot express.
func (l *lowerer) refuse(p lexer.Position, format string, args ...any) *lang.Error {
	e := lang.Errorf(l.at(p), format, args...)
	if !l.quiet {
		l.errs = append(l.errs, e)
	}
	return e
}

// note records a positioned remark.
func (l *lowerer) note(p lexer.Position, format string, args ...any) {
	if !l.quiet {
		l.notes = append(l.notes, lang.Errorf(l.at(p), format, args...))
	}
}

// Lower turns a parsed Stan program into lang's tree: data and
// transformed data into the data block, parameters into latent, the
// transformed parameters into transformed, model into model, generated
// quantities into derived and functions into functions.
func Lower(p *Program, filename string) (*lang.File, lang.ErrorList, error) {
	l := &lowerer{file: filename, funcs: map[string]shape{}, voids: map[string]bool{}, anyVoid: map[string]bool{}, params: map[string][]shape{}, dataNames: map[string]bool{},
		blockVars: map[string]bool{}, dataArgs: map[string][]bool{}}
	l.push()
	f := &lang.File{Pos: p.Pos, EndPos: p.EndPos, Name: filename}
	if p.Funcs != nil {
		f.Blocks = append(f.Blocks, l.functions(p.Funcs))
	}
	byRole := map[role]*Block{}
	last := -1
	for _, b := range p.Blocks {
		name := b.Name
		if b.Second != "" {
			name += " " + b.Second
		}
		k := -1
		for i, kb := range blocks {
			if kb.name == name {
				k = i
			}
		}
		switch {
		case name == "functions":
			l.refuse(b.Pos, "the functions block comes first")
			continue
		case k < 0:
			e := l.refuse(b.Pos, "unknown Stan block %q", name)
			var names []string
			for _, kb := range blocks {
				names = append(names, kb.name)
			}
			if s := lang.Suggest(name, names); s != "" {
				e.Hint = fmt.Sprintf("did you mean %q?", s)
			}
			continue
		case k == last:
			l.refuse(b.Pos, "duplicate %s block", name)
			continue
		case k < last:
			l.refuse(b.Pos, "the %s block comes before the %s block", name, blocks[last].name)
			continue
		}
		last = k
		byRole[blocks[k].role] = b
	}
	mk := func(kind string, pos, end lexer.Position) *lang.Block {
		return &lang.Block{Pos: pos, EndPos: end, Kind: kind, Close: "}"}
	}
	if d, td := byRole[roleData], byRole[roleTData]; d != nil || td != nil {
		first := d
		if first == nil {
			first = td
		}
		b := mk("data", first.Pos, first.EndPos)
		l.role = roleData
		if d != nil {
			for _, s := range d.Stmts {
				if s.Decl == nil {
					l.refuse(s.Pos, "the data block holds declarations only")
					continue
				}
				for _, d := range append([]*Declarator{s.Decl.First}, s.Decl.More...) {
					if d.Init != nil {
						e := l.refuse(d.Init.Pos, "a variable of the data block takes no value: the data file gives it")
						e.Hint = "compute it in transformed data"
					}
				}
				b.Items = append(b.Items, l.items(l.stmt(s, ctxData))...)
				for _, d := range append([]*Declarator{s.Decl.First}, s.Decl.More...) {
					l.dataNames[d.Name] = true
				}
			}
		}
		if td != nil {
			b.EndPos = td.EndPos
			l.role = roleTData
			l.tdAssigned = map[string]bool{}
			assignedNames(td.Stmts, l.tdAssigned)
			for _, s := range td.Stmts {
				b.Items = append(b.Items, l.items(l.stmt(s, ctxData))...)
			}
			l.tdAssigned = nil
		}
		f.Blocks = append(f.Blocks, b)
	}
	if pb := byRole[roleParams]; pb != nil {
		b := mk("latent", pb.Pos, pb.EndPos)
		l.role = roleParams
		for _, s := range pb.Stmts {
			if s.Decl == nil {
				l.refuse(s.Pos, "the parameters block holds declarations only")
				continue
			}
			b.Items = append(b.Items, l.items(l.stmt(s, ctxLatent))...)
		}
		f.Blocks = append(f.Blocks, b)
	}
	tp, mb, gq := byRole[roleTParams], byRole[roleModel], byRole[roleGQ]
	// the transformed parameters are the transformed block, lowered once:
	// the declarations it makes stay visible after it, as in Stan
	if tp != nil {
		b := mk("transformed", tp.Pos, tp.EndPos)
		l.role = roleTParams
		for _, s := range tp.Stmts {
			b.Items = append(b.Items, l.items(l.stmt(s, ctxTParam))...)
		}
		f.Blocks = append(f.Blocks, b)
	}
	var model *lang.Block
	switch {
	case mb != nil:
		model = mk("model", mb.Pos, mb.EndPos)
		l.role = roleModel
		l.push()
		for _, s := range mb.Stmts {
			model.Items = append(model.Items, l.items(l.stmt(s, ctxLocal))...)
		}
		l.pop()
	case tp != nil:
		model = mk("model", tp.EndPos, tp.EndPos)
	default:
		model = mk("model", p.EndPos, p.EndPos)
	}
	f.Blocks = append(f.Blocks, model)
	if gq != nil {
		derived := mk("derived", gq.Pos, gq.EndPos)
		l.role = roleGQ
		l.nanLocals = true
		for _, s := range gq.Stmts {
			derived.Items = append(derived.Items, l.items(l.stmt(s, ctxGQ))...)
		}
		l.nanLocals = false
		f.Blocks = append(f.Blocks, derived)
	}
	if len(l.errs) > 0 {
		l.errs.Sort()
		return nil, l.notes, l.errs
	}
	return f, l.notes, nil
}

// items wraps statements as block items.
func (l *lowerer) items(ss []*lang.Stmt) []*lang.Item {
	out := make([]*lang.Item, 0, len(ss))
	for _, s := range ss {
		it := &lang.Item{Pos: s.Pos, EndPos: s.EndPos}
		if s.Decl != nil {
			it.Decl = s.Decl
		} else {
			it.Stmt = s
		}
		out = append(out, it)
	}
	return out
}

// ---- types ------------------------------------------------------------------

// vectorTypes are Stan's constrained vector types, and matrixTypes its
// constrained square-matrix types, with the IR's base type of each where it
// has one as a transform (as a latent or data declaration).
var (
	vectorTypes = map[string]bool{"simplex": true, "ordered": true, "positive_ordered": true,
		"unit_vector": false, "sum_to_zero_vector": false}
	matrixTypes = map[string]bool{"cholesky_factor_corr": true, "cholesky_factor_cov": false,
		"corr_matrix": false, "cov_matrix": false, "column_stochastic_matrix": false, "row_stochastic_matrix": false}
)

// typ lowers a declaration's type (old holds the sizes of the old array
// form, real y[N]).
func (l *lowerer) typ(t *Type, old []*Expr, ctx context) (*lang.Type, shape) {
	nt := &lang.Type{Pos: t.Pos, EndPos: t.EndPos, Base: langBase(t.Base)}
	sh := shape{base: t.Base}
	for _, e := range t.Array {
		nt.Array = append(nt.Array, l.expr(e).e)
	}
	if len(old) > 0 {
		if !l.oldArrays {
			l.oldArrays = true
			l.note(old[0].Pos, "%s x[...] is Stan's old array syntax, removed in Stan 2.33; write array[...] %s x", t.Base, t.Base)
		}
		for _, e := range old {
			nt.Array = append(nt.Array, l.expr(e).e)
		}
	}
	nt.IsArray = len(nt.Array) > 0
	sh.arr = len(nt.Array)
	for _, e := range t.Sizes {
		nt.Dims = append(nt.Dims, l.expr(e).e)
	}
	// the constraints of the generated quantities are dropped; those of
	// the transformed parameters that the transformed block checks are
	// kept, the other types lowered to their unconstrained ones
	relaxed := ctx == ctxGQ
	switch transform, isVec := vectorTypes[t.Base]; {
	case t.Base == "row_vector" && sh.arr > 0:
		// an array of vectors in the language (which has no arrays of
		// row_vectors), of row_vectors in the shapes
		nt.Base = lang.BaseVector
	case t.Base == "row_vector":
		sh.rowish, sh.mrow = true, true
	case isVec:
		sh.base = "vector"
		switch {
		case (ctx == ctxTParam || ctx == ctxLocal) && transform: // checked (a transformed quantity, a constrained local)
		case relaxed || ctx == ctxLocal || ctx == ctxTParam:
			nt.Base = lang.BaseVector
		case !transform:
			l.refuse(t.Pos, "%s is not supported", t.Base)
		}
	default:
		transform, isMat := matrixTypes[t.Base]
		switch {
		case isMat:
			sh.base = "matrix"
			switch {
			case (ctx == ctxTParam || ctx == ctxLocal) && transform:
			case relaxed || ctx == ctxLocal || ctx == ctxTParam:
				nt.Base = lang.BaseMatrix
				if len(nt.Dims) == 1 {
					nt.Dims = append(nt.Dims, nt.Dims[0])
				}
			case !transform:
				l.refuse(t.Pos, "%s is not supported", t.Base)
			}
		case t.Base != "int" && t.Base != "real" && t.Base != "vector" && t.Base != "matrix":
			l.refuse(t.Pos, "the type %s is not supported", t.Base)
		}
	}
	affine, ranged := false, false
	for _, b := range t.Bounds {
		affine = affine || b.Which == "offset" || b.Which == "multiplier"
		ranged = ranged || b.Which == "lower" || b.Which == "upper"
	}
	_, constrainedVec := vectorTypes[t.Base]
	_, constrainedMat := matrixTypes[t.Base]
	if ctx == ctxLocal && (ranged || affine || constrainedVec || constrainedMat) {
		// Stan's rule (stanc3's bad/local_var_constraint*.stan): only the
		// variables of the blocks carry constraints
		l.refuse(t.Pos, "a local variable cannot be constrained in Stan (%s); declare it without the constraint, or make it a transformed parameter", describe(t))
	}
	if affine && ranged {
		l.refuse(t.Pos, "a type takes lower and upper, or offset and multiplier, not both")
	}
	for _, b := range t.Bounds {
		switch {
		case (b.Which == "offset" || b.Which == "multiplier") && ctx != ctxLatent:
			// a transform of parameters only: elsewhere it changes nothing
		case b.Which == "offset" || b.Which == "multiplier":
			nt.Bounds = append(nt.Bounds, &lang.Bound{Pos: b.Pos, Which: b.Which, Value: l.boundVal(b.Value).e})
		case !relaxed:
			v := l.boundVal(b.Value)
			if t.Base == "int" && v.sh.base == "real" && v.sh.arr == 0 {
				l.refuse(b.Value.Pos, "the bounds of an int are ints")
			}
			nt.Bounds = append(nt.Bounds, &lang.Bound{Pos: b.Pos, Which: b.Which, Value: v.e})
		}
	}
	if ctx == ctxGQ && (len(t.Bounds) > 0 || nt.Base != langBase(t.Base)) {
		l.note(t.Pos, "the constraint of %s is not checked on each draw", describe(t))
	}
	if (ctx == ctxTParam || ctx == ctxLocal) && nt.Base != langBase(t.Base) && t.Base != "row_vector" {
		l.note(t.Pos, "the constraint of %s is not checked on each evaluation", describe(t))
	}
	if t.Base == "int" && len(nt.Array) > 1 && ctx != ctxData {
		// the IR's local integer arrays of two sizes are int[N, K]
		nt.IsArray, nt.Dims, nt.Array = false, nt.Array, nil
	}
	return nt, sh
}

// describe names a type as written, without its sizes.
func describe(t *Type) string {
	s := t.Base
	if len(t.Bounds) > 0 {
		var bs []string
		for _, b := range t.Bounds {
			bs = append(bs, b.Which+"=...")
		}
		s += "<" + strings.Join(bs, ", ") + ">"
	}
	return s
}

// ---- statements ---------------------------------------------------------------

// body lowers a statement used as the body of a loop or a branch: the
// statements of a block, or the statement alone.
func (l *lowerer) body(s *Stmt, ctx context) []*lang.Stmt {
	l.push()
	defer l.pop()
	if s.Block != nil {
		var out []*lang.Stmt
		for _, x := range s.Block.Body {
			out = append(out, l.stmt(x, ctx)...)
		}
		return out
	}
	return l.stmt(s, ctx)
}

// stmt lowers one statement into none, one or more of lang's. Within a
// block (a loop's body, a branch), declarations are locals.
func (l *lowerer) stmt(s *Stmt, ctx context) []*lang.Stmt {
	out := &lang.Stmt{Pos: s.Pos, EndPos: s.EndPos, Semi: true}
	inner := ctxLocal // declarations within a block are locals
	switch {
	case s.Decl != nil:
		var out []*lang.Stmt
		for i, d := range append([]*Declarator{s.Decl.First}, s.Decl.More...) {
			pos := d.Pos
			if i == 0 {
				pos = s.Pos
			}
			out = append(out, l.decl(s.Decl.Type, d, pos, s.EndPos, ctx))
		}
		return out
	case s.For != nil:
		f := s.For
		if f.Hi == nil {
			l.refuse(f.Pos, "for (%s in container) is not supported; loop over the indices, for (i in 1:size(...))", f.Var)
			return nil
		}
		l.checkName(f.Var, f.Pos, "loop variable")
		nf := &lang.For{Pos: f.Pos, EndPos: s.EndPos, Var: f.Var, Lo: l.expr(f.Lo).e, Hi: l.expr(f.Hi).e}
		l.push()
		l.declare(f.Var, shape{base: "int"})
		nf.Body = l.body(f.Body, inner)
		l.pop()
		out.For = nf
	case s.While != nil:
		out.While = &lang.While{Pos: s.While.Pos, EndPos: s.EndPos, Cond: l.expr(s.While.Cond).e, Body: l.body(s.While.Body, inner)}
	case s.If != nil:
		out.If = l.ifStmt(s.If, s.EndPos, inner)
	case s.Target != nil:
		if !l.targetAllowed("target +=", s.Pos) {
			return nil
		}
		out.Target = l.expr(s.Target).e
	case s.Break:
		out.Break = true
	case s.Continue:
		out.Continue = true
	case s.Return != nil:
		switch {
		case s.Return.Value == nil && l.fnVoid:
			out.Return = voidReturn
			return []*lang.Stmt{out}
		case s.Return.Value == nil:
			l.refuse(s.Pos, "return without a value in %s, which is declared to return a value", l.fn)
			return nil
		case l.fnVoid:
			l.refuse(s.Pos, "%s is a void function, which returns no value: write return;", l.fn)
			return nil
		}
		v := l.expr(s.Return.Value)
		if want, ok := l.funcs[l.fn]; ok && !returnFits(want, v.sh) {
			l.refuse(s.Return.Value.Pos, "%s is declared to return %s, and this returns %s", l.fn, want, v.sh)
		}
		out.Return = v.e
	case s.Block != nil:
		out.Scope = &lang.Scope{Pos: s.Block.Pos, EndPos: s.Block.EndPos, Body: l.body(s, inner)}
	case s.Profile != nil:
		// a profile block only times its statements: a scope
		out.Scope = &lang.Scope{Pos: s.Profile.Pos, EndPos: s.Profile.EndPos, Body: l.body(&Stmt{Block: s.Profile}, inner)}
	case s.Empty:
		return nil
	default:
		return l.simple(s.Simple, out)
	}
	return []*lang.Stmt{out}
}

// decl lowers one name of a declaration of type t.
func (l *lowerer) decl(typ *Type, d *Declarator, pos, end lexer.Position, ctx context) *lang.Stmt {
	t, sh := l.typ(typ, d.Old, ctx)
	l.checkName(d.Name, d.Pos, "variable")
	nd := &lang.Decl{Pos: pos, EndPos: end, Name: d.Name, Type: t, Semi: true}
	switch {
	case d.Init != nil:
		v := l.expr(d.Init)
		nd.Init = v.e
		l.checkAssign(sh, v.sh, "=", d.Init.Pos)
	case (l.nanLocals || l.tdAssigned != nil && !l.tdAssigned[d.Name]) && t.Base != lang.BaseInt:
		// Stan's real variables start as NaN (and a transformed data
		// variable never assigned is not read from the data file)
		nd.Init = exprOfPrimary(&lang.Primary{Pos: pos, EndPos: pos, Call: &lang.Call{Pos: pos, EndPos: pos, Name: "not_a_number"}})
	case l.tdAssigned != nil && !l.tdAssigned[d.Name]:
		// and its ints as the smallest int
		n := minInt
		nd.Init = exprOfUnary(&lang.Unary{Pos: pos, Op: "-", X: asUnary(numVal(n, pos))}, pos, pos)
	}
	if d.Init == nil && nd.Init != nil && l.tdAssigned != nil && t.IsArray && len(t.Array) <= 2 && len(t.Dims) == 0 {
		// an array of the transformed data is computed, not data given a
		// value: rep_array(x, sizes...)
		args := []val{{e: nd.Init, level: levUnary, end: pos}}
		for _, e := range t.Array {
			args = append(args, val{e: e, level: levCond, end: pos})
		}
		nd.Init = callVal("rep_array", pos, args...).e
	}
	if ctx == ctxLatent || ctx == ctxTParam || ctx == ctxGQ {
		l.dataSizes(typ, d)
		l.blockVars[d.Name] = true
	}
	if ctx == ctxLatent && d.Init != nil {
		l.refuse(d.Init.Pos, "a parameter cannot have a value")
	}
	l.declare(d.Name, sh)
	return &lang.Stmt{Pos: pos, EndPos: end, Decl: nd, Semi: true}
}

// ifStmt lowers if (c) a else b.
func (l *lowerer) ifStmt(f *If, end lexer.Position, ctx context) *lang.If {
	ni := &lang.If{Pos: f.Pos, EndPos: end, Cond: l.expr(f.Cond).e, Then: l.body(f.Then, ctx)}
	if f.Else != nil {
		if f.Else.If != nil {
			ni.ElseIf = l.ifStmt(f.Else.If, f.Else.EndPos, ctx)
		} else {
			ni.Else = l.body(f.Else, ctx)
		}
	}
	return ni
}

// statementCalls are Stan's statements written as calls, with the kind of
// lang's Message statement each lowers to ("" when the IR has none).
var statementCalls = map[string]string{
	"print":       "print",
	"reject":      "reject",
	"fatal_error": "",
}

// message lowers print(...) or reject(...), whose arguments may be
// strings.
func (l *lowerer) message(kind string, c *Call) *lang.Message {
	m := &lang.Message{Pos: c.Pos, EndPos: c.EndPos, Kind: kind}
	l.inMessage = true
	for _, a := range c.Args {
		m.Args = append(m.Args, l.expr(a).e)
	}
	l.inMessage = false
	return m
}

// simple lowers ~, assignments and call statements.
func (l *lowerer) simple(sm *Simple, out *lang.Stmt) []*lang.Stmt {
	if c := callOf(sm.LHS); c != nil && sm.Tilde == nil && sm.Op == "" {
		if kind, ok := statementCalls[c.Name]; ok {
			if kind == "" {
				l.refuse(sm.Pos, "the %s statement is not supported", c.Name)
				return nil
			}
			out.Message = l.message(kind, c)
			return []*lang.Stmt{out}
		}
		if !l.voids[c.Name] && l.anyVoid[c.Name] {
			l.refuse(sm.Pos, "%s has a void definition and one that returns a value: overloaded functions are not supported", c.Name)
			return nil
		}
		if !l.voids[c.Name] {
			l.refuse(sm.Pos, "%s returns a value: Stan calls only void functions as statements", c.Name)
			return nil
		}
		if l.declared(c.Name) {
			l.refuse(sm.Pos, "%s is a variable here, which hides the function %s", c.Name, c.Name)
			return nil
		}
		l.stmtCall = c
		out.Simple = &lang.Simple{Pos: sm.Pos, EndPos: sm.EndPos, LHS: l.expr(sm.LHS).e}
		l.stmtCall = nil
		return []*lang.Stmt{out}
	}
	lhs := l.expr(sm.LHS)
	ns := &lang.Simple{Pos: sm.Pos, EndPos: sm.EndPos, LHS: lhs.e}
	switch {
	case sm.Tilde != nil && !l.targetAllowed("~", sm.Pos):
		return nil
	case sm.Tilde != nil:
		ns.Tilde, _ = l.call(sm.Tilde)
		if sm.Trunc != nil {
			out.Simple = ns
			return append([]*lang.Stmt{out}, l.truncation(sm, lhs)...)
		}
	case sm.Op != "" && l.isArg(rootName(sm.LHS)):
		l.refuse(sm.LHS.Pos, "%s is an argument of %s, which Stan does not let the function assign", rootName(sm.LHS), l.fn)
		return nil
	case sm.Op != "" && rootName(sm.LHS) == "jacobian":
		l.refuse(sm.LHS.Pos, "jacobian += (in a _jacobian function) is not supported")
		return nil
	case sm.Op != "" && rootName(sm.LHS) != "" && !l.declared(rootName(sm.LHS)):
		what := "a variable declared before"
		if _, fn := l.funcs[rootName(sm.LHS)]; fn {
			what = "a variable, and a function is not one"
		}
		e := l.refuse(sm.LHS.Pos, "%s is not declared: Stan assigns only %s", rootName(sm.LHS), what)
		e.Hint = "declare it with its type first (real x = ...;)"
		return nil
	case sm.Op != "" && l.role == roleTData && l.dataNames[rootName(sm.LHS)]:
		l.refuse(sm.LHS.Pos, "%s is data, which the transformed data cannot assign (Stan's data are read-only)", rootName(sm.LHS))
		return nil
	case sm.Op != "" && readsItself(sm.LHS):
		l.refuse(sm.LHS.Pos, "an index on the left of %s reads the variable assigned (Stan forbids it)", sm.Op)
		return nil
	case sm.Op == "=":
		v := l.expr(sm.Value)
		l.checkAssign(lhs.sh, v.sh, sm.Op, sm.Value.Pos)
		ns.Assign = v.e
	case sm.Op == ".*=" || sm.Op == "./=":
		// x .*= e is x = x .* (e)
		v := l.expr(sm.Value)
		l.checkAssign(lhs.sh, v.sh, sm.Op, sm.Value.Pos)
		ns.Assign = product(strings.TrimSuffix(sm.Op, "="), sm.Value.Pos, lhs, v).e
	case sm.Op != "":
		v := l.expr(sm.Value)
		l.checkAssign(lhs.sh, v.sh, sm.Op, sm.Value.Pos)
		ns.Compound = sm.Op
		ns.Value = v.e
	default:
		l.refuse(sm.Pos, "an expression alone is not a statement: a statement calls a void function, assigns, or is ~")
		return nil
	}
	out.Simple = ns
	return []*lang.Stmt{out}
}

// targetAllowed refuses a statement what (target += or ~) that adds to
// the log density in a function whose name does not end in _lp (Stan's
// rule), reporting whether it is allowed.
func (l *lowerer) targetAllowed(what string, p lexer.Position) bool {
	if l.fn == "" || strings.HasSuffix(l.fn, "_lp") {
		return true
	}
	e := l.refuse(p, "%s in function %s: Stan allows it only in the model block and in functions whose names end in _lp", what, l.fn)
	e.Hint = "rename the function " + l.fn + "_lp (and call it from the model block)"
	return false
}

// minInt is the value of Stan's int variables before they are assigned
// (the magnitude; the smallest 32-bit int is its negation).
const minInt = "2147483648"

// assignedNames adds the names that statements assign (the root of each
// left side) to out.
func assignedNames(ss []*Stmt, out map[string]bool) {
	for _, s := range ss {
		switch {
		case s.Simple != nil && s.Simple.Op != "":
			if p := s.Simple.LHS.Chain.Left.Power; p != nil && p.Base.Prim.Ident != nil {
				out[*p.Base.Prim.Ident] = true
			}
		case s.For != nil:
			assignedNames([]*Stmt{s.For.Body}, out)
		case s.While != nil:
			assignedNames([]*Stmt{s.While.Body}, out)
		case s.If != nil:
			assignedNames([]*Stmt{s.If.Then}, out)
			if s.If.Else != nil {
				assignedNames([]*Stmt{s.If.Else}, out)
			}
		case s.Block != nil:
			assignedNames(s.Block.Body, out)
		case s.Profile != nil:
			assignedNames(s.Profile.Body, out)
		}
	}
}

// rootName is the variable an assignment's left side assigns ("" if
// none).
func rootName(e *Expr) string {
	if p := e.Chain.Left.Power; p != nil && p.Base.Prim.Ident != nil {
		return *p.Base.Prim.Ident
	}
	return ""
}

// readsItself reports whether e is name[...] with an index that reads
// name: x[x[1]] = 2, which Stan refuses.
func readsItself(e *Expr) bool {
	if e.Then != nil || len(e.Chain.Rest) > 0 || e.Chain.Left.Power == nil {
		return false
	}
	p := e.Chain.Left.Power.Base
	if p.Prim.Ident == nil {
		return false
	}
	name := *p.Prim.Ident
	found := false
	visit := func(x *Expr) {
		walkIdents(x, func(n string) { found = found || n == name })
	}
	for _, o := range p.Ops {
		for _, s := range o.Index {
			if s.Lo != nil {
				visit(s.Lo)
			}
			if s.Hi != nil {
				visit(s.Hi)
			}
		}
	}
	return found
}

// walkIdents calls f with each name an expression reads.
func walkIdents(e *Expr, f func(string)) {
	var unary func(u *Unary)
	chain := func(c *Chain) {
		unary(c.Left)
		for _, o := range c.Rest {
			unary(o.X)
		}
	}
	var expr func(e *Expr)
	unary = func(u *Unary) {
		if u.Power == nil {
			unary(u.X)
			return
		}
		if u.Power.Exp != nil {
			unary(u.Power.Exp)
		}
		pf := u.Power.Base
		pr := pf.Prim
		switch {
		case pr.Ident != nil:
			f(*pr.Ident)
		case pr.Paren != nil:
			expr(pr.Paren)
		case pr.Call != nil:
			for _, a := range append(append([]*Expr(nil), pr.Call.Args...), pr.Call.Given...) {
				expr(a)
			}
		}
		for _, a := range append(append([]*Expr(nil), pr.Array...), pr.Row...) {
			expr(a)
		}
		for _, o := range pf.Ops {
			for _, s := range o.Index {
				if s.Lo != nil {
					expr(s.Lo)
				}
				if s.Hi != nil {
					expr(s.Hi)
				}
			}
		}
	}
	expr = func(e *Expr) {
		chain(e.Chain)
		if e.Then != nil {
			expr(e.Then)
			expr(e.Else)
		}
	}
	expr(e)
}

// callOf returns the call if e is a call alone.
func callOf(e *Expr) *Call {
	if e.Then != nil || len(e.Chain.Rest) > 0 || e.Chain.Left.Power == nil {
		return nil
	}
	p := e.Chain.Left.Power
	if p.Exp != nil || len(p.Base.Ops) > 0 {
		return nil
	}
	return p.Base.Prim.Call
}

// ---- functions ------------------------------------------------------------------

// functions lowers the functions block.
func (l *lowerer) functions(fb *Functions) *lang.Block {
	b := &lang.Block{Pos: fb.Pos, EndPos: fb.EndPos, Kind: "functions", Close: "}"}
	decls := &declared{first: map[string]*FuncDef{}, defined: map[string]bool{}}
	defer l.undefined(decls, fb.Defs)
	for _, fd := range fb.Defs {
		l.declareFunc(decls, fd)
		l.checkDensity(fd)
		l.checkLibraryName(fd.Name, fd.Pos)
		var res *lang.Param
		_, overloaded := l.funcs[fd.Name]
		if fd.Void {
			// (an overload of a function that returns a value is the IR's
			// to refuse: a function defined twice)
			l.voids[fd.Name] = !overloaded || l.voids[fd.Name]
			l.funcs[fd.Name] = shape{}
			l.anyVoid[fd.Name] = true
		} else {
			var rsh shape
			res, rsh = l.argType(fd.Result)
			l.funcs[fd.Name] = rsh
			delete(l.voids, fd.Name)
		}
		l.checkName(fd.Name, fd.Pos, "function")
		for _, s := range densitySuffixes {
			if strings.HasSuffix(fd.Name, s) && len(fd.Args) == 0 {
				l.refuse(fd.Pos, "%s takes at least one argument, the variate (a function whose name ends in %s)", fd.Name, s)
			}
		}
		if fd.Forward {
			continue
		}
		nf := &lang.FuncDef{Pos: fd.Pos, EndPos: fd.EndPos, Name: fd.Name, Void: fd.Void}
		if !fd.Void {
			nf.Result = &lang.Type{Pos: fd.Result.Pos, IsArray: res.Array, Unsized: res.Commas, Base: res.Base}
		}
		l.push()
		l.fn, l.fnVoid = fd.Name, fd.Void
		l.params[fd.Name] = nil
		l.args = map[string]bool{}
		l.dataArgs[fd.Name] = nil
		for _, a := range fd.Args {
			l.args[a.Name] = !a.Type.Data
			l.dataArgs[fd.Name] = append(l.dataArgs[fd.Name], a.Type.Data)
			l.checkName(a.Name, a.Pos, "argument")
			p, sh := l.argType(a.Type)
			l.params[fd.Name] = append(l.params[fd.Name], sh)
			p.Pos, p.Name = a.Pos, a.Name
			nf.Params = append(nf.Params, p)
			l.declare(a.Name, sh)
		}
		for _, s := range fd.Body {
			nf.Body = append(nf.Body, l.stmt(s, ctxLocal)...)
		}
		if fd.Void {
			var bad *lang.Stmt
			if nf.Body, bad = voidReturns(nf.Body); bad != nil {
				l.refuse(bad.Pos, "a return inside a loop or a block of the void function %s is not supported (only at the end of the function or of a branch of an if)", fd.Name)
			}
		} else {
			nf.Body = singleReturn(nf.Body, res.Base, !res.Array && (res.Base == lang.BaseInt || res.Base == lang.BaseReal), fd.EndPos)
		}
		l.fn, l.fnVoid, l.args = "", false, nil
		l.pop()
		b.Items = append(b.Items, &lang.Item{Pos: fd.Pos, EndPos: fd.EndPos, Func: nf})
	}
	return b
}

// argType lowers an unsized type of a function's argument or result.
func (l *lowerer) argType(t *ArgType) (*lang.Param, shape) {
	n := t.Dims()
	p := &lang.Param{Pos: t.Pos, Array: n > 0, Base: langBase(t.Base)}
	for i := 1; i < n; i++ {
		p.Commas = append(p.Commas, ",")
	}
	switch t.Base {
	case "int", "real", "vector", "matrix":
	case "row_vector":
		// an array of vectors in the language, of row_vectors in the shapes
		if n > 0 {
			p.Base = lang.BaseVector
		}
		if t.Old {
			l.note(t.Pos, "%s[] is Stan's old array syntax, removed in Stan 2.33; write array[] %s", t.Base, t.Base)
		}
		return p, shape{base: "row_vector", arr: n, rowish: n == 0, mrow: n == 0}
	default:
		l.refuse(t.Pos, "the type %s is not supported in a function's signature", t.Base)
	}
	if t.Old {
		l.note(t.Pos, "%s[] is Stan's old array syntax, removed in Stan 2.33; write array[] %s", t.Base, t.Base)
	}
	return p, shape{base: t.Base, arr: n}
}

// langBase is the base of lang's type for a Stan base type's keyword (0
// for row_vector, which its caller maps onto vector).
func langBase(name string) lang.BaseType {
	b, _ := lang.ParseBaseType(name)
	return b
}
