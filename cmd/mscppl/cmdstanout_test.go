package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/infer/cmdstan"
	"github.com/mscppl/mscppl/infer/diag"
	"github.com/stretchr/testify/require"
)

// stanModel has an unconstrained scalar, a positive scalar, a vector and a
// derived quantity: lp__ is known in closed form up to a constant.
const stanModel = `latent {
  mu: real
  s: real<lower=0>
  a: vector[2]
}
model {
  mu ~ normal(1, 2)
  s ~ exponential(1)
  a ~ normal(0, 1)
}
derived { m2 = mu * 2 }
`

// readStan reads a CmdStan CSV of dir with the parser that reads the
// fixture of package cmdstan.
func readStan(t *testing.T, path string) *cmdstan.File {
	t.Helper()
	r, err := os.Open(path)
	require.NoError(t, err)
	defer r.Close()
	f, err := cmdstan.Read(r)
	require.NoError(t, err, path)
	return f
}

type stanSummary struct {
	Draws       int `json:"draws"`
	Diagnostics struct {
		Rhat       map[string]float64 `json:"rhat"`
		ESSBulkMin float64            `json:"ess_bulk_min"`
	} `json:"diagnostics"`
	Latent map[string]struct {
		Mean float64 `json:"mean"`
	} `json:"latent"`
	Chains []any `json:"chains"`
}

func readStanSummary(t *testing.T, dir string) stanSummary {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	var s stanSummary
	require.NoError(t, json.Unmarshal(b, &s))
	return s
}

// fileColumns gathers column name of the chains' files as R-hat takes it.
func fileColumns(files []*cmdstan.File, name string) [][]float64 {
	var out [][]float64
	for _, f := range files {
		out = append(out, f.Column(name))
	}
	return out
}

// TestStanFiles: a run's output_N.csv have CmdStan's layout (the fixture's
// configuration keys, lp__ first, Stan's column names), lp__ is the log
// joint on the unconstrained scale with the Jacobian (closed form up to a
// constant), R-hat from the files is summary.json's; psis_draws.csv's
// weights are the smoothed normalised exp(log_weight) and give the
// summary's means; draws.csv has --draws rows.
func TestStanFiles(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.msc")
	require.NoError(t, os.WriteFile(model, []byte(stanModel), 0o644))
	out := filepath.Join(dir, "out")
	code, _, stderr := mscppl("run", model, "--iters", "600", "--fixed", "--draws", "700", "--seed", "2", "--out", out)
	require.Equal(t, 0, code, stderr)
	sum := readStanSummary(t, out)

	var files []*cmdstan.File
	for c := 1; ; c++ {
		p := filepath.Join(out, fmt.Sprintf("output_%d.csv", c))
		if _, err := os.Stat(p); err != nil {
			break
		}
		files = append(files, readStan(t, p))
	}
	require.Len(t, files, len(sum.Chains))
	for c, f := range files {
		require.Equal(t, []string{"lp__", "mu", "s", "a.1", "a.2", "m2"}, f.Columns)
		for key, want := range map[string]string{
			"stan_version_major": "2", "model": "m", "method": "sample", "id": fmt.Sprint(c + 1),
			"save_warmup": "0", "seed": "2", "thin": "1",
		} {
			got, ok := f.Value(key)
			require.True(t, ok, key)
			require.Equal(t, want, got, key)
		}
		// what cmdstanpy's from_csv checks: ceil(num_samples / thin) rows,
		// and the same layout keys in every chain's file
		ns, _ := f.Value("num_samples")
		th, _ := f.Value("thin")
		var n, k int
		_, err := fmt.Sscan(ns+" "+th, &n, &k)
		require.NoError(t, err)
		require.Equal(t, (n+k-1)/k, len(f.Rows))
		for _, key := range []string{"stan_version_major", "stan_version_minor", "model", "num_samples", "num_warmup", "save_warmup", "thin"} {
			a, _ := f.Value(key)
			b, _ := files[0].Value(key)
			require.Equal(t, b, a, key)
		}
		require.GreaterOrEqual(t, len(f.Rows), 4)
		require.LessOrEqual(t, len(f.Rows), 1000)
		require.Equal(t, len(files[0].Rows), len(f.Rows))
		// lp__ = log N(mu; 1, 2) + log Exp(s; 1) + log s + log N(a; 0, I) + const
		var c0 float64
		for i, r := range f.Rows {
			mu, s, a1, a2, m2 := r[1], r[2], r[3], r[4], r[5]
			require.Greater(t, s, 0.0)
			require.InDelta(t, 2*mu, m2, 1e-12)
			exact := -(mu-1)*(mu-1)/8 - s + math.Log(s) - (a1*a1+a2*a2)/2
			if i == 0 {
				c0 = r[0] - exact
			}
			require.InDelta(t, c0, r[0]-exact, 1e-9, "row %d", i+1)
		}
	}
	// R-hat of the unconstrained components from the files
	for _, n := range []string{"mu", "a[1]", "a[2]"} {
		want, ok := sum.Diagnostics.Rhat[n]
		require.True(t, ok, n)
		require.InDelta(t, want, diag.Rhat(fileColumns(files, cmdstan.Name(n))), 1e-12, n)
	}

	pf := readStan(t, filepath.Join(out, "psis_draws.csv"))
	require.Equal(t, []string{"log_weight", "weight", "mu", "s", "a.1", "a.2", "m2"}, pf.Columns)
	require.Len(t, pf.Rows, sum.Draws)
	lw, w := pf.Column("log_weight"), pf.Column("weight")
	total := 0.0
	for _, v := range w {
		total += v
	}
	require.InDelta(t, 1, total, 1e-9)
	// below the smoothed tail the weights are exp(log_weight), normalised:
	// log(weight) - log_weight is the same for the lower half of the draws
	var order []int
	for i := range lw {
		if w[i] > 0 {
			order = append(order, i)
		}
	}
	require.Greater(t, len(order), len(lw)/2)
	slices.SortFunc(order, func(i, j int) int { return int(math.Copysign(1, lw[i]-lw[j])) })
	ref := math.Log(w[order[0]]) - lw[order[0]]
	for _, i := range order[:len(order)/2] {
		require.InDelta(t, ref, math.Log(w[i])-lw[i], 1e-9)
	}
	for _, n := range []string{"mu", "s", "m2"} {
		x, mean := pf.Column(n), 0.0
		for i := range x {
			mean += w[i] * x[i]
		}
		require.InDelta(t, sum.Latent[n].Mean, mean, 1e-9, n)
	}

	b, err := os.ReadFile(filepath.Join(out, "draws.csv"))
	require.NoError(t, err)
	require.Equal(t, 1+700, len(strings.Split(strings.TrimSpace(string(b)), "\n")), "draws.csv: a header and --draws rows")
}

