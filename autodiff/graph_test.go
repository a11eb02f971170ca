package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// square is a test Func: y = x^2.
type square struct{}

func (square) Name() string { return "square" }
func (square) Eval(y, x []float64) {
	for i, v := range x {
		y[i] = v * v
	}
}
func (square) Deriv(dx, dy, y, x []float64) {
	for i := range dx {
		dx[i] += dy[i] * 2 * x[i]
	}
}

// weightedSum is a test Op: out = sum_i in0[i] * in1[i]^3 (in1 broadcast).
type weightedSum struct{}

func (weightedSum) Name() string { return "wsum" }
func (weightedSum) Forward(out []float64, in [][]float64) {
	s := 0.0
	for i, a := range in[0] {
		c := at(in[1], i)
		s += a * c * c * c
	}
	out[0] = s
}
func (weightedSum) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	for i, a := range in[0] {
		c := at(in[1], i)
		if din[0] != nil {
			din[0][i] += dout[0] * c * c * c
		}
		if din[1] != nil {
			accAt(din[1], i, dout[0]*3*a*c*c)
		}
	}
}

// build makes a scalar function of an Input x (length n) and a Param p
// (length n) for each primitive.
var primitives = []struct {
	name  string
	pos   bool // needs positive inputs
	build func(g *Graph, x, p Node) Node
}{
	{"add", false, func(g *Graph, x, p Node) Node { return g.Sum(g.Add(x, p)) }},
	{"sub-broadcast", false, func(g *Graph, x, p Node) Node { return g.Sum(g.Mul(g.Sub(g.Index(p, 0), x), x)) }},
	{"mul", false, func(g *Graph, x, p Node) Node { return g.Sum(g.Mul(x, p)) }},
	{"div", true, func(g *Graph, x, p Node) Node { return g.Sum(g.Div(x, p)) }},
	{"pow-const2", false, func(g *Graph, x, p Node) Node { return g.Sum(g.Pow(x, g.Const([]float64{2}))) }},
	{"pow-var", true, func(g *Graph, x, p Node) Node { return g.Sum(g.Pow(x, p)) }},
	{"neg", false, func(g *Graph, x, p Node) Node { return g.Dot(g.Neg(x), p) }},
	{"exp", false, func(g *Graph, x, p Node) Node { return g.Sum(g.Exp(g.Mul(x, p))) }},
	{"log", true, func(g *Graph, x, p Node) Node { return g.Sum(g.Log(g.Mul(x, p))) }},
	{"sqrt", true, func(g *Graph, x, p Node) Node { return g.Sum(g.Sqrt(g.Mul(x, p))) }},
	{"log1p", true, func(g *Graph, x, p Node) Node { return g.Sum(g.Log1p(g.Mul(x, p))) }},
	{"expm1", false, func(g *Graph, x, p Node) Node { return g.Sum(g.Expm1(g.Mul(x, p))) }},
	{"map", false, func(g *Graph, x, p Node) Node { return g.Dot(g.Map(square{}, x), p) }},
	{"dot", false, func(g *Graph, x, p Node) Node { return g.Dot(x, g.Exp(p)) }},
	{"logsumexp", false, func(g *Graph, x, p Node) Node { return g.LogSumExp(g.Mul(x, p)) }},
	{"matvec-const", false, func(g *Graph, x, p Node) Node {
		m := g.ConstMatrix(2, 3, []float64{1, -2, 0.5, 0.3, 0.7, -1.1})
		return g.Dot(g.MatVec(m, x), g.Slice(p, 0, 2))
	}},
	{"matvec-var", false, func(g *Graph, x, p Node) Node {
		// a 3x3 matrix made of x and p elements
		m := g.Stack(g.Index(x, 0), g.Index(p, 1), g.Index(x, 2), g.Index(p, 0), g.Index(x, 1), g.Index(p, 2), g.Index(x, 0), g.Index(x, 1), g.Index(p, 1))
		_ = m
		return g.Sum(g.Mul(g.Stack(g.Index(x, 0), g.Index(x, 1)), g.Stack(g.Index(p, 2), g.Index(p, 0))))
	}},
	{"affine-shared-offset", false, func(g *Graph, x, p Node) Node {
		m := g.ConstMatrix(2, 3, []float64{1, -2, 0.5, 0.3, 0.7, -1.1})
		return g.Dot(g.Affine(g.Index(p, 2), m, x), g.Slice(p, 0, 2))
	}},
	{"affine-batched-offset", false, func(g *Graph, x, p Node) Node {
		m := g.ConstMatrix(2, 3, []float64{1, -2, 0.5, 0.3, 0.7, -1.1})
		return g.Dot(g.Affine(g.Index(x, 1), m, p), g.Exp(g.Slice(x, 0, 2)))
	}},
	{"affine-var-matrix", false, func(g *Graph, x, p Node) Node {
		m := g.Reshape(g.Stack(g.Index(x, 0), g.Index(p, 1), g.Index(x, 2), g.Index(p, 0), g.Index(x, 1), g.Index(p, 2)), 2, 3)
		return g.Dot(g.Affine(g.Index(x, 2), m, g.Mul(x, p)), g.Slice(x, 1, 3))
	}},
	{"addn", false, func(g *Graph, x, p Node) Node { return g.Sum(g.AddN(x, p, g.Mul(x, p))) }},
	{"index-slice-stack", false, func(g *Graph, x, p Node) Node {
		return g.Dot(g.Stack(g.Index(x, 2), g.Index(p, 0), g.Index(x, 0)), g.Slice(x, 0, 3))
	}},
	{"custom", false, func(g *Graph, x, p Node) Node { return g.Custom(weightedSum{}, 1, x, p) }},
	{"custom-broadcast", false, func(g *Graph, x, p Node) Node { return g.Custom(weightedSum{}, 1, x, g.Index(p, 1)) }},
}

