package autodiff

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// counter is an op that keeps state: it counts its Forward calls, and
// adds the count to its input.
type counter struct{ calls int }

func (o *counter) Name() string { return "counter" }
func (o *counter) Forward(out []float64, in [][]float64) {
	o.calls++
	out[0] = in[0][0] + float64(o.calls)
}
func (o *counter) Backward(_, dout []float64, _ [][]float64, din [][]float64) {
	if din[0] != nil {
		din[0][0] += dout[0]
	}
}

// TestGraphClone: a copy shares the constants (the store and the views)
// and gives the same values and gradients from its own arenas; each op
// has the copy copyOp gave (one copy for an op of two nodes), so that the
// two graphs' stateful ops count apart; a copyOp that cannot copy an op
// makes Clone refuse.
func TestGraphClone(t *testing.T) {
	g, m, _, x, out := arenaGraph()
	op := &counter{}
	a, b := g.Custom(op, 1, g.Index(x, 0)), g.Custom(op, 1, g.Index(x, 1))
	out = g.AddN(out, a, b)
	g.Alloc(4)
	copies := 0
	c, ok := g.Clone(func(o Op) Op { copies++; return &counter{} })
	require.True(t, ok)
	require.Equal(t, 1, copies, "one op of two nodes, one copy")
	require.Same(t, &g.consts[0], &c.consts[0], "the constant store is shared")
	require.Same(t, &m[0], &c.views[0][0], "the data are shared")
	require.NotSame(t, &g.vals[0], &c.vals[0])
	require.Equal(t, 4, c.maxBatch, "laid out as the original")

	for _, h := range []*Graph{g, c} {
		copy(h.Value(x, 0), []float64{1, -2, 0.5})
		h.Forward(1)
		h.Backward(out, 1)
	}
	require.Equal(t, g.Value(out, 0), c.Value(out, 0))
	require.Equal(t, g.Grad(x, 0), c.Grad(x, 0))
	require.Equal(t, 2, op.calls, "the original's op counts its own calls")
	g.Forward(1)
	require.Equal(t, 4, op.calls)
	require.Equal(t, 2, c.ops[0].(*counter).calls, "the copy's op its own")

	_, ok = g.Clone(func(Op) Op { return nil })
	require.False(t, ok)
}
