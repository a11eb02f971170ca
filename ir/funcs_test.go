package ir

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLibraryNames: Stan's names for the functions of stdlib/funcs_extra.go
// compile, dot_product as dot, and give their values in a log joint.
func TestLibraryNames(t *testing.T) {
	c := compile(t, `latent { z: real<lower=0, upper=1> }
model {
  v = rep_vector(z, 3)
  target += -dot_product(v, v) + logit(z) + lchoose(5, 2) + log_diff_exp(2 * z, z) + erf(z) + step(z - 0.5)
}
`, "")
	z := 0.3
	u := math.Log(z / (1 - z)) // the unconstrained value of z in (0, 1)
	lp := make([]float64, 1)
	c.LogJoint([]float64{u}, lp)
	want := -3*z*z + math.Log(z/(1-z)) + math.Log(10) + math.Log(math.Exp(2*z)-math.Exp(z)) + math.Erf(z) + 0
	jac := math.Log(z * (1 - z)) // log |dz/du|
	require.InDelta(t, want+jac, lp[0], 1e-12)
}

// TestStanConstants: pi(), e() and the other functions of no arguments are
// numbers; log2 and log10 keep their one-argument forms.
func TestStanConstants(t *testing.T) {
	c := compile(t, "latent { z: real }\nmodel {\n  target += -z * z + pi() + e() + sqrt2() + log2() + log10() + machine_precision() + log2(8) + log10(100)\n}\n", "")
	lp := make([]float64, 1)
	c.LogJoint([]float64{0}, lp)
	require.InDelta(t, math.Pi+math.E+math.Sqrt2+math.Ln2+math.Ln10+0x1p-52+3+2, lp[0], 1e-14)
	c = compile(t, "latent { z: real }\nmodel {\n  target += -z * z\n  if z > positive_infinity() { target += negative_infinity() }\n}\n", "")
	c.LogJoint([]float64{0}, lp)
	require.Equal(t, 0.0, lp[0])
}
