package lower

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/ir"
	"github.com/stretchr/testify/require"
)

const hmmExampleData = "../../examples/posteriordb/hmm_example-hmm_example/data.json"

// hmmHead is hmm_example's data, latents and priors (posteriordb's
// two-state HMM with normal emissions).
const hmmHead = `data {
  N: int<lower=0>
  K: int<lower=0>
  y: vector[N]
}
latent {
  theta1: simplex[K]
  theta2: simplex[K]
  mu: positive_ordered[K]
}
model {
  target += normal_lpdf(mu[1] | 3, 1)
  target += normal_lpdf(mu[2] | 10, 1)
`

// hmmMarginalBody is hmm_example's likelihood by hmm_marginal, with
// log_omega filled by a loop (vectorised over n) and rho uniform, plus
// log K (Stan's forward loop starts from the emissions alone, as rho = 1
// would, which hmm_marginal refuses as Stan does: rho must be a simplex).
const hmmMarginalBody = `  log_omega: matrix[K, N]
  for n in 1..N {
    for k in 1..K {
      log_omega[k, n] = normal_lpdf(y[n] | mu[k], 1)
    }
  }
  Gamma: matrix[K, K]
  for k in 1..K {
    Gamma[1, k] = theta1[k]
    Gamma[2, k] = theta2[k]
  }
  target += hmm_marginal(log_omega, Gamma, rep_vector(1.0 / K, K)) + log(K)
}
`

// TestForwardLoops: a forward loop written as Stan users write it is
// compiled to one hmm_forward node and gives the log joint and gradient of
// the unrolled loop (and of hmm_marginal) on a fraction of the nodes;
// forms it does not cover are unrolled as before.
func TestForwardLoops(t *testing.T) {
	example, err := os.ReadFile("../../examples/posteriordb/hmm_example-hmm_example/model.msc")
	require.NoError(t, err)
	// the model without its derived Viterbi decoding (compiled element by
	// element whatever the model block's form)
	if i := bytes.Index(example, []byte("\nderived {")); i >= 0 {
		example = example[:i+1]
	}
	fwd := func(accTerm, pre string) string {
		return hmmHead + `  acc: vector[K]
  gamma: matrix[N, K]
  for k in 1..K {
    gamma[1, k] = normal_lpdf(y[1] | mu[k], 1)
  }
  for t in 2..N {
    for k in 1..K {
      for j in 1..K {
` + pre + `        acc[j] = ` + accTerm + `
      }
      gamma[t, k] = log_sum_exp(acc)
    }
  }
  target += log_sum_exp(gamma[N]) + acc[1] / 100 + acc[2] / 50
}
`
	}
	std := "gamma[t - 1, j] + log(j == 1 ? theta1[k] : theta2[k]) + normal_lpdf(y[t] | mu[k], 1)"
	for _, c := range []struct {
		name, src  string
		recognised bool
	}{
		{"hmm_example as in posteriordb", string(example), true},
		{"a conditional, acc read after the loop", fwd(std, ""), true},
		{"the terms in another order", fwd("normal_lpdf(y[t] | mu[k], 1) + log(j == 1 ? theta1[k] : theta2[k]) + gamma[t - 1, j]", ""), true},
		{"a scalar of the body and a transition that changes with t", fwd("gamma[t - 1, j] + lt + normal_lpdf(y[t] | mu[k], 1)", "        lt = log(j == 1 ? theta1[k] : theta2[k]) - 0.01 * y[t - 1] * (j == k)\n"), true},
		{"gamma[t - 1, j] not a plain term: unrolled", fwd("2 * gamma[t - 1, j] + log(j == 1 ? theta1[k] : theta2[k])", ""), false},
		{"gamma read twice: unrolled", fwd(std+" + 0 * gamma[t - 1, 1]", ""), false},
		{"a term on a latent indexed by t: unrolled", fwd(std+" + 0.001 * mu[(t > 50) + 1]", ""), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, u := compileBoth(t, c.src, hmmExampleData)
			if c.recognised {
				require.Less(t, v.g.NumNodes(), u.g.NumNodes()/5, "recognised")
				require.True(t, hasOp(v, "hmm_forward"))
			} else {
				require.False(t, hasOp(v, "hmm_forward"))
			}
			sameDensity(t, v, u, rand.New(rand.NewPCG(3, 4)), 10, 1, 1e-10, 1e-8)
			t.Logf("%d nodes, %d unrolled", v.g.NumNodes(), u.g.NumNodes())
		})
	}
	// hmm_marginal with rho uniform, plus log K, is the same density
	v, _ := compileBoth(t, string(example), hmmExampleData)
	m, u := compileBoth(t, hmmHead+hmmMarginalBody, hmmExampleData)
	require.True(t, hasOp(m, "hmm_marginal"))
	sameDensity(t, m, v, rand.New(rand.NewPCG(5, 6)), 10, 1, 1e-10, 1e-8)
	sameDensity(t, m, u, rand.New(rand.NewPCG(5, 6)), 10, 1, 1e-10, 1e-8)
}

