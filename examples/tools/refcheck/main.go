// Command refcheck runs mscppl on models with a reference posterior and
// prints, per model, how far q's marginal means and sds are from the
// reference.
//
//	go build -o /tmp/mscppl ./cmd/mscppl
//	go run ./examples/tools/refcheck -bin /tmp/mscppl [-pdb DIR] [-args "--iters 20000"] [DIR ...]
//
// Each DIR (default: every directory under examples/posteriordb) holds
// model.msc and data.csv and is named after a posteriordb posterior, whose
// reference.csv is read from the posteriordb folder (-pdb, default
// ../shared/posteriordb from the repository root). -extra adds models
// outside posteriordb (run after the directories), as space-separated entries MODEL:DATA:REFERENCE or
// MODEL:DATA:REFERENCE:NAME,NAME,... (DATA may be empty for a model without
// data; the names, if given, restrict the comparison).
//
// For each model it runs BIN run MODEL DATA --json ARGS, reads the JSON on
// stdout and compares every latent whose name appears in the reference:
// dmean is the largest |mean - ref mean| / ref sd, dsd the largest
// |sd / ref sd - 1|, and a model passes when dmean <= 0.1 and dsd <= 0.1.
// converged, diagnostics.khat, diagnostics.rhat_max and summary_source are
// printed as the JSON gives them, "-" when absent.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/mscppl/mscppl/internal/exact"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Thresholds of a pass: mean within 0.1 reference sd, sd within 10%.
const (
	maxMeanErr = 0.1
	maxSDErr   = 0.1
)

// job is one model to run and its reference.
type job struct {
	name, model, data, ref string
	only                   []string // names to compare; all common names when empty
}

// ref is a reference marginal.
type ref struct{ mean, sd float64 }

// row is one printed line.
type row struct {
	name                          string
	dims                          int
	secs                          float64
	dmean, dsd                    float64
	compared                      int
	pass                          bool
	converged, khat, rhat, sumsrc string
	err                           error
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "refcheck:", err)
		os.Exit(1)
	}
}

func run() error {
	root := exact.RepoRoot()
	bin := flag.String("bin", "mscppl", "the mscppl binary (a path, or a name looked up on PATH)")
	pdb := flag.String("pdb", filepath.Join(root, "..", "shared", "posteriordb"), "posteriordb directory (one subdirectory per posterior, each with reference.csv)")
	args := flag.String("args", "", "extra flags passed to every run, space-separated (e.g. \"--iters 20000 --seed 2\")")
	extra := flag.String("extra", "", "space-separated MODEL:DATA:REFERENCE[:NAME,NAME...] entries for models outside posteriordb")
	onlyExtra := flag.Bool("only-extra", false, "run only the -extra models, not the default directories")
	timeout := flag.Duration("timeout", 0, "stop a run after this long and report it as failed (0: no limit)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: refcheck [flags] [DIR ...]\n\nDIR holds model.msc and data.json (or data.csv) and is named after a posteriordb posterior;\ndefault: every directory under %s.\n\n", filepath.Join(root, "examples", "posteriordb"))
		flag.PrintDefaults()
	}
	flag.Parse()

	binPath, err := exec.LookPath(*bin)
	if err != nil {
		return fmt.Errorf("-bin: %v", err)
	}
	dirs := flag.Args()
	if len(dirs) == 0 && !*onlyExtra {
		base := filepath.Join(root, "examples", "posteriordb")
		ents, err := os.ReadDir(base)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(base, e.Name()))
			}
		}
	}
	var jobs []job
	for _, d := range dirs {
		name := filepath.Base(filepath.Clean(d))
		jobs = append(jobs, job{
			name:  name,
			model: filepath.Join(d, "model.msc"),
			data:  firstFile(filepath.Join(d, "data.json"), filepath.Join(d, "data.csv")),
			ref:   firstFile(filepath.Join(d, "reference.csv"), filepath.Join(*pdb, name, "reference.csv")),
		})
	}
	for _, e := range strings.Fields(*extra) {
		p := strings.Split(e, ":")
		if len(p) != 3 && len(p) != 4 {
			return fmt.Errorf("-extra %q: want MODEL:DATA:REFERENCE or MODEL:DATA:REFERENCE:NAMES", e)
		}
		j := job{name: strings.TrimSuffix(filepath.Base(p[0]), ".msc"), model: p[0], data: p[1], ref: p[2]}
		if len(p) == 4 {
			j.only = strings.Split(p[3], ",")
			j.name += " (" + p[3] + ")"
		}
		jobs = append(jobs, j)
	}
	if len(jobs) == 0 {
		return errors.New("nothing to check")
	}

	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "posterior\tdims\tseconds\tcompared\tmax|dmean|/sd\tmax|sd/ref-1|\tpass\tconverged\tkhat\trhat_max\tsummary_source\t")
	failed := 0
	for _, j := range jobs {
		r := check(binPath, j, strings.Fields(*args), *timeout)
		fmt.Fprintf(os.Stderr, "refcheck: %s: %.1fs\n", r.name, r.secs) // progress: the table is aligned at the end
		if r.err != nil {
			failed++
			fmt.Fprintf(tw, "%s\t-\t%.1f\t-\t-\t-\terror\t-\t-\t-\t-\t\n", r.name, r.secs)
			fmt.Fprintf(os.Stderr, "refcheck: %s: %v\n", r.name, r.err)
			continue
		}
		pass := "no"
		if r.pass {
			pass = "yes"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%d\t%.3f\t%.3f\t%s\t%s\t%s\t%s\t%s\t\n",
			r.name, r.dims, r.secs, r.compared, r.dmean, r.dsd, pass, r.converged, r.khat, r.rhat, r.sumsrc)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d runs failed", failed, len(jobs))
	}
	return nil
}

