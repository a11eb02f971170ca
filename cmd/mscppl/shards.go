package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/infer/sbc"
)

// Shards: sbc, cv and sweep run the i-th of n slices of their jobs with
// --shard i/n and write them as one set (--out); merge combines the sets
// into the set one process would have written. The index and count come
// from the batch engine with --shard auto: a Slurm job array's task (its
// id, counted from SLURM_ARRAY_TASK_MIN in steps of SLURM_ARRAY_TASK_STEP,
// of SLURM_ARRAY_TASK_COUNT) or a Kubernetes Indexed Job's pod
// (JOB_COMPLETION_INDEX from 0, the count given as auto/N).

// getenv reads the environment (replaced in tests).
var getenv = os.Getenv

// parseShard reads --shard (empty: the whole list); a shard needs --out.
// startSharded is what sbc, cv and sweep do first: parse --shard (against
// --out), load the model, and begin the output set of writer when --out
// is given (nil otherwise; the caller defers its abort).
func (e *env) startSharded(shardFlag, out, model, data, writer string) (infer.Shard, *infer.Model, *outSet, error) {
	shard, err := parseShard(shardFlag, out)
	if err != nil {
		return shard, nil, nil, err
	}
	m, err := e.load(model, data, 0)
	if err != nil || out == "" {
		return shard, m, nil, err
	}
	set, err := beginOutSet(out)
	if err != nil {
		return shard, nil, nil, err
	}
	set.writer = writer
	return shard, m, set, nil
}

func parseShard(s, out string) (infer.Shard, error) {
	if s == "" {
		return infer.Shard{}, nil
	}
	sh, err := shardOf(s)
	if err != nil {
		return sh, usageError{err}
	}
	if out == "" {
		return sh, usageError{userErrorf("add --out DIR, one folder per shard, then merge the folders with mscppl merge", "--shard writes its slice as a set for mscppl merge, so it needs --out")}
	}
	return sh, nil
}

func shardOf(s string) (infer.Shard, error) {
	const hint = "use --shard i/n (1 <= i <= n), auto, or auto/N"
	head, tail, slash := strings.Cut(s, "/")
	if head == "auto" {
		count := 0
		if slash {
			n, err := strconv.Atoi(tail)
			if err != nil || n < 1 {
				return infer.Shard{}, userErrorf(hint, "--shard %s: the count after auto/ must be a positive number", s)
			}
			count = n
		}
		return autoShard(count)
	}
	i, err1 := strconv.Atoi(head)
	n, err2 := strconv.Atoi(tail)
	if !slash || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return infer.Shard{}, userErrorf(hint, "--shard %q is not a shard", s)
	}
	return infer.Shard{Index: i, Count: n}, nil
}

// envInt reads a non-negative integer from the environment; ok is false
// when the variable is not set.
func envInt(name string) (v int, ok bool, err error) {
	s := getenv(name)
	if s == "" {
		return 0, false, nil
	}
	v, err = strconv.Atoi(s)
	if err != nil || v < 0 {
		return 0, true, userErrorf("", "--shard auto: %s is %q, not a number", name, s)
	}
	return v, true, nil
}

// autoShard is --shard auto: from a Slurm job array, else from a
// Kubernetes Indexed Job; count (0: none given) must agree with Slurm's.
func autoShard(count int) (infer.Shard, error) {
	id, slurm, err := envInt("SLURM_ARRAY_TASK_ID")
	if err != nil {
		return infer.Shard{}, err
	}
	if slurm {
		n, ok, err := envInt("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return infer.Shard{}, err
		}
		if !ok || n < 1 {
			return infer.Shard{}, userErrorf("", "--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not")
		}
		lo, _, err := envInt("SLURM_ARRAY_TASK_MIN")
		if err != nil {
			return infer.Shard{}, err
		}
		step, ok, err := envInt("SLURM_ARRAY_TASK_STEP")
		if err != nil {
			return infer.Shard{}, err
		}
		if !ok || step < 1 {
			step = 1
		}
		if count > 0 && count != n {
			return infer.Shard{}, userErrorf("", "--shard auto/%d: the Slurm array has %d tasks (SLURM_ARRAY_TASK_COUNT)", count, n)
		}
		if id < lo || (id-lo)%step != 0 || (id-lo)/step >= n {
			return infer.Shard{}, userErrorf(fmt.Sprintf("submit the job array as --array=0-%d or --array=1-%d", n-1, n), "--shard auto: task %d is not one of the %d tasks from %d in steps of %d", id, n, lo, step)
		}
		return infer.Shard{Index: (id-lo)/step + 1, Count: n}, nil
	}
	idx, k8s, err := envInt("JOB_COMPLETION_INDEX")
	if err != nil {
		return infer.Shard{}, err
	}
	if k8s {
		if count == 0 {
			return infer.Shard{}, userErrorf("give the Job's completions as --shard auto/N", "--shard auto: JOB_COMPLETION_INDEX is set but not the number of shards")
		}
		if idx >= count {
			return infer.Shard{}, userErrorf("", "--shard auto/%d: JOB_COMPLETION_INDEX is %d, beyond the %d shards", count, idx, count)
		}
		return infer.Shard{Index: idx + 1, Count: count}, nil
	}
	return infer.Shard{}, userErrorf("use --shard i/n outside a batch engine", "--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set")
}

