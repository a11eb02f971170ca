package structure

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/lower"
	"github.com/mscppl/mscppl/stdlib"
)

// Facts are what the structure of a compiled model says about the shape
// of its posterior, for the remedies a failed check names: a remedy that
// suits one model (the non-centred form, an ordering) is wrong advice for
// another, so it is offered only where the model has the structure it
// fixes.
type Facts struct {
	// Centred lists the latents of a centred hierarchy: drawn from a
	// location-scale family whose scale depends on other latents
	// (theta ~ normal(mu, tau), tau a latent), the funnel a non-centred
	// form removes.
	Centred []Centred
	// Exchangeable lists the groups of latent vectors whose elements play
	// symmetric roles (the components of a mixture): the log joint is the
	// same when two elements are swapped in every vector of the group, so
	// the posterior has one mode per labelling, which an ordering removes.
	Exchangeable []Exchangeable
}

// Centred is a latent drawn from a location-scale family whose scale
// argument depends on other latents.
type Centred struct {
	Latent string   // the latent drawn: "theta"
	Scale  []string // the latents its scale depends on: "tau"
	// Statement is the ~ statement as written ("theta ~ normal(mu, tau)"),
	// Raw and Define the non-centred form: "theta_raw ~ normal(0, 1)" and
	// "theta = mu + tau * theta_raw".
	Statement, Raw, Define string
}

// Exchangeable is a group of latent vectors of one length K whose elements
// can be relabelled together without changing the log joint.
type Exchangeable struct {
	Latents []string // the vectors permuted together: "mu", "sigma"
	// Reflected are the scalar latents in (0, 1) that the relabelling maps
	// to 1 - value (the weight of a two-component log_mix).
	Reflected []string
	K         int
	// Order is the vector whose ordering removes the symmetry, and
	// Declare its declaration ("mu: ordered[2]"); both empty when no
	// vector of the group can be ordered.
	Order, Declare string
}

// FactsOf finds the model's facts from its statements and its log joint
// (the compiled model must not be in use meanwhile; the caller keeps
// the result).
func FactsOf(c *lower.Compiled) Facts {
	ff := newFactFinder(c.Model)
	return Facts{Centred: ff.centred(), Exchangeable: ff.exchangeable(c)}
}

// factFinder holds what the facts are found from: the latents each local
// depends on, the expressions assigned to each local, and the mixtures.
type factFinder struct {
	m        *ir.Model
	localDep map[*ir.Var]map[*ir.Var]bool // local -> the latents it depends on
	defs     map[*ir.Var][]ir.Expr        // local -> the expressions assigned to it
	tildes   []*ir.Tilde
	// likely are the latents a term other than a latent's prior depends on
	likely map[*ir.Var]bool
	mixes  []mixture
}

// mixture is a call that mixes component log densities: log_mix(w, lp1,
// lp2) or log_sum_exp over the components.
type mixture struct {
	weight     ir.Expr // log_mix's weight (nil for log_sum_exp)
	components []ir.Expr
}

func newFactFinder(m *ir.Model) *factFinder {
	ff := &factFinder{m: m, localDep: map[*ir.Var]map[*ir.Var]bool{}, defs: map[*ir.Var][]ir.Expr{}, likely: map[*ir.Var]bool{}}
	// the locals' dependencies, to a fixed point (a loop may carry one
	// local into another)
	for range 8 {
		if !ff.pass(m.Body, nil) {
			break
		}
	}
	ff.collect(m.Body)
	return ff
}

