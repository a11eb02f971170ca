package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/lower"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// This file draws data sets from a model (simulation-based calibration):
// the latents from their prior, with the params at their initial values,
// and the data that the model's ~ statements observe from those
// statements, in an order where every statement's arguments are drawn
// before it. The data left (sizes, covariates) keep the values bound.
//
// It is done by compiling the model a second time with the observed data
// made latents of their own, appended after the model's: SamplePrior's
// ancestral sampling then draws them with the latents, through the same
// graph that evaluates the model.

// Simulator draws latents and observed data from a model.
type Simulator struct {
	c *lower.Compiled
	// Data are the data variables the model's ~ statements draw, in the
	// order of their declarations.
	Data []*ir.Var
	// dim and xdim are the lengths of the model's own latents,
	// unconstrained and constrained.
	dim, xdim int
	u, x      []float64
	// fixed are the data elements no ~ statement draws
	fixed []fixedElem
}

// NewSimulator compiles a simulator from a model just built (Build,
// BuildJSON), which it takes over: m must not be used afterwards. It fails,
// naming the statement or the declaration, when the data cannot be drawn:
// data that a target += or a multivariate ~ observes, data elements that
// more than one ~ statement draws, data declared standardized, or latents
// whose prior cannot be sampled. The elements of drawn data that no ~
// statement draws (an autoregression's first values) keep their values.
func NewSimulator(m *ir.Model, f *lang.File) (*Simulator, error) {
	drawn := map[*ir.Var]bool{}
	var errs lang.ErrorList
	walkStmts(m.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Tilde:
			if s.Root != nil && s.Root.Kind == ir.DataVar {
				drawn[s.Root] = true
			}
		}
	})
	walkStmts(m.Body, func(s ir.Stmt) {
		t, ok := s.(*ir.Target)
		if !ok {
			return
		}
		for _, y := range observedIn(t.X) {
			if !drawn[y] {
				e := lang.Errorf(t.Pos(), "sbc cannot draw the data %s: this statement (%s) adds its density to the target, and only the data on the left of a univariate ~ are drawn", y.Name, t.Text)
				e.Hint = fmt.Sprintf("write the likelihood as %s ~ NAME(...), one element or a vector at a time", y.Name)
				errs = append(errs, e)
			}
		}
	})
	if len(errs) > 0 {
		return nil, errs
	}
	for _, d := range dataDecls(f) {
		for v := range drawn {
			if v.Name == d.Name && d.Standardized {
				e := lang.Errorf(v.Pos, "sbc cannot draw the data %s: it is declared standardized, so the values the model sees are not those its ~ statement draws", v.Name)
				e.Hint = "standardize the data file instead"
				return nil, lang.ErrorList{e}
			}
		}
	}
	s := &Simulator{dim: m.LatentDim, xdim: m.XDim}
	data := m.Data[:0:0]
	for _, v := range m.Data {
		if !drawn[v] {
			data = append(data, v)
			continue
		}
		s.Data = append(s.Data, v)
		n := v.Type.Len()
		v.Kind, v.Bij, v.Offset, v.XOffset = ir.LatentVar, stdlib.Bijection{}, m.LatentDim, m.XDim
		m.LatentDim += n
		m.XDim += n
		m.Latents = append(m.Latents, v)
	}
	m.Data = data
	c, err := lower.Compile(m, lower.CompileOptions{NoView: true})
	if err != nil {
		return nil, simCompileError(err, s.Data)
	}
	if err := simPriorCheck(c, s); err != nil {
		return nil, err
	}
	s.c = c
	s.u, s.x = make([]float64, m.LatentDim), make([]float64, m.XDim)
	return s, nil
}

// simCompileError words an error compiling the simulator: data used where
// a value must be known before inference cannot be drawn.
func simCompileError(err error, data []*ir.Var) error {
	var names []string
	for _, v := range data {
		names = append(names, v.Name)
	}
	if list, ok := err.(lang.ErrorList); ok {
		for _, e := range list {
			if e.Hint == "" {
				e.Hint = fmt.Sprintf("sbc draws the data %s, so they cannot be sizes, indexes or other values needed before inference", joinNames(names))
			}
		}
	}
	return err
}

