package explain

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestZeroDensityNamesARejection: a draw that hmm_marginal rejects (a
// Gamma row that is no simplex) is -Inf at the call, with the reason.
func TestZeroDensityNamesARejection(t *testing.T) {
	src := "latent { z: vector<lower=0>[2] }\nmodel {\n z ~ normal(0, 1)\n L = rep_matrix(-1, 2, 3)\n G: matrix[2, 2] = rep_matrix(0.5, 2, 2)\n G[1, 1] = z[1]\n G[1, 2] = z[2]\n target += hmm_marginal(L, G, rep_vector(0.5, 2))\n}\n"
	m := compile(t, src, "")
	pos, _, _, why, ok := ZeroDensity(m, []float64{math.Log(0.3), math.Log(0.9)})
	require.True(t, ok)
	require.Equal(t, 8, pos.Line)
	require.Contains(t, why, "hmm_marginal failed: row 1 of Gamma sums to 1.2")
	_, _, _, _, ok = ZeroDensity(m, []float64{math.Log(0.3), math.Log(0.7)})
	require.False(t, ok, "a simplex row: the density is finite")
}

// TestDiagnoseIgnoresAFailedSolve: a failed ODE solve gives -Inf, which
// is a rejection, not a NaN for Diagnose to explain.
func TestDiagnoseIgnoresAFailedSolve(t *testing.T) {
	src := "functions {\n sq(t: real, y: vector, a: real) -> vector {\n  return a * y .* y\n }\n}\n" +
		"data {\n ts: vector[N]\n}\nlatent {\n a: real\n}\nmodel {\n a ~ normal(0, 1)\n z: matrix[N, 1] = ode_rk45(sq, rep_vector(1, 1), 0, ts, a)\n target += -sum(z)\n}\n"
	c := compile(t, src, "ts\n0.5\n2\n")
	require.NoError(t, Diagnose(c, []float64{2}), "a failed solve is -Inf, not a NaN to diagnose")
	pos, _, _, why, ok := ZeroDensity(c, []float64{2})
	require.True(t, ok)
	require.Equal(t, 14, pos.Line)
	require.Contains(t, why, "ode_rk45 failed")
}
