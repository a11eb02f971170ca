package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mscppl/mscppl/infer"

	"github.com/stretchr/testify/require"
)

// TestInterruptLeavesCompleteFiles sends SIGINT, then SIGTERM, to a
// running `mscppl run --out DIR` half-way: the run stops, reports its
// result so far as not converged, exits with 130 (SIGINT) or 143
// (SIGTERM), and DIR holds complete files (or none), never a truncated
// one.
func TestInterruptLeavesCompleteFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(c.sig.String(), func(t *testing.T) { interruptRun(t, bin, c.sig, c.code) })
	}
}

func interruptRun(t *testing.T, bin string, sig syscall.Signal, code int) {
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(bin, "run", "../../examples/probit_pima.msc", "../../examples/data/pima.csv", "--iters", "10000000", "--fixed", "--out", out, "--json")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	time.Sleep(1500 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(sig))
	var exit *exec.ExitError
	require.ErrorAs(t, cmd.Wait(), &exit)
	require.Equal(t, code, exit.ExitCode(), stderr.String())
	var sum infer.Summary
	require.NoError(t, json.Unmarshal([]byte(stdout.String()), &sum))
	require.False(t, sum.Converged)
	require.Less(t, sum.Iterations, 10000000)
	require.Regexp(t, `(^|\n)mscppl: interrupted at iteration \d+; reporting the result so far \(not converged\)\n`, stderr.String())
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	for _, e := range entries {
		require.False(t, strings.HasPrefix(e.Name(), "."), "temporary file %s left behind", e.Name())
		b, err := os.ReadFile(filepath.Join(out, e.Name()))
		require.NoError(t, err)
		switch filepath.Ext(e.Name()) {
		case ".json":
			var v any
			require.NoError(t, json.Unmarshal(b, &v), e.Name())
		case ".csv":
			var lines []string // CmdStan's comment lines (output_N.csv) aside
			for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
				if !strings.HasPrefix(l, "#") {
					lines = append(lines, l)
				}
			}
			n := strings.Count(lines[0], ",")
			for _, l := range lines {
				require.Equal(t, n, strings.Count(l, ","), "%s has a ragged line", e.Name())
			}
			if e.Name() == "draws.csv" { // the equal-weight resample: --draws rows
				require.Len(t, lines, infer.DefaultDraws+1)
			}
		}
	}
}

// TestInterruptStartsFreshLine: after Ctrl-C the terminal shows ^C at the
// end of its current line, so the report starts with a newline on the
// stream that is a terminal (stderr first), then says where the run
// stopped on a line of its own; without a terminal no blank line is added.
func TestInterruptStartsFreshLine(t *testing.T) {
	for _, c := range []struct {
		name             string
		ttyOut, ttyErr   bool
		outNL, errPrefix bool
	}{
		{"no terminal", false, false, false, false},
		{"stdout a terminal", true, false, true, false},
		{"stderr a terminal", false, true, false, true},
		{"both terminals", true, true, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			time.AfterFunc(200*time.Millisecond, cancel)
			e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, tty: func(w io.Writer) bool {
				return (w == &out && c.ttyOut) || (w == &errb && c.ttyErr)
			}}
			code := runContext(ctx, []string{"run", "../../examples/normal_mean.msc", "../../examples/data/normal_mean.csv",
				"--iters", "100000000", "--fixed", "--draws", "200"}, e)
			require.Equal(t, 0, code, errb.String())
			msg := "mscppl: interrupted at iteration "
			if c.errPrefix {
				msg = "\n" + msg
			}
			require.True(t, strings.HasPrefix(errb.String(), msg), "stderr: %q", errb.String())
			require.Regexp(t, `^mscppl: interrupted at iteration \d+; reporting the result so far \(not converged\)$`,
				strings.Split(strings.TrimPrefix(errb.String(), "\n"), "\n")[0])
			first := "../../examples/normal_mean.msc: MSC"
			if c.outNL {
				first = "\n" + first
			}
			require.True(t, strings.HasPrefix(out.String(), first), "stdout: %q", out.String())
			require.Regexp(t, `(?m)^verdict: interrupted at iteration \d+, NOT converged( \(\d+ warnings\))?: `, out.String()) // a warning or not: the interrupt comes when it comes
			require.NotContains(t, out.String(), "(0 warnings)")
		})
	}
}

// The mscppl binary that the tests which run it as a user would (signals,
// memory limits, the catalogue) share: built once per test process, on
// first use, into binDir (made and removed by TestMain).
var (
	binDir   string
	binOnce  sync.Once
	binPath  string
	binBuild error
)

// buildBinary returns the path of the shared mscppl binary, building it on
// the first call.
func buildBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		bin := filepath.Join(binDir, "mscppl")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Stderr = os.Stderr
		if binBuild = build.Run(); binBuild == nil {
			binPath = bin
		}
	})
	if binBuild != nil {
		t.Fatalf("go build: %v", binBuild)
	}
	return binPath
}
