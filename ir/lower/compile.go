package lower

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// DefaultMaxNodes bounds the size of the unrolled graph.
const DefaultMaxNodes = 5_000_000

// maxElements bounds the elements of one value the graph computes
// (rep_matrix(1, N, N) with N = 10^6 is refused before it is allocated).
const maxElements = 1 << 28

// loopProbe is the number of iterations of an unrolled loop after which
// its size is projected, and loopProbeFactor how far over the node limit
// the projection must be to refuse the loop then (its first iterations
// may cost more than the rest).
const (
	loopProbe       = 64
	loopProbeFactor = 4
)

// CompileOptions tune Compile.
type CompileOptions struct {
	// MaxNodes rejects models whose unrolled graph would be larger (0: DefaultMaxNodes).
	MaxNodes int
	// UnrollLoops compiles every loop unrolled, one copy of the body per
	// value of the loop variable, including the loops that vecloop.go
	// would compile once over their whole range (the tests compare the
	// two).
	UnrollLoops bool
	// NoView: the compile is not to try a state-space view (it is one, or
	// its structure is not wanted).
	NoView bool
	// state is the state of a state-space view's compile (compileView).
	state []*ir.Var
}

// Factor is one term of the log joint in the unrolled graph: the log
// density of one instance of a statement. Every term has a node, a source
// position and text (for messages), its loop context and its dependency set;
// a ~ statement adds its family and argument nodes, and a ~ statement whose
// left-hand side is a latent (a prior term) adds the latent positions it
// draws and their bijection. Other statements (such as a future
// `target += expr`) are terms with the common fields only.
type Factor struct {
	Node  autodiff.Node // the term's log density, one scalar per row
	Pos   lang.Pos      // the statement, for messages
	Text  string        // the statement as written, for messages
	Loops string        // "t = 5" for statements inside loops
	// deps lists the unconstrained latent positions the term depends on,
	// other than the ones it draws (prior.lhsPos).
	deps  []int
	Tilde *tildeTerm // nil when the term is not a ~ statement
	Prior *priorTerm // nil when the term does not draw a latent
	mvn   *mvnTerm   // a multivariate normal of a latent vector (x[t] ~ multi_normal(...)), or nil
	// why, when set, explains the term's -Inf at the last evaluation (a
	// failed ODE solve: the solver's reason)
	Why func() string
}

// tildeTerm are the facts of a term that comes from lhs ~ family(args).
type tildeTerm struct {
	Family *stdlib.Family
	Args   []autodiff.Node // lhs first
}

// mvnTerm are the facts of a multivariate normal term of a row of a latent
// (x[t] ~ multi_normal(mu, Sigma) or multi_normal_cholesky(mu, L)): a
// term of the log density (Prior is nil), which a state-space transition
// reads as the draw of the row.
type mvnTerm struct {
	pos, deps []int         // the row's latent positions; those mu and Sigma (or L) read
	mean, cov autodiff.Node // mu (one value or one per element) and Sigma, or L when chol
	chol      bool
}

// priorTerm are the facts of a ~ statement whose left-hand side is a latent.
type priorTerm struct {
	// LhsPos are the unconstrained latent positions written by the
	// statement (one per element of the lhs), bij their bijection.
	LhsPos []int
	bij    stdlib.Bijection
	// argOrder is the evaluation order of the arguments (for ancestral
	// sampling), computed once.
	argOrder []autodiff.Node
	// self: the arguments depend on elements the statement itself draws
	// (z[2:T] ~ normal(phi * z[1:(T-1)], s)), so they are evaluated again
	// before each element (set by priorSchedule)
	self bool
}

// Compiled is a model lowered to an autodiff graph. It implements the target
// interfaces of package infer/msc. It is not safe for concurrent use; give
// each goroutine its own copy (Clone).
type Compiled struct {
	Model *ir.Model
	g     *autodiff.Graph

	LatentNode   autodiff.Node // batched input: the unconstrained latents
	param        autodiff.Node // shared input: the unconstrained params
	hasParam     bool
	LogJointNode autodiff.Node
	logPrior     autodiff.Node
	Factors      []Factor
	// constrained value node of each latent and param variable, by Var.ID
	varNode []autodiff.Node

	priorOrder []autodiff.Node // nodes to evaluate for LogPrior
	JointOrder []autodiff.Node
	maxBatch   int
	priorErr   error // why SamplePrior is unavailable, if it is
	priorSched []int // the order of SamplePrior's statements (priorSchedule)

	structure Structure
	ssm       *StateSpace // the state-space structure (nil when the model is not one)
	sv        *viewInfo   // the state-space view, when the model is one only through it (ssmview.go)
	// terms that depend on no latent element (data and params only), and
	// the nodes to evaluate for them (computed on first use)
	constTerms []int
	constOrder []autodiff.Node
	// env is the node of each variable by Var.ID after the model body (data,
	// sizes, params, latents, locals), for CompileExpr
	env []autodiff.Node
	// scratch for distribution parameters (SamplePrior)
	scratch [8]float64
	// nodes to evaluate for the latents Constrain computes on the graph,
	// and those of them that LogJoint does not evaluate (ConstrainJoint)
	specialOrder, afterJoint []autodiff.Node
	// the random ops of NAME_rng calls in derived quantities
	rngs []*stdlib.RandOp
	// the argument checks of the CDFs in derived quantities, and their calls
	cdfChecks []*stdlib.ArgCheckOp
	cdfAt     []cdfSite
	// where each of rngs is drawn (the call, its position and loops)
	rngAt []rngSite
	// the latents with no prior statement whose declared space is
	// unbounded (ImproperError)
	Unpriored []*ir.Var
	// the latents with both bounds expressions, and their nodes (Diagnose)
	Bounded   []boundedLatent
	Rejecters []*Rejections // the ops that reject draws (reject.go)
	// the integer divisions known only per draw (ops.go)
	intOps []intSite
	// the print and reject statements (messages.go), and the nodes of
	// those of the derived block, which Constrain evaluates
	messages    []*messageOp
	derivedMsgs []autodiff.Node
}

