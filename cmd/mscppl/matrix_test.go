package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/internal/testtier"
)

// matrixData is the data file of each model in examples/ (posteriordb's
// models take the data.json beside them). The state-space examples run on
// the monthly series, to keep the matrix fast.
var matrixData = map[string]string{
	"eight_schools_centered.msc":      "data/eight_schools.csv",
	"eight_schools_noncentered.msc":   "data/eight_schools.csv",
	"funnel.msc":                      "",
	"half_normal.msc":                 "",
	"logistic.msc":                    "data/pima.csv",
	"logistic_large.msc":              "data/logistic_sim_500.json",
	"negbin.msc":                      "data/negbin.csv",
	"normal_mean.msc":                 "data/normal_mean.csv",
	"probit.msc":                      "data/ionosphere.csv",
	"probit_pima.msc":                 "data/pima.csv",
	"probit_pima_raw.msc":             "data/pima.csv",
	"probit_raw.msc":                  "data/ionosphere.csv",
	"skew_normal.msc":                 "",
	"stochastic_volatility.msc":       "data/dem2gbp_monthly.csv",
	"stochastic_volatility_paper.msc": "data/dem2gbp_monthly.csv",
	"stochastic_volatility_bayes.msc": "data/dem2gbp_monthly.csv",
	"stochastic_volatility_t.msc":     "data/dem2gbp_monthly.csv",
}

// matrixExamples lists every example model with its data file (paths
// relative to this directory), sorted.
func matrixExamples(t *testing.T) [][2]string {
	const root = "../../examples/"
	models, err := filepath.Glob(root + "*.msc")
	require.NoError(t, err)
	require.NotEmpty(t, models)
	var out [][2]string
	for _, m := range models {
		data, ok := matrixData[filepath.Base(m)]
		require.Truef(t, ok, "%s: add its data file to matrixData", m)
		if data != "" {
			data = root + data
		}
		out = append(out, [2]string{m, data})
	}
	pdb, err := filepath.Glob(root + "posteriordb/*/model.msc")
	require.NoError(t, err)
	require.NotEmpty(t, pdb)
	for _, m := range pdb {
		out = append(out, [2]string{m, filepath.Join(filepath.Dir(m), "data.json")})
	}
	require.Len(t, out, len(models)+len(pdb))
	return out
}

