package explain

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNaNDiagnosis(t *testing.T) {
	c := compile(t, "latent { z: real }\nmodel {\n z ~ normal(0, 1)\n z ~ normal(0, sqrt(z))\n}\n", "")
	err := Diagnose(c, []float64{-1})
	require.Error(t, err)
	require.Contains(t, err.Error(), "m.msc:4:2")
	require.Contains(t, err.Error(), "is NaN")
}
