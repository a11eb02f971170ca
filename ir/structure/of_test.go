package structure

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOf: the kind of a general model, a GLM, a state-space model (scalar
// and with a two-component state), a hidden Markov model, and a model
// that only looks like a state-space model.
func TestOf(t *testing.T) {
	for _, tc := range []struct {
		name, src, csv string
		kind           Kind
		k              int
		attempt        bool
	}{
		{"general", "latent {\n mu: real\n tau: real<lower=0>\n}\nmodel {\n mu ~ normal(0, 5)\n tau ~ normal(0, 5)\n}\n", "", KindGeneral, 0, false},
		{"glm", "data {\n y: vector[N]\n x: vector[N]\n}\nlatent {\n a: real\n b: real\n}\nmodel {\n a ~ normal(0, 1)\n b ~ normal(0, 1)\n y ~ bernoulli_logit(a + b * x)\n}\n",
			"y,x\n0,1.5\n1,-0.5\n1,2\n", KindGLM, 0, false},
		{"state-space", "data { y: vector[N] }\nlatent { z: vector[N] }\nmodel {\n z[1] ~ normal(0, 1)\n for t in 2..N { z[t] ~ normal(0.9 * z[t-1], 1) }\n y ~ normal(z, 1)\n}\n",
			"y\n0.1\n0.5\n-0.2\n0.3\n", KindStateSpace, 1, false},
		{"state-space K = 2", "data { y: vector[N] }\nlatent {\n u: vector[N]\n v: vector[N]\n}\nmodel {\n u[1] ~ normal(0, 1)\n v[1] ~ normal(0, 1)\n for t in 2..N {\n  u[t] ~ normal(u[t-1] + v[t-1], 1)\n  v[t] ~ normal(v[t-1], 1)\n }\n y ~ normal(u, 1)\n}\n",
			"y\n0.1\n0.5\n-0.2\n0.3\n", KindStateSpace, 2, false},
		{"attempt", "data { y: real = 0.5 }\nlatent { z: vector[4] }\nmodel {\n z[1] ~ normal(0, 1)\n for t in 2..4 { z[t] ~ normal(z[t-1], 1) }\n y ~ normal(sum(z), 1)\n}\n",
			"", KindGeneral, 0, true},
		{"hmm", "data { y: vector[N] }\nlatent { mu: vector[2] }\nmodel {\n mu ~ normal(0, 3)\n lo: matrix[2, N]\n for n in 1..N {\n  lo[1, n] = normal_lpdf(y[n] | mu[1], 1)\n  lo[2, n] = normal_lpdf(y[n] | mu[2], 1)\n }\n G: matrix[2, 2]\n G[1, 1] = 0.9\n G[1, 2] = 0.1\n G[2, 1] = 0.2\n G[2, 2] = 0.8\n rho: vector[2]\n rho[1] = 0.5\n rho[2] = 0.5\n target += hmm_marginal(lo, G, rho)\n}\n",
			"y\n0.1\n2.5\n-0.2\n3\n", KindHMM, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Of(compile(t, tc.src, tc.csv))
			require.Equal(t, tc.kind, s.Kind, s.String())
			require.Equal(t, tc.k, s.K())
			require.Equal(t, tc.attempt, s.StateSpace.Attempt)
			if tc.kind == KindGLM {
				require.NotNil(t, s.GLM)
				require.Equal(t, "bernoulli_logit", s.GLM.Family.Name)
			}
			want := map[Kind]string{KindGeneral: "general", KindGLM: "GLM", KindStateSpace: "state-space", KindHMM: "hidden Markov"}[tc.kind]
			if tc.attempt {
				want = "not a state-space model"
			}
			require.Contains(t, s.String(), want)
		})
	}
}