type compiler struct {
	hmmOps  map[*ir.MatCall]*HmmOp // the op of each hmm_marginal call (hmm.go)
	m       *ir.Model
	g       *autodiff.Graph
	c       *Compiled
	env     []autodiff.Node // by Var.ID; -1 when unset
	ints    []int           // loop variable values by Var.ID
	loopCtx []string
	// jump is the break or continue that ended the statements being
	// compiled, until the loop around them takes it (loops.go)
	jump    *ir.Jump
	vec     *vecLoop // the loop compiled over its whole range (vecloop.go), or nil
	vecAsg  vecAssigned
	errs    lang.ErrorList
	seen    map[lang.Pos]bool
	ops     map[*stdlib.Family]*stdlib.SumLogDensity
	consts  map[float64]autodiff.Node
	jac     []autodiff.Node
	max     int
	unroll  bool  // CompileOptions.UnrollLoops
	covered []int // number of prior statements per unconstrained latent position
	// dependency sets: latent positions each local depends on (by Var.ID)
	localDeps [][]int
	// elems holds the element nodes of a local vector or matrix filled by
	// element assignment (by Var.ID; -1 for an unassigned element)
	elems    [][]autodiff.Node
	depMark  []int // scratch for depsOf, by latent position
	depStamp int
	lazy     []lazyElem // elements made on first use (matfill.go)
	calls    []string   // the user function calls being compiled, outermost first
	// inDerived is set while the derived block's statements compile (an
	// ODE call there adds no term for its failures)
	inDerived bool
	// conds are the ifs on latents around the statement being compiled
	// (piecewise), innermost last, for print and reject
	conds     []condition
	heavyCost // the projection of the calls whose cost is not in the graph's size (reject.go)
}

type compileError struct{ err *lang.Error }

// Compile lowers a checked model to a graph.
func Compile(m *ir.Model, opt CompileOptions) (*Compiled, error) {
	compiles.Add(1)
	return lower(m, opt)
}

// lower is Compile, also of a model's state-space view (ssmview.go).
func lower(m *ir.Model, opt CompileOptions) (*Compiled, error) {
	if opt.MaxNodes <= 0 {
		opt.MaxNodes = DefaultMaxNodes
	}
	if err := m.SizeError(maxElements); err != nil {
		return nil, err
	}
	g := autodiff.New()
	c := &Compiled{Model: m, g: g, varNode: make([]autodiff.Node, len(m.Vars))}
	cp := &compiler{
		m: m, g: g, c: c,
		env:       make([]autodiff.Node, len(m.Vars)),
		ints:      make([]int, len(m.Vars)),
		seen:      map[lang.Pos]bool{},
		ops:       map[*stdlib.Family]*stdlib.SumLogDensity{},
		consts:    map[float64]autodiff.Node{},
		max:       opt.MaxNodes,
		unroll:    opt.UnrollLoops,
		covered:   make([]int, m.LatentDim),
		localDeps: make([][]int, len(m.Vars)),
		elems:     make([][]autodiff.Node, len(m.Vars)),
		depMark:   make([]int, m.LatentDim),
	}
	for i := range cp.env {
		cp.env[i] = -1
	}
	cp.leaves()
	cp.block(m.Body)
	cp.inDerived = true
	cp.block(m.Derived)
	cp.derived()
	if err := cp.errs.Err(); err != nil {
		cp.errs.Sort()
		return nil, cp.errs
	}
	c.env = cp.env
	terms := make([]autodiff.Node, 0, len(c.Factors)+len(cp.jac))
	prior := make([]autodiff.Node, 0, len(cp.jac)+4)
	for _, f := range c.Factors {
		terms = append(terms, f.Node)
		if f.Prior != nil {
			prior = append(prior, f.Node)
		}
	}
	terms = append(terms, cp.jac...)
	prior = append(prior, cp.jac...)
	if len(terms) == 0 {
		terms = append(terms, cp.num(0))
	}
	if len(prior) == 0 {
		prior = append(prior, cp.num(0))
	}
	c.LogJointNode = g.AddN(terms...)
	c.logPrior = g.AddN(prior...)
	c.JointOrder = g.Ancestors(c.LogJointNode)
	c.priorOrder = g.Ancestors(c.logPrior)
	c.priorErr = cp.priorCheck()
	c.Unpriored = cp.unpriored()
	detect(c, opt)
	c.Reserve(1)
	if err := initParams(c); err != nil {
		return nil, err
	}
	return c, nil
}

// initParams sets the params to their initial values (unset ones stay as
// they are: zero in a new graph).
func initParams(c *Compiled) error {
	if !c.hasParam {
		return nil
	}
	p := c.g.Value(c.param, 0)
	for _, v := range c.Model.Params {
		for i, x := range v.Init {
			u, err := v.Bij.Unconstrain(x)
			if err != nil {
				return lang.Errorf(v.Pos, "initial value %g of param %s is outside its constraint %s", x, v.Name, ir.BijString(v.Bij))
			}
			p[v.Offset+i] = u
		}
	}
	c.SetParams(p) // the state-space view starts at the model's params too
	return nil
}

func (cp *compiler) fail(pos lang.Pos, format string, args ...any) {
	if cp.seen[pos] {
		panic(compileError{})
	}
	cp.seen[pos] = true
	e := lang.Errorf(pos, format, args...)
	if len(cp.loopCtx) > 0 {
		e.Msg += " (at " + strings.Join(cp.loopCtx, ", ") + ")"
	}
	if len(cp.calls) > 0 { // the call of the model or derived block
		e.Msg += "; in the call " + cp.calls[0]
	}
	panic(compileError{e})
}

func (cp *compiler) num(v float64) autodiff.Node {
	if n, ok := cp.consts[v]; ok {
		return n
	}
	n := cp.g.Const([]float64{v})
	cp.consts[v] = n
	return n
}

// leaves creates the data, param and latent nodes.
func (cp *compiler) leaves() {
	m, g, c := cp.m, cp.g, cp.c
	for _, v := range m.Data { // data are not written after binding: views, shared by the model's compiled copies
		switch v.Type.Kind {
		case ir.Matrix:
			cp.env[v.ID] = g.ConstMatrixView(v.Type.Rows, v.Type.Cols, v.Value)
		default:
			cp.env[v.ID] = g.ConstView(v.Value)
		}
	}
	for _, v := range m.Vars {
		if v.Kind == ir.SizeVar {
			cp.env[v.ID] = g.Const(v.Value)
		}
	}
	if m.ParamDim > 0 {
		c.param = g.Param(m.ParamDim)
		c.hasParam = true
		for _, v := range m.Params {
			n := cp.part(c.param, v)
			if v.Bij.HasLower || v.Bij.HasUpper {
				n = g.Map(v.Bij.Func(), n)
			}
			cp.env[v.ID] = n
			c.varNode[v.ID] = n
		}
	}
	dim := m.LatentDim
	if dim == 0 {
		dim = 1 // keep a batched input so the graph has a batch dimension
	}
	c.LatentNode = g.Input(dim)
	for _, v := range m.Latents {
		if v.Derived != nil {
			continue // computed after the model body
		}
		if v.Special() {
			cp.specialLeaf(v)
			continue
		}
		u := cp.part(c.LatentNode, v)
		n := u
		if v.Bij.HasLower || v.Bij.HasUpper {
			n = g.Map(v.Bij.Func(), u)
			cp.jac = append(cp.jac, g.Sum(g.Map(v.Bij.LogJacFunc(), u)))
		}
		cp.env[v.ID] = n
		c.varNode[v.ID] = n
	}
}

