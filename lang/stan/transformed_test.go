package stan_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/ir/lower"
	"github.com/mscppl/mscppl/lang"
	"github.com/stretchr/testify/require"
)

// TestTransformedSolvedOnce: the ODE of lotka_volterra's transformed
// parameters is one op of the compiled graph (it was two when the
// transformed parameters were lowered into the model and again into the
// derived block), solved once per evaluation of the log joint, which
// ConstrainJoint reads (the draws of a run are not solved again), and once
// by a Constrain of its own, which reports the same z.
func TestTransformedSolvedOnce(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "posteriordb", "hudson_lynx_hare-lotka_volterra")
	m, err := infer.Load(filepath.Join(dir, "model.stan"), filepath.Join(dir, "data.json"))
	require.NoError(t, err)
	c := m.Comp
	require.Len(t, c.Rejecters, 1, "ODE ops on the graph")
	ode := c.Rejecters[0]
	z := make([]float64, c.Dim())
	for i := range z {
		z[i] = 0.1 * float64(i%3)
	}
	out := make([]float64, 1)
	c.LogJoint(z, out)
	require.Equal(t, int64(1), ode.Evals.Load(), "solves per evaluation of the log joint")
	x := make([]float64, m.IR.XDim)
	require.True(t, lower.ConstrainJoint(c, z, x, 1))
	require.Equal(t, int64(1), ode.Evals.Load(), "solves after the log joint's ConstrainJoint (the draws of a run)")
	y := make([]float64, m.IR.XDim)
	c.Constrain(z, y)
	require.Equal(t, int64(2), ode.Evals.Load(), "solves after a Constrain of its own")
	for i, n := range m.IR.LatentNames() {
		if strings.HasPrefix(n, "z[") { // y_rep's draws differ: a stream of its own
			require.Equal(t, y[i], x[i], n)
		}
	}
}

// TestTransformedRoundTrip: transformed parameters declared with bounds
// and followed by the statements that assign them lower to the
// transformed block; the text mscppl translate prints parses again to the
// same log density (a ";" ends a declaration whose bounds a statement
// follows), and a draw that violates a constraint has log density -Inf.
// A constrained local is refused, as stanc3 refuses it
// (test/integration/bad/local_var_constraint*.stan).
func TestTransformedRoundTrip(t *testing.T) {
	src := `parameters { real mu; vector[2] v; }
transformed parameters {
  real<lower=0> s;
  array[2] real<upper=3> a;
  s = exp(mu);
  for (k in 1:2) a[k] = v[k] + 1;
}
model {
  vector[2] p = softmax(v);
  real w;
  w = s + p[1];
  mu ~ normal(0, 1);
  v ~ normal(0, 1);
  target += -w;
}
`
	for _, local := range []string{"real<lower=0> u = 1;", "simplex[2] u = softmax(v);", "array[2] vector<lower=0, upper=1>[3] u;"} {
		_, err := infer.LoadSource("m.stan", []byte(strings.Replace(src, "real w;", "real w;\n  "+local, 1)), "")
		require.ErrorContains(t, err, "a local variable cannot be constrained in Stan", local)
	}
	ms, err := infer.LoadSource("m.stan", []byte(src), "")
	require.NoError(t, err)
	text := lang.FormatFile(ms.File)
	require.Contains(t, text, "transformed {\n  s: real<lower=0>\n  a: array[2] real<upper=3>;\n")
	mt, err := infer.LoadSource("m.msc", []byte(text), "")
	require.NoError(t, err, text)
	out := make([]float64, 1)
	for _, z := range [][]float64{{0.5, 1, -1}, {-1, 1.5, 0.2}, {0.2, 2.5, 0}} {
		ms.Comp.LogJoint(z, out)
		ls := out[0]
		mt.Comp.LogJoint(z, out)
		require.Equal(t, ls, out[0], "at %v", z)
		p1 := 1 / (1 + math.Exp(z[2]-z[1]))
		want := -0.5*z[0]*z[0] - 0.5*(z[1]*z[1]+z[2]*z[2]) - 3*0.5*math.Log(2*math.Pi) - (math.Exp(z[0]) + p1)
		if z[1]+1 > 3 || z[2]+1 > 3 {
			want = math.Inf(-1) // a[k] above its upper bound
		}
		require.InDelta(t, want, ls, 1e-12, "at %v", z)
		if math.IsInf(want, -1) {
			require.True(t, math.IsInf(ls, -1))
		}
	}
}