func TestGradientsFiniteDifferences(t *testing.T) {
	const n = 3
	for _, tc := range primitives {
		for _, batch := range []int{1, 3} {
			g := New()
			x, p := g.Input(n), g.Param(n)
			out := tc.build(g, x, p)
			g.Alloc(batch)
			rng := rand.New(rand.NewPCG(1, uint64(batch)))
			draw := func() float64 {
				if tc.pos {
					return 0.5 + rng.Float64()
				}
				return rng.NormFloat64()
			}
			for b := 0; b < batch; b++ {
				for i := range g.Value(x, b) {
					g.Value(x, b)[i] = draw()
				}
			}
			for i := range g.Value(p, 0) {
				g.Value(p, 0)[i] = draw()
			}
			f := func() float64 {
				g.Forward(batch)
				s := 0.0
				for b := 0; b < batch; b++ {
					s += g.Value(out, b)[0]
				}
				return s
			}
			f()
			g.Backward(out, batch)
			check := func(node Node, b int, what string) {
				v := g.Value(node, b)
				grad := append([]float64(nil), g.Grad(node, b)...)
				for i := range v {
					old := v[i]
					h := 1e-6 * math.Max(1, math.Abs(old))
					v[i] = old + h
					fp := f()
					v[i] = old - h
					fm := f()
					v[i] = old
					fd := (fp - fm) / (2 * h)
					require.InDeltaf(t, fd, grad[i], 1e-6*math.Max(1, math.Abs(fd)), "%s batch %d: d/d%s[%d]", tc.name, batch, what, i)
				}
			}
			for b := 0; b < batch; b++ {
				check(x, b, "x")
			}
			check(p, 0, "p")
		}
	}
}

func TestMatVecBatchMatchesLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	const rows, cols, batch = 7, 5, 4
	m := make([]float64, rows*cols)
	for i := range m {
		m[i] = rng.NormFloat64()
	}
	g := New()
	x := g.Input(cols)
	y := g.MatVec(g.ConstMatrix(rows, cols, m), x)
	g.Alloc(batch)
	for b := 0; b < batch; b++ {
		for i := range g.Value(x, b) {
			g.Value(x, b)[i] = rng.NormFloat64()
		}
	}
	g.Forward(batch)
	for b := 0; b < batch; b++ {
		xv := g.Value(x, b)
		for r := 0; r < rows; r++ {
			s := 0.0
			for c := 0; c < cols; c++ {
				s += m[r*cols+c] * xv[c]
			}
			require.InDelta(t, s, g.Value(y, b)[r], 1e-12)
		}
	}
}

