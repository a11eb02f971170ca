package main

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mscppl/mscppl/internal/testtier"
	"github.com/stretchr/testify/require"
)

// TestOutSetSignals sends SIGINT, SIGTERM and SIGKILL at random points
// (a fixed seed) of `mscppl run --out DIR` into a folder holding a
// previous run: from the start of the process through the fit to the
// writing of the files. After each, DIR holds the previous set whole or
// the new one whole, never a mix, with the user's files; after SIGINT and
// SIGTERM the status is 130 or 143 with the new set written (or the
// process ended by the signal before it installed its handler, the
// previous set kept), and no temporary folder is left; after SIGKILL the
// next run's recovery removes the killed run's folder.
func TestOutSetSignals(t *testing.T) {
	// 12 points per signal in the long tier (37 runs, about 25 s), 4 in the
	// fast tier (13 runs): two at a time into the fit, two while writing
	trials := 12
	if !testtier.Long() {
		trials = 4
	}
	bin := buildBinary(t)
	args := func(dir string, seed string) []string {
		return []string{"run", "../../examples/probit_pima.msc", "../../examples/data/pima.csv", "--iters", "1000", "--fixed", "--quiet", "--out", dir, "--seed", seed}
	}
	base := filepath.Join(t.TempDir(), "out")
	out, err := exec.Command(bin, args(base, "1")...).CombinedOutput()
	require.NoError(t, err, string(out))
	require.NoError(t, os.WriteFile(filepath.Join(base, "notes.txt"), []byte("my notes\n"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(base, "plots"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, "plots", "a.svg"), []byte("<svg/>"), 0o644))
	prev := readSet(t, base)

	rng := rand.New(rand.NewPCG(25, 5))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		var kept, replaced, signalled, midWrite int
		for trial := range trials {
			dir := filepath.Join(t.TempDir(), "out")
			require.NoError(t, os.CopyFS(dir, os.DirFS(base)))
			cmd := exec.Command(bin, args(dir, "2")...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			// half the points at a random time from the start of the
			// process into the fit, half when the temporary folder holds j
			// entries (the writing; the files are written after the fit,
			// whose end the time cannot target)
			var what string
			if trial%2 == 0 {
				delay := time.Duration(rng.Float64() * float64(700*time.Millisecond))
				what = sig.String() + " after " + delay.String()
				select {
				case <-time.After(delay):
				case err := <-exited:
					exited <- err
				}
			} else {
				// (the set has 10 files; past 10 the folder holds the
				// previous set and the user's entries, after the swap)
				j := 1 + rng.IntN(12)
				what = sig.String() + " at the file " + strconv.Itoa(j) + " of the set"
				waitFiles(filepath.Dir(dir), tmpPrefix("out"), j, exited)
			}
			_ = cmd.Process.Signal(sig) // the run may have ended
			err := <-exited
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if sig == syscall.SIGKILL {
				// a write the kill cut short leaves files in the run's folder
				left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), tmpPrefix("out")+"*", "*"))
				if len(left) > 0 {
					midWrite++
				}
				recoverOutSets(dir) // what the next run into dir does first
			}
			switch {
			case ws.Signaled():
				signalled++
				require.Equal(t, sig, ws.Signal(), what)
			case sig == syscall.SIGKILL:
				require.NoError(t, err, "%s: %s", what, stderr.String())
			default:
				if ws.ExitStatus() == 0 { // the run ended before the signal
					break
				}
				require.Equal(t, 128+int(sig), ws.ExitStatus(), "%s: %s", what, stderr.String())
				require.Contains(t, stderr.String(), "mscppl: interrupted at iteration ", what)
				require.Equal(t, uint64(2), readSet(t, dir).Seed, "%s: the summary of the interrupted run was not written", what)
			}
			m := readSet(t, dir)
			if m.Seed == 1 {
				require.Equal(t, prev.SetID, m.SetID, what)
				kept++
			} else {
				require.Equal(t, uint64(2), m.Seed, what)
				replaced++
			}
			userFilesKept(t, dir)
			noTempFolders(t, dir)
			if sig != syscall.SIGKILL && ws.Signaled() {
				require.Equal(t, prev.SetID, m.SetID, "%s: ended by the signal, yet the set changed", what)
			}
		}
		t.Logf("%v: %d times the previous set kept, %d times the new set; %d ended by the signal, %d while writing", sig, kept, replaced, signalled, midWrite)
		if sig == syscall.SIGKILL {
			require.Positive(t, kept, "no kill came before the set was in place")
			require.Positive(t, midWrite, "no kill came while the set was written")
		} else {
			require.Positive(t, replaced, "%v: no run got as far as writing its set", sig)
		}
	}
}

// waitFiles returns when a temporary folder of a set (prefix, in parent)
// holds j entries, or when the run has exited (a value on exited, put
// back).
func waitFiles(parent, prefix string, j int, exited chan error) {
	for {
		select {
		case err := <-exited:
			exited <- err
			return
		default:
		}
		dirs, _ := filepath.Glob(filepath.Join(parent, prefix+"*"))
		for _, d := range dirs {
			if es, _ := os.ReadDir(d); len(es) >= j {
				return
			}
		}
		time.Sleep(100 * time.Microsecond)
	}
}
