package autodiff

import (
	"reflect"
	"slices"
)

// Clone returns a copy of g that can be evaluated while g is (from
// another goroutine): the node table is copied (Alloc writes offsets into
// it), the value and adjoint arenas and the scratch are the copy's own,
// laid out for the batch size of g's last Alloc (1 if none), and the constants are shared,
// read and never written: the view constants (ConstView, the data) and the
// constant store (the constants and the values folded from them). Nodes
// added later to either graph are its own.
//
// The Funcs of Map nodes are shared: a Func keeps no state between calls.
// An Op may keep state (scratch, a random stream, the errors it met), so
// copyOp gives the op of the copy for each op of g (called once for an op
// that several nodes share): op itself when it
// keeps none, or a fresh op in the state of a new one. When copyOp returns
// nil for some op (an op that cannot be copied), Clone returns false and
// no graph: the caller builds the graph again.
//
// Input and Param values are not copied: the copy's are zero.
func (g *Graph) Clone(copyOp func(Op) Op) (*Graph, bool) {
	ops := make([]Op, len(g.ops))
	copied := map[Op]Op{} // an op of several nodes is one op in the copy too
	for i, op := range g.ops {
		ptr := reflect.TypeOf(op).Kind() == reflect.Pointer // comparable: a key
		if ptr {
			if c, ok := copied[op]; ok {
				ops[i] = c
				continue
			}
		}
		if ops[i] = copyOp(op); ops[i] == nil {
			return nil, false
		}
		if ptr {
			copied[op] = ops[i]
		}
	}
	c := &Graph{
		recs:  slices.Clone(g.recs),
		args:  slices.Clip(g.args),
		funcs: slices.Clip(g.funcs),
		ops:   ops,
		// capped, so that a constant added to the copy moves its store out
		consts: slices.Clip(g.consts),
		views:  slices.Clip(g.views),
		in:     make([][]float64, len(g.in)),
		din:    make([][]float64, len(g.din)),
	}
	c.Alloc(max(g.allocBatch, 1)) // laid out as g was last, nodes added since included
	return c, true
}
