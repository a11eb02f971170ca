package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The fault tests of the output layer (outset.go): whatever fails, DIR
// holds the previous run's set or the new one, whole.

var outArgs = []string{"run", "../../examples/normal_mean.msc", "../../examples/data/normal_mean.csv", "--quiet", "--draws", "300"}

// readSet checks that dir holds one whole set and returns its manifest:
// every file mscppl writes that dir holds is listed in manifest.json with
// its exact SHA-256 sum, summary.json and every chain file carry the
// manifest's seed, and no temporary entry is left in dir.
func readSet(t *testing.T, dir string) manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	require.NoError(t, err, "no manifest: not a whole set")
	var m manifest
	require.NoError(t, json.Unmarshal(b, &m))
	listed := map[string]bool{manifestName: true}
	for _, f := range m.Files {
		listed[f.Name] = true
		data, err := os.ReadFile(filepath.Join(dir, f.Name))
		require.NoError(t, err, "a file of the set is missing")
		sum := sha256.Sum256(data)
		require.Equal(t, f.SHA256, hex.EncodeToString(sum[:]), "%s is not the manifest's (a mix of two runs)", f.Name)
		if strings.HasPrefix(f.Name, "output_") {
			require.Contains(t, string(data), fmt.Sprintf("\n#   seed = %d\n", m.Seed), f.Name)
		}
	}
	require.True(t, listed["summary.json"] && listed["variational.json"] && listed["draws.csv"], "files: %v", m.Files)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.True(t, !ownedOutput(e.Name()) || listed[e.Name()], "%s is not of the set (a mix of two runs)", e.Name())
		require.False(t, strings.HasPrefix(e.Name(), ".mscppl"), "%s left in %s", e.Name(), dir)
	}
	var s struct {
		Seed uint64 `json:"seed"`
	}
	b, err = os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	require.Equal(t, m.Seed, s.Seed, "summary.json is of another run than the manifest")
	return m
}

// noTempFolders checks that no temporary folder of a set for dir is left.
func noTempFolders(t *testing.T, dir string) {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(filepath.Dir(dir), tmpPrefix(filepath.Base(dir))+"*"))
	require.NoError(t, err)
	require.Empty(t, left, "temporary folders left behind")
}

// previousRun writes a run with seed 1 into parent/out with a note of the
// user's beside its files and returns the folder and its set.
func previousRun(t *testing.T) (string, manifest) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	code, _, stderr := mscppl(append(outArgs, "--out", dir, "--seed", "1")...)
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("my notes\n"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "plots"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "plots", "a.svg"), []byte("<svg/>"), 0o644))
	m := readSet(t, dir)
	require.Equal(t, uint64(1), m.Seed)
	return dir, m
}

// userFilesKept checks that the entries previousRun added survive.
func userFilesKept(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "notes.txt"))
	require.NoError(t, err)
	require.Equal(t, "my notes\n", string(b))
	b, err = os.ReadFile(filepath.Join(dir, "plots", "a.svg"))
	require.NoError(t, err)
	require.Equal(t, "<svg/>", string(b))
}

// failWrite makes the k-th write of the output layer (1 the first) fail
// with ENOSPC, for the rest of the test.
func failWrite(t *testing.T, k int) {
	n := 0
	outWrite = func(f *os.File, b []byte) (int, error) {
		n++
		if n == k {
			return 0, syscall.ENOSPC
		}
		return f.Write(b)
	}
	t.Cleanup(func() { outWrite = (*os.File).Write })
}

// TestOutSetNewRun: a second run replaces the set whole (no chain file
// of the first run with more chains is left) and keeps the user's files.
func TestOutSetNewRun(t *testing.T) {
	dir, prev := previousRun(t)
	code, _, stderr := mscppl(append(outArgs, "--out", dir, "--seed", "2", "--chains", "2")...)
	require.Equal(t, 0, code, stderr)
	m := readSet(t, dir)
	require.Equal(t, uint64(2), m.Seed)
	require.NotEqual(t, prev.SetID, m.SetID)
	require.NoFileExists(t, filepath.Join(dir, "output_3.csv"))
	userFilesKept(t, dir)
	noTempFolders(t, dir)
}

