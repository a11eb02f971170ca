package stan_test

import (
	"math"
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/stretchr/testify/require"
)

// TestOffsetMultiplier: a parameter declared <offset=o, multiplier=m> is
// o + m * u of its unconstrained u, with log-Jacobian log(m) per element.
// Each model puts on x the prior that makes u standard normal, so the log
// joint at z is the standard normal log density summed over z, exactly.
func TestOffsetMultiplier(t *testing.T) {
	cases := []struct{ name, src string }{
		{"offset and multiplier of a parameter", `parameters { real mu; real<offset=mu, multiplier=2> x; }
model { mu ~ normal(0, 1); x ~ normal(mu, 2); }`},
		{"multiplier of a parameter", `parameters { real s; real<multiplier=exp(s)> x; }
model { s ~ normal(0, 1); x ~ normal(0, exp(s)); }`},
		{"vector, scalar offset and multiplier", `parameters { real mu; vector<offset=1, multiplier=3>[2] v; }
model { mu ~ normal(0, 1); v ~ normal(1, 3); }`},
		{"vector, vector multiplier", `parameters { vector[2] s; vector<multiplier=exp(s)>[2] v; }
model { s ~ normal(0, 1); v ~ normal(0, exp(s)); }`},
		{"array of reals with an offset", `parameters { real mu; array[2] real<offset=mu> a; }
model { mu ~ normal(0, 1); a ~ normal(mu, 1); }`},
	}
	logN := func(z float64) float64 { return -0.5*z*z - 0.5*math.Log(2*math.Pi) }
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := infer.LoadSource("t.stan", []byte(c.src), "")
			require.NoError(t, err)
			out := make([]float64, 1)
			for _, base := range []float64{-0.4, 0.9} {
				z := make([]float64, m.Comp.Dim())
				want := 0.0
				for i := range z {
					z[i] = base + 0.3*float64(i)
					want += logN(z[i])
				}
				m.Comp.LogJoint(z, out)
				require.InDelta(t, want, out[0], 1e-12, "at %v", z)
			}
		})
	}
}