// pass adds to the locals' dependencies from the statements (under the
// latents cond depends on) and reports whether any grew.
func (ff *factFinder) pass(body []ir.Stmt, cond map[*ir.Var]bool) bool {
	grew := false
	assign := func(v *ir.Var, e ir.Expr) {
		set := ff.localDep[v]
		if set == nil {
			set = map[*ir.Var]bool{}
			ff.localDep[v] = set
		}
		n := len(set)
		for d := range ff.deps(e) {
			set[d] = true
		}
		for d := range cond {
			set[d] = true
		}
		grew = grew || len(set) > n
	}
	for _, s := range body {
		for _, e := range ir.StmtExprs(s) {
			ir.WalkExpr(e, func(x ir.Expr) {
				if in, ok := x.(*ir.Inline); ok {
					grew = ff.pass(in.Stmts, cond) || grew
				}
			})
		}
		switch s := s.(type) {
		case *ir.Assign:
			assign(s.Local, s.X)
		case *ir.LocalDecl:
			if s.Init != nil {
				assign(s.Local, s.Init)
			}
		case *ir.For:
			grew = ff.pass(s.Body, cond) || grew
		case *ir.If:
			inner := ff.deps(s.Cond)
			for d := range cond {
				inner[d] = true
			}
			grew = ff.pass(s.Then, inner) || grew
			grew = ff.pass(s.Else, inner) || grew
		}
	}
	return grew
}

// collect records the ~ statements, the locals' definitions, the mixtures
// and the latents the likelihood depends on.
func (ff *factFinder) collect(body []ir.Stmt) {
	for _, s := range body {
		for _, e := range ir.StmtExprs(s) {
			ir.WalkExpr(e, func(x ir.Expr) {
				switch x := x.(type) {
				case *ir.Inline:
					ff.collect(x.Stmts)
				case *ir.NaryCall:
					if x.Fn == stdlib.LogMixFunc && len(x.Args) == 3 {
						ff.mixes = append(ff.mixes, mixture{weight: x.Args[0], components: x.Args[1:]})
					}
				case *ir.Call:
					if x.Def != nil && x.Def == ir.FnLogSumExp {
						ff.mixes = append(ff.mixes, mixture{components: x.Args})
					}
				}
			})
		}
		switch s := s.(type) {
		case *ir.Tilde:
			ff.tildes = append(ff.tildes, s)
			if s.Root == nil || s.Root.Kind != ir.LatentVar {
				for _, e := range ir.StmtExprs(s) {
					addAll(ff.likely, ff.deps(e))
				}
			}
		case *ir.Target:
			addAll(ff.likely, ff.deps(s.X))
		case *ir.Assign:
			ff.defs[s.Local] = append(ff.defs[s.Local], s.X)
		case *ir.LocalDecl:
			if s.Init != nil {
				ff.defs[s.Local] = append(ff.defs[s.Local], s.Init)
			}
		case *ir.For:
			ff.collect(s.Body)
		case *ir.If:
			ff.collect(s.Then)
			ff.collect(s.Else)
		}
	}
}

func addAll(dst, src map[*ir.Var]bool) {
	for k := range src {
		dst[k] = true
	}
}

// deps are the latents (not derived) that e depends on, through locals.
func (ff *factFinder) deps(e ir.Expr) map[*ir.Var]bool {
	out := map[*ir.Var]bool{}
	var walk func(e ir.Expr)
	walk = func(e ir.Expr) {
		if e == nil {
			return
		}
		if r, ok := e.(*ir.Ref); ok {
			switch r.Var.Kind {
			case ir.LatentVar:
				if r.Var.Derived == nil && !out[r.Var] {
					out[r.Var] = true
					for _, b := range r.Var.BoundExprs() {
						walk(b)
					}
				}
			case ir.LocalVar:
				addAll(out, ff.localDep[r.Var])
			}
			return
		}
		for _, c := range ir.Children(e) {
			walk(c)
		}
	}
	walk(e)
	return out
}

// ordered lists the latents of a set in declaration order.
func (ff *factFinder) ordered(set map[*ir.Var]bool) []*ir.Var {
	var out []*ir.Var
	for _, v := range ff.m.Latents {
		if set[v] {
			out = append(out, v)
		}
	}
	return out
}

func names(vs []*ir.Var) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Name
	}
	return out
}