// hasOp reports whether c's log joint evaluates an op of that name.
func hasOp(c *Compiled, name string) bool {
	for _, n := range c.JointOrder {
		if op, ok := c.g.OpOf(n); ok && op.Name() == name {
			return true
		}
	}
	return false
}

// TestMatrixFill: a local matrix filled by a loop over one of its
// dimensions (m[k, n] = e, m[n, k] = e) is filled row by row in one piece
// and can be used whole; the same as unrolled.
func TestMatrixFill(t *testing.T) {
	data := "y\n" + strings.Repeat("0.5\n-0.2\n1.1\n0.3\n-1.0\n0.7\n", 5) // 30 rows
	head := "data { y: vector[N] }\nlatent { a: vector[2]; s: real<lower=0> }\nmodel {\n a ~ normal(0, 1); s ~ normal(0, 1)\n"
	for _, c := range []struct {
		name, body string
		fewer      bool
	}{
		{"by columns, used whole", " m: matrix[2, N]\n for n in 1..N { for k in 1..2 { m[k, n] = normal_lpdf(y[n] | a[k], s) } }\n target += sum(to_vector(m)) + m[2, 3]\n", true},
		{"by rows, a term without n", " m: matrix[N, 2]\n for n in 1..N { m[n, 1] = a[1] * y[n]; m[n, 2] = s }\n target += -dot_self(m * a) / 10 + m[1, 1]\n", true},
		{"a conditional on a loop variable", " for n in 1..N { target += (n > 3 ? 1 : 2) * normal_lpdf(y[n] | a[n > 20 ? 1 : 2], s) }\n", false},
		{"a statement of the loop besides", " m: matrix[2, N]\n for n in 1..N { m[1, n] = a[1] * y[n]; m[2, n] = a[2]; y[n] ~ normal(a[1], s) }\n target += -dot_self(to_vector(m))\n", true},
		{"part of a row: unrolled", " m: matrix[2, N]\n for k in 1..2 { m[k, 1] = 0 }\n for n in 2..N { for k in 1..2 { m[k, n] = a[k] * y[n] } }\n target += -dot_self(to_vector(m))\n", false},
		{"filled element by element, unrolled, used whole", " m: matrix[2, 2]\n m[1, 1] = a[1]; m[1, 2] = s; m[2, 1] = a[2]; m[2, 2] = 1\n target += -dot_self(to_vector(m * a))\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, u := compileBoth(t, head+c.body+"}\n", data)
			if c.fewer {
				require.Less(t, len(v.JointOrder), len(u.JointOrder)/2)
			} else {
				require.Equal(t, v.g.NumNodes(), u.g.NumNodes())
			}
			sameDensity(t, v, u, rand.New(rand.NewPCG(1, 2)), 10, 1, 1e-12, 1e-10)
		})
	}
}

