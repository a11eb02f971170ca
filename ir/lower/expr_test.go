package lower

import (
	"bytes"
	"math"
	"testing"

	"github.com/mscppl/mscppl/lang"
	"github.com/stretchr/testify/require"
)

// TestCompileExpr: an expression of latents, params, data, sizes and
// top-level locals is compiled into the model's graph and evaluated at a
// row of unconstrained latents with the current params; the model's own
// evaluation is unchanged.
func TestCompileExpr(t *testing.T) {
	src := "data { x: vector[N] }\nparam { s: real<lower=0> = 2 }\nlatent { z: real\n w: vector<lower=0>[2] }\nmodel {\n m = z * 3\n z ~ normal(0, s)\n w ~ exponential(1)\n x ~ normal(m, 1)\n}\n"
	c := compile(t, src, "x\n1.5\n-0.3\n2\n")
	row := []float64{0.5, math.Log(2), math.Log(3)}
	before := make([]float64, 1)
	c.LogJoint(row, before)
	nodes := c.Graph().NumNodes()

	for _, tc := range []struct {
		src  string
		want []float64
	}{
		{"z", []float64{0.5}},
		{"exp(z) + m", []float64{math.Exp(0.5) + 1.5}},
		{"w[2] * s", []float64{6}},
		{"w", []float64{2, 3}},
		{"sum(x) / N", []float64{3.2 / 3}},
		{"w + x[1]", []float64{3.5, 4.5}},
	} {
		e, err := CompileExpr(c, "<eval>", []byte(tc.src))
		require.NoError(t, err, tc.src)
		got := e.Eval(row)
		require.InDeltaSlice(t, tc.want, got, 1e-12, tc.src)
	}
	require.Greater(t, c.Graph().NumNodes(), nodes, "the nodes are added to the model's graph")
	after := make([]float64, 1)
	c.LogJoint(row, after)
	require.Equal(t, before, after)
	// the params are read at evaluation time
	c.SetParams([]float64{math.Log(5)})
	e, err := CompileExpr(c, "<eval>", []byte("s"))
	require.NoError(t, err)
	require.InDelta(t, 5, e.Eval(row)[0], 1e-12)
}

// TestCompileExprErrors: errors are positioned in the expression's own
// text, never in a wrapper.
func TestCompileExprErrors(t *testing.T) {
	c := compile(t, "data { x: vector[N] }\nlatent { z: real }\nmodel {\n z ~ normal(0, 1)\n x ~ normal(z, 1)\n}\n", "x\n1.5\n-0.3\n2\n")
	for _, tc := range []struct{ src, want string }{
		{"w", "<eval>:1:1: unknown name \"w\"\n    w\n    ^\n    hint: did you mean \"N\"?\n"},
		{"exp(z) + qq", "<eval>:1:10: unknown name \"qq\"\n    exp(z) + qq\n             ^\n    hint: an expression may use the model's data, params, latents and top-level local definitions\n"},
		{"z +", "<eval>:1:4: unexpected end of file; expected an expression\n    z +\n       ^\n    hint: an expression is missing after \"+\"\n"},
		{"x[7]", "<eval>:1:3: index 7 is out of range: x has 3 elements (indices start at 1)\n    x[7]\n      ^\n"},
		{"x * x", "<eval>:1:3: cannot apply * to vector[3] and vector[3]\n    x * x\n      ^\n    hint: use dot(a, b) for the inner product\n"},
	} {
		_, err := CompileExpr(c, "<eval>", []byte(tc.src))
		require.Error(t, err, tc.src)
		var list lang.ErrorList
		require.ErrorAs(t, err, &list)
		var b bytes.Buffer
		list.Format(&b, map[string][]byte{"<eval>": []byte(tc.src)})
		require.Equal(t, tc.want, b.String(), tc.src)
	}
	// the graph still evaluates after the errors
	e, err := CompileExpr(c, "<eval>", []byte("z * 2"))
	require.NoError(t, err)
	require.Equal(t, []float64{3}, e.Eval([]float64{1.5}))
}
