package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mscppl/mscppl/internal/testtier"
)

// The catalogue of issue 25: one directory per hostile input under
// testdata/catalogue/NAME, holding the input files and a case.txt:
//
//	# NAME: title
//	run: mscppl's arguments (files relative to the case directory)
//	exit: the expected exit status (1 for bad input, 2 for command-line misuse)
//	stderr: a Go regexp stderr must match (may repeat)
//	stdout: a Go regexp stdout must match (may repeat; its first 1 MB is kept)
//	gen: NAME ARGS (optional: a generator below writes big inputs first)
//	limit: 10s 1024MB (optional: wall time and memory; default 30s 2048MB)
//	slow: yes (optional: a case of over a second, run in the long tier only)
//
// TestCatalogue builds mscppl (or takes -catalogue.bin), copies each case
// into a temporary directory, runs the binary there under a memory limit
// (RLIMIT_DATA, set by this test binary re-executed as a launcher) and a
// wall-time limit, and asserts the exit status, each stderr regexp, no Go
// stack trace, the time and the peak resident memory. It logs the count of
// cases by outcome, so that the catalogue can be run against an older
// binary to compare.
var catalogueBin = flag.String("catalogue.bin", "", "run TestCatalogue against this mscppl binary instead of one built from this package")

// launchEnv names the environment variable that turns the test binary into
// a launcher: it sets RLIMIT_DATA to the variable's value (bytes) and execs
// its arguments. RLIMIT_DATA, not RLIMIT_AS: since Linux 4.7 it bounds the
// private writable mappings, the memory the process commits, whereas the
// Go runtime reserves far more address space than it uses (a check that
// peaks at 280 MB resident fails under an RLIMIT_AS of 1.8 GB).
const launchEnv = "MSCPPL_CATALOGUE_LAUNCH_DATA"

func TestMain(m *testing.M) {
	if v := os.Getenv(launchEnv); v != "" {
		os.Exit(launch(v))
	}
	dir, err := os.MkdirTemp("", "mscppl-test-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// launch sets the address-space limit and replaces the process with the
// command after "--" among the arguments; it returns only on failure.
func launch(limit string) int {
	args := os.Args
	i := 0
	for i < len(args) && args[i] != "--" {
		i++
	}
	if i+1 >= len(args) {
		fmt.Fprintln(os.Stderr, "launcher: no command after --")
		return 125
	}
	n, err := strconv.ParseUint(limit, 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "launcher:", err)
		return 125
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		fmt.Fprintln(os.Stderr, "launcher:", err)
		return 125
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, launchEnv+"=") {
			env = append(env, kv)
		}
	}
	err = syscall.Exec(args[i+1], args[i+1:], env)
	fmt.Fprintln(os.Stderr, "launcher:", err)
	return 125
}

// catalogueCase is one parsed case.txt.
type catalogueCase struct {
	name, title string
	args        []string
	exit        int
	stderr      []*regexp.Regexp
	stdout      []*regexp.Regexp
	gens        [][]string
	wall        time.Duration
	memMB       int64
	slow        bool
}

func parseCase(name string, text string) (*catalogueCase, error) {
	c := &catalogueCase{name: name, exit: -1, wall: 30 * time.Second, memMB: 2048}
	for i, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			if c.title == "" {
				c.title = strings.TrimSpace(strings.TrimPrefix(line, "#"))
			}
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("case.txt:%d: want KEY: VALUE", i+1)
		}
		val = strings.TrimSpace(val)
		switch key {
		case "run":
			c.args = strings.Fields(val)
		case "exit":
			n, err := strconv.Atoi(val)
			if err != nil {
				return nil, fmt.Errorf("case.txt:%d: exit: %v", i+1, err)
			}
			c.exit = n
		case "stderr", "stdout":
			re, err := regexp.Compile(val)
			if err != nil {
				return nil, fmt.Errorf("case.txt:%d: %s: %v", i+1, key, err)
			}
			if key == "stderr" {
				c.stderr = append(c.stderr, re)
			} else {
				c.stdout = append(c.stdout, re)
			}
		case "gen":
			f := strings.Fields(val)
			if len(f) == 0 || generators[f[0]] == nil {
				return nil, fmt.Errorf("case.txt:%d: unknown generator %q", i+1, val)
			}
			c.gens = append(c.gens, f)
		case "limit":
			var wall string
			var mem int64
			if _, err := fmt.Sscanf(val, "%s %dMB", &wall, &mem); err != nil {
				return nil, fmt.Errorf("case.txt:%d: limit: want like 10s 1024MB: %v", i+1, err)
			}
			d, err := time.ParseDuration(wall)
			if err != nil {
				return nil, fmt.Errorf("case.txt:%d: limit: %v", i+1, err)
			}
			c.wall, c.memMB = d, mem
		case "slow":
			c.slow = val == "yes"
		default:
			return nil, fmt.Errorf("case.txt:%d: unknown key %q", i+1, key)
		}
	}
	switch {
	case c.args == nil:
		return nil, errors.New("case.txt: no run: line")
	case c.exit < 0:
		return nil, errors.New("case.txt: no exit: line")
	case c.exit != 0 && len(c.stderr) == 0:
		return nil, errors.New("case.txt: an error case needs a stderr: line")
	}
	return c, nil
}

