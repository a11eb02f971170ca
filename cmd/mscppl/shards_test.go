package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/stretchr/testify/require"
)

// timings are the figures of a set that are wall times: they differ
// between two runs of the same command (manifest.json, which holds the
// files' sums, is compared without them; sims.csv without its seconds
// column).
var timings = map[string]*regexp.Regexp{
	"sbc.json": regexp.MustCompile(`"seconds": [0-9.e+-]+`),
	"cv.json":  regexp.MustCompile(`"seconds": [0-9.e+-]+`),
}

// withoutSeconds is a CSV file with its seconds column blanked.
func withoutSeconds(t *testing.T, s string) string {
	rows, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	require.NoError(t, err)
	col := slices.Index(rows[0], "seconds")
	require.GreaterOrEqual(t, col, 0)
	for _, r := range rows[1:] {
		r[col] = "TIME"
	}
	return string(csvBytes(rows))
}

// setFilesOf reads the files of a set but its manifest, with their
// timings blanked.
func setFilesOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := map[string]string{}
	for _, e := range entries {
		if e.Name() == manifestName {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		s := string(b)
		if re := timings[e.Name()]; re != nil {
			s = re.ReplaceAllString(s, "TIME")
		}
		if e.Name() == "sims.csv" {
			s = withoutSeconds(t, s)
		}
		out[e.Name()] = s
	}
	return out
}

// TestShardsMerge: for sbc, cv and sweep, the shards 1..4 (run with one
// core, in any order) merged give the files one process writes (with two
// cores), byte for byte apart from the timings.
func TestShardsMerge(t *testing.T) {
	const model, data = "../../examples/normal_mean.msc", "../../examples/data/normal_mean.csv"
	for _, tc := range []struct {
		cmd   string
		args  []string
		files []string
	}{
		{"sbc", []string{"--sims", "7", "--iters", "200", "--fixed", "--draws", "500", "--chains", "2", "--seed", "4"}, sbcFiles},
		{"cv", []string{"--splits", "5", "--methods", "msc,advi", "--iters", "200", "--seed", "4"}, []string{"cv.json"}},
		{"sweep", []string{"--samples", "2,5,10", "--inits", "2", "--iters", "100", "--methods", "msc,is", "--seed", "4"}, []string{"sweep.json", "sweep.svg"}},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			dir := t.TempDir()
			run := func(procs int, extra ...string) {
				old := runtime.GOMAXPROCS(procs)
				defer runtime.GOMAXPROCS(old)
				args := append(append([]string{tc.cmd, model, data}, tc.args...), extra...)
				code, _, errOut := mscppl(args...)
				require.Equal(t, 0, code, errOut)
			}
			run(2, "--out", filepath.Join(dir, "whole"))
			var shards []string
			for _, i := range []int{3, 1, 4, 2} {
				d := filepath.Join(dir, fmt.Sprintf("shard%d", i))
				run(1, "--shard", fmt.Sprintf("%d/4", i), "--out", d)
				shards = append(shards, d)
			}
			code, out, errOut := mscppl(append([]string{"merge", "--out", filepath.Join(dir, "merged")}, shards...)...)
			require.Equal(t, 0, code, errOut)
			require.NotEmpty(t, out)
			whole, merged := setFilesOf(t, filepath.Join(dir, "whole")), setFilesOf(t, filepath.Join(dir, "merged"))
			for _, f := range tc.files {
				require.Contains(t, whole, f)
			}
			require.Equal(t, whole, merged)
			// a shard's set is not the whole
			require.NotEqual(t, whole, setFilesOf(t, shards[0]))
			m, err := shardWriter(filepath.Join(dir, "merged"))
			require.NoError(t, err)
			require.Equal(t, tc.cmd, m)
			// a missing shard or one given twice is an error, and the
			// output folder is not written
			for _, bad := range []struct {
				dirs []string
				want string
			}{
				{shards[:3], "missing"},
				{append(shards[:4:4], shards[0]), "(twice|more than one shard)"},
			} {
				outDir := filepath.Join(dir, "bad")
				code, _, errOut = mscppl(append([]string{"merge", "--out", outDir}, bad.dirs...)...)
				require.Equal(t, 1, code)
				require.Regexp(t, bad.want, errOut)
				require.NoDirExists(t, outDir)
			}
		})
	}
	// sets of two commands do not merge
	dir := t.TempDir()
	for _, c := range [][]string{
		{"cv", model, data, "--splits", "2", "--methods", "msc", "--iters", "100", "--shard", "1/2", "--out", filepath.Join(dir, "a")},
		{"sweep", model, data, "--samples", "2,5", "--inits", "2", "--iters", "50", "--methods", "msc", "--shard", "2/2", "--out", filepath.Join(dir, "b")},
	} {
		code, _, errOut := mscppl(c...)
		require.Equal(t, 0, code, errOut)
	}
	code, _, errOut := mscppl("merge", "--out", filepath.Join(dir, "m"), filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "written by cv")
}

