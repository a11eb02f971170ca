package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeModel(t *testing.T, src string) string {
	p := filepath.Join(t.TempDir(), "m.msc")
	require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	return p
}

// TestNaNStopsWithPosition: log of a negative number gives NaN; the run
// stops with exit 1 and names the statement.
func TestNaNStopsWithPosition(t *testing.T) {
	p := writeModel(t, "data { y: real = 1 }\nlatent { z: real }\nmodel {\n  z ~ normal(0, 1)\n  y ~ normal(log(z), 1)\n}\n")
	code, out, errOut := mscppl("run", p, "--iters", "1000")
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Contains(t, errOut, "m.msc:5:3: the log density of `y ~ normal(log(z), 1)` is NaN")
	require.Contains(t, errOut, "argument 1 (mean) is NaN")
}

// TestZeroDensityStopsWithPosition: data that no value allowed by the
// priors can produce (y = 1.5 needs a >= 0.5; a's prior allows 0 to 0.2)
// leave every draw of q at zero density; the run stops with exit 1, names a
// statement that rules the draws out, and writes no output.
func TestZeroDensityStopsWithPosition(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "u.csv")
	require.NoError(t, os.WriteFile(data, []byte("y\n0.5\n1.5\n"), 0o644))
	p := writeModel(t, "data { y: vector[N] }\nlatent { a: real<lower=0, upper=1> }\nmodel {\n  y ~ uniform(0, a + 1)\n  a ~ uniform(0, 0.2)\n}\n")
	code, out, errOut := mscppl("run", p, data, "--iters", "2000", "--out", filepath.Join(dir, "o"))
	require.Equal(t, 1, code)
	require.Empty(t, out)
	// the run stops after its first 200 iterations drew nothing allowed
	require.Contains(t, errOut, "the draws of the first 200 iterations have zero posterior density")
	require.Regexp(t, `m\.msc:[45]:3: `, errOut)
	_, err := os.Stat(filepath.Join(dir, "o"))
	require.True(t, os.IsNotExist(err), "no output directory")
}

// TestExpOverflow: exp(10 z) overflows for large z; the weights of such
// proposals are zero and the run carries on to a finite answer.
func TestExpOverflow(t *testing.T) {
	p := writeModel(t, "data { y: real = 3 }\nlatent { z: real }\nmodel {\n  z ~ normal(0, 30)\n  y ~ poisson(exp(10 * z))\n}\n")
	s := runJSON(t, "run", p, "--iters", "20000")
	z := s.Latent["z"]
	require.False(t, math.IsNaN(z.Mean) || math.IsInf(z.Mean, 0))
	require.InDelta(t, math.Log(3)/10, z.Mean, 0.05)
}

// TestMultimodalTargetIsCovered: with y ~ normal(z^2, 0.5) and y = 4 the
// posterior has modes near -2 and 2. Inclusive KL covers both: the
// Gaussian q's moments match the posterior's (mean 0, sd about 2),
// computed here by quadrature.
func TestMultimodalTargetIsCovered(t *testing.T) {
	p := writeModel(t, "data { y: real = 4 }\nlatent { z: real }\nmodel {\n  z ~ normal(0, 3)\n  y ~ normal(z^2, 0.5)\n}\n")
	var zs, s1, s2 float64
	for k := -200000; k <= 200000; k++ {
		z := float64(k) * 1e-4
		lp := -0.5*z*z/9 - 0.5*(4-z*z)*(4-z*z)/0.25
		w := math.Exp(lp)
		zs += w
		s1 += w * z
		s2 += w * z * z
	}
	mean := s1 / zs
	sd := math.Sqrt(s2/zs - mean*mean)
	s := runJSON(t, "run", p, "--samples", "10")
	z := s.Latent["z"]
	require.InDelta(t, mean, z.Mean, 0.1*sd)
	require.InDelta(t, sd, z.SD, 0.05*sd)
}
