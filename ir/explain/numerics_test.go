package explain

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestImproperError: a latent with no prior statement and an unbounded
// space on which no term depends is an improper posterior, reported at its
// declaration; one the likelihood (or a target term) bounds, one with both
// bounds, and one with a prior are not.
func TestImproperError(t *testing.T) {
	for _, c := range []struct{ src, csv, want string }{
		{"latent { z: real }\nmodel { target += 0 }\n", "", "m.msc:1:10: the posterior looks improper: z has no prior"},
		{"latent { a: real\n  z: real<lower=0> }\nmodel { a ~ normal(0, 1) }\n", "", "m.msc:2:3: the posterior looks improper: z has no prior"},
		{"latent { a: real\n  v: vector[3] }\nmodel { a ~ normal(0, 1) }\n", "", "m.msc:2:3: the posterior looks improper: v has no prior"},
		{"data { y: vector[N] }\nlatent { mu: real }\nmodel { y ~ normal(mu, 1) }\n", "y\n1\n2\n", ""},
		{"latent { z: real }\nmodel { target += -z * z }\n", "", ""},
		{"latent { a: real\n  z: real<lower=0, upper=1> }\nmodel { a ~ normal(0, 1) }\n", "", ""},
		{"latent { z: real }\nmodel { z ~ normal(0, 1) }\n", "", ""},
		{"latent { z: real\n  s: real<lower=0> }\nmodel { z ~ normal(0, s)\n  s ~ exponential(1) }\n", "", ""},
	} {
		err := ImproperError(compile(t, c.src, c.csv))
		if c.want == "" {
			require.NoError(t, err, c.src)
			continue
		}
		require.Error(t, err, c.src)
		require.Contains(t, err.Error(), c.want, c.src)
	}
}

// TestNumericalTroubleMessages: +Inf added to the target names the
// statement; empty bounds name the declaration; an overflowed ~ term is told
// from a value outside the support.
func TestNumericalTroubleMessages(t *testing.T) {
	c := compile(t, "latent { z: real }\nmodel {\n  z ~ normal(0, 1)\n  target += positive_infinity()\n}\n", "")
	err := Diagnose(c, []float64{0.5})
	require.Error(t, err)
	require.Contains(t, err.Error(), "m.msc:4:3: `target += +Inf` added +Inf to the target")

	c = compile(t, "latent { a: real\n  b: real<lower=a, upper=a-1> }\nmodel { a ~ normal(0, 1) }\n", "")
	err = Diagnose(c, []float64{0.5, 0})
	require.Error(t, err)
	require.Contains(t, err.Error(), "m.msc:2:3: the bounds of b are empty at this point: the lower bound 0.5 is not below the upper bound -0.5")

	c = compile(t, "data { y: vector[N] }\nlatent { mu: real }\nmodel { mu ~ normal(0, 1)\n  y ~ normal(mu, 1) }\n", "y\n1e300\n-2e300\n")
	pos, text, overflow, _, ok := ZeroDensity(c, []float64{0})
	require.True(t, ok)
	require.Equal(t, "m.msc:4:3", fmt.Sprintf("%s:%d:%d", pos.File, pos.Line, pos.Col))
	require.Equal(t, "y ~ normal(mu, 1)", text)
	require.Contains(t, overflow, "a term overflowed: they reach 2e+300 in magnitude")

	c = compile(t, "latent { z: real }\nmodel { z ~ exponential(1) }\n", "")
	_, _, overflow, _, ok = ZeroDensity(c, []float64{-1})
	require.True(t, ok)
	require.Empty(t, overflow, "a value outside the support is no overflow")
}