func (cp *compiler) part(in autodiff.Node, v *ir.Var) autodiff.Node {
	switch {
	case v.Type.Scalar():
		return cp.g.Index(in, v.Offset)
	case v.Type.Kind == ir.Matrix: // row by row
		return cp.g.Reshape(cp.g.Slice(in, v.Offset, v.Offset+v.Type.Len()), v.Type.Rows, v.Type.Cols)
	}
	return cp.g.Slice(in, v.Offset, v.Offset+v.Type.Len())
}

func (cp *compiler) block(body []ir.Stmt) {
	for _, s := range body {
		cp.stmt(s)
		if cp.jump != nil {
			return // the rest of the iteration is skipped
		}
	}
}

// recoverError records the error of a failed statement (cp.fail panics
// with a compileError) so that compilation goes on with the next one;
// deferred by stmt and by each derived quantity.
func (cp *compiler) recoverError() {
	if r := recover(); r != nil {
		ce, ok := r.(compileError)
		if !ok {
			panic(r)
		}
		if ce.err != nil {
			cp.errs = append(cp.errs, ce.err)
		}
	}
}

func (cp *compiler) stmt(s ir.Stmt) {
	defer cp.recoverError()
	if cp.g.NumNodes() > cp.max {
		cp.fail(s.Pos(), "the model unrolls to more than %d graph nodes (the limit); reduce the loop sizes or raise --max-nodes", cp.max)
	}
	switch s := s.(type) {
	case *ir.Assign:
		if cp.vec != nil {
			cp.vecAssign(s)
			return
		}
		cp.assign(s)
	case *ir.LocalDecl:
		cp.localDecl(s)
	case *ir.If:
		if c := cp.expr(s.Cond); !cp.g.IsConst(c) {
			cp.jumpUnderLatents(s)
			cp.piecewise(s, c)
			return
		}
		if cp.constExpr(s.Cond) != 0 {
			cp.block(s.Then)
		} else {
			cp.block(s.Else)
		}
	case *ir.Target:
		cp.target(s)
	case *ir.Jump:
		cp.jump = s
	case *ir.For:
		if s.While != nil {
			cp.whileLoop(s)
			return
		}
		lo, hi := cp.intExpr(s.Lo), cp.intExpr(s.Hi)
		if hi == lo-1 { // runs zero times, as in Stan (1..N with N = 0)
			return
		}
		if hi < lo {
			cp.fail(s.Pos(), "loop %s in %d..%d is empty: the upper bound is below the lower bound", s.Var.Name, lo, hi)
		}
		if ir.HasJump(s.Body) == nil && (cp.vectorLoop(s, lo, hi) || cp.forwardLoop(s, lo, hi)) {
			return
		}
		before, beforeHeavy := cp.g.NumNodes(), cp.heavyCost
		for t := lo; t <= hi; t++ {
			cp.ints[s.Var.ID] = t
			cp.loopCtx = append(cp.loopCtx, fmt.Sprintf("%s = %d", s.Var.Name, t))
			nerr := len(cp.errs)
			cp.block(s.Body)
			cp.loopCtx = cp.loopCtx[:len(cp.loopCtx)-1]
			if len(cp.errs) > nerr {
				return // one report per loop is enough
			}
			// over the limit, or (after loopProbe iterations) projected far
			// over it: a loop of 10^9 iterations is refused at once, not
			// after it has filled the memory up to the limit
			done := t - lo + 1
			projected := before + int(float64(cp.g.NumNodes()-before)/float64(done)*float64(hi-lo+1))
			if cp.g.NumNodes() > cp.max || done == loopProbe && projected > loopProbeFactor*cp.max {
				cp.fail(s.Pos(), "the loop over %s in %d..%d would unroll to about %d graph nodes, more than the limit of %d; reduce the loop sizes or raise --max-nodes", s.Var.Name, lo, hi, projected, cp.max)
			}
			if cp.heavyCost.seconds > beforeHeavy.seconds || cp.heavyCost.bytes > beforeHeavy.bytes {
				cp.heavyLoop(s, lo, hi, done, beforeHeavy)
			}
			if cp.endIteration() {
				break
			}
		}
	case *ir.Tilde:
		cp.tilde(s)
	case *ir.Message:
		cp.message(s)
	default:
		panic(fmt.Sprintf("ir: unknown statement %T", s))
	}
}

// hasEmpty reports whether one of the nodes is an empty vector or matrix.
func hasEmpty(g *autodiff.Graph, nodes []autodiff.Node) bool {
	for _, n := range nodes {
		if g.Len(n) == 0 {
			return true
		}
	}
	return false
}

func (cp *compiler) tilde(s *ir.Tilde) {
	g := cp.g
	lhs := cp.expr(s.LHS)
	if g.Len(lhs) == 0 { // y ~ NAME(...) over an empty y adds 0, as in Stan
		return
	}
	nodes := make([]autodiff.Node, len(s.Args))
	for i, a := range s.Args {
		nodes[i] = cp.expr(a)
	}
	if s.Dist.Scalar() && hasEmpty(g, nodes) {
		return
	}
	args := make([]autodiff.Node, 0, len(s.Args)+1)
	args = append(args, lhs)
	for i, a := range s.Args {
		n := nodes[i]
		if g.IsConst(n) {
			spec := s.Dist.Params[i]
			for _, x := range g.Value(n, 0) {
				if !spec.Admits(x) {
					cp.fail(a.Pos(), "%s: argument %d (%s) must be %s, got %g", s.Dist.Name, i+1, spec.Name, spec.Want(), x)
				}
			}
		}
		args = append(args, n)
	}
	if g.IsConst(lhs) {
		for k, x := range g.Value(lhs, 0) {
			if !s.Dist.InSupport(x) {
				where := ""
				if s.Root != nil && s.Root.Source != "" && !s.LHS.Type().Scalar() {
					where = fmt.Sprintf(" (element %d of %s, %s)", k+1, s.Root.Name, s.Root.Source)
				}
				cp.fail(s.LHS.Pos(), "%s needs values that are %s, got %g%s", s.Dist.Name, s.Dist.SupportText(), x, where)
			}
		}
	}
	op := cp.density(s.Dist)
	var deps []int
	for _, a := range s.Args {
		deps = cp.depsOf(a, deps)
	}
	var prior *priorTerm
	if s.Root != nil && s.Root.Kind == ir.LatentVar {
		prior = &priorTerm{bij: s.Root.Bij, LhsPos: cp.lhsPositions(s.LHS)}
		for _, p := range prior.LhsPos {
			cp.covered[p]++
		}
	} else {
		deps = cp.depsOf(s.LHS, deps)
	}
	cp.addTerm(Factor{
		Node:  g.Custom(op, 1, args...),
		Pos:   s.Pos(),
		Text:  s.Text,
		deps:  deps,
		Tilde: &tildeTerm{Family: s.Dist, Args: args},
		Prior: prior,
	})
}

