package autodiff

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// arenaGraph is sum((M x)^2) + sum(c * x) for a batched x of length 3, a
// 400 x 3 data matrix M added as a view and a constant vector c (copied).
func arenaGraph() (g *Graph, m []float64, mn, x, out Node) {
	g = New()
	x = g.Input(3)
	m = make([]float64, 400*3)
	for i := range m {
		m[i] = float64(i%5) - 2
	}
	mn = g.ConstMatrixView(400, 3, m)
	c := g.Const([]float64{0.5, -1, 2})
	out = g.Add(g.Sum(g.Map(square{}, g.MatVec(mn, x))), g.Dot(c, x))
	return
}

// TestConstViewIsTheData: a view constant is the caller's slice, through
// Alloc and evaluation (the compiled copies of a model share their data
// through it), and the nodes computed from it are not views.
func TestConstViewIsTheData(t *testing.T) {
	g, m, mn, x, out := arenaGraph()
	g.Alloc(4)
	require.Same(t, &m[0], &g.Value(mn, 0)[0])
	require.Same(t, &m[0], &g.Value(mn, 3)[0])
	for b := range 4 {
		copy(g.Value(x, b), []float64{1, float64(b), -1})
	}
	g.Forward(4)
	for b := range 4 {
		want := 0.5 - float64(b) - 2
		for i := range 400 {
			e := m[3*i] + m[3*i+1]*float64(b) - m[3*i+2]
			want += e * e
		}
		require.Equal(t, want, g.Value(out, b)[0])
	}
	for i := range g.recs {
		if Node(i) != mn {
			require.Zero(t, g.recs[i].flags&flagView, "node %d", i)
		}
	}
}

// TestArenaSizes: the value arena holds the batch's values and no
// constant (they stay in their store, which Clone's copies share); the
// adjoints are laid out for one row, grown by Backward for the rows
// differentiated, not for the batch Alloc reserved, and none for the
// constants.
func TestArenaSizes(t *testing.T) {
	g, _, _, x, out := arenaGraph()
	consts := &g.consts[0]
	g.Alloc(10)
	require.Equal(t, 10*g.RowFloats(), len(g.vals))
	require.Same(t, consts, &g.consts[0], "the constants were copied")
	require.Equal(t, g.RowFloats(), len(g.adj), "adjoints for one row")
	copy(g.Value(x, 0), []float64{1, 2, 3})
	g.Forward(10)
	g.Backward(out, 1)
	require.Equal(t, g.RowFloats(), len(g.adj), "adjoints for one row")
	grad1 := append([]float64(nil), g.Grad(x, 0)...)
	g.Backward(out, 2) // grows the adjoints to two rows, the same gradient for row 0
	require.Equal(t, 2*g.RowFloats(), len(g.adj))
	require.Equal(t, grad1, g.Grad(x, 0))
	require.NotZero(t, grad1[0])
}
