package stan_test

import (
	"math"
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/stretchr/testify/require"
)

// TestTransformedParameterChecks: a draw whose transformed parameters
// violate their constraints has log density -Inf (Stan rejects it); one
// that satisfies them has the density of the model block alone.
func TestTransformedParameterChecks(t *testing.T) {
	logN := func(x float64) float64 { return -0.5*x*x - 0.5*math.Log(2*math.Pi) }
	cases := []struct {
		name, src string
		z, want   []float64 // unconstrained points (mu) and log densities
	}{
		{"lower bound", `parameters { real mu; }
transformed parameters { real<lower=0> s = mu; }
model { mu ~ normal(0, 1); }`, []float64{1, -1, 0.25}, []float64{logN(1), math.Inf(-1), logN(0.25)}},
		{"upper bound on a vector", `parameters { real mu; }
transformed parameters { vector<upper=2>[2] v; v[1] = mu; v[2] = mu + 1; }
model { mu ~ normal(0, 1); }`, []float64{0.5, 1.5}, []float64{logN(0.5), math.Inf(-1)}},
		{"array of simplexes", `parameters { real mu; }
transformed parameters { array[2] simplex[2] s; s[1][1] = mu; s[1][2] = 1 - mu; s[2][1] = 0.5; s[2][2] = 0.5; }
model { mu ~ normal(0, 1); }`, []float64{0.5, 1.5, -0.25}, []float64{logN(0.5), math.Inf(-1), math.Inf(-1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := infer.LoadSource("t.stan", []byte(c.src), "")
			require.NoError(t, err)
			out := make([]float64, 1)
			for i, z := range c.z {
				m.Comp.LogJoint([]float64{z}, out)
				require.InDelta(t, c.want[i], out[0], 1e-12, "at mu = %g", z)
				if math.IsInf(c.want[i], -1) {
					require.True(t, math.IsInf(out[0], -1), "at mu = %g: %g", z, out[0])
				}
			}
		})
	}
}