// addTerm adds a term to the log joint, in the current loop context.
func (cp *compiler) addTerm(f Factor) {
	f.Loops = strings.Join(cp.loopCtx, ", ")
	cp.c.Factors = append(cp.c.Factors, f)
}

// depsOf adds to dst the unconstrained latent positions that e depends on.
func (cp *compiler) depsOf(e ir.Expr, dst []int) []int {
	// depMark[p] == depStamp for the positions already in dst, so that a
	// whole-vector reference costs its length, not its length squared
	cp.depStamp++
	for _, q := range dst {
		cp.depMark[q] = cp.depStamp
	}
	add := func(p int) {
		if cp.depMark[p] == cp.depStamp {
			return
		}
		cp.depMark[p] = cp.depStamp
		dst = append(dst, p)
	}
	var walk func(e ir.Expr)
	walk = func(e ir.Expr) {
		switch e := e.(type) {
		case *ir.Ref:
			switch e.Var.Kind {
			case ir.LatentVar:
				for i := 0; i < e.Var.UDim(); i++ {
					add(e.Var.Offset + i)
				}
				for _, b := range e.Var.BoundExprs() {
					walk(b)
				}
			case ir.LocalVar:
				for _, p := range cp.localDeps[e.Var.ID] {
					add(p)
				}
			}
		case *ir.Cond:
			if taken, ok := cp.known(e.C); ok { // the branch not taken adds nothing
				walk(taken(e))
				return
			}
			walk(e.C)
			walk(e.A)
			walk(e.B)
			return
		case *ir.Index:
			for _, ie := range e.Idx {
				if cp.perDraw(ie) >= 0 { // any element may be the one read
					walk(e.X)
					for _, ie := range e.Idx {
						walk(ie)
					}
					return
				}
			}
			if r, ok := e.X.(*ir.Ref); ok && r.Var.Kind == ir.LatentVar && !r.Var.Special() {
				for _, p := range cp.lhsPositions(e) {
					add(p)
				}
				return
			}
			walk(e.X)
		default:
			for _, c := range ir.Children(e) {
				walk(c)
			}
		}
	}
	walk(e)
	return dst
}

// lhsPositions returns the unconstrained latent positions of a ~ statement's
// left-hand side (a latent, or an indexed latent).
func (cp *compiler) lhsPositions(e ir.Expr) []int {
	switch e := e.(type) {
	case *ir.Ref:
		out := make([]int, e.Var.UDim())
		for i := range out {
			out[i] = e.Var.Offset + i
		}
		return out
	case *ir.Slice: // x[a:b]
		r := e.X.(*ir.Ref)
		if r.Var.Special() {
			return cp.lhsPositions(r)
		}
		out := make([]int, 0, e.Hi[0]-e.Lo[0]+1)
		for k := e.Lo[0]; k <= e.Hi[0]; k++ {
			out = append(out, r.Var.Offset+k-1)
		}
		return out
	case *ir.Builtin: // a[:, k] of a 2-D array
		return cp.arrayColPositions(e)
	case *ir.Index:
		r, ok := e.X.(*ir.Ref)
		if !ok {
			return nil
		}
		v := r.Var
		if v.Special() {
			return cp.lhsPositions(r)
		}
		if in, ok := e.Idx[0].(*ir.Index); ok && cp.isVecIndex(in) { // a[g[n]] over a vectorised loop
			var out []int
			for _, k := range cp.gatherIndices(v, in, cp.vec.lo, cp.vec.hi) {
				out = append(out, v.Offset+k)
			}
			return out
		}
		if e.Idx[0].Type().Kind == ir.Vector { // a[g]
			var out []int
			for _, k := range cp.g.Value(cp.expr(e.Idx[0]), 0) {
				if v.Type.Kind == ir.Matrix { // the rows of an array
					for j := 0; j < v.Type.Cols; j++ {
						out = append(out, v.Offset+(int(k)-1)*v.Type.Cols+j)
					}
					continue
				}
				out = append(out, v.Offset+int(k)-1)
			}
			return out
		}
		idx := make([]int, len(e.Idx))
		for i, x := range e.Idx {
			idx[i] = cp.intExpr(x) - 1
		}
		switch {
		case v.Type.Kind == ir.Vector:
			return []int{v.Offset + idx[0]}
		case v.Type.Kind == ir.Matrix && len(idx) == 2:
			return []int{v.Offset + idx[0]*v.Type.Cols + idx[1]}
		case v.Type.Kind == ir.Matrix:
			out := make([]int, v.Type.Cols)
			for j := range out {
				out[j] = v.Offset + idx[0]*v.Type.Cols + j
			}
			return out
		}
	}
	return nil
}

func (cp *compiler) priorCheck() error {
	for _, v := range cp.m.Latents {
		if v.Special() && v.Derived == nil {
			return lang.Errorf(v.Pos, "latent %s has a vector constraint or bounds that depend on other variables, so its prior cannot be sampled directly", v.Name)
		}
	}
	for _, v := range cp.m.Latents {
		for i := 0; i < v.UDim(); i++ {
			switch n := cp.covered[v.Offset+i]; {
			case n == 0:
				return lang.Errorf(v.Pos, "latent %s has no prior statement (%s ~ ...), so the prior cannot be used as a proposal", ir.ComponentName(v, i), v.Name)
			case n > 1:
				return lang.Errorf(v.Pos, "latent %s appears on the left of ~ %d times, so the prior cannot be sampled directly", ir.ComponentName(v, i), n)
			}
		}
	}
	return nil
}

func (cp *compiler) intExpr(e ir.Expr) int {
	v := cp.constExpr(e)
	if v != math.Trunc(v) {
		cp.fail(e.Pos(), "expected an integer, got %g", v)
	}
	n, ok := ir.ExactInt(v)
	if !ok {
		cp.fail(e.Pos(), "%s", ir.BigIntMsg(e, v))
	}
	return n
}