// centred finds the latents drawn from a location-scale family whose scale
// depends on other latents. A latent whose location or scale depends on
// the latent itself (a time series: x[t] ~ normal(phi * x[t-1], s)) is not
// a hierarchy's group and is left out.
func (ff *factFinder) centred() []Centred {
	series := map[*ir.Var]bool{}
	for _, s := range ff.tildes {
		if v := s.Root; v != nil && slices.ContainsFunc(s.Args, func(a ir.Expr) bool { return ff.deps(a)[v] }) {
			series[v] = true
		}
	}
	var out []Centred
	at := map[*ir.Var]int{}
	for _, s := range ff.tildes {
		v := s.Root
		if v == nil || v.Kind != ir.LatentVar || v.Derived != nil || series[v] || !rootedAt(s.LHS, v) {
			continue
		}
		loc, scale := locationScale(s.Dist)
		if scale < 0 || scale >= len(s.Args) || loc >= len(s.Args) {
			continue
		}
		sd := ff.deps(s.Args[scale])
		if len(sd) == 0 {
			continue
		}
		sn := names(ff.ordered(sd))
		if i, ok := at[v]; ok { // another statement drawing the same latent
			for _, n := range sn {
				if !slices.Contains(out[i].Scale, n) {
					out[i].Scale = append(out[i].Scale, n)
				}
			}
			continue
		}
		raw := v.Name + "_raw"
		args := make([]string, len(s.Args))
		for i, a := range s.Args {
			args[i] = ir.FormatExpr(a)
		}
		locText, scaleText := "", args[scale]
		if loc >= 0 {
			locText = args[loc]
			args[loc] = "0"
		}
		args[scale] = "1"
		lhs := ir.FormatExpr(s.LHS)
		rawLHS := raw + strings.TrimPrefix(lhs, v.Name)
		def := lhs + " = "
		if loc >= 0 && locText != "0" {
			def += locText + " + "
		}
		if ir.Prec(s.Args[scale]) < 2 {
			scaleText = "(" + scaleText + ")"
		}
		def += scaleText + " * " + rawLHS
		at[v] = len(out)
		out = append(out, Centred{Latent: v.Name, Scale: sn, Statement: s.Text,
			Raw: rawLHS + " ~ " + s.Dist.Name + "(" + strings.Join(args, ", ") + ")", Define: def})
	}
	return out
}

// rootedAt reports whether a ~ statement's left-hand side is v or an
// element or slice of it.
func rootedAt(e ir.Expr, v *ir.Var) bool {
	switch e := e.(type) {
	case *ir.Ref:
		return e.Var == v
	case *ir.Index:
		return lower.IsRefTo(e.X, v)
	case *ir.Slice:
		return lower.IsRefTo(e.X, v)
	}
	return false
}

// locationScale returns the indices of a family's location and scale
// parameters (loc -1 for a scale family; scale -1 when the family is
// neither): the ones for which
// log p(a + b x | a + b m, b s) = log p(x | m, s) - log b,
// checked at a few points. Found once per family.
func locationScale(f *stdlib.Family) (loc, scale int) {
	locScaleMu.Lock()
	defer locScaleMu.Unlock()
	if r, ok := locScaleCache[f]; ok {
		return r[0], r[1]
	}
	loc, scale = findLocationScale(f)
	locScaleCache[f] = [2]int{loc, scale}
	return loc, scale
}

var (
	locScaleMu    sync.Mutex
	locScaleCache = map[*stdlib.Family][2]int{}
)

func findLocationScale(f *stdlib.Family) (loc, scale int) {
	if f.LogPdf == nil || f.Discrete || f.Vec != nil {
		return -1, -1
	}
	base := make([]float64, len(f.Params))
	for i, p := range f.Params {
		switch p.Domain {
		case stdlib.RealLine:
			base[i] = 0.3
		case stdlib.Positive, stdlib.NonNegative:
			base[i] = 2.5
		case stdlib.Unit:
			base[i] = 0.4
		default:
			return -1, -1
		}
	}
	var xs []float64
	switch f.Support {
	case stdlib.RealLine:
		xs = []float64{-1.3, 0.2, 2.1}
	case stdlib.Positive, stdlib.NonNegative:
		xs = []float64{0.4, 1.1, 3.7}
	default:
		return -1, -1
	}
	holds := func(loc, scale int) bool {
		for _, x := range xs {
			for _, t := range [][2]float64{{0.7, 3}, {-1.1, 0.5}} {
				a, b := t[0], t[1]
				p := slices.Clone(base)
				p[scale] *= b
				y := b * x
				if loc >= 0 {
					p[loc] = a + b*p[loc]
					y += a
				}
				want, got := f.LogPdf(x, base)-math.Log(b), f.LogPdf(y, p)
				if math.IsInf(want, 0) || math.IsNaN(want) || !(math.Abs(got-want) <= 1e-9*(1+math.Abs(want))) {
					return false
				}
			}
		}
		return true
	}
	for s, ps := range f.Params {
		if ps.Domain != stdlib.Positive {
			continue
		}
		if f.Support == stdlib.RealLine {
			for l, pl := range f.Params {
				if pl.Domain == stdlib.RealLine && holds(l, s) {
					return l, s
				}
			}
		}
		if holds(-1, s) {
			return -1, s
		}
	}
	return -1, -1
}