// TestOutSetWriteFailure injects a full disk into each write of the
// output layer in turn: the run fails with status 1 and a message naming
// the file, DIR keeps the previous set whole with the user's files, and
// no temporary folder is left. The first write is the check of the
// folder before the fit: that failure comes before any sampling.
func TestOutSetWriteFailure(t *testing.T) {
	dir, prev := previousRun(t)
	names := []string{}
	for _, f := range prev.Files {
		names = append(names, f.Name)
	}
	names = append(names, manifestName)
	for k := 1; k <= len(names)+1; k++ {
		failWrite(t, k)
		ctx, cancel := context.WithCancel(context.Background())
		var out, errb bytes.Buffer
		args := append(outArgs, "--out", dir, "--seed", "2")
		var want string
		if k == 1 {
			args = append(args, "--iters", "100000000", "--fixed") // hours, were the fit to start
			time.AfterFunc(60*time.Second, cancel)
			want = "^mscppl: cannot write the output folder " + regexp.QuoteMeta(dir) + ": .*no space left on device\n"
		} else {
			want = "^mscppl: cannot write " + regexp.QuoteMeta(filepath.Join(dir, names[k-2])) + ": no space left on device\n"
		}
		code := runContext(ctx, args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
		require.Nil(t, ctx.Err(), "the fit started before the folder was checked")
		cancel()
		require.Equal(t, 1, code, "write %d: %s", k, errb.String())
		require.Regexp(t, want, errb.String(), "write %d", k)
		require.Empty(t, out.String(), "write %d: a failed run printed a summary", k)
		m := readSet(t, dir)
		require.Equal(t, prev.SetID, m.SetID, "write %d: the previous set changed", k)
		userFilesKept(t, dir)
		noTempFolders(t, dir)
	}
}

// TestOutSetReadOnly: a read-only DIR, and a read-only parent when DIR
// does not exist, fail at once with status 1 and a message naming the
// folder; DIR keeps the previous set. As root chmod does not deny, so the
// test is skipped (TestOutSetWriteFailure's first case covers the same
// property through an injected failure).
func TestOutSetReadOnly(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only folders; TestOutSetWriteFailure covers the check")
	}
	dir, prev := previousRun(t)
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	code, out, stderr := mscppl(append(outArgs, "--out", dir, "--seed", "2")...)
	require.Equal(t, 1, code, stderr)
	require.Regexp(t, "^mscppl: cannot write the output folder "+regexp.QuoteMeta(dir)+": .*permission denied", stderr)
	require.Empty(t, out)
	require.Equal(t, prev.SetID, readSet(t, dir).SetID)
	noTempFolders(t, dir)

	parent := filepath.Join(t.TempDir(), "ro")
	require.NoError(t, os.Mkdir(parent, 0o555))
	t.Cleanup(func() { os.Chmod(parent, 0o755) })
	code, _, stderr = mscppl(append(outArgs, "--out", filepath.Join(parent, "new"))...)
	require.Equal(t, 1, code, stderr)
	require.Regexp(t, "^mscppl: cannot write the output folder "+regexp.QuoteMeta(filepath.Join(parent, "new"))+": .*permission denied", stderr)
}

// TestOutSetRecovers: a run killed while writing leaves its temporary
// folder beside DIR; the next run removes it, and puts back the user's
// entries a swap had moved into it.
func TestOutSetRecovers(t *testing.T) {
	dir, prev := previousRun(t)
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	stale := filepath.Join(filepath.Dir(dir), fmt.Sprintf("%s%d-123", tmpPrefix("out"), dead.Process.Pid))
	require.NoError(t, os.Mkdir(stale, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(stale, "draws.csv"), []byte("x\n1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(stale, "more-notes.txt"), []byte("kept"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(stale, ".mscppl-probe"), []byte("\n"), 0o644)) // killed at the check
	running := filepath.Join(filepath.Dir(dir), fmt.Sprintf("%s%d-456", tmpPrefix("out"), os.Getpid()))
	require.NoError(t, os.Mkdir(running, 0o755))
	code, _, stderr := mscppl(append(outArgs, "--out", dir, "--seed", "2")...)
	require.Equal(t, 0, code, stderr)
	require.NotEqual(t, prev.SetID, readSet(t, dir).SetID)
	userFilesKept(t, dir)
	require.FileExists(t, filepath.Join(dir, "more-notes.txt"))
	require.NoDirExists(t, stale)
	require.DirExists(t, running, "the folder of a running process was removed")
}

// TestOutSetNotAFolder: --out naming a file, or a path under a file,
// fails before the fit with status 1 and a message naming the folder.
func TestOutSetNotAFolder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "model.msc")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	for _, c := range []struct{ out, msg string }{
		{file, ": it is a file, not a folder\n"},
		{filepath.Join(file, "sub"), ": mkdir " + regexp.QuoteMeta(file) + ": not a directory\n"},
	} {
		code, out, stderr := mscppl(append(outArgs, "--out", c.out)...)
		require.Equal(t, 1, code, stderr)
		require.Regexp(t, "^mscppl: cannot write the output folder "+regexp.QuoteMeta(c.out)+c.msg, stderr)
		require.Empty(t, out)
	}
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, "x", string(b))
}

// TestOutSetTwoRenames runs the swap of systems without an atomic
// exchange (DIR aside, the new folder in): the new set replaces the
// previous one whole with the user's files; and a crash between the two
// renames (DIR missing, the previous set aside under the name of a
// process that no longer runs) is undone by the next run's recovery,
// which puts the previous set back whole.
func TestOutSetTwoRenames(t *testing.T) {
	exchangeFolders = func(a, b string) error { return errNoExchange }
	t.Cleanup(func() { exchangeFolders = exchange })
	dir, prev := previousRun(t)
	code, _, stderr := mscppl(append(outArgs, "--out", dir, "--seed", "2")...)
	require.Equal(t, 0, code, stderr)
	m := readSet(t, dir)
	require.Equal(t, uint64(2), m.Seed)
	userFilesKept(t, dir)
	noTempFolders(t, dir)

	dir, prev = previousRun(t)
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	aside := filepath.Join(filepath.Dir(dir), fmt.Sprintf("%sold-%d-789", tmpPrefix("out"), dead.Process.Pid))
	require.NoError(t, os.Rename(dir, aside))
	recoverOutSets(dir)
	require.Equal(t, prev.SetID, readSet(t, dir).SetID)
	userFilesKept(t, dir)
	noTempFolders(t, dir)
}

// TestOutSetSymlink: when DIR is a link to a folder, the set takes the
// place of that folder and the link stays a link.
func TestOutSetSymlink(t *testing.T) {
	target, prev := previousRun(t)
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(target, link))
	code, _, stderr := mscppl(append(outArgs, "--out", link, "--seed", "2")...)
	require.Equal(t, 0, code, stderr)
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	require.NotZero(t, fi.Mode()&os.ModeSymlink, "the link was replaced by a folder")
	m := readSet(t, target)
	require.NotEqual(t, prev.SetID, m.SetID)
	require.Equal(t, uint64(2), m.Seed)
	userFilesKept(t, target)
	noTempFolders(t, target)
}