// TestStanFilesRstan: output_N.csv as rstan's read_stan_csv parses it
// (parse_stancsv_comments and get_time_from_csv, rstan 2.32): a comment
// line with "Elapsed Time" after the draws, as CmdStan writes it, from
// which the warm-up and sampling times read as numbers adding up to the
// total, and the sampler's name (sampler_t, which rstan prints) among the
// configuration keys, which rstan reads with all white space removed.
func TestStanFilesRstan(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.msc")
	require.NoError(t, os.WriteFile(model, []byte(stanModel), 0o644))
	out := filepath.Join(dir, "out")
	code, _, stderr := mscppl("run", model, "--iters", "200", "--fixed", "--seed", "2", "--out", out)
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(filepath.Join(out, "output_1.csv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var comments []string
	timeAt, lastRow := -1, -1
	for i, l := range lines {
		if !strings.HasPrefix(l, "#") {
			lastRow = i
			continue
		}
		if timeAt < 0 && strings.Contains(l, "Elapsed Time") {
			timeAt = len(comments)
			require.Greater(t, i, lastRow, "the elapsed times come after the draws")
		}
		comments = append(comments, l)
	}
	require.GreaterOrEqual(t, timeAt, 0, `no line with "Elapsed Time"`)
	require.GreaterOrEqual(t, len(comments), timeAt+3)
	seconds := regexp.MustCompile(`\s*seconds.*$`)
	warmup, err := strconv.ParseFloat(seconds.ReplaceAllString(regexp.MustCompile(`.*#\s*Elapsed.*:\s*`).ReplaceAllString(comments[timeAt], ""), ""), 64)
	require.NoError(t, err, comments[timeAt])
	sampling, err := strconv.ParseFloat(seconds.ReplaceAllString(regexp.MustCompile(`.*#\s*`).ReplaceAllString(comments[timeAt+1], ""), ""), 64)
	require.NoError(t, err, comments[timeAt+1])
	total, err := strconv.ParseFloat(seconds.ReplaceAllString(regexp.MustCompile(`.*#\s*`).ReplaceAllString(comments[timeAt+2], ""), ""), 64)
	require.NoError(t, err, comments[timeAt+2])
	require.GreaterOrEqual(t, warmup, 0.0)
	require.Greater(t, sampling, 0.0)
	require.InDelta(t, warmup+sampling, total, 0.0015)
	values := map[string]string{}
	strip := regexp.MustCompile(`^#+\s*|\s*|\(Default\)`)
	for _, c := range comments[:timeAt] {
		if k, v, ok := strings.Cut(strip.ReplaceAllString(c, ""), "="); ok {
			if _, seen := values[k]; !seen {
				values[k] = v
			}
		}
	}
	require.Equal(t, "mscppl", values["algorithm"])
	require.Regexp(t, `^MSC\(.+\)$`, values["sampler_t"])
}

// TestStanFilesStateSpace: a CSMC run writes its retained trajectories the
// same way, and R-hat and the bulk ESS computed from the files are the
// figures of summary.json (ess_bulk_min is their smallest ESS).
func TestStanFilesStateSpace(t *testing.T) {
	const T = 15
	dir, _ := lgssmData(t, T)
	out := filepath.Join(dir, "out")
	// files an earlier run into the directory left go
	require.NoError(t, os.MkdirAll(out, 0o755))
	for _, name := range []string{"output_9.csv", "psis_draws.csv", "output_notes.csv"} {
		require.NoError(t, os.WriteFile(filepath.Join(out, name), []byte("stale\n"), 0o644))
	}
	code, _, stderr := mscppl("run", filepath.Join(dir, "lgssm.msc"), filepath.Join(dir, "x.csv"), "--iters", "400", "--fixed", "--seed", "4", "--out", out)
	require.Equal(t, 0, code, stderr)
	sum := readStanSummary(t, out)
	var files []*cmdstan.File
	for c := range sum.Chains {
		files = append(files, readStan(t, filepath.Join(out, fmt.Sprintf("output_%d.csv", c+1))))
	}
	require.NotEmpty(t, files)
	require.NoFileExists(t, filepath.Join(out, fmt.Sprintf("output_%d.csv", len(files)+1)))
	ess := math.Inf(1)
	for i := 1; i <= T; i++ {
		col := fileColumns(files, fmt.Sprintf("z.%d", i))
		require.InDelta(t, sum.Diagnostics.Rhat[fmt.Sprintf("z[%d]", i)], diag.Rhat(col), 1e-12, "z[%d]", i)
		ess = math.Min(ess, diag.ESSBulk(col))
	}
	require.InDelta(t, sum.Diagnostics.ESSBulkMin, ess, 1e-9*ess)
	require.NoFileExists(t, filepath.Join(out, "psis_draws.csv"), "a state-space run has no PSIS draws")
	require.NoFileExists(t, filepath.Join(out, "output_9.csv"))
	require.FileExists(t, filepath.Join(out, "output_notes.csv"), "not a chain's file")
}

// TestStanFilesMatrix: a matrix's columns are in CmdStan's column-major
// order with their values: a Cholesky factor of a correlation matrix has
// L[1,1] = 1, L[1,2] = 0 and L[2,1]^2 + L[2,2]^2 = 1.
func TestStanFilesMatrix(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := mscppl("run", "testdata/outputs/names.msc", "testdata/outputs/names.csv", "--iters", "200", "--draws", "500", "--out", out)
	require.Equal(t, 0, code, stderr)
	for _, name := range []string{"output_1.csv", "psis_draws.csv"} {
		f := readStan(t, filepath.Join(out, name))
		require.Equal(t, []string{"z", "b.1", "b.2", "L.1.1", "L.2.1", "L.1.2", "L.2.2", "w.1", "w.2"}, f.Columns[len(f.Columns)-9:], name)
		l11, l21, l12, l22 := f.Column("L.1.1"), f.Column("L.2.1"), f.Column("L.1.2"), f.Column("L.2.2")
		b1, w1 := f.Column("b.1"), f.Column("w.1")
		for i := range l11 {
			require.Equal(t, 1.0, l11[i])
			require.Equal(t, 0.0, l12[i])
			require.InDelta(t, 1, l21[i]*l21[i]+l22[i]*l22[i], 1e-12)
			require.InDelta(t, 2*b1[i], w1[i], 1e-12)
		}
	}
}