// Outcomes of a case, from the worst.
const (
	outLimit    = "limit exceeded (time/memory)"
	outCrash    = "crash (stack trace)"
	outAccepted = "accepted (exit 0 where an error was expected)"
	outStatus   = "wrong status"
	outUnclear  = "unpositioned/unclear"
	outPass     = "pass"
)

var stackTrace = regexp.MustCompile(`goroutine \d|panic:|runtime error|fatal error`)

// result is what one run of a case gave.
type result struct {
	code     int
	stderr   string
	stdout   string // its first stdoutKept bytes
	wall     time.Duration
	maxRSSMB int64
	killed   bool
}

// classify returns the outcome of r for c and why it is not a pass.
func classify(c *catalogueCase, r result) (string, string) {
	switch {
	case r.killed || r.wall > c.wall:
		return outLimit, fmt.Sprintf("ran %v, limit %v", r.wall.Round(time.Millisecond), c.wall)
	case r.maxRSSMB > c.memMB || strings.Contains(r.stderr, "out of memory"):
		return outLimit, fmt.Sprintf("peak memory %d MB, limit %d MB", r.maxRSSMB, c.memMB)
	case stackTrace.MatchString(r.stderr):
		return outCrash, "a Go stack trace or internal error"
	case c.exit != 0 && r.code == 0:
		return outAccepted, "exit 0"
	case r.code != c.exit:
		return outStatus, fmt.Sprintf("exit %d, want %d", r.code, c.exit)
	}
	for _, re := range c.stderr {
		if !re.MatchString(r.stderr) {
			return outUnclear, fmt.Sprintf("stderr does not match %q", re)
		}
	}
	for _, re := range c.stdout {
		if !re.MatchString(r.stdout) {
			return outUnclear, fmt.Sprintf("stdout does not match %q", re)
		}
	}
	return outPass, ""
}

func TestCatalogue(t *testing.T) {
	bin := *catalogueBin
	if bin == "" {
		bin = buildBinary(t)
	} else if abs, err := filepath.Abs(bin); err == nil {
		bin = abs
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := filepath.Glob("testdata/catalogue/*/case.txt")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	var mu sync.Mutex
	counts := map[string][]string{}
	sem := make(chan struct{}, 2) // the machine has 2 cores
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		var lines []string
		total := 0
		for _, o := range []string{outPass, outUnclear, outStatus, outAccepted, outCrash, outLimit} {
			names := counts[o]
			sort.Strings(names)
			total += len(names)
			line := fmt.Sprintf("%4d  %s", len(names), o)
			if o != outPass && len(names) > 0 {
				line += ": " + strings.Join(names, " ")
			}
			lines = append(lines, line)
		}
		t.Logf("catalogue of %d cases by outcome (binary %s):\n%s", total, bin, strings.Join(lines, "\n"))
	})
	t.Run("cases", func(t *testing.T) {
		for _, file := range dirs {
			dir := filepath.Dir(file)
			name := filepath.Base(dir)
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			c, err := parseCase(name, string(text))
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			t.Run(name, func(t *testing.T) {
				if c.slow {
					testtier.Skip(t)
				}
				t.Parallel()
				sem <- struct{}{}
				defer func() { <-sem }()
				work := t.TempDir()
				if err := os.CopyFS(work, os.DirFS(dir)); err != nil {
					t.Fatal(err)
				}
				for _, g := range c.gens {
					if err := generators[g[0]](work, g[1:]); err != nil {
						t.Fatalf("gen %v: %v", g, err)
					}
				}
				r := runCase(t, self, bin, work, c)
				out, why := classify(c, r)
				t.Logf("exit %d in %v, peak %d MB: %s", r.code, r.wall.Round(time.Millisecond), r.maxRSSMB, out)
				mu.Lock()
				counts[out] = append(counts[out], name)
				mu.Unlock()
				if out != outPass {
					t.Errorf("%s: %s: %s\n%s\nstderr:\n%s", c.title, out, why, "mscppl "+strings.Join(c.args, " "), clip(r.stderr, 2000))
				}
			})
		}
	})
}

// runCase runs bin with c's arguments in dir under c's limits.
func runCase(t *testing.T, self, bin, dir string, c *catalogueCase) result {
	ctx, cancel := context.WithTimeout(context.Background(), c.wall+2*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, append([]string{"--", bin}, c.args...)...)
	cmd.Dir = dir
	// the memory the child may commit: the bound plus room for the Go
	// runtime's own structures (the bound itself is checked on the peak
	// resident size)
	data := (c.memMB + 256) << 20
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", launchEnv, data))
	cmd.Stdin = strings.NewReader("")
	var stderr strings.Builder
	stdout := &limitedKeep{}
	cmd.Stderr = &stderr
	cmd.Stdout = stdout
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	start := time.Now()
	err := cmd.Run()
	r := result{wall: time.Since(start), stderr: stderr.String(), stdout: stdout.b.String(), killed: ctx.Err() != nil}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
		if r.code == 125 && strings.HasPrefix(r.stderr, "launcher:") {
			t.Fatalf("%s", r.stderr)
		}
	case !r.killed:
		t.Fatalf("running %s: %v", bin, err)
	}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.maxRSSMB = ru.Maxrss >> 10 // kilobytes on Linux
		}
	}
	return r
}