// constExpr evaluates an expression known at compile time (sizes, loop
// variables, int data, literals).
func (cp *compiler) constExpr(e ir.Expr) float64 {
	switch e := e.(type) {
	case *ir.Num:
		return e.V
	case *ir.Ref:
		switch e.Var.Kind {
		case ir.LoopVar:
			return float64(cp.ints[e.Var.ID])
		case ir.SizeVar, ir.DataVar:
			if e.Var.Type.Scalar() {
				return e.Var.Value[0]
			}
		}
	case *ir.Unary:
		return -cp.constExpr(e.X)
	case *ir.Binary:
		x, y := cp.constExpr(e.X), cp.constExpr(e.Y)
		if ir.IntDivByZero(e, y) {
			cp.fail(e.Pos(), "%s", ir.DivByZeroMsg(e))
		}
		return ir.ApplyOp(e.Op, x, y, e.T.Kind == ir.Int)
	case *ir.Not:
		return ir.BoolToFloat(cp.constExpr(e.X) == 0)
	case *ir.Cond:
		if cp.constExpr(e.C) != 0 {
			return cp.constExpr(e.A)
		}
		return cp.constExpr(e.B)
	}
	n := cp.expr(e)
	if !cp.g.IsConst(n) {
		cp.fail(e.Pos(), "this expression must be known before inference (it may use only data, sizes and loop variables)")
	}
	return cp.g.Value(n, 0)[0]
}

func (cp *compiler) expr(e ir.Expr) autodiff.Node {
	g := cp.g
	if n := e.Type().Len(); n > maxElements {
		cp.fail(e.Pos(), "this value has %d elements, more than the limit of %d (2 GiB of float64) on one value; reduce the sizes", n, maxElements)
	}
	switch e := e.(type) {
	case *ir.Num:
		return cp.num(e.V)
	case *ir.Ref:
		if cp.vec != nil && e.Var == cp.vec.v {
			return cp.vecRange()
		}
		if e.Var.Kind == ir.LoopVar {
			return cp.num(float64(cp.ints[e.Var.ID]))
		}
		n := cp.env[e.Var.ID]
		if n < 0 && cp.elems[e.Var.ID] != nil {
			n = cp.stackLocal(e.Var, e.Pos())
		}
		if n < 0 {
			cp.fail(e.Pos(), "%s %s is used before it is defined", e.Var.KindName(), e.Var.Name)
		}
		return n
	case *ir.Index:
		if cp.isVecIndex(e) {
			return cp.vecIndex(e)
		}
		if n := cp.vecGather(e); n >= 0 {
			return n
		}
		t := e.X.Type()
		if it := e.Idx[0].Type(); it.Kind == ir.Vector { // a[g]: gather
			gn := cp.expr(e.Idx[0])
			if !g.IsConst(gn) {
				cp.fail(e.Idx[0].Pos(), "an index array must be known before inference")
			}
			x := cp.expr(e.X)
			idx := make(stdlib.Gather, it.Rows)
			for k, v := range g.Value(gn, 0) {
				if v < 1 || v > float64(t.Rows) {
					cp.fail(e.Idx[0].Pos(), "index %g (element %d of %s) is out of range: %s has %d elements", v, k+1, ir.FormatExpr(e.Idx[0]), ir.FormatExpr(e.X), t.Rows)
				}
				idx[k] = int(v) - 1
			}
			if t.Kind == ir.Matrix { // the rows of an array
				idx = stdlib.GatherRows(idx, t.Cols)
				return g.Reshape(g.Custom(idx, len(idx), x), it.Rows, t.Cols)
			}
			return g.Custom(idx, len(idx), x)
		}
		for i, ie := range e.Idx {
			if n := cp.perDraw(ie); n >= 0 {
				return cp.dynIndex(e, i, n)
			}
		}
		idx := make([]int, len(e.Idx))
		for i, ie := range e.Idx {
			idx[i] = cp.intExpr(ie)
			size := t.Rows
			if i == 1 {
				size = t.Cols
			}
			if idx[i] < 1 || idx[i] > size {
				cp.fail(ie.Pos(), "index %d is out of range: %s has %d %s (indices start at 1)", idx[i], ir.FormatExpr(e.X), size, ir.Plural(t, i))
			}
		}
		if r, ok := e.X.(*ir.Ref); ok && r.Var.Kind == ir.LocalVar && cp.elems[r.Var.ID] != nil && cp.env[r.Var.ID] < 0 {
			if t.Kind == ir.Vector || len(idx) == 2 {
				return cp.localElem(r.Var, idx, e.Pos())
			}
			row := make([]autodiff.Node, t.Cols)
			for j := range row {
				row[j] = cp.localElem(r.Var, []int{idx[0], j + 1}, e.Pos())
			}
			return g.Stack(row...)
		}
		if r, ok := e.X.(*ir.Ref); ok && r.Var.Kind == ir.LatentVar && !r.Var.Special() && (t.Kind == ir.Vector || len(idx) == 2) {
			// index the input directly: a state-space sweep then touches
			// one element, not a copy of the whole vector
			pos := r.Var.Offset + idx[0] - 1
			if len(idx) == 2 {
				pos = r.Var.Offset + (idx[0]-1)*t.Cols + idx[1] - 1
			}
			n := g.Index(cp.c.LatentNode, pos)
			if r.Var.Bij.HasLower || r.Var.Bij.HasUpper {
				n = g.Map(r.Var.Bij.Func(), n)
			}
			return n
		}
		x := cp.expr(e.X)
		switch {
		case t.Kind == ir.Vector:
			return g.Index(x, idx[0]-1)
		case t.Kind == ir.Matrix && len(idx) == 2:
			return g.Index2(x, idx[0]-1, idx[1]-1)
		default:
			return g.Row(x, idx[0]-1)
		}
	case *ir.Unary:
		return g.Neg(cp.expr(e.X))
	case *ir.Binary:
		if n, ok := cp.affine(e); ok {
			return n
		}
		x, y := cp.expr(e.X), cp.expr(e.Y)
		switch e.Op {
		case ir.OpAdd:
			return g.Add(x, y)
		case ir.OpSub:
			return g.Sub(x, y)
		case ir.OpMul:
			if e.MatVec && e.X.Type().Cols == 0 { // matrix[r, 0] * vector[0]: r zeros, as in Stan
				return g.Const(make([]float64, e.T.Len()))
			}
			if e.MatVec {
				return g.MatVec(x, y)
			}
			return g.Mul(x, y)
		case ir.OpDiv, ir.OpEDiv:
			if e.Op == ir.OpDiv && e.T.Kind == ir.Int {
				return cp.intOp(e, x, y)
			}
			return g.Div(x, y)
		case ir.OpMod:
			return cp.intOp(e, x, y)
		case ir.OpEMul:
			return g.Mul(x, y)
		case ir.OpPow:
			return g.Pow(x, y)
		default: // comparisons and logic, exact on infinities and NaN
			return g.Custom(cmpOp{e.Op}, max(g.Len(x), g.Len(y)), x, y)
		}
	case *ir.Not:
		return g.Map(stepFunc{ir.OpEq}, cp.expr(e.X))
	case *ir.Cond:
		if taken, ok := cp.known(e.C); ok { // loop variables, data: one branch
			return cp.expr(taken(e))
		}
		c, a, b := cp.expr(e.C), cp.expr(e.A), cp.expr(e.B)
		n := e.T.Len()
		return g.Custom(stdlib.NewSelect(n), n, c, a, b)
	case *ir.Inline:
		cp.calls = append(cp.calls, fmt.Sprintf("%s at %d:%d", e.Call, e.P.Line, e.P.Col))
		defer func() { cp.calls = cp.calls[:len(cp.calls)-1] }()
		cp.block(e.Stmts)
		return cp.expr(e.Result)
	case *ir.ODECall:
		return cp.ode(e)
	case *ir.Builtin:
		return cp.builtin(e)
	case *ir.Rng:
		return cp.rng(e)
	case *ir.Slice:
		return cp.slice(e)
	case *ir.MatCall:
		n, _ := cp.matCall(e)
		return n
	case *ir.NaryCall:
		args := make([]autodiff.Node, len(e.Args))
		for i, a := range e.Args {
			args[i] = cp.expr(a)
		}
		n := e.T.Len()
		if cp.vec != nil {
			n = max(n, cp.vecLen(args))
		}
		v := g.Custom(stdlib.NewNaryOp(e.Fn), n, args...)
		if cp.inDerived && e.CDFOf != nil {
			return cp.cdfArgCheck(e, v, n, args)
		}
		return v
	case *ir.Density:
		args := make([]autodiff.Node, len(e.Args))
		for i, a := range e.Args {
			args[i] = cp.expr(a)
		}
		if hasEmpty(cp.g, args) { // NAME_lpdf over an empty vector is 0, as in Stan
			return cp.num(0)
		}
		if cp.vec != nil {
			if n := cp.vecLen(args); n > 1 { // inside a vectorised loop: elementwise
				f, _ := stdlib.LogDensityFunc(e.Name)
				return g.Custom(stdlib.NewNaryOp(f), n, args...)
			}
		}
		return g.Custom(cp.density(e.Dist), 1, args...)
	case *ir.Call:
		if n := cp.vecRowDot(e); n >= 0 {
			return n
		}
		args := make([]autodiff.Node, len(e.Args))
		for i, a := range e.Args {
			args[i] = cp.expr(a)
		}
		return cp.call(e, args)
	}
	panic(fmt.Sprintf("ir: unknown expression %T", e))
}