// TestMethodKernelMatrix runs every method (infer.Methods) with every value
// of --kernel (auto and each Markov kernel of the registry) on every
// example of examples/ and examples/posteriordb, with a tiny budget,
// through the command line. Each combination either runs (exit 0, a
// summary that parses, names the method and the kernel asked for and
// reports every latent) or is refused cleanly (exit 1, nothing on stdout,
// a message of a line or two with no stack trace and no internal error).
// Which of the two, and the message, is in testdata/matrix.golden (go test
// -run TestMethodKernelMatrix -update rewrites it): a new method, kernel
// or example joins the matrix by itself and shows up there. In the fast
// tier only the default kernel choice (auto) runs, and its rows of the
// golden are compared; the long tier runs every kernel.
func TestMethodKernelMatrix(t *testing.T) {
	examples := matrixExamples(t)
	methods := infer.Methods()
	kernels := append([]string{"auto"}, msc.MarkovKernelNames()...)
	require.Contains(t, methods, infer.Defaults.Method)
	type row struct {
		model, method, kernel string
		line                  string
	}
	var rows []*row
	for _, ex := range examples {
		for _, meth := range methods {
			for _, k := range kernels {
				rows = append(rows, &row{model: ex[0], method: meth, kernel: k})
			}
		}
	}
	short := !testtier.Long()
	// the combinations run in parallel (each on one chain), as subtests
	// of a group that ends before the golden is compared
	var mu sync.Mutex
	t.Run("runs", func(t *testing.T) {
		for _, r := range rows {
			if short && r.kernel != "auto" {
				continue
			}
			ex := slices.IndexFunc(examples, func(e [2]string) bool { return e[0] == r.model })
			data := examples[ex][1]
			name := strings.TrimPrefix(r.model, "../../examples/") + "/" + r.method + "/" + r.kernel
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				args := []string{"run", r.model}
				if data != "" {
					args = append(args, data)
				}
				args = append(args, "--method", r.method, "--kernel", r.kernel,
					"--iters", "200", "--fixed", "--chains", "1", "--draws", "100", "--seed", "1", "--json")
				code, stdout, stderr := mscppl(args...)
				line := checkMatrixOutcome(t, r.method, r.kernel, code, stdout, stderr)
				mu.Lock()
				r.line = line
				mu.Unlock()
			})
		}
	})
	var b strings.Builder
	ok, refused := 0, 0
	for _, r := range rows {
		if r.line == "" {
			continue // skipped in the fast tier
		}
		if strings.HasPrefix(r.line, "ok") {
			ok++
		} else {
			refused++
		}
		fmt.Fprintf(&b, "%s --method %s --kernel %s: %s\n", strings.TrimPrefix(r.model, "../../"), r.method, r.kernel, r.line)
	}
	t.Logf("%d combinations: %d run, %d refused", ok+refused, ok, refused)
	// every example runs with the default method and kernel choice
	for _, ex := range examples {
		prefix := strings.TrimPrefix(ex[0], "../../") + " --method " + infer.Defaults.Method + " --kernel auto: ok"
		require.Containsf(t, b.String(), prefix, "%s runs at the defaults", ex[0])
	}
	const golden = "testdata/matrix.golden"
	if short { // compare the rows that ran
		want, err := os.ReadFile(golden)
		require.NoError(t, err, "missing golden file; run go test -run TestMethodKernelMatrix -update")
		var sub []string
		for _, l := range strings.SplitAfter(string(want), "\n") {
			if strings.Contains(l, " --kernel auto: ") {
				sub = append(sub, l)
			}
		}
		require.Equal(t, strings.Join(sub, ""), b.String())
		return
	}
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "missing golden file; run go test -run TestMethodKernelMatrix -update")
	require.Equal(t, string(want), b.String())
}

// positioned matches the first line of an error placed in the source.
var positioned = regexp.MustCompile(`^[^ ]+\.msc:\d+:\d+: `)

// checkMatrixOutcome checks one combination's outcome and returns its line
// for the golden file: "ok (...)" or "exit 1: message [hint: ...]".
func checkMatrixOutcome(t *testing.T, method, kernel string, code int, stdout, stderr string) string {
	t.Helper()
	for _, bad := range []string{"panic", "goroutine", "internal error", "runtime error"} {
		require.NotContains(t, stderr, bad)
	}
	if code != 0 {
		require.Equal(t, exitInput, code, stderr)
		require.Empty(t, stdout, "no half-written output")
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		require.NotEmpty(t, lines[0])
		require.Truef(t, strings.HasPrefix(lines[0], "mscppl: ") || positioned.MatchString(lines[0]), "a message of mscppl's own: %q", stderr)
		require.LessOrEqualf(t, len(lines), 4, "a short message: %q", stderr)
		msg := strings.ReplaceAll(lines[0], "../../", "")
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, "hint: ") {
				msg += " [" + l + "]"
			}
		}
		return "exit 1: " + msg
	}
	var s infer.Summary
	require.NoError(t, json.Unmarshal([]byte(stdout), &s), stderr)
	require.Equal(t, method, s.Method)
	if kernel != "auto" {
		require.Equal(t, kernel, s.Kernel, "the kernel asked for")
	}
	require.NotEmpty(t, s.LatentOrder)
	for _, n := range s.LatentOrder {
		m, ok := s.Latent[n]
		require.Truef(t, ok, "latent %s is reported", n)
		require.Falsef(t, math.IsInf(m.Mean, 0), "latent %s: mean %g", n, m.Mean)
	}
	require.NotEmpty(t, s.Verdict)
	require.Equal(t, s.Converged, strings.HasPrefix(s.Verdict, "converged"), s.Verdict)
	return fmt.Sprintf("ok (%s kernel, %s family)", s.Kernel, s.Family)
}
