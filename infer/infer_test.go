package infer

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/ir/lower"
	"github.com/mscppl/mscppl/ir/structure"
)

const ssmModel = `
data {
  x: vector[T]
  y0: real = 0.7
}
latent { z: vector[T] }
model {
  z[1] ~ normal(0, 1)
  for t in 2..T { z[t] ~ normal(0.6 * z[t-1], 0.8) }
  for t in 1..T { x[t] ~ normal(z[t], 0.5) }
  EXTRA
}
`

// TestEvidenceAddsDataOnlyFactors: two state-space models that differ only
// by a factor of data alone have evidences that differ by exactly that
// factor's log density (the particle filter never sees it).
func TestEvidenceAddsDataOnlyFactors(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "x.csv")
	require.NoError(t, os.WriteFile(csv, []byte("x\n0.3\n-0.2\n1.1\n0.4\n-0.8\n"), 0o644))
	load := func(extra string) *Model {
		src := []byte(strings.Replace(ssmModel, "EXTRA", extra, 1))
		m, err := LoadSource("ssm.msc", src, csv)
		require.NoError(t, err)
		require.True(t, lower.StructureOf(m.Comp).StateSpace)
		return m
	}
	base, more := load(""), load("y0 ~ normal(0, 1)")
	e1, err := Evidence(NewRand(3, 4), base, nil, 500, 4)
	require.NoError(t, err)
	e2, err := Evidence(NewRand(3, 4), more, nil, 500, 4)
	require.NoError(t, err)
	want := -0.5*0.7*0.7 - 0.5*math.Log(2*math.Pi)
	require.InDelta(t, want, e2.LogEvidence-e1.LogEvidence, 1e-9)
	// and the fitted model runs through the facade with the csmc kernel
	f, err := Fit(context.Background(), more, Options{Iters: 50})
	require.NoError(t, err)
	require.Equal(t, "csmc", f.Summary.Kernel)
}

// TestForcedKernelWithBaselineIsAnError: --method advi --kernel csmc used
// to run MSC with CSMC and label it advi.
func TestForcedKernelWithBaselineIsAnError(t *testing.T) {
	m, err := LoadSource("n.msc", []byte("latent { z: real }\nmodel { z ~ normal(0, 1) }\n"), "")
	require.NoError(t, err)
	_, err = Fit(context.Background(), m, Options{Method: "advi", Kernel: "csmc", Iters: 10})
	require.ErrorContains(t, err, "--kernel csmc cannot be used with --method advi")
	_, err = Fit(context.Background(), m, Options{Method: "is", Kernel: "cis", Iters: 10})
	require.ErrorContains(t, err, "cannot be used with --method is")
}

// Example shows the facade from a model file to its posterior summary.
func ExampleFit() {
	m, err := Load("../examples/normal_mean.msc", "../examples/data/normal_mean.csv")
	if err != nil {
		panic(err)
	}
	f, err := Fit(context.Background(), m, Options{Iters: 20000, Seed: 1})
	if err != nil {
		panic(err)
	}
	names, marg := f.Marginals()
	fmt.Printf("%s: mean %.2f, sd %.2f (exact 1.35, 0.22)\n", names[0], marg[0].Mean, marg[0].SD)
	// Output: z: mean 1.34, sd 0.22 (exact 1.35, 0.22)
}

// TestPredictProbit: the predictive probabilities of a probit fit are
// probabilities, and its test error on the training rows is well below 1/2.
func TestPredictProbit(t *testing.T) {
	m, err := Load("../examples/probit_pima.msc", "../examples/data/pima.csv")
	require.NoError(t, err)
	f, err := Fit(context.Background(), m, Options{Method: "ep"})
	require.NoError(t, err)
	p, err := f.Predict(m, 1)
	require.NoError(t, err)
	wrong := 0
	glm, err := structure.RecogniseGLM(m.Comp)
	require.NoError(t, err)
	for i, v := range p {
		require.True(t, v >= 0 && v <= 1)
		if (v > 0.5) != (glm.Y[i] == 1) {
			wrong++
		}
	}
	require.Less(t, float64(wrong)/float64(len(p)), 0.3)
	ev, err := f.Evidence(2000, 4, 1)
	require.NoError(t, err)
	require.Less(t, ev.SE, 0.5)
}

// TestInferBlockSettings: a setting written in the infer block must be a
// usable value, reported at its position: lr = 0 (a q that never moved,
// with a converged verdict) and samples = 2.5 are errors, and so is every
// unknown name (method, init, proposal, kernel, family, optimizer) and a
// seed that is no non-negative integer, and an unknown key (at the key,
// with the nearest key as a hint). Load reports them (mscppl check too).
func TestInferBlockSettings(t *testing.T) {
	for _, c := range []struct{ setting, want string }{
		{"lr = 0", "m.msc:3:14: setting lr must be positive, got 0"},
		{"param_lr = -1", "m.msc:3:20: setting param_lr must be positive, got -1"},
		{"samples = 2.5", "m.msc:3:19: setting samples must be a positive integer, got 2.5"},
		{"iters = 0", "m.msc:3:17: setting iters must be positive, got 0"},
		{"samples = x", "m.msc:3:19: setting samples takes a number"},
		{"method = x", "m.msc:3:18: setting method: unknown method \"x\""},
		{"init = x", "m.msc:3:16: setting init: unknown init \"x\""},
		{"proposal = x", "m.msc:3:20: setting proposal: unknown proposal \"x\""},
		{"kernel = x", "m.msc:3:18: setting kernel: unknown kernel \"x\""},
		{"family = x", "m.msc:3:18: setting family: unknown family \"x\""},
		{"optimizer = x", "m.msc:3:21: setting optimizer: unknown optimizer \"x\""},
		{"method = 3", "m.msc:3:18: setting method takes a name"},
		{"seed = x", "m.msc:3:16: setting seed must be a non-negative integer (at most 2^53), got x"},
		{"seed = -3", "m.msc:3:16: setting seed must be a non-negative integer (at most 2^53), got -3"},
		{"seed = 1.5", "m.msc:3:16: setting seed must be a non-negative integer (at most 2^53), got 1.5"},
		{"sample = 10", "m.msc:3:9: unknown setting \"sample\" (did you mean \"samples\"?)"},
		{"colour = 1", "m.msc:3:9: unknown setting \"colour\" (the settings are method, family,"},
	} {
		src := "latent { a: real }\nmodel { a ~ normal(0, 1) }\ninfer { " + c.setting + " }\n"
		_, err := LoadSource("m.msc", []byte(src), "")
		require.Error(t, err, c.setting)
		require.Contains(t, err.Error(), c.want)
	}
}
