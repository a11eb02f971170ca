package lower

import (
	"fmt"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/stdlib"
)

// lowering is a call of a vocabulary entry as its lowering sees it: the
// arguments' expressions and nodes, the integer arguments known before
// inference, and the call's type.
type lowering struct {
	Args []ir.Expr
	A    []autodiff.Node
	Ints []int
	T    ir.Type
}

// n is the length of the first argument.
func (x lowering) n() int { return x.Args[0].Type().Len() }

// lowerFunc puts a call of one entry of the vocabulary on the tape.
type lowerFunc func(g *autodiff.Graph, x lowering) autodiff.Node

// lowerings are the entries' lowerings (lowerByName), by entry. An entry
// that declares its op (Tape, Elem) needs none; one that checks its call
// into another node (a MatCall, a NaryCall, a constant) neither.
var lowerings = map[*ir.Function]lowerFunc{
	ir.VecTranspose: func(_ *autodiff.Graph, x lowering) autodiff.Node { return x.A[0] },
	ir.ArrayLit:     lowerArrayLit,
}

func init() {
	for name, f := range lowerByName {
		e := ir.FunctionsByName[name]
		if e == nil {
			panic("ir/lower: a lowering for " + name + ", which the vocabulary does not have")
		}
		lowerings[e] = f
	}
}

// lowerEntry lowers a call of the entry def: by the op it declares, or
// by its lowering.
func (cp *compiler) lowerEntry(def *ir.Function, x lowering) autodiff.Node {
	switch {
	case def == ir.ArrayCol:
		return cp.lowerArrayCol(x)
	case def.Tape != nil:
		return def.Tape(cp.g, x.A[0])
	case def.Elem != nil:
		return cp.g.Map(def.Elem, x.A[0])
	}
	f := lowerings[def]
	if f == nil {
		panic(fmt.Sprintf("ir/lower: %s has no lowering", def.Name))
	}
	return f(cp.g, x)
}

// lowerArrayLit lowers an array literal {a, b, c}: a constant when every
// element is known when the model is compiled, else their concatenation.
func lowerArrayLit(g *autodiff.Graph, x lowering) autodiff.Node {
	lens := make(stdlib.Concat, len(x.A))
	known := true
	for i, a := range x.A {
		lens[i] = x.Args[i].Type().Len()
		known = known && g.IsConst(a)
	}
	if known {
		v := make([]float64, 0, x.T.Len())
		for _, a := range x.A {
			v = append(v, g.Value(a, 0)...)
		}
		if x.T.Kind == ir.Matrix {
			return g.ConstMatrix(x.T.Rows, x.T.Cols, v)
		}
		return g.Const(v)
	}
	n := g.Custom(lens, x.T.Len(), x.A...)
	if x.T.Kind == ir.Matrix {
		n = g.Reshape(n, x.T.Rows, x.T.Cols)
	}
	return n
}

// lowerByName are the lowerings of the table's entries, by the entry's name.
var lowerByName = map[string]lowerFunc{
	"prod":                lowerReduce(stdlib.ReduceProd),
	"mean":                lowerMoments(momentMean),
	"variance":            lowerMoments(momentVariance),
	"sd":                  lowerMoments(momentSD),
	"dot_self":            func(g *autodiff.Graph, x lowering) autodiff.Node { return g.Dot(x.A[0], x.A[0]) },
	"rows_dot_product":    lowerRowsCols(true),
	"columns_dot_product": lowerRowsCols(false),
	"rows_dot_self":       lowerRowsCols(true),
	"columns_dot_self":    lowerRowsCols(false),
	"cumulative_sum":      lowerCumulativeSum,
	"softmax": func(g *autodiff.Graph, x lowering) autodiff.Node {
		return g.Exp(g.Sub(x.A[0], g.LogSumExp(x.A[0])))
	},
	"log_softmax": func(g *autodiff.Graph, x lowering) autodiff.Node { return g.Sub(x.A[0], g.LogSumExp(x.A[0])) },
	"head":        func(g *autodiff.Graph, x lowering) autodiff.Node { return g.Slice(x.A[0], 0, x.Ints[0]) },
	"tail":        func(g *autodiff.Graph, x lowering) autodiff.Node { return g.Slice(x.A[0], x.n()-x.Ints[0], x.n()) },
	"segment": func(g *autodiff.Graph, x lowering) autodiff.Node {
		return g.Slice(x.A[0], x.Ints[0]-1, x.Ints[0]-1+x.Ints[1])
	},
	"rep_matrix":        lowerRepMatrix,
	"diag_pre_multiply": lowerDiagPreMultiply,
	"to_vector":         lowerToVector,
	"append_row": func(g *autodiff.Graph, x lowering) autodiff.Node {
		return g.Custom(stdlib.AppendRow{x.n(), x.Args[1].Type().Len()}, x.T.Len(), x.A[0], x.A[1])
	},
	"col": lowerCol,
	"row": func(g *autodiff.Graph, x lowering) autodiff.Node {
		c := x.Args[0].Type().Cols
		return g.Slice(x.A[0], (x.Ints[0]-1)*c, x.Ints[0]*c)
	},
	"block":       lowerBlock,
	"to_array_1d": lowerToArray1D,
	"dims":        lowerArrayLit,
	"to_matrix":   func(g *autodiff.Graph, x lowering) autodiff.Node { return x.A[0] },
	"sum":         func(g *autodiff.Graph, x lowering) autodiff.Node { return g.Sum(x.A[0]) },
	"log_sum_exp": lowerLogSumExp,
	"dot":         func(g *autodiff.Graph, x lowering) autodiff.Node { return g.Dot(x.A[0], x.A[1]) },
	"min":         lowerReduce(stdlib.ReduceMin),
	"max":         lowerReduce(stdlib.ReduceMax),
}