// call lowers a Call through its entry.
func (cp *compiler) call(e *ir.Call, a []autodiff.Node) autodiff.Node {
	return cp.lowerEntry(e.Def, lowering{Args: e.Args, A: a, T: e.T})
}

// ---- the compiled target -------------------------------------------------

// Dim is the number of unconstrained latent scalars.
func (c *Compiled) Dim() int { return c.Model.LatentDim }

// Graph exposes the underlying graph (for benchmarks and tools).
func (c *Compiled) Graph() *autodiff.Graph { return c.g }

// Reserve prepares batches of up to n rows.
func (c *Compiled) Reserve(n int) {
	if n > c.maxBatch {
		c.g.Alloc(n)
		c.maxBatch = n
	}
}

// Reserved is the largest batch prepared so far (Reserve): a batch up to it
// costs no memory more.
func Reserved(c *Compiled) int { return c.maxBatch }

// Load puts z, batch rows of unconstrained latents, on the graph's input
// (the GLM recogniser evaluates nodes of its own after it).
func Load(c *Compiled, z []float64, batch int) {
	d := c.Model.LatentDim
	if d == 0 {
		return
	}
	for b := 0; b < batch; b++ {
		copy(c.g.Value(c.LatentNode, b), z[b*d:(b+1)*d])
	}
}

// LogJoint writes log p(z_b, x; theta) plus the log-Jacobians for each row.
func (c *Compiled) LogJoint(z []float64, out []float64) {
	batch := len(out)
	c.Reserve(batch)
	Load(c, z, batch)
	c.g.ForwardNodes(c.JointOrder, batch)
	for b := range out {
		out[b] = c.g.Value(c.LogJointNode, b)[0]
	}
}

// LogPrior writes the log prior density (with log-Jacobians) of each row.
func (c *Compiled) LogPrior(z []float64, out []float64) {
	batch := len(out)
	c.Reserve(batch)
	Load(c, z, batch)
	c.g.ForwardNodes(c.priorOrder, batch)
	for b := range out {
		out[b] = c.g.Value(c.logPrior, b)[0]
	}
}

// unpriored lists the latents none of whose elements is on the left of a
// ~ and whose declared space is unbounded (no vector constraint, not
// both bounds): a flat improper prior, proper only if the likelihood
// bounds them.
func (cp *compiler) unpriored() []*ir.Var {
	var out []*ir.Var
	for _, v := range cp.m.Latents {
		if v.Special() || v.Bij.HasLower && v.Bij.HasUpper || v.UDim() == 0 {
			continue
		}
		none := true
		for i := 0; i < v.UDim(); i++ {
			none = none && cp.covered[v.Offset+i] == 0
		}
		if none {
			out = append(out, v)
		}
	}
	return out
}

// flatShifts are the values given to a latent without a prior, around two
// base points, to see whether the model's terms depend on it at all.
var FlatShifts = [...]float64{-4, -1, 0.5, 1.5, 6}

// PriorError says why the prior cannot be used as a proposal (nil if it can).
func PriorError(c *Compiled) error { return c.priorErr }

// maxPriorTries bounds the draws SamplePrior makes for one latent element.
const maxPriorTries = 1000

// SamplePrior draws one row z from the prior by ancestral sampling: each
// prior statement once the latents its arguments depend on are drawn, in
// the order of the model's statements where that allows (priorSchedule).
// The model must pass PriorError. An element none of whose draws lies
// inside the latent's constraint (after 1000 tries) is NaN in z.
func (c *Compiled) SamplePrior(rng *rand.Rand, z []float64) {
	c.Reserve(1)
	u := c.g.Value(c.LatentNode, 0)
	clear(u)
	for _, fi := range PriorSchedule(c) {
		DrawPrior(c, rng, &c.Factors[fi], u)
	}
	copy(z, u[:c.Model.LatentDim])
}

