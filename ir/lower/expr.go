package lower

import (
	"fmt"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/check"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// ExprEval evaluates an expression compiled into a model's graph by
// CompileExpr.
type ExprEval struct {
	c     *Compiled
	node  autodiff.Node
	order []autodiff.Node
	// Text is the expression as written; Type its type.
	Text string
	Type ir.Type
}

// CompileExpr resolves src as one expression over the compiled model
// (ResolveExpr) and compiles it. Its nodes are added to the compiled
// graph, so the data are not read again and the model is not rebuilt.
// Errors are positioned in src.
//
// Like the rest of Compiled, it is not safe for concurrent use.
func CompileExpr(c *Compiled, name string, src []byte) (*ExprEval, error) {
	x, err := check.ResolveExpr(c.Model, name, src)
	if err != nil {
		return nil, err
	}
	g := c.g
	// the new nodes need the arenas laid out again, also after an error
	// part way through
	defer func() {
		g.Alloc(max(c.maxBatch, 1))
		c.maxBatch = max(c.maxBatch, 1)
	}()
	cp := &compiler{
		m: c.Model, g: g, c: c,
		env:    c.env,
		ints:   make([]int, len(c.Model.Vars)),
		elems:  make([][]autodiff.Node, len(c.Model.Vars)),
		seen:   map[lang.Pos]bool{},
		ops:    map[*stdlib.Family]*stdlib.SumLogDensity{},
		consts: map[float64]autodiff.Node{},
		max:    g.NumNodes() + DefaultMaxNodes,
	}
	node, err := cp.exprSafe(x)
	if err != nil {
		return nil, err
	}
	return &ExprEval{c: c, node: node, order: g.Ancestors(node), Text: string(src), Type: x.Type()}, nil
}

// exprSafe lowers one expression, turning a compile error into an error.
func (cp *compiler) exprSafe(x ir.Expr) (n autodiff.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			ce, ok := r.(compileError)
			if !ok {
				panic(r)
			}
			if ce.err == nil {
				err = fmt.Errorf("ir: cannot compile %s", ir.FormatExpr(x))
				return
			}
			err = lang.ErrorList{ce.err}
		}
	}()
	return cp.expr(x), nil
}

// Eval evaluates the expression at one row of unconstrained latents z with
// the model's current params. The result is a new slice (one value for a
// scalar, the elements of a vector or matrix in row-major order).
func (e *ExprEval) Eval(z []float64) []float64 {
	c := e.c
	c.Reserve(1)
	Load(c, z, 1)
	c.g.ForwardNodes(e.order, 1)
	return append([]float64(nil), c.g.Value(e.node, 0)...)
}