// TestAffineMatchesAddMatVec: Affine(c, m, v) has the bits of
// Add(c, MatVec(m, v)), and so has its gradient, for an offset that is
// batched, shared or constant, in batches of 1 and more (the kernel's
// lanes of 12, 8 and 4 and their remainders), with and without AVX2.
func TestAffineMatchesAddMatVec(t *testing.T) {
	defer func(u bool) { useAVX2 = u }(useAVX2)
	rng := rand.New(rand.NewPCG(21, 22))
	for _, sh := range [][2]int{{7, 3}, {351, 35}} {
		rows, cols := sh[0], sh[1]
		mv, _ := asmOperands(rng, rows, cols, 1, false)
		w := make([]float64, rows)
		for i := range w {
			w[i] = rng.NormFloat64()
			if i%5 == 0 {
				w[i] = 0 // rows whose adjoint is 0
			}
		}
		for _, offset := range []string{"batched", "shared", "const"} {
			for _, batch := range []int{1, 3, 13} {
				for _, avx := range []bool{false, true} {
					if avx && !haveAVX2 {
						continue
					}
					useAVX2 = avx
					run := func(fused bool) (vals, grads []float64) {
						g := New()
						x, p := g.Input(cols+1), g.Param(2)
						var c Node
						switch offset {
						case "batched":
							c = g.Index(x, cols)
						case "shared":
							c = g.Index(p, 1)
						default:
							c = g.Const([]float64{-0.75})
						}
						m, v := g.ConstMatrix(rows, cols, mv), g.Slice(x, 0, cols)
						var eta Node
						if fused {
							eta = g.Affine(c, m, v)
						} else {
							eta = g.Add(c, g.MatVec(m, v))
						}
						out := g.Dot(g.Mul(eta, g.Index(p, 0)), g.Const(w))
						g.Alloc(batch)
						r := rand.New(rand.NewPCG(23, uint64(batch)))
						for b := 0; b < batch; b++ {
							for j := range g.Value(x, b) {
								g.Value(x, b)[j] = 3 * r.NormFloat64()
							}
						}
						copy(g.Value(p, 0), []float64{1.5, 0.25})
						g.Forward(batch)
						g.Backward(out, batch)
						for b := 0; b < batch; b++ {
							vals = append(vals, g.Value(eta, b)...)
							vals = append(vals, g.Value(out, b)...)
							grads = append(grads, g.Grad(x, b)...)
						}
						return vals, append(grads, g.Grad(p, 0)...)
					}
					fv, fg := run(true)
					uv, ug := run(false)
					name := fmt.Sprintf("%dx%d/%s/batch %d/avx2 %v", rows, cols, offset, batch, avx)
					for i := range uv {
						require.Truef(t, sameBits(fv[i], uv[i]), "%s: value %d: fused %v, Add of MatVec %v", name, i, fv[i], uv[i])
					}
					for i := range ug {
						require.Truef(t, sameBits(fg[i], ug[i]), "%s: gradient %d: fused %v, Add of MatVec %v", name, i, fg[i], ug[i])
					}
				}
			}
		}
	}
}

// Batched reports whether the node depends on an Input.
func (g *Graph) Batched(n Node) bool { return g.recs[n].flags&flagBatched != 0 }

func TestConstantFoldingAndSharedNodes(t *testing.T) {
	g := New()
	c := g.Exp(g.Const([]float64{0, 1}))
	require.True(t, g.IsConst(c))
	require.InDelta(t, math.E, g.Value(c, 0)[1], 1e-15)
	p := g.Param(1)
	s := g.Mul(p, g.Const([]float64{2}))
	require.False(t, g.Batched(s))
	x := g.Input(1)
	out := g.Sum(g.Mul(x, s))
	require.True(t, g.Batched(out))
	g.Alloc(2)
	g.Value(p, 0)[0] = 3
	g.Value(x, 0)[0], g.Value(x, 1)[0] = 1, 2
	g.Forward(2)
	require.Equal(t, 6.0, g.Value(out, 0)[0])
	require.Equal(t, 12.0, g.Value(out, 1)[0])
	g.Backward(out, 2)
	// d/dp sum_b x_b * 2p = 2 (x_0 + x_1) = 6
	require.Equal(t, 6.0, g.Grad(p, 0)[0])
}

func TestAncestorsForwardNodes(t *testing.T) {
	g := New()
	x := g.Input(2)
	a := g.Sum(g.Exp(x))
	b := g.Sum(g.Log(g.Exp(x)))
	g.Alloc(1)
	copy(g.Value(x, 0), []float64{0.5, -1})
	order := g.Ancestors(b)
	g.ForwardNodes(order, 1)
	require.InDelta(t, -0.5, g.Value(b, 0)[0], 1e-12)
	require.Equal(t, 0.0, g.Value(a, 0)[0], "a is not an ancestor of b and must not be evaluated")
}