// TestStackMatrix: a local matrix filled element by element and used
// whole has the elements assigned, however they were assigned (rows of
// one node, slices of one, a scalar repeated, single scalars, columns of
// a vectorised loop): sum(m .* w) against the same sum written out.
func TestStackMatrix(t *testing.T) {
	head := "latent { z: vector[4] }\nmodel {\n z ~ normal(0, 1)\n v = 2 * z\n"
	for _, c := range []struct{ name, fill, want string }{
		{"rows of a node and a scalar repeated", " m: matrix[3, 4]\n m[1] = v\n for j in 1..4 { m[2, j] = z[1] }\n m[3] = z\n",
			"z[1] * (v[1] + 2 * v[2] + 3 * v[3] + 4 * v[4]) + 5 * z[1] * (1 + 2 + 3 + 4) + 9 * (z[1] + 2 * z[2] + 3 * z[3] + 4 * z[4])"},
		{"a slice and single scalars", " m: matrix[3, 4]\n m[1] = v\n m[2] = z\n m[3, 1] = z[4]\n m[3, 2] = v[2]\n m[3, 3] = v[3]\n m[3, 4] = 1\n m[2, 1] = 7\n",
			"z[1] * (v[1] + 2 * v[2] + 3 * v[3] + 4 * v[4]) + 5 * (7 + 2 * z[2] + 3 * z[3] + 4 * z[4]) + 9 * (z[4] + 2 * v[2] + 3 * v[3] + 4)"},
		{"rows, then an element changed by an if on a latent", " m: matrix[3, 4]\n m[1] = v\n m[2] = z\n m[3] = v\n if z[2] > 0 { m[3, 2] = 7 }\n",
			"z[1] * (v[1] + 2 * v[2] + 3 * v[3] + 4 * v[4]) + 5 * (z[1] + 2 * z[2] + 3 * z[3] + 4 * z[4]) + 9 * (v[1] + 2 * (z[2] > 0 ? 7 : v[2]) + 3 * v[3] + 4 * v[4])"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := " w = rep_matrix(1, 3, 4)\n for i in 1..3 { for j in 1..4 { w[i, j] = (i == 1 ? z[1] : 4 * i - 3) * j } }\n"
			a := compile(t, head+c.fill+w+" target += sum(to_vector(m .* w))\n}\n", "")
			b := compile(t, head+" target += "+c.want+"\n}\n", "")
			sameDensity(t, a, b, rand.New(rand.NewPCG(1, 2)), 5, 1, 1e-12, 1e-12)
		})
	}
	// a vector of the first three elements of a node of four
	a := compile(t, head+" u: vector[3]\n u[1] = v[1]\n u[2] = v[2]\n u[3] = v[3]\n target += dot(u, z[2:4])\n}\n", "")
	b := compile(t, head+" target += v[1] * z[2] + v[2] * z[3] + v[3] * z[4]\n}\n", "")
	sameDensity(t, a, b, rand.New(rand.NewPCG(1, 2)), 5, 1, 1e-12, 1e-12)
}

// TestHMMMarginalChecks: hmm_marginal's arguments are checked.
func TestHMMMarginalChecks(t *testing.T) {
	for _, bad := range []string{
		"hmm_marginal(M, M, z)",  // M is 2 x 2, z has 3
		"hmm_marginal(L, G, v)",  // Gamma 3 x 3 for K = 2
		"hmm_marginal(v, M, v)",  // log_omega a vector
		"hmm_marginal(L, M, M)",  // rho a matrix
		"hmm_marginal(L', M, v)", // 3 x 2: K = 3
	} {
		src := "latent { z: vector[3] }\nmodel {\n z ~ normal(0, 1)\n v = z[1:2]\n M = rep_matrix(0.5, 2, 2)\n G = rep_matrix(0.5, 3, 3)\n L = rep_matrix(-1, 2, 3)\n target += " + bad + "\n}\n"
		_, err := buildSrc(src)
		require.Error(t, err, bad)
		require.Contains(t, err.Error(), "hmm_marginal: takes log_omega", bad)
	}
	src := "latent { z: vector<lower=0>[2] }\nmodel {\n z ~ normal(0, 1)\n L = rep_matrix(-1, 2, 3)\n M = rep_matrix(0.5, 2, 2)\n target += hmm_marginal(L + rep_matrix(z[1], 2, 3), M, z / sum(z))\n}\n"
	c := compile(t, src, "")
	lp := []float64{0}
	c.LogJoint([]float64{0.1, -0.3}, lp)
	require.False(t, math.IsNaN(lp[0]) || math.IsInf(lp[0], 0))
	require.True(t, strings.Contains(ir.FormatExpr(c.Model.Body[len(c.Model.Body)-1].(*ir.Target).X), "hmm_marginal"))
}