func joinNames(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// simPriorCheck is PriorError for a simulator: each element of the
// model's latents must be drawn by exactly one ~ statement, with a prior
// that can be sampled, and each element of the drawn data by one at most;
// the data elements no ~ statement draws (the first values of an
// autoregression, which the model conditions on) keep their values
// (s.fixed).
func simPriorCheck(c *lower.Compiled, s *Simulator) error {
	covered := make([]int, c.Model.LatentDim)
	for _, f := range c.Factors {
		if f.Prior != nil {
			for _, p := range f.Prior.LhsPos {
				covered[p]++
			}
		}
	}
	cannot := func(e *lang.Error) error {
		e.Msg = "sbc draws the latents from their prior, and cannot: " + e.Msg
		return lang.ErrorList{e}
	}
	for _, v := range c.Model.Latents[:len(c.Model.Latents)-len(s.Data)] {
		if v.Special() && v.Derived == nil {
			return cannot(lang.Errorf(v.Pos, "latent %s has a vector constraint or bounds that depend on other variables, so its prior cannot be sampled directly", v.Name))
		}
		for i := 0; i < v.UDim(); i++ {
			switch n := covered[v.Offset+i]; {
			case n == 0:
				e := lang.Errorf(v.Pos, "latent %s has no prior statement", ir.ComponentName(v, i))
				e.Hint = fmt.Sprintf("give it a proper prior, %s ~ NAME(...)", v.Name)
				return cannot(e)
			case n > 1:
				return cannot(lang.Errorf(v.Pos, "latent %s appears on the left of ~ %d times", ir.ComponentName(v, i), n))
			}
		}
	}
	for _, v := range s.Data {
		for i := 0; i < v.UDim(); i++ {
			switch n := covered[v.Offset+i]; {
			case n == 0:
				s.fixed = append(s.fixed, fixedElem{v.Offset + i, v.Value[i]})
			case n > 1:
				return lang.ErrorList{lang.Errorf(v.Pos, "sbc cannot draw the data %s: it is on the left of ~ %d times", ir.ComponentName(v, i), n)}
			}
		}
	}
	return nil
}

// fixedElem is a data element no ~ statement draws, at its position in the
// simulator's latents, with its value.
type fixedElem struct {
	pos int
	x   float64
}

// Draw draws the latents from their prior and the data from the model:
// x receives the model's latents in their own spaces (Compiled.Constrain's
// layout, derived quantities included) and data[i] the values of Data[i]
// (row-major for matrices). An element that cannot be drawn (a NaN, an
// infinity, a value outside its family's support after its tries) is an
// error naming its variable.
func (s *Simulator) Draw(rng *rand.Rand, x []float64, data [][]float64) error {
	c := s.c
	c.Reserve(1)
	u := c.Graph().Value(c.LatentNode, 0)
	clear(u)
	for _, f := range s.fixed {
		u[f.pos] = f.x
	}
	for _, fi := range lower.PriorSchedule(c) {
		lower.DrawPrior(c, rng, &c.Factors[fi], u)
	}
	copy(s.u, u[:c.Model.LatentDim])
	for _, v := range s.Data {
		for i := 0; i < v.UDim(); i++ {
			if y := s.u[v.Offset+i]; math.IsNaN(y) || math.IsInf(y, 0) {
				return lang.ErrorList{lang.Errorf(v.Pos, "sbc drew %g for the data %s", y, ir.ComponentName(v, i))}
			}
		}
	}
	for _, v := range c.Model.Latents[:len(c.Model.Latents)-len(s.Data)] {
		for i := 0; i < v.UDim(); i++ {
			if math.IsNaN(s.u[v.Offset+i]) {
				return lang.ErrorList{lang.Errorf(v.Pos, "sbc could not draw the latent %s from its prior within its constraint", ir.ComponentName(v, i))}
			}
		}
	}
	c.Constrain(s.u, s.x)
	copy(x, s.x[:s.xdim])
	for i, v := range s.Data {
		data[i] = append(data[i][:0], s.u[v.Offset:v.Offset+v.Type.Len()]...)
	}
	return nil
}

// observedIn are the data variables a density in e observes: the variates
// of NAME_lpdf(y | ...) calls and of multivariate densities.
func observedIn(e ir.Expr) []*ir.Var {
	var out []*ir.Var
	add := func(y ir.Expr) {
		ir.WalkExpr(y, func(x ir.Expr) {
			if r, ok := x.(*ir.Ref); ok && r.Var.Kind == ir.DataVar && !slices.Contains(out, r.Var) {
				out = append(out, r.Var)
			}
		})
	}
	if mc, ok := e.(*ir.MatCall); ok && len(mc.Args) > 0 {
		add(mc.Args[0])
	}
	ir.WalkExpr(e, func(x ir.Expr) {
		if d, ok := x.(*ir.Density); ok && len(d.Args) > 0 {
			add(d.Args[0])
		}
	})
	return out
}

// walkStmts calls f on each statement of ss, those nested in loops, ifs
// and inlined user functions included.
func walkStmts(ss []ir.Stmt, f func(ir.Stmt)) {
	for _, s := range ss {
		f(s)
		switch s := s.(type) {
		case *ir.For:
			walkStmts(s.Body, f)
		case *ir.If:
			walkStmts(s.Then, f)
			walkStmts(s.Else, f)
		}
		for _, e := range ir.StmtExprs(s) {
			ir.WalkExpr(e, func(x ir.Expr) {
				if in, ok := x.(*ir.Inline); ok {
					walkStmts(in.Stmts, f)
				}
			})
		}
	}
}

// dataDecls are the declarations of the data blocks of f.
func dataDecls(f *lang.File) []*lang.Decl {
	var out []*lang.Decl
	if f == nil {
		return nil
	}
	for _, b := range f.Blocks {
		if k, _ := b.KindOf(); k != lang.BlockData {
			continue
		}
		for _, it := range b.Items {
			if it.Decl != nil {
				out = append(out, it.Decl)
			}
		}
	}
	return out
}