// check runs one model and compares its summary with the reference.
func check(bin string, j job, args []string, timeout time.Duration) row {
	r := row{name: j.name}
	refs, err := readRef(j.ref)
	if err != nil {
		r.err = err
		return r
	}
	cmdArgs := []string{"run", j.model}
	if j.data != "" {
		cmdArgs = append(cmdArgs, j.data)
	}
	cmdArgs = append(cmdArgs, "--json", "--quiet")
	cmdArgs = append(cmdArgs, args...)
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, bin, cmdArgs...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	r.secs = time.Since(start).Seconds()
	if err != nil {
		r.err = fmt.Errorf("%s %s: %v\n%s", bin, strings.Join(cmdArgs, " "), err, strings.TrimSpace(stderr.String()))
		return r
	}
	var out struct {
		Latent        map[string]struct{ Mean, SD float64 } `json:"latent"`
		LatentOrder   []string                              `json:"latent_order"`
		Converged     json.RawMessage                       `json:"converged"`
		Diagnostics   map[string]json.RawMessage            `json:"diagnostics"`
		SummarySource json.RawMessage                       `json:"summary_source"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		r.err = fmt.Errorf("reading the JSON summary: %v", err)
		return r
	}
	r.dims = len(out.LatentOrder)
	if r.dims == 0 {
		r.dims = len(out.Latent)
	}
	names := j.only
	if len(names) == 0 {
		for n := range refs {
			names = append(names, n)
		}
		slices.Sort(names)
	}
	for _, n := range names {
		want, ok := refs[n]
		if !ok {
			if len(j.only) > 0 {
				r.err = fmt.Errorf("%s: no %q in the reference", j.ref, n)
				return r
			}
			continue
		}
		got, ok := out.Latent[n]
		if !ok {
			if len(j.only) > 0 {
				r.err = fmt.Errorf("no latent %q in the summary", n)
				return r
			}
			continue
		}
		r.compared++
		r.dmean = max(r.dmean, math.Abs(got.Mean-want.mean)/want.sd)
		r.dsd = max(r.dsd, math.Abs(got.SD/want.sd-1))
	}
	if r.compared == 0 {
		r.err = fmt.Errorf("no latent of the summary is named in %s", j.ref)
		return r
	}
	r.pass = r.dmean <= maxMeanErr && r.dsd <= maxSDErr
	r.converged = show(out.Converged)
	r.khat = show(out.Diagnostics["khat"])
	r.rhat = show(out.Diagnostics["rhat_max"])
	r.sumsrc = show(out.SummarySource)
	return r
}

// show prints a JSON value compactly: numbers with 3 significant digits,
// strings without quotes, "-" for an absent value.
func show(m json.RawMessage) string {
	if len(m) == 0 || string(m) == "null" {
		return "-"
	}
	var v any
	if err := json.Unmarshal(m, &v); err != nil {
		return string(m)
	}
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', 3, 64)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, m); err != nil {
		return string(m)
	}
	return b.String()
}

// firstFile returns the first of the paths that exists (the last one if
// none does, for the error message).
func firstFile(paths ...string) string {
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return paths[len(paths)-1]
}

// readRef reads a reference.csv (name, mean and sd; other columns
// ignored) with internal/exact's reader, one entry per scalar parameter.
func readRef(path string) (map[string]ref, error) {
	rows, err := exact.ReadSummaries(path)
	if err != nil {
		return nil, err
	}
	refs := map[string]ref{}
	for line, r := range rows {
		if !(r.SD > 0) {
			return nil, fmt.Errorf("%s:%d: sd %g is not positive", path, line+2, r.SD)
		}
		refs[r.Name] = ref{r.Mean, r.SD}
	}
	return refs, nil
}