// PriorSchedule is the order in which SamplePrior draws the prior
// statements (indexes into factors): repeated passes in the statements'
// order, each taking the statements whose arguments depend only on latents
// already drawn; statements left in a cycle come last in their order.
// Computed once.
func PriorSchedule(c *Compiled) []int {
	if c.priorSched != nil {
		return c.priorSched
	}
	drawn := make([]bool, c.Model.LatentDim)
	done := make([]bool, len(c.Factors))
	sched := []int{}
	own := make([]int, c.Model.LatentDim) // own[p] == fi+1: f draws p itself
	ready := func(fi int, f *Factor) bool {
		for _, p := range f.Prior.LhsPos {
			own[p] = fi + 1
		}
		ok := true
		for _, p := range f.deps {
			if own[p] == fi+1 {
				f.Prior.self = true
			} else if !drawn[p] {
				ok = false
			}
		}
		return ok
	}
	take := func(fi int) {
		done[fi] = true
		sched = append(sched, fi)
		for _, p := range c.Factors[fi].Prior.LhsPos {
			drawn[p] = true
		}
	}
	for progress := true; progress; {
		progress = false
		for fi := range c.Factors {
			if f := &c.Factors[fi]; !done[fi] && f.Prior != nil && ready(fi, f) {
				take(fi)
				progress = true
			}
		}
	}
	for fi := range c.Factors {
		if !done[fi] && c.Factors[fi].Prior != nil {
			take(fi)
		}
	}
	c.priorSched = sched
	return sched
}

// DrawPrior draws the latent elements a prior statement f writes into u
// (the graph's latent input at row 0), from its arguments evaluated on the
// values drawn so far.
func DrawPrior(c *Compiled, rng *rand.Rand, f *Factor, u []float64) {
	g := c.g
	p := c.scratch[:]
	args := f.Tilde.Args[1:]
	if f.Prior.argOrder == nil {
		f.Prior.argOrder = g.Ancestors(args...)
	}
	g.ForwardNodes(f.Prior.argOrder, 1)
	for k, pos := range f.Prior.LhsPos {
		if k > 0 && f.Prior.self { // with the elements drawn so far
			g.ForwardNodes(f.Prior.argOrder, 1)
		}
		params := p[:len(args)]
		for j, a := range args {
			v := g.Value(a, 0)
			if len(v) == 1 {
				params[j] = v[0]
			} else {
				params[j] = v[k]
			}
		}
		// a draw outside the constraint (say 0 from a gamma with a
		// tiny shape under <lower=0>) is retried; if none of 1000
		// maps to unconstrained space, the row gets a NaN, which the
		// caller's check reports
		u[pos] = math.NaN()
		for try := 0; try < maxPriorTries; try++ {
			x := f.Tilde.Family.Rand(rng, params)
			if uu, err := f.Prior.bij.Unconstrain(x); err == nil {
				u[pos] = uu
				break
			}
		}
	}
}

// GradLogJoint returns the log joint at one row z and its gradient with
// respect to the unconstrained latents.
func (c *Compiled) GradLogJoint(z []float64, grad []float64) float64 {
	c.Reserve(1)
	Load(c, z, 1)
	c.g.ForwardNodes(c.JointOrder, 1)
	c.g.Backward(c.LogJointNode, 1)
	copy(grad, c.g.Grad(c.LatentNode, 0)[:c.Model.LatentDim])
	return c.g.Value(c.LogJointNode, 0)[0]
}

// NumParams is the number of unconstrained model parameters.
func (c *Compiled) NumParams() int { return c.Model.ParamDim }

// Params returns a view of the unconstrained parameters.
func (c *Compiled) Params() []float64 {
	if !c.hasParam {
		return nil
	}
	return c.g.Value(c.param, 0)
}

// SetParams sets the unconstrained parameters.
func (c *Compiled) SetParams(theta []float64) {
	if c.hasParam {
		copy(c.g.Value(c.param, 0), theta)
		if c.sv != nil { // the view's first params are the model's
			copy(c.sv.view.g.Value(c.sv.view.param, 0), theta)
		}
	}
}

// GradParams returns the log joint at one row z and its gradient with
// respect to the unconstrained parameters (the Fisher identity's integrand).
func (c *Compiled) GradParams(z []float64, grad []float64) float64 {
	if f := c.ssm.fastSteps(); f != nil { // a state-space model: along the trajectory, step by step
		return f.gradParams(c, z, grad)
	}
	if c.sv != nil && len(c.sv.statics) == 0 { // its view is the same log joint
		return c.sv.view.GradParams(z, grad)
	}
	c.Reserve(1)
	Load(c, z, 1)
	c.g.ForwardNodes(c.JointOrder, 1)
	c.g.Backward(c.LogJointNode, 1)
	if c.hasParam {
		copy(grad, c.g.Grad(c.param, 0))
	}
	return c.g.Value(c.LogJointNode, 0)[0]
}

// overflowAt is the magnitude from which a ~ term's -Inf is put down to
// overflow: the square of a number above about 1.3e154 is +Inf in float64.
const OverflowAt = 1e150

// boundedLatent is a latent with a lower and an upper bound expression, and
// their nodes.
type boundedLatent struct {
	V      *ir.Var
	Lo, Hi autodiff.Node
}

// Constrain maps an unconstrained latent vector u (length Dim) to the
// constrained one x (length Model.XDim). Latents with a vector constraint
// or expression bounds, and the transformed and derived quantities, are
// evaluated on the graph.
func (c *Compiled) Constrain(u, x []float64) {
	if order := specialNodes(c); len(order) > 0 {
		Load(c, u, 1)
		c.g.ForwardNodes(order, 1)
	}
	constrainRow(c, u, x, 0)
}

// ConstrainJoint is Constrain of the rows of u (rows of Dim) into x (rows
// of Model.XDim) right after LogJoint of the same rows: what the log joint
// computed (a transformed quantity, its ODE solve) is read from the graph,
// not computed again, and the nodes of the derived quantities alone are
// evaluated: over the batch at once, or, when they draw (NAME_rng), row
// by row as Constrain does, so that the draws come in the same order. It does nothing and reports false when rows is not a batch the
// graph is laid out for.
func ConstrainJoint(c *Compiled, u, x []float64, rows int) bool {
	if rows < 1 || rows > c.maxBatch {
		return false
	}
	if c.afterJoint == nil {
		joint := make([]bool, c.g.NumNodes())
		for _, n := range c.JointOrder {
			joint[n] = true
		}
		c.afterJoint = []autodiff.Node{}
		for _, n := range specialNodes(c) {
			if !joint[n] {
				c.afterJoint = append(c.afterJoint, n)
			}
		}
	}
	d, xd := len(u)/rows, len(x)/rows
	if !UsesRNG(c) {
		// no draws whose order matters: the derived quantities' nodes
		// over all rows at once (a node's cost amortised over the batch)
		c.g.ForwardNodes(c.afterJoint, rows)
	}
	for r := range rows {
		if UsesRNG(c) {
			c.g.ForwardNodesAt(c.afterJoint, r)
		}
		constrainRow(c, u[r*d:(r+1)*d], x[r*xd:(r+1)*xd], r)
	}
	return true
}

