package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// longSolveModel is an ODE whose every solve takes minutes: a fast
// oscillator over 10^5 time units, to 1e-10 by the order-2 stiff method,
// with a budget of 10^9 steps (issue 36: such a run ignored SIGTERM for
// 12 minutes, the signal waiting for the solve in progress).
const longSolveModel = `functions {
  osc(t: real, y: vector, w: real) -> vector {
    return append_row(y[2], -w * w * y[1])
  }
}
data {
  ts: vector[N]
  y: vector[N]
}
latent {
  w: real<lower=50, upper=150>
}
model {
  z: matrix[N, 2] = ode_bdf_tol(osc, rep_vector(1, 2), 0, ts, 1e-10, 1e-10, 1000000000, w)
  y ~ normal(z[:, 1], 0.1)
}
`

// TestSignalStopsLongSolve: SIGTERM and SIGINT sent to a run in the
// middle of such a solve stop it within a second: the solve stops at its
// next step, the run reports its interrupted verdict with q's own
// marginals (the PSIS check would wait for more solves) and exits with
// 128 + the signal's number.
func TestSignalStopsLongSolve(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "osc.msc"), []byte(longSolveModel), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "osc.json"), []byte(`{"ts": [1000, 50000, 100000], "y": [0.4, 0.15, 0.05]}`), 0o644))
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "run", "osc.msc", "osc.json", "--iters", "20", "--draws", "100")
			cmd.Dir = dir
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())
			time.Sleep(500 * time.Millisecond)
			require.NoError(t, cmd.Process.Signal(c.sig))
			sent := time.Now()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("still running 10 s after %v; stderr:\n%s", c.sig, stderr.String())
			}
			took := time.Since(sent)
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, stderr.String())
			require.Equal(t, c.code, exit.ExitCode(), stderr.String())
			require.Less(t, took, time.Second, "stopped %v after %v", took, c.sig)
			require.Regexp(t, `mscppl: interrupted at iteration \d+; reporting the result so far \(not converged\)`, stderr.String())
			require.Regexp(t, `verdict: interrupted at iteration \d+, NOT converged.*the summaries are q's own marginals`, stdout.String())
			require.NotContains(t, stdout.String(), "failed on", "a solve cut short by the signal is not counted as a failure")
		})
	}
}
