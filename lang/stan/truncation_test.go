package stan_test

import (
	"math"
	"testing"

	"github.com/mscppl/mscppl/infer"
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