// TestShardFlag: --shard i/n, auto from a Slurm job array or a Kubernetes
// Indexed Job, and the errors.
func TestShardFlag(t *testing.T) {
	for _, tc := range []struct {
		flag string
		env  map[string]string
		want infer.Shard
		err  string
	}{
		{"2/4", nil, infer.Shard{Index: 2, Count: 4}, ""},
		{"4/4", nil, infer.Shard{Index: 4, Count: 4}, ""},
		{"0/4", nil, infer.Shard{}, "is not a shard"},
		{"5/4", nil, infer.Shard{}, "is not a shard"},
		{"2", nil, infer.Shard{}, "is not a shard"},
		{"a/b", nil, infer.Shard{}, "is not a shard"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0"}, infer.Shard{Index: 1, Count: 4}, ""},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"}, infer.Shard{Index: 4, Count: 4}, ""},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "2"}, infer.Shard{Index: 4, Count: 4}, ""},
		{"auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, infer.Shard{Index: 3, Count: 4}, ""},
		{"auto/3", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, infer.Shard{}, "the Slurm array has 4 tasks"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "2"}, infer.Shard{}, "SLURM_ARRAY_TASK_COUNT is not"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "4"}, infer.Shard{}, "not a number"},
		{"auto/4", map[string]string{"JOB_COMPLETION_INDEX": "0"}, infer.Shard{Index: 1, Count: 4}, ""},
		{"auto/4", map[string]string{"JOB_COMPLETION_INDEX": "3"}, infer.Shard{Index: 4, Count: 4}, ""},
		{"auto/4", map[string]string{"JOB_COMPLETION_INDEX": "4"}, infer.Shard{}, "beyond the 4 shards"},
		{"auto", map[string]string{"JOB_COMPLETION_INDEX": "1"}, infer.Shard{}, "auto/N"},
		{"auto", nil, infer.Shard{}, "neither SLURM_ARRAY_TASK_ID"},
		{"auto/0", nil, infer.Shard{}, "positive number"},
	} {
		t.Run(tc.flag+fmt.Sprint(tc.env), func(t *testing.T) {
			old := getenv
			defer func() { getenv = old }()
			getenv = func(k string) string { return tc.env[k] }
			sh, err := parseShard(tc.flag, "out")
			if tc.err != "" {
				require.Error(t, err)
				require.Contains(t, err.Error()+" "+hintOf(err), tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, sh)
		})
	}
	_, err := parseShard("1/2", "")
	require.ErrorContains(t, err, "needs --out")
}

func hintOf(err error) string {
	var u *infer.UserError
	for e := err; e != nil; {
		if ue, ok := e.(*infer.UserError); ok {
			u = ue
			break
		}
		w, ok := e.(interface{ Unwrap() error })
		if !ok {
			break
		}
		e = w.Unwrap()
	}
	if u == nil {
		return ""
	}
	return strings.TrimSpace(u.Hint)
}
