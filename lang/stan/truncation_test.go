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

// TestTruncation: y ~ dist(...) T[L, U] has the log density of Stan's
// truncated distribution, computed here from the closed forms of the
// normal and Poisson CDFs; y outside [L, U] has log density -Inf.
func TestTruncation(t *testing.T) {
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	normal := func(y, mu, s float64) float64 {
		z := (y - mu) / s
		return -0.5*z*z - math.Log(s) - 0.5*math.Log(2*math.Pi)
	}
	poissonCDF := func(n int, lam float64) float64 {
		s, term := 0.0, math.Exp(-lam)
		for k := 0; k <= n; k++ {
			s += term
			term *= lam / float64(k+1)
		}
		return s
	}
	poisson := func(n int, l float64) float64 { // log rate l
		lg, _ := math.Lgamma(float64(n + 1))
		return float64(n)*l - math.Exp(l) - lg
	}
	cases := []struct {
		name, src string
		want      func(z float64) float64
	}{
		{"normal T[0, 3]", `transformed data { real y = 1; } parameters { real mu; }
model { y ~ normal(mu, 2) T[0, 3]; }`, func(mu float64) float64 {
			return normal(1, mu, 2) - math.Log(phi((3-mu)/2)-phi((0-mu)/2))
		}},
		{"normal T[0, ]", `transformed data { real y = 1; } parameters { real mu; }
model { y ~ normal(mu, 2) T[0, ]; }`, func(mu float64) float64 { return normal(1, mu, 2) - math.Log(1-phi(-mu/2)) }},
		{"normal T[, 3]", `transformed data { real y = 1; } parameters { real mu; }
model { y ~ normal(mu, 2) T[, 3]; }`, func(mu float64) float64 { return normal(1, mu, 2) - math.Log(phi((3-mu)/2)) }},
		{"y above U", `transformed data { real y = 4; } parameters { real mu; }
model { mu ~ normal(0, 1); y ~ normal(mu, 2) T[0, 3]; }`, func(float64) float64 { return math.Inf(-1) }},
		{"y below L", `transformed data { real y = -1; } parameters { real mu; }
model { mu ~ normal(0, 1); y ~ normal(mu, 2) T[0, ]; }`, func(float64) float64 { return math.Inf(-1) }},
		{"poisson T[2, ] (P(y >= 2))", `transformed data { int y = 3; } parameters { real l; }
model { y ~ poisson(exp(l)) T[2, ]; }`, func(l float64) float64 { return poisson(3, l) - math.Log(1-poissonCDF(1, math.Exp(l))) }},
		{"a user's density, its CDFs and a bar", `functions {
  real foo_lpdf(real y, real mu) { return normal_lpdf(y | mu, 1); }
  real foo_lcdf(real y, real mu) { return normal_lcdf(y | mu, 1); }
  real foo_lccdf(real y, real mu) { return normal_lccdf(y | mu, 1); }
}
transformed data { real y = 0.5; } parameters { real mu; }
model { target += foo_lpdf(y | mu); y ~ foo(mu); y ~ foo(mu) T[-1, 3]; }`, func(mu float64) float64 {
			return 3*normal(0.5, mu, 1) - math.Log(phi(3-mu)-phi(-1-mu))
		}},
		{"poisson T[2, 5]", `transformed data { int y = 3; } parameters { real l; }
model { y ~ poisson(exp(l)) T[2, 5]; }`, func(l float64) float64 {
			return poisson(3, l) - math.Log(poissonCDF(5, math.Exp(l))-poissonCDF(1, math.Exp(l)))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := infer.LoadSource("t.stan", []byte(c.src), "")
			require.NoError(t, err)
			out := make([]float64, 1)
			for _, z := range []float64{-0.7, 0.3, 1.1} {
				m.Comp.LogJoint([]float64{z}, out)
				want := c.want(z)
				if math.IsInf(want, -1) {
					require.True(t, math.IsInf(out[0], -1), "at %g: %g", z, out[0])
					continue
				}
				require.InDelta(t, want, out[0], 1e-9, "at %g", z)
			}
		})
	}
}

// TestTranslateNewForms: truncation, offset and multiplier, while,
// break and continue survive mscppl translate: the .msc text it prints
// gives the log density of the Stan program, at three points.
func TestTranslateNewForms(t *testing.T) {
	src := `data { int N; vector[N] y; array[N] int c; }
parameters { real mu; real<lower=0> tau; vector<offset=mu, multiplier=tau>[N] th; }
model {
  int k = 0;
  mu ~ normal(0, 5);
  tau ~ normal(0, 1);
  th ~ normal(mu, tau);
  for (n in 1:N) {
    if (n == 2) continue;
    if (n > 3) break;
    y[n] ~ normal(th[n], 1) T[-10, 10];
    c[n] ~ poisson(exp(th[n])) T[1, ];
  }
  while (k < 3) {
    k += 1;
    target += -0.1 * k;
  }
}`
	data := filepath.Join(t.TempDir(), "data.json")
	require.NoError(t, os.WriteFile(data, []byte(`{"N": 4, "y": [0.5, 1, -1, 2], "c": [1, 2, 3, 4]}`), 0o644))
	ms, err := infer.LoadSource("t.stan", []byte(src), data)
	require.NoError(t, err)
	text := lang.FormatFile(ms.File)
	mt, err := infer.LoadSource("t.msc", []byte(text), data)
	require.NoError(t, err, text)
	require.Equal(t, ms.Comp.Dim(), mt.Comp.Dim())
	a, b := make([]float64, 1), make([]float64, 1)
	for _, base := range []float64{-0.6, 0.1, 0.7} {
		z := make([]float64, ms.Comp.Dim())
		for i := range z {
			z[i] = base + 0.2*float64(i)
		}
		ms.Comp.LogJoint(z, a)
		mt.Comp.LogJoint(z, b)
		require.False(t, math.IsInf(a[0], 0) || math.IsNaN(a[0]), "%g at %v", a[0], z)
		require.InDelta(t, a[0], b[0], 1e-12*math.Max(1, math.Abs(a[0])), "at %v", z)
	}
}
