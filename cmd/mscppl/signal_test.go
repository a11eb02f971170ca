package main

import (
	"encoding/json"
	"github.com/mscppl/mscppl/infer"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestInterruptLeavesCompleteFiles sends SIGINT to a running
// `mscppl run --out DIR` half-way: the run stops, reports its result so
// far as not converged, and DIR holds complete files (or none), never a
// truncated one.
func TestInterruptLeavesCompleteFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "mscppl")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(bin, "run", "../../examples/probit_pima.msc", "../../examples/data/pima.csv", "--iters", "10000000", "--fixed", "--out", out, "--json")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	require.NoError(t, cmd.Start())
	time.Sleep(1500 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	require.NoError(t, cmd.Wait())
	var sum infer.Summary
	require.NoError(t, json.Unmarshal([]byte(stdout.String()), &sum))
	require.False(t, sum.Converged)
	require.Less(t, sum.Iterations, 10000000)
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
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			n := strings.Count(lines[0], ",")
			for _, l := range lines {
				require.Equal(t, n, strings.Count(l, ","), "%s has a ragged line", e.Name())
			}
			if e.Name() == "draws.csv" {
				require.Len(t, lines, sum.Draws+1)
			}
		}
	}
}