// exchangeable finds the groups of latent vectors whose elements can be
// swapped without changing the log joint. The candidates are the vectors
// indexed inside the components of a mixture (with a log_mix weight in
// (0, 1) reflected), together and alone, and every vector the likelihood
// depends on, alone; a candidate passes when swapping its first two
// elements (in each latent's own space, the Jacobian accounted for) leaves
// the log joint the same at random points.
func (ff *factFinder) exchangeable(c *lower.Compiled) []Exchangeable {
	type candidate struct {
		vecs    []*ir.Var
		reflect []*ir.Var
	}
	var cands []candidate
	seen := map[string]bool{}
	add := func(vecs, reflect []*ir.Var) {
		if len(vecs) == 0 {
			return
		}
		key := strings.Join(names(vecs), ",") + ";" + strings.Join(names(reflect), ",")
		if !seen[key] {
			seen[key] = true
			cands = append(cands, candidate{vecs, reflect})
		}
	}
	for _, mx := range ff.mixes {
		indexed := map[*ir.Var]bool{}
		visited := map[*ir.Var]bool{}
		for _, e := range mx.components {
			ff.indexedLatents(e, indexed, visited)
		}
		var reflect []*ir.Var
		if mx.weight != nil {
			ff.indexedLatents(mx.weight, indexed, visited)
			if r, ok := mx.weight.(*ir.Ref); ok && r.Var.Kind == ir.LatentVar && r.Var.Type.Scalar() && !r.Var.Special() &&
				r.Var.Bij == (stdlib.Bijection{Lower: 0, Upper: 1, HasLower: true, HasUpper: true}) {
				reflect = []*ir.Var{r.Var}
			}
		}
		byLen := map[int][]*ir.Var{}
		for _, v := range ff.ordered(indexed) {
			if k := swappable(v); k >= 2 {
				byLen[k] = append(byLen[k], v)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(byLen)) {
			group := byLen[k]
			add(group, reflect)
			add(group, nil)
			for _, v := range group {
				add([]*ir.Var{v}, reflect)
				add([]*ir.Var{v}, nil)
			}
		}
	}
	for _, v := range ff.ordered(ff.likely) {
		if swappable(v) >= 2 {
			add([]*ir.Var{v}, nil)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	st := newSwapTest(c)
	var out []Exchangeable
	taken := map[*ir.Var]bool{}
	for _, cd := range cands {
		if slices.ContainsFunc(cd.vecs, func(v *ir.Var) bool { return taken[v] }) || !st.symmetric(cd.vecs, cd.reflect) {
			continue
		}
		for _, v := range cd.vecs {
			taken[v] = true
		}
		ex := Exchangeable{Latents: names(cd.vecs), Reflected: names(cd.reflect), K: swappable(cd.vecs[0])}
		ex.Order, ex.Declare = orderable(cd.vecs)
		out = append(out, ex)
	}
	return out
}

// indexedLatents adds to out the latent vectors indexed in e (v[...]),
// following the locals e reads to their definitions.
func (ff *factFinder) indexedLatents(e ir.Expr, out, visited map[*ir.Var]bool) {
	ir.WalkExpr(e, func(x ir.Expr) {
		switch x := x.(type) {
		case *ir.Index:
			if r, ok := x.X.(*ir.Ref); ok && r.Var.Kind == ir.LatentVar && r.Var.Derived == nil && !r.Var.Type.Scalar() {
				out[r.Var] = true
			}
		case *ir.Ref:
			if x.Var.Kind == ir.LocalVar && !visited[x.Var] {
				visited[x.Var] = true
				for _, d := range ff.defs[x.Var] {
					ff.indexedLatents(d, out, visited)
				}
			}
		}
	})
}

// swappable is the length K of a latent vector whose elements a swap test
// can exchange in its own space (0 when it cannot: a matrix, bounds that
// are expressions, a vector constraint that a swap would break, such as
// ordered).
func swappable(v *ir.Var) int {
	if v.Kind != ir.LatentVar || v.Derived != nil || v.Type.Kind != ir.Vector || v.LowerX != nil || v.UpperX != nil || v.Affine() {
		return 0
	}
	if v.Type.Rows < 2 { // nothing to swap (simplex[1], vector[0])
		return 0
	}
	if b := v.VecBij; b != nil {
		if b.XLen() != b.K() {
			return 0
		}
		x := make([]float64, b.XLen())
		u := make([]float64, b.UDim())
		for i := range u {
			u[i] = 0.3 * float64(i+1)
		}
		b.Constrain(u, x)
		x[0], x[1] = x[1], x[0]
		if b.Unconstrain(x, u) != nil {
			return 0
		}
	}
	return v.Type.Rows
}

// orderable picks the vector of a group to order and its declaration: an
// unbounded one as ordered[K], else one bounded below by 0 as
// positive_ordered[K].
func orderable(vecs []*ir.Var) (string, string) {
	for _, v := range vecs {
		if v.VecBij == nil && v.Bij.Identity() {
			return v.Name, v.Name + ": ordered[" + strconv.Itoa(v.Type.Rows) + "]"
		}
	}
	for _, v := range vecs {
		if v.VecBij == nil && v.Bij.HasLower && !v.Bij.HasUpper && v.Bij.Lower == 0 {
			return v.Name, v.Name + ": positive_ordered[" + strconv.Itoa(v.Type.Rows) + "]"
		}
	}
	return "", ""
}

// swapTest evaluates the log joint at fixed random points and at the same
// points with elements swapped.
type swapTest struct {
	c      *lower.Compiled
	d      int
	points []float64 // rows of d
	base   []float64 // the log joint at each
}

const swapPoints = 4

func newSwapTest(c *lower.Compiled) *swapTest {
	d := c.Model.LatentDim
	rng := rand.New(rand.NewPCG(0x66616374, 0x73776170))
	st := &swapTest{c: c, d: d, points: make([]float64, swapPoints*d), base: make([]float64, swapPoints)}
	for i := range st.points {
		st.points[i] = -2 + 4*rng.Float64()
	}
	c.LogJoint(st.points, st.base)
	return st
}

// symmetric reports whether swapping elements 1 and 2 of every vector in
// vecs (and reflecting the scalars in reflect) leaves the log joint the
// same at the test points (at least two of which must be finite).
func (st *swapTest) symmetric(vecs, reflect []*ir.Var) bool {
	d := st.d
	z := slices.Clone(st.points)
	jac := make([]float64, swapPoints) // the vector constraints' change of log-Jacobian
	for r := range swapPoints {
		row := z[r*d : (r+1)*d]
		for _, v := range vecs {
			u := row[v.Offset : v.Offset+v.UDim()]
			if b := v.VecBij; b != nil {
				x := make([]float64, b.XLen())
				before := b.Constrain(u, x)
				x[0], x[1] = x[1], x[0]
				if b.Unconstrain(x, u) != nil {
					return false
				}
				jac[r] += b.Constrain(u, x) - before
				continue
			}
			u[0], u[1] = u[1], u[0]
		}
		for _, v := range reflect {
			row[v.Offset] = -row[v.Offset]
		}
	}
	got := make([]float64, swapPoints)
	st.c.LogJoint(z, got)
	finite := 0
	for r, want := range st.base {
		g := got[r] - jac[r]
		if math.IsInf(want, -1) && math.IsInf(g, -1) {
			continue
		}
		if math.IsNaN(want) || math.IsNaN(g) || math.IsInf(want, 0) || math.IsInf(g, 0) {
			return false
		}
		if !(math.Abs(g-want) <= 1e-8*(1+math.Abs(want))) {
			return false
		}
		finite++
	}
	return finite >= 2
}
