package stan_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/ir/lower"
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