func lowerLogSumExp(g *autodiff.Graph, x lowering) autodiff.Node {
	if len(x.A) == 2 {
		return g.LogSumExp(g.Stack(x.A[0], x.A[1]))
	}
	return g.LogSumExp(x.A[0])
}

// lowerReduce lowers prod, min or max of a vector or matrix.
func lowerReduce(o stdlib.Reduce) lowerFunc {
	return func(g *autodiff.Graph, x lowering) autodiff.Node { return g.Custom(o, 1, x.A[0]) }
}

// moment is which of mean, variance and sd a call computes.
type moment int

const (
	momentMean moment = iota
	momentVariance
	momentSD
)

// lowerMoments lowers mean, variance or sd of a vector or matrix.
func lowerMoments(m moment) lowerFunc {
	return func(g *autodiff.Graph, x lowering) autodiff.Node {
		n := x.n()
		if m == momentMean {
			return g.Div(g.Sum(x.A[0]), g.Const([]float64{float64(n)}))
		}
		dev := g.Sub(x.A[0], g.Div(g.Sum(x.A[0]), g.Const([]float64{float64(n)})))
		v := g.Div(g.Sum(g.Mul(dev, dev)), g.Const([]float64{float64(n - 1)}))
		if m == momentSD {
			return g.Sqrt(v)
		}
		return v
	}
}

// lowerRowsCols lowers the rows_ (byRows) or columns_ dot products.
func lowerRowsCols(byRows bool) lowerFunc {
	return func(g *autodiff.Graph, x lowering) autodiff.Node {
		a, b := x.A[0], x.A[0]
		if len(x.A) == 2 {
			b = x.A[1]
		}
		t := x.Args[0].Type()
		rows, cols := t.Rows, max(t.Cols, 1) // a vector is one column
		el := []autodiff.Node{}
		if byRows {
			for i := 0; i < rows; i++ {
				el = append(el, g.Dot(g.Slice(a, i*cols, (i+1)*cols), g.Slice(b, i*cols, (i+1)*cols)))
			}
		} else {
			for j := 0; j < cols; j++ {
				idx := make(stdlib.Gather, rows)
				for i := range idx {
					idx[i] = i*cols + j
				}
				el = append(el, g.Dot(g.Custom(idx, rows, a), g.Custom(idx, rows, b)))
			}
		}
		return g.Stack(el...)
	}
}

func lowerCumulativeSum(g *autodiff.Graph, x lowering) autodiff.Node {
	el := make([]autodiff.Node, x.n())
	for i := range el {
		el[i] = g.Index(x.A[0], i)
		if i > 0 {
			el[i] = g.Add(el[i-1], el[i])
		}
	}
	return g.Stack(el...)
}

func lowerRepMatrix(g *autodiff.Graph, x lowering) autodiff.Node {
	el := make([]autodiff.Node, x.Ints[0]*x.Ints[1])
	for i := range el {
		el[i] = x.A[0]
	}
	return g.Reshape(g.Stack(el...), x.Ints[0], x.Ints[1])
}

func lowerDiagPreMultiply(g *autodiff.Graph, x lowering) autodiff.Node {
	g, t := g, x.T
	el := make([]autodiff.Node, t.Len())
	for i := 0; i < t.Rows; i++ {
		vi := g.Index(x.A[0], i)
		for j := 0; j < t.Cols; j++ {
			el[i*t.Cols+j] = g.Mul(vi, g.Index2(x.A[1], i, j))
		}
	}
	return g.Reshape(g.Stack(el...), t.Rows, t.Cols)
}

func lowerToVector(g *autodiff.Graph, x lowering) autodiff.Node {
	t, n := x.Args[0].Type(), x.n()
	if t.Kind != ir.Matrix {
		return x.A[0]
	}
	idx := make(stdlib.Gather, 0, n) // column by column
	for j := 0; j < t.Cols; j++ {
		for i := 0; i < t.Rows; i++ {
			idx = append(idx, i*t.Cols+j)
		}
	}
	return g.Custom(idx, n, x.A[0])
}

func lowerCol(g *autodiff.Graph, x lowering) autodiff.Node {
	t := x.Args[0].Type()
	idx := make(stdlib.Gather, t.Rows)
	for i := range idx {
		idx[i] = i*t.Cols + x.Ints[0] - 1
	}
	return g.Custom(idx, t.Rows, x.A[0])
}

func lowerBlock(g *autodiff.Graph, x lowering) autodiff.Node {
	t := x.Args[0].Type()
	i0, j0, nr, nc := x.Ints[0]-1, x.Ints[1]-1, x.Ints[2], x.Ints[3]
	idx := make(stdlib.Gather, 0, nr*nc)
	for i := i0; i < i0+nr; i++ {
		for j := j0; j < j0+nc; j++ {
			idx = append(idx, i*t.Cols+j)
		}
	}
	return g.Reshape(g.Custom(idx, nr*nc, x.A[0]), nr, nc)
}

// lowerToArray1D flattens arrays in their (row-major) order and matrices
// column by column, as Stan does.
func lowerToArray1D(g *autodiff.Graph, x lowering) autodiff.Node {
	if t := x.Args[0].Type(); t.Kind == ir.Matrix && t.Array == 0 {
		return lowerToVector(g, x)
	}
	return g.Slice(x.A[0], 0, x.n())
}