// TestHMMMarginalValidation: Gamma's rows and rho must be simplexes within
// 1e-8 with non-negative entries, as Stan checks them: known before
// inference, an error at the call; depending on latents, a rejected draw
// (-Inf) counted with its reason. Sizes beyond the memory or time bounds are
// refused with the projection, before anything is allocated.
func TestHMMMarginalValidation(t *testing.T) {
	const head = "latent { mu: real }\nmodel {\n mu ~ normal(0, 1)\n L = rep_matrix(-mu * mu, 2, 3)\n G: matrix[2, 2] = rep_matrix(0.5, 2, 2)\n r: vector[2] = rep_vector(0.5, 2)\n"
	for _, c := range []struct{ set, want string }{
		{"G[1, 2] = 1.5", "m.msc:8:12: hmm_marginal: row 1 of Gamma sums to 2, not 1 (a simplex, within 1e-08, as Stan requires)"},
		{"G[1, 2] = 0.501", "row 1 of Gamma sums to 1.001, not 1"},
		{"G[2, 2] = -0.5", "Gamma[2, 2] = -0.5: its entries must be probabilities (non-negative)"},
		{"r[2] = 0.6", "rho sums to 1.1, not 1"},
		{"r[2] = -0.5", "rho[2] = -0.5: its entries must be probabilities"},
		{"r = rep_vector(1, 2)", "rho sums to 2, not 1"},
	} {
		msg := buildErr(t, head+" "+c.set+"\n target += hmm_marginal(L, G, r)\n}\n", "")
		require.Contains(t, msg, c.want, c.set)
	}
	// within 1e-8 is a simplex
	compile(t, head+" G[1, 2] = 0.500000001\n target += hmm_marginal(L, G, r)\n}\n", "")

	// a Gamma of latents that is no simplex rejects the draw
	src := "latent { z: vector<lower=0>[2] }\nmodel {\n z ~ normal(0, 1)\n L = rep_matrix(-1, 2, 3)\n G: matrix[2, 2] = rep_matrix(0.5, 2, 2)\n G[1, 1] = z[1]\n G[1, 2] = z[2]\n target += hmm_marginal(L, G, rep_vector(0.5, 2))\n}\n"
	m := compile(t, src, "")
	lp := make([]float64, 2)
	m.LogJoint([]float64{math.Log(0.3), math.Log(0.7), math.Log(0.3), math.Log(0.9)}, lp)
	require.False(t, math.IsInf(lp[0], 0) || math.IsNaN(lp[0]), "a simplex row: %g", lp[0])
	require.True(t, math.IsInf(lp[1], -1), "row 1 sums to 1.2: %g", lp[1])
	g := make([]float64, 2)
	m.GradLogJoint([]float64{math.Log(0.3), math.Log(0.9)}, g)
	notes := SolverNotes(m)
	require.Len(t, notes, 1)
	require.Contains(t, notes[0], "m.msc:8:12: hmm_marginal failed on 2 of 3 evaluations, each rejecting its draw (log density -Inf); the first: row 1 of Gamma sums to 1.2")

	// sizes: projected before anything is allocated
	for _, c := range []struct{ k, n, want string }{
		{"10000", "3", "hmm_marginal: with K = 10000 states and N = 3 observations it would take about 1.49 GiB (Gamma alone is K x K = 1e+08 numbers, with their adjoints), more than the limit of 1 GiB per call"},
		{"2000", "1000", "hmm_marginal: with K = 2000 states and N = 1000 observations each evaluation takes K^2 N = 4e+09 multiply-adds, about 4 s"},
	} {
		src := "latent { mu: real }\nmodel {\n mu ~ normal(0, 1)\n target += hmm_marginal(rep_matrix(-mu * mu, " + c.k + ", " + c.n + "), rep_matrix(1.0 / " + c.k + ", " + c.k + ", " + c.k + "), rep_vector(1.0 / " + c.k + ", " + c.k + "))\n}\n"
		_, err := buildSrc(src)
		require.Error(t, err)
		require.Contains(t, err.Error(), c.want)
	}
}