// limitedKeep keeps the first stdoutKept bytes the child writes on stdout
// and drops the rest.
type limitedKeep struct{ b strings.Builder }

const stdoutKept = 1 << 20

func (w *limitedKeep) Write(p []byte) (int, error) {
	if room := stdoutKept - w.b.Len(); room > 0 {
		w.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// writeNested writes dir/file: prefix, count times open, middle, count
// times close, suffix, each with the escapes \n (newline), \s (space) and
// \e (nothing) replaced.
// genEscapes replaces the generators' escapes: \n for a newline, \s for a
// space and \e for nothing.
var genEscapes = strings.NewReplacer(`\n`, "\n", `\s`, " ", `\e`, "")

func writeNested(dir, file, count, prefix, open, middle, closer, suffix string) error {
	n, err := strconv.Atoi(count)
	if err != nil {
		return err
	}
	un := genEscapes
	var b strings.Builder
	b.WriteString(un.Replace(prefix))
	b.WriteString(strings.Repeat(un.Replace(open), n))
	b.WriteString(un.Replace(middle))
	b.WriteString(strings.Repeat(un.Replace(closer), n))
	b.WriteString(un.Replace(suffix))
	return os.WriteFile(filepath.Join(dir, file), []byte(b.String()), 0o644)
}

// generators write big inputs into a case's directory before the run;
// each writes the file named first among its arguments.
var generators = map[string]func(dir string, args []string) error{
	// repeat FILE N PREFIX UNIT SUFFIX: PREFIX, N times UNIT, SUFFIX, with
	// \n for a newline, \s for a space and \e for nothing in each
	"repeat": func(dir string, args []string) error {
		if len(args) != 5 {
			return errors.New("want repeat FILE N PREFIX UNIT SUFFIX")
		}
		return writeNested(dir, args[0], args[1], args[2], args[3], "", "", args[4])
	},
	// ramp FILE N PREFIX STEP SUFFIX: PREFIX, the N increasing numbers
	// STEP, 2 STEP, ..., N STEP separated by commas, SUFFIX (escapes as in
	// repeat): N output times of an ODE, say
	"ramp": func(dir string, args []string) error {
		if len(args) != 5 {
			return errors.New("want ramp FILE N PREFIX STEP SUFFIX")
		}
		n, err := strconv.Atoi(args[1])
		if err != nil {
			return err
		}
		step, err := strconv.ParseFloat(args[3], 64)
		if err != nil {
			return err
		}
		un := genEscapes
		var b strings.Builder
		b.WriteString(un.Replace(args[2]))
		for i := 1; i <= n; i++ {
			if i > 1 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(float64(i)*step, 'g', -1, 64))
		}
		b.WriteString(un.Replace(args[4]))
		return os.WriteFile(filepath.Join(dir, args[0]), []byte(b.String()), 0o644)
	},
	// nest FILE N PREFIX OPEN MIDDLE CLOSE SUFFIX: PREFIX, N times OPEN,
	// MIDDLE, N times CLOSE, SUFFIX (escapes as in repeat)
	"nest": func(dir string, args []string) error {
		if len(args) != 7 {
			return errors.New("want nest FILE N PREFIX OPEN MIDDLE CLOSE SUFFIX")
		}
		return writeNested(dir, args[0], args[1], args[2], args[3], args[4], args[5], args[6])
	},
	// garbage FILE N: N pseudo-random bytes (a fixed sequence)
	"garbage": func(dir string, args []string) error {
		if len(args) != 2 {
			return errors.New("want garbage FILE N")
		}
		n, err := strconv.Atoi(args[1])
		if err != nil {
			return err
		}
		b := make([]byte, n)
		x := uint32(2463534242)
		for i := range b {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			b[i] = byte(x)
		}
		return os.WriteFile(filepath.Join(dir, args[0]), b, 0o644)
	},
	// mkdir NAME: a directory where a file is expected
	"mkdir": func(dir string, args []string) error {
		if len(args) != 1 {
			return errors.New("want mkdir NAME")
		}
		return os.Mkdir(filepath.Join(dir, args[0]), 0o755)
	},
	// unreadable FILE: the file, made unreadable (skipped as root)
	"unreadable": func(dir string, args []string) error {
		if len(args) != 1 {
			return errors.New("want unreadable FILE")
		}
		return os.Chmod(filepath.Join(dir, args[0]), 0)
	},
}