type mergeCmd struct {
	Dirs []string `arg:"" help:"The folders the shards wrote (sbc, cv or sweep with --shard i/n --out DIR)."`
	Out  string   `required:"" help:"Write the merged set into this folder: the files one process running every shard would have written." placeholder:"DIR"`
	JSON bool     `name:"json" help:"Print the machine-readable result on stdout."`
}

// shardWriter reads the command that wrote a set from its manifest.
func shardWriter(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", userErrorf("give the folders of sbc, cv or sweep run with --shard and --out", "%s holds no result set (no %s)", dir, manifestName)
		}
		return "", userErrorf("", "cannot read %s: %v", filepath.Join(dir, manifestName), err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return "", userErrorf("", "%s is not a manifest of mscppl: %v", filepath.Join(dir, manifestName), err)
	}
	f := strings.Fields(m.Writer)
	if len(f) < 2 || f[0] != "mscppl" {
		return "", userErrorf("", "%s is not a manifest of mscppl", filepath.Join(dir, manifestName))
	}
	return f[1], nil
}

// readRecord reads a set's record file into v.
func readRecord(dir, name string, v any) error {
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		return userErrorf("", "cannot read %s: %v", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return userErrorf("", "%s is not a record written by mscppl: %v", path, err)
	}
	return nil
}

func (c *mergeCmd) Run(e *env) error {
	var writer string
	for _, d := range c.Dirs {
		w, err := shardWriter(d)
		if err != nil {
			return err
		}
		if writer != "" && w != writer {
			return userErrorf("merge the shards of one command at a time", "%s was written by %s, %s by %s", c.Dirs[0], writer, d, w)
		}
		writer = w
	}
	merge, ok := mergers[writer]
	if !ok {
		return userErrorf("merge takes the folders of sbc, cv and sweep run with --shard", "%s was written by mscppl %s, whose sets are not shards", c.Dirs[0], writer)
	}
	set, err := beginOutSet(c.Out)
	if err != nil {
		return err
	}
	defer set.abort()
	set.writer = writer
	out, err := merge(set, c.Dirs)
	if err != nil {
		return err
	}
	if err := set.commit(out.seed); err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, out.result)
	}
	return out.print(e)
}

// merged is what a merger wrote: the seed for the manifest, the result
// for --json and the command's own report.
type merged struct {
	seed   uint64
	result any
	print  func(e *env) error
}

// mergers merge the sets of each command that writes shards.
var mergers = map[string]func(set *outSet, dirs []string) (*merged, error){
	"sbc": func(set *outSet, dirs []string) (*merged, error) {
		var parts []*sbc.Result
		for _, d := range dirs {
			var r sbc.Result
			if err := readRecord(d, "sbc.json", &r); err != nil {
				return nil, err
			}
			parts = append(parts, &r)
		}
		res, err := sbc.Merge(parts)
		if err != nil {
			return nil, err
		}
		sum := res.Summarize()
		if err := writeSBCSet(set, res, sum); err != nil {
			return nil, err
		}
		return &merged{res.Seed, sum, func(e *env) error { return printSBC(e, res, sum) }}, nil
	},
	"cv": func(set *outSet, dirs []string) (*merged, error) {
		var parts []*infer.CVResult
		for _, d := range dirs {
			var r infer.CVResult
			if err := readRecord(d, "cv.json", &r); err != nil {
				return nil, err
			}
			parts = append(parts, &r)
		}
		res, err := infer.MergeCV(parts)
		if err != nil {
			return nil, err
		}
		if err := writeCVSet(set, res); err != nil {
			return nil, err
		}
		return &merged{res.Seed, res, func(e *env) error { return printCV(e, res) }}, nil
	},
	"sweep": func(set *outSet, dirs []string) (*merged, error) {
		var parts []*infer.SweepResult
		for _, d := range dirs {
			var r infer.SweepResult
			if err := readRecord(d, "sweep.json", &r); err != nil {
				return nil, err
			}
			parts = append(parts, &r)
		}
		res, err := infer.MergeSweep(parts)
		if err != nil {
			return nil, err
		}
		if err := writeSweepSet(set, res); err != nil {
			return nil, err
		}
		return &merged{res.Seed, res, func(e *env) error { return printSweep(e, res) }}, nil
	},
}

func init() {
	for _, f := range []string{"cv.json", "sweep.json", "sweep.svg"} {
		setFiles[f] = true
	}
}

// writeCVSet writes a cross-validation's record.
func writeCVSet(set *outSet, res *infer.CVResult) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return set.write("cv.json", append(b, '\n'))
}

// writeSweepSet writes a sweep's record and its plot.
func writeSweepSet(set *outSet, res *infer.SweepResult) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := set.write("sweep.json", append(b, '\n')); err != nil {
		return err
	}
	if len(res.Rows) == 0 {
		return nil
	}
	svg, err := sweepPlot(res.Rows, res.Methods, ".svg")
	if err != nil {
		return err
	}
	return set.write("sweep.svg", svg)
}

// shardNote describes the slice of n jobs a result holds.
func shardNote(sh infer.Shard, n int, what string) string {
	if sh.Count == 0 {
		return ""
	}
	lo, hi, _ := sh.Range(n)
	return fmt.Sprintf(" (shard %d/%d: %s %d-%d of %d)", sh.Index, sh.Count, what, lo+1, hi, n)
}
