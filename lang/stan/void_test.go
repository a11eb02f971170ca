package stan_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/lang"
	"github.com/stretchr/testify/require"
)

// TestVoidFunctions: a Stan program that calls a void function as a
// statement (an _lp function adding to target, in the model block or the
// transformed parameters, one with an early return in an if, a
// validation helper that rejects) has the log density of the
// same program written inline, at several points; and the text mscppl
// translate prints (-> void, the call on a line of its own) parses again
// to the same log density.
func TestVoidFunctions(t *testing.T) {
	const params = "parameters { real mu; vector[2] v; }\n"
	cases := []struct{ name, funcs, model, inline, tp, tpInline string }{
		{"lp", `void prior_lp(real m, vector w, real s) { target += normal_lpdf(m | 0, s); w ~ normal(m, 1); }`,
			`prior_lp(mu, v, 2);`,
			`target += normal_lpdf(mu | 0, 2); v ~ normal(mu, 1);`, "", ""},
		{"early return", `void tail_lp(real m, vector w) {
  if (m > 0) { target += -m; return; }
  else if (m < -1) { target += 2 * m; return; }
  target += -square(w[1]);
}`,
			`tail_lp(mu, v); tail_lp(v[2], v);`,
			`if (mu > 0) target += -mu; else if (mu < -1) target += 2 * mu; else target += -square(v[1]);
  if (v[2] > 0) target += -v[2]; else if (v[2] < -1) target += 2 * v[2]; else target += -square(v[1]);`, "", ""},
		{"return at the end", `void two_lp(real m) { target += -square(m); return; }`,
			`two_lp(mu); two_lp(v[1]); v[2] ~ normal(0, 1);`,
			`target += -square(mu); target += -square(v[1]); v[2] ~ normal(0, 1);`, "", ""},
		{"transformed parameters", `void jac_lp(real m) { target += m; }`,
			`s ~ exponential(1); v ~ normal(0, 1);`,
			`s ~ exponential(1); v ~ normal(0, 1); target += mu;`,
			"transformed parameters {\n  real s = exp(mu);\n  jac_lp(mu);\n}\n",
			"transformed parameters {\n  real s = exp(mu);\n}\n"},
		{"validation", `void check_finite(real m) { if (m > 100) reject("m is too large: ", m); }`,
			`check_finite(mu); mu ~ normal(0, 1); v ~ normal(0, 1);`,
			`mu ~ normal(0, 1); v ~ normal(0, 1);`, "", ""},
	}
	points := [][]float64{{0.5, 1, -1}, {-1.5, 1.5, 0.2}, {-0.5, 0.2, -3}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mv, err := infer.LoadSource("v.stan", []byte("functions {\n"+c.funcs+"\n}\n"+params+c.tp+"model {\n  "+c.model+"\n}\n"), "")
			require.NoError(t, err)
			mi, err := infer.LoadSource("i.stan", []byte(params+c.tpInline+"model {\n  "+c.inline+"\n}\n"), "")
			require.NoError(t, err)
			text := lang.FormatFile(mv.File)
			require.Contains(t, text, "-> void {")
			mt, err := infer.LoadSource("t.msc", []byte(text), "")
			require.NoError(t, err, text)
			out := make([]float64, 1)
			for _, z := range points {
				mi.Comp.LogJoint(z, out)
				want := out[0]
				require.False(t, math.IsNaN(want) || math.IsInf(want, 0), "at %v", z)
				mv.Comp.LogJoint(z, out)
				require.InDelta(t, want, out[0], 1e-12, "at %v", z)
				mt.Comp.LogJoint(z, out)
				require.InDelta(t, want, out[0], 1e-12, "translated, at %v", z)
			}
		})
	}
}

// TestVoidRecursionRefused: a void function that calls itself is refused
// at the recursive call (calls are inlined), naming the function.
func TestVoidRecursionRefused(t *testing.T) {
	src := `functions {
  void down_lp(int n) {
    if (n > 0) { target += -1; down_lp(n - 1); }
  }
}
parameters { real mu; }
model {
  down_lp(3);
  mu ~ normal(0, 1);
}
`
	_, err := infer.LoadSource("r.stan", []byte(src), "")
	require.ErrorContains(t, err, "r.stan:3:32: calls of down_lp nest more than 32 deep; recursive functions are not supported")
}

// TestVoidFunctionInData: a validation helper called in transformed data
// and generated quantities runs once the data are bound: data it accepts
// load, and data it rejects stop with its message, at the reject's line.
func TestVoidFunctionInData(t *testing.T) {
	src := []byte(`functions {
  void check_pos(vector w) {
    for (i in 1:rows(w)) {
      if (w[i] <= 0) reject("w[", i, "] must be positive, got ", w[i]);
    }
  }
  void show(real x) { print("x = ", x); }
}
data { int N; vector[N] y; }
transformed data { check_pos(y); }
parameters { real mu; }
model { y ~ normal(mu, 1); }
generated quantities { show(mu); }
`)
	dir := t.TempDir()
	for _, c := range []struct{ data, err string }{
		{`{"N": 2, "y": [1, 2]}`, ""},
		{`{"N": 2, "y": [1, -2]}`, "d.stan:4:22: reject: w[2] must be positive, got -2 (at i = 2)"},
	} {
		path := filepath.Join(dir, "d.json")
		require.NoError(t, os.WriteFile(path, []byte(c.data), 0o644))
		_, err := infer.LoadSource("d.stan", src, path)
		if c.err == "" {
			require.NoError(t, err, c.data)
		} else {
			require.ErrorContains(t, err, c.err, c.data)
		}
	}
}
