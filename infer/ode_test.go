package infer

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/internal/testtier"
	"github.com/stretchr/testify/require"
)

// odeChainSrc: a two-compartment chain y1' = -k y1, y2' = k y1 - 0.5 y2
// from (5, 0), y2 observed with noise sd 0.2, the rate k a latent.
const odeChainSrc = `functions {
  chain(t: real, y: vector, k: real) -> vector {
    return append_row(-k * y[1], k * y[1] - 0.5 * y[2])
  }
}
data {
  ts: vector[N]
  y: vector[N]
}
latent {
  k: real<lower=0>
}
model {
  k ~ lognormal(0, 1)
  z: matrix[N, 2] = SOLVER(chain, append_row(5, 0), 0, ts, k)
  y ~ normal(z[:, 2], 0.2)
}
`

// odeChainY2 is the closed form of y2.
func odeChainY2(k, t float64) float64 {
	return 5 * k / (0.5 - k) * (math.Exp(-k*t) - math.Exp(-0.5*t))
}

// TestODEPosteriorAgainstQuadrature: the posterior of the rate of an ODE
// model fitted by MSC against the exact posterior by quadrature on a grid
// over k: means within 0.1 sd and sds within 10%, for both solvers (rk45 alone with -short).
func TestODEPosteriorAgainstQuadrature(t *testing.T) {
	ts := []float64{0.25, 0.5, 1, 1.5, 2, 3, 4, 6, 8}
	noise := []float64{0.13, -0.21, 0.05, 0.3, -0.12, -0.02, 0.18, -0.25, 0.09}
	var csv strings.Builder
	csv.WriteString("ts,y\n")
	ys := make([]float64, len(ts))
	for i, tt := range ts {
		ys[i] = odeChainY2(1.2, tt) + noise[i]
		fmt.Fprintf(&csv, "%g,%.6f\n", tt, ys[i])
	}
	path := filepath.Join(t.TempDir(), "chain.csv")
	require.NoError(t, os.WriteFile(path, []byte(csv.String()), 0o644))
	// the exact posterior on a grid (k = 0.5 is a removable singularity:
	// the grid steps over it)
	var w, m1, m2 float64
	const lo, hi, n = 1e-3, 6.0, 60001
	lps := make([]float64, n)
	peak := math.Inf(-1)
	for i := range lps {
		k := lo + (hi-lo)*(float64(i)+0.5)/n
		lp := -math.Log(k) - 0.5*math.Log(k)*math.Log(k) // lognormal(0, 1)
		for j, tt := range ts {
			r := (ys[j] - odeChainY2(k, tt)) / 0.2
			lp -= 0.5 * r * r
		}
		lps[i] = lp
		peak = math.Max(peak, lp)
	}
	for i, lp := range lps {
		k := lo + (hi-lo)*(float64(i)+0.5)/n
		p := math.Exp(lp - peak)
		w, m1, m2 = w+p, m1+p*k, m2+p*k*k
	}
	mean := m1 / w
	sd := math.Sqrt(m2/w - mean*mean)
	solvers := []string{"ode_rk45", "ode_bdf"}
	if !testtier.Long() {
		solvers = solvers[:1] // ode_bdf: long tier; stdlib/ode TestStiff and TestRobertson guard the solver
	}
	for _, solver := range solvers {
		src := strings.Replace(odeChainSrc, "SOLVER", solver, 1)
		m, err := LoadSource("chain.msc", []byte(src), path)
		require.NoError(t, err)
		f, err := Fit(context.Background(), m, Options{Seed: 1})
		require.NoError(t, err)
		got := f.Summary.Latent["k"]
		t.Logf("%s: posterior of k %.4f (sd %.4f), exact %.4f (sd %.4f); verdict %s", solver, got.Mean, got.SD, mean, sd, f.Summary.Verdict)
		require.InDelta(t, mean, got.Mean, 0.1*sd, solver)
		require.InDelta(t, sd, got.SD, 0.1*sd, solver)
	}
}
