package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mscppl/mscppl/lang"
	"github.com/stretchr/testify/require"
)

// TestBigModelBoundedMemory (issue 25): the binary, under a 4 GB address
// space cap (prlimit; at 2 GB the Go runtime's reservations failed with
// 0.44 GB in use), refuses a 10 MB model of 560,000 statements at once
// with the line where it crosses the 1 MB limit (it took 40 s and 6.5 GB
// before), and checks a model just under the limit within the cap.
func TestBigModelBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and parses a 1 MB model")
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit not found")
	}
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	write := func(name string, lines int) string {
		var b strings.Builder
		b.WriteString("latent { z: real }\nmodel {\n")
		for range lines {
			b.WriteString("  z ~ normal(0, 1)\n")
		}
		b.WriteString("}\n")
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
		return p
	}
	run := func(args ...string) (code int, out string, elapsed time.Duration, maxRSSKB int64) {
		cmd := exec.Command(prlimit, append([]string{"--as=4294967296", "--", bin}, args...)...)
		start := time.Now()
		b, err := cmd.CombinedOutput()
		elapsed = time.Since(start)
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return code, string(b), elapsed, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	}

	big := write("big10.msc", 560000)
	src, err := os.ReadFile(big)
	require.NoError(t, err)
	head := src[:lang.MaxSource]
	line, col := 1+bytes.Count(head, []byte{'\n'}), len(head)-bytes.LastIndexByte(head, '\n')
	code, out, elapsed, rss := run("check", big)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, fmt.Sprintf("big10.msc:%d:%d: the model file is 10.1 MB, more than the 1 MB a model file may have", line, col))
	require.NotContains(t, out, "goroutine")
	require.Less(t, elapsed, 5*time.Second)
	require.Less(t, rss, int64(200<<10), "peak RSS %d KB", rss)
	t.Logf("10 MB refused in %v, peak %d MB", elapsed, rss>>10)

	code, out, elapsed, rss = run("check", write("big1.msc", 55000))
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "graph: 55006 nodes")
	require.Less(t, elapsed, 120*time.Second)
	require.Less(t, rss, int64(1500<<10), "peak RSS %d KB", rss)
	t.Logf("1 MB checked in %v, peak %d MB", elapsed, rss>>10)
}