func TestNoAllocations(t *testing.T) {
	g := New()
	x := g.Input(34)
	m := make([]float64, 351*34)
	for i := range m {
		m[i] = float64(i%7) - 3
	}
	eta := g.MatVec(g.ConstMatrix(351, 34, m), x)
	aff := g.Affine(g.Index(x, 3), g.ConstMatrix(351, 34, m), x)
	out := g.AddN(g.Custom(weightedSum{}, 1, eta, g.Const([]float64{0.1})), g.Sum(g.Map(square{}, x)), g.Sum(aff))
	g.Alloc(10)
	allocs := testing.AllocsPerRun(50, func() {
		g.Forward(10)
		g.Backward(out, 10)
	})
	require.Zero(t, allocs)
}

func BenchmarkForwardMatVecBatch(b *testing.B) {
	g := New()
	x := g.Input(34)
	m := make([]float64, 351*34)
	for i := range m {
		m[i] = float64(i%7) - 3
	}
	g.Sum(g.MatVec(g.ConstMatrix(351, 34, m), x))
	g.Alloc(10)
	b.ReportAllocs()
	for b.Loop() {
		g.Forward(10)
	}
}

func ExampleGraph() {
	g := New()
	x := g.Input(1)   // a batched variable
	sd := g.Param(1)  // a shared parameter
	z := g.Div(x, sd) // x / sd
	lp := g.Neg(g.Mul(g.Const([]float64{0.5}), g.Mul(z, z)))
	g.Alloc(2)
	g.Value(sd, 0)[0] = 2
	g.Value(x, 0)[0], g.Value(x, 1)[0] = 1, 4
	g.Forward(2)
	g.Backward(lp, 2)
	fmt.Println(g.Value(lp, 0)[0], g.Value(lp, 1)[0], g.Grad(x, 1)[0])
	// Output: -0.125 -2 -1
}

// TestAncestorsRepeated: Ancestors reuses its scratch marks across calls
// and across nodes added in between, and returns nodes in index order.
func TestAncestorsRepeated(t *testing.T) {
	g := New()
	x := g.Input(5)
	p := g.Param(1)
	var steps []Node
	for i := 0; i < 5; i++ {
		steps = append(steps, g.Mul(g.Index(x, i), g.Index(p, 0)))
		got := g.Ancestors(steps[i])
		require.Len(t, got, 5, "x, p, x[i], p[0], the product")
		require.True(t, slices.IsSorted(got))
		require.Equal(t, steps[i], got[4])
	}
	all := g.Ancestors(g.AddN(steps...), g.Const([]float64{1}))
	require.Len(t, all, 2+5*3+1, "x, p, three nodes per step, the sum")
	require.True(t, slices.IsSorted(all))
	require.Equal(t, []Node{x, p, steps[2] - 2, steps[2] - 1, steps[2]}, g.Ancestors(steps[2]))
}

func TestIndexOf(t *testing.T) {
	g := New()
	x := g.Input(4)
	e := g.Index(x, 2)
	src, i, ok := g.IndexOf(e)
	if !ok || src != x || i != 2 {
		t.Fatalf("IndexOf(Index(x, 2)) = %d, %d, %v", src, i, ok)
	}
	if _, _, ok := g.IndexOf(g.Slice(x, 1, 2)); ok {
		t.Fatal("a Slice is not an Index")
	}
}

// TestBackwardSkipsZeroAdjoints: a node out does not depend on (a local
// assigned and then overwritten) passes nothing back, even where its
// derivative is infinite or its value was never computed: the gradient
// of sum(x) at x = 0 next to log(x) is 1, not 0 * (1/0) = NaN.
func TestBackwardSkipsZeroAdjoints(t *testing.T) {
	g := New()
	x := g.Input(1)
	g.Log(x) // not used
	out := g.Sum(x)
	g.Alloc(2)
	for _, order := range [][]Node{g.Ancestors(out), nil} {
		if order == nil {
			g.Forward(2)
		} else {
			g.ForwardNodes(order, 2)
		}
		g.Backward(out, 2)
		for b := 0; b < 2; b++ {
			if d := g.Grad(x, b)[0]; d != 1 {
				t.Fatalf("gradient %g, want 1", d)
			}
		}
	}
}
