package structure

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/ir/lower"
	"github.com/mscppl/mscppl/stdlib"
)

const gaussMix = "../../examples/posteriordb/low_dim_gauss_mix-low_dim_gauss_mix/"

func unordered(src string) string { return strings.Replace(src, "mu: ordered[2]", "mu: vector[2]", 1) }

// TestFacts: the facts of one model per case, found from its structure and
// its log joint, never from its names.
func TestFacts(t *testing.T) {
	const mixCSV = "y\n-2.1\n1.9\n-1.7\n2.4\n0.3\n"
	for _, c := range []struct {
		name string
		comp func(t *testing.T) *lower.Compiled
		want Facts
	}{
		{"centred eight schools", func(t *testing.T) *lower.Compiled {
			return compileFile(t, "../../examples/eight_schools_centered.msc", "../../examples/data/eight_schools.csv", nil)
		}, Facts{Centred: []Centred{{Latent: "theta", Scale: []string{"tau"}, Statement: "theta ~ normal(mu, tau)",
			Raw: "theta_raw ~ normal(0, 1)", Define: "theta = mu + tau * theta_raw"}}}},
		{"non-centred eight schools", func(t *testing.T) *lower.Compiled {
			return compileFile(t, "../../examples/eight_schools_noncentered.msc", "../../examples/data/eight_schools.csv", nil)
		}, Facts{}},
		{"gauss mix without ordered", func(t *testing.T) *lower.Compiled {
			return compileFile(t, gaussMix+"model.msc", gaussMix+"data.json", unordered)
		}, Facts{Exchangeable: []Exchangeable{{Latents: []string{"mu", "sigma"}, Reflected: []string{"theta"}, K: 2, Order: "mu", Declare: "mu: ordered[2]"}}}},
		{"gauss mix with ordered", func(t *testing.T) *lower.Compiled {
			return compileFile(t, gaussMix+"model.msc", gaussMix+"data.json", nil)
		}, Facts{}},
		{"log_sum_exp over a simplex's components, a scale given in a loop", func(t *testing.T) *lower.Compiled {
			return compile(t, `data { y: vector[N] }
latent {
  w: simplex[3]
  m: vector[3]
  s: real<lower=0>
  g: vector[2]
  h: real<lower=0>
}
model {
  m ~ normal(0, 3)
  s ~ normal(0, 1)
  h ~ normal(0, 1)
  for j in 1..2 { g[j] ~ student_t(4, 0.5, 2 * h) }
  for n in 1..N {
    lp: vector[3]
    for k in 1..3 { lp[k] = log(w[k]) + normal_lpdf(y[n] | m[k], s) }
    target += log_sum_exp(lp)
  }
}
`, mixCSV)
		}, Facts{Centred: []Centred{{Latent: "g", Scale: []string{"h"}, Statement: "g[j] ~ student_t(4, 0.5, 2 * h)",
			Raw: "g_raw[j] ~ student_t(4, 0, 1)", Define: "g[j] = 0.5 + 2 * h * g_raw[j]"}},
			Exchangeable: []Exchangeable{{Latents: []string{"w", "m"}, Reflected: []string{}, K: 3, Order: "m", Declare: "m: ordered[3]"}}}},
		{"iid components of a hand-written mixture", func(t *testing.T) *lower.Compiled {
			return compile(t, `data { y: vector[N] }
latent { a: vector<lower=0>[2] }
model {
  a ~ exponential(1)
  for n in 1..N { target += log(0.5 * exp(normal_lpdf(y[n] | 0, a[1])) + 0.5 * exp(normal_lpdf(y[n] | 0, a[2]))) }
}
`, mixCSV)
		}, Facts{Exchangeable: []Exchangeable{{Latents: []string{"a"}, Reflected: []string{}, K: 2, Order: "a", Declare: "a: positive_ordered[2]"}}}},
		{"Neal's funnel, and a scale that needs parentheses", func(t *testing.T) *lower.Compiled {
			return compile(t, `latent {
  v: real
  x: vector[9]
  a: real
  b: real<lower=0>
}
model {
  v ~ normal(0, 3)
  x ~ normal(0, exp(v / 2))
  b ~ normal(0, 1)
  a ~ cauchy(v, b + 1)
}
`, "")
		}, Facts{Centred: []Centred{
			{Latent: "x", Scale: []string{"v"}, Statement: "x ~ normal(0, exp(v / 2))", Raw: "x_raw ~ normal(0, 1)", Define: "x = exp(v / 2) * x_raw"},
			{Latent: "a", Scale: []string{"b"}, Statement: "a ~ cauchy(v, b + 1)", Raw: "a_raw ~ cauchy(0, 1)", Define: "a = v + (b + 1) * a_raw"}}}},
		{"a regression and a time series", func(t *testing.T) *lower.Compiled {
			return compile(t, `data { y: vector[N] }
latent {
  b: vector[2]
  s: real<lower=0>
  x: vector[N]
}
model {
  b ~ normal(0, 1)
  s ~ normal(0, 1)
  x[1] ~ normal(0, s)
  for t in 2..N { x[t] ~ normal(0.9 * x[t - 1], s) }
  y ~ normal(b[1] + b[2] * x, 1)
}
`, mixCSV)
		}, Facts{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := FactsOf(c.comp(t))
			for i := range got.Exchangeable {
				if got.Exchangeable[i].Reflected == nil {
					got.Exchangeable[i].Reflected = []string{}
				}
			}
			require.Equal(t, c.want, got)
		})
	}
}

// TestLocationScale: the location-scale families are found by their
// densities.
func TestLocationScale(t *testing.T) {
	for _, c := range []struct {
		family     string
		loc, scale int
	}{
		{"normal", 0, 1}, {"cauchy", 0, 1}, {"student_t", 1, 2}, {"logistic", 0, 1}, {"double_exponential", 0, 1},
		{"lognormal", -1, -1}, {"exponential", -1, -1}, {"poisson", -1, -1}, {"beta", -1, -1},
	} {
		f, ok := stdlib.Lookup(c.family)
		require.True(t, ok, c.family)
		loc, scale := locationScale(f)
		require.Equal(t, [2]int{c.loc, c.scale}, [2]int{loc, scale}, c.family)
	}
}