// specialNodes is the evaluation order of the nodes of the latents whose
// constrained values Constrain reads from the graph (Var.Special) and of
// the derived block's messages (computed once; empty when there are none).
func specialNodes(c *Compiled) []autodiff.Node {
	if c.specialOrder == nil {
		nodes := append([]autodiff.Node(nil), c.derivedMsgs...)
		for _, v := range c.Model.Latents {
			if v.Special() {
				nodes = append(nodes, c.varNode[v.ID])
			}
		}
		c.specialOrder = []autodiff.Node{}
		if len(nodes) > 0 {
			c.specialOrder = c.g.Ancestors(nodes...)
		}
	}
	return c.specialOrder
}

// constrainRow writes the constrained latents x of the unconstrained row
// u, the special ones from row r of the graph.
func constrainRow(c *Compiled, u, x []float64, r int) {
	for _, v := range c.Model.Latents {
		if v.Special() {
			copy(x[v.XOffset:v.XOffset+v.Type.Len()], c.g.Value(c.varNode[v.ID], r))
			continue
		}
		for i := 0; i < v.Type.Len(); i++ {
			x[v.XOffset+i] = v.Bij.Constrain(u[v.Offset+i])
		}
	}
}

// ConstrainParams maps the unconstrained params to their values.
func (c *Compiled) ConstrainParams(theta, x []float64) {
	for _, v := range c.Model.Params {
		for i := 0; i < v.Type.Len(); i++ {
			k := v.Offset + i
			x[k] = v.Bij.Constrain(theta[k])
		}
	}
}

// known reports whether the condition c of a ?: is known when the model is
// compiled (it reads literals, sizes, scalar data and loop variables only),
// and then the function that picks the branch taken.
func (cp *compiler) known(c ir.Expr) (func(*ir.Cond) ir.Expr, bool) {
	if !cp.knownAtCompile(c) {
		return nil, false
	}
	if cp.constExpr(c) != 0 {
		return func(e *ir.Cond) ir.Expr { return e.A }, true
	}
	return func(e *ir.Cond) ir.Expr { return e.B }, true
}

// affine compiles a scalar plus a matrix times a vector, alpha + X * beta
// or X * beta + alpha (a regression's linear predictor), as one Affine
// node: the same bits as the sum of the product, without the product's
// node (at 10^6 rows, 8 MB and one pass per batch element).
func (cp *compiler) affine(e *ir.Binary) (autodiff.Node, bool) {
	if e.Op != ir.OpAdd {
		return 0, false
	}
	mv, ok := e.Y.(*ir.Binary)
	c := e.X
	if !ok || !mv.MatVec {
		mv, ok = e.X.(*ir.Binary)
		c = e.Y
	}
	if !ok || !mv.MatVec || mv.Op != ir.OpMul || !c.Type().Scalar() || mv.X.Type().Cols == 0 {
		return 0, false
	}
	// the operands in the order of the sum's (the nodes' order is Backward's)
	var cn, m, v autodiff.Node
	if c == e.X {
		cn = cp.expr(c)
		m, v = cp.expr(mv.X), cp.expr(mv.Y)
	} else {
		m, v = cp.expr(mv.X), cp.expr(mv.Y)
		cn = cp.expr(c)
	}
	return cp.g.Affine(cn, m, v), true
}

// knownAtCompile reports whether constExpr can evaluate e without the
// graph.
func (cp *compiler) knownAtCompile(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Num:
		return true
	case *ir.Ref:
		k := e.Var.Kind
		return (cp.vec == nil || e.Var != cp.vec.v) && (k == ir.LoopVar || (k == ir.SizeVar || k == ir.DataVar) && e.Var.Type.Scalar())
	case *ir.Unary:
		return cp.knownAtCompile(e.X)
	case *ir.Not:
		return cp.knownAtCompile(e.X)
	case *ir.Binary:
		return !e.MatVec && e.X.Type().Scalar() && e.Y.Type().Scalar() && cp.knownAtCompile(e.X) && cp.knownAtCompile(e.Y)
	case *ir.Cond:
		return cp.knownAtCompile(e.C) && cp.knownAtCompile(e.A) && cp.knownAtCompile(e.B)
	}
	return false
}

// matCall compiles a vector or matrix function's call, returning its node
// and its arguments' nodes.
func (cp *compiler) matCall(e *ir.MatCall) (autodiff.Node, []autodiff.Node) {
	g := cp.g
	args := make([]autodiff.Node, len(e.Args))
	for i, a := range e.Args {
		args[i] = cp.expr(a)
	}
	op := e.Op
	if v, ok := op.(*stdlib.HMMMarginal); ok {
		op = cp.hmm(v, e, args)
	}
	n := g.Custom(op, e.T.Len(), args...)
	if e.T.Kind == ir.Matrix {
		n = g.Reshape(n, e.T.Rows, e.T.Cols)
	}
	return n, args
}

// mvnOf is the multivariate normal density e, of a row of a latent, as the
// draw of that row (args: e's arguments' nodes), or nil.
func (cp *compiler) mvnOf(e *ir.MatCall, args []autodiff.Node) *mvnTerm {
	chol := false
	switch e.Op.(type) {
	case *stdlib.MultiNormalLpdf:
	case *stdlib.MultiNormalCholeskyLpdf:
		chol = true
	default:
		return nil
	}
	x, ok := e.Args[0].(*ir.Index)
	if !ok || cp.vec != nil || len(x.Idx) != 1 || !x.Idx[0].Type().Scalar() {
		return nil
	}
	if r, ok := x.X.(*ir.Ref); !ok || r.Var.Kind != ir.LatentVar || r.Var.Type.Kind != ir.Matrix || r.Var.Special() {
		return nil
	}
	return &mvnTerm{pos: cp.lhsPositions(x), deps: cp.depsOf(e.Args[2], cp.depsOf(e.Args[1], nil)), mean: args[1], cov: args[2], chol: chol}
}
