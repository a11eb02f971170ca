package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The files of `mscppl run --out DIR` are one set (docs/outputs.md, "The
// files of --out DIR"): they are written into a fresh folder beside DIR (same parent,
// so renames stay on one file system), each file fsynced, manifest.json
// last, and the folder then takes DIR's place in one step. On Linux that
// step is renameat2(RENAME_EXCHANGE), which swaps the two folders
// atomically, so a signal, a kill, a full disk or a crash leaves DIR
// holding the previous set or the new one, whole, never a mix. Where the
// exchange is unavailable (another system, a file system without it) the
// step is two renames (DIR aside, the new folder in), and a crash between
// them leaves DIR missing with the previous set beside it, which the next
// run into DIR puts back first. The entries of DIR that mscppl run did not
// write (notes, pictures of mscppl plot, folders) are moved into the new
// set after the swap, so they survive. The temporary folders are named
// .BASE.mscppl-PID-RANDOM; one left by a process that no longer runs (a
// kill) is removed by the next run into DIR.

// manifestName is the set's manifest, written last: its files, their
// sizes and SHA-256 sums, and the set's id (a hash of those).
const manifestName = "manifest.json"

// outWrite writes a file's bytes for the output layer. Tests replace it to
// inject write failures (outset_test.go); nothing else sets it.
var outWrite = (*os.File).Write

// exchangeFolders is exchange (outset_linux.go). Tests replace it with one
// returning errNoExchange to run the two-rename swap of other systems
// (outset_test.go); nothing else sets it.
var exchangeFolders = exchange

// outSet is one run's set of output files, being written.
type outSet struct {
	dir, tmp    string
	files       []manifestFile
	model, data string // the run's inputs, as the manifest names them
	// writer is the command writing the set, for manifest.json ("" is
	// run)
	writer string
}

// manifestFile is one file of a set, as manifest.json lists it.
type manifestFile struct {
	Name   string `json:"name"`
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// manifest is manifest.json.
type manifest struct {
	Writer string `json:"writer"`
	SetID  string `json:"set_id"`
	Seed   uint64 `json:"seed"`
	// Model and Data are the run's model and data files, relative to the
	// folder holding the manifest (absolute when no relative path leads
	// there), so that plot finds the model from any working directory.
	Model string         `json:"model,omitempty"`
	Data  string         `json:"data,omitempty"`
	Files []manifestFile `json:"files"`
}

// setInputs records the run's model and data files for the manifest,
// relative to the set's folder.
func (s *outSet) setInputs(model, data string) {
	s.model, s.data = relativeTo(s.dir, model), relativeTo(s.dir, data)
}

// relativeTo is path relative to dir, or absolute when there is no such
// path; "" stays "".
func relativeTo(dir, path string) string {
	if path == "" {
		return ""
	}
	ap, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	ad, err := filepath.Abs(dir)
	if err != nil {
		return ap
	}
	if rel, err := filepath.Rel(ad, ap); err == nil {
		return rel
	}
	return ap
}

// readManifestInputs returns the model and data files named by dir's
// manifest, resolved against dir ("" when there is no manifest or it
// names none).
func readManifestInputs(dir string) (model, data string) {
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return "", ""
	}
	var m manifest
	if json.Unmarshal(b, &m) != nil {
		return "", ""
	}
	at := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	return at(m.Model), at(m.Data)
}

// setFiles are the files the sets of the other commands (sbc, cv and
// sweep with --out, and merge: shards.go) write into DIR.
var setFiles = map[string]bool{}

// ownedOutput reports whether name is a file mscppl run writes into DIR
// (these are replaced by each run; any other entry of DIR is the user's).
func ownedOutput(name string) bool {
	switch name {
	case "summary.json", "variational.json", "draws.csv", "psis_draws.csv", "trace.csv", manifestName:
		return true
	}
	if setFiles[name] {
		return true
	}
	if n, ok := strings.CutPrefix(name, "output_"); ok {
		n, ok = strings.CutSuffix(n, ".csv")
		_, err := strconv.Atoi(n)
		return ok && err == nil
	}
	// the temporary files of earlier versions, which wrote each file by
	// itself (.summary.json.tmp123)
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp")
}

// beginOutSet checks that dir can be written and creates the set's
// temporary folder beside it; it is called before the fit, so that a
// folder that cannot be written fails at once.
func beginOutSet(dir string) (*outSet, error) {
	dir = filepath.Clean(dir)
	fail := func(err error) error {
		return userErrorf("--out takes a folder that can be written, new or holding an earlier run's files", "cannot write the output folder %s: %v", dir, err)
	}
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		// the set takes the place of the folder the link names; the link
		// stays
		if target, err := filepath.EvalSymlinks(dir); err == nil {
			dir = target
		}
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, userErrorf("--out takes a folder, new or holding an earlier run's files", "cannot write the output folder %s: it is a file, not a folder", dir)
	}
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	if base == "" || base == "." || base == ".." || base == string(filepath.Separator) || filepath.Dir(dir) == dir {
		return nil, userErrorf("name a folder such as --out run1", "cannot write the output folder %s: it has no name of its own", dir)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fail(err)
	}
	recoverOutSets(dir)
	if _, err := os.Stat(dir); err == nil {
		// the entries of dir that are the user's move into the new set,
		// so dir itself must be writable
		probe, err := os.CreateTemp(dir, ".mscppl-probe-*")
		if err != nil {
			return nil, fail(err)
		}
		probe.Close()
		os.Remove(probe.Name())
	}
	tmp, err := os.MkdirTemp(parent, tmpPrefix(base)+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fail(err)
	}
	// the set's folder takes a file (the first write of the output layer)
	probe := filepath.Join(tmp, ".mscppl-probe")
	err = os.Chmod(tmp, 0o755)
	if err == nil {
		err = writeSynced(probe, []byte{'\n'})
	}
	if err == nil {
		err = os.Remove(probe)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fail(err)
	}
	return &outSet{dir: dir, tmp: tmp}, nil
}

// tmpPrefix is the prefix of the temporary folders of sets for the
// folder named base.
func tmpPrefix(base string) string { return "." + base + ".mscppl-" }

// write adds a file to the set, fsynced.
func (s *outSet) write(name string, data []byte) error {
	err := writeSynced(filepath.Join(s.tmp, name), data)
	if err != nil {
		return userErrorf("", "cannot write %s: %v", filepath.Join(s.dir, name), err)
	}
	sum := sha256.Sum256(data)
	s.files = append(s.files, manifestFile{Name: name, Bytes: len(data), SHA256: hex.EncodeToString(sum[:])})
	return nil
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := outWrite(f, data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// abort removes the set's temporary folder; dir keeps what it held.
// After commit there is nothing left to remove (the folder became dir, or
// held the previous set and was removed).
func (s *outSet) abort() { os.RemoveAll(s.tmp) }

// commit writes manifest.json and puts the set in dir's place. On an
// error dir holds what it held before and the temporary folder is gone.
func (s *outSet) commit(seed uint64) error {
	h := sha256.New()
	for _, f := range s.files {
		fmt.Fprintf(h, "%s %d %s\n", f.Name, f.Bytes, f.SHA256)
	}
	writer := s.writer
	if writer == "" {
		writer = "run"
	}
	m := manifest{Writer: "mscppl " + writer + " " + version, SetID: hex.EncodeToString(h.Sum(nil))[:16], Seed: seed, Model: s.model, Data: s.data, Files: s.files}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		s.abort()
		return err
	}
	if err := writeSynced(filepath.Join(s.tmp, manifestName), append(b, '\n')); err != nil {
		s.abort()
		return userErrorf("", "cannot write %s: %v", filepath.Join(s.dir, manifestName), err)
	}
	if err := syncDir(s.tmp); err != nil {
		s.abort()
		return userErrorf("", "cannot write the output folder %s: %v", s.dir, err)
	}
	if err := s.swap(); err != nil {
		s.abort()
		return userErrorf("", "cannot put the new files in the output folder %s (it keeps the previous ones): %v", s.dir, err)
	}
	syncDir(filepath.Dir(s.dir))
	return nil
}

// swap puts the temporary folder in dir's place and moves the user's
// entries of the old dir into it.
func (s *outSet) swap() error {
	fi, err := os.Lstat(s.dir)
	if errors.Is(err, os.ErrNotExist) {
		return os.Rename(s.tmp, s.dir)
	}
	if err == nil && !fi.IsDir() { // made in the meantime: never swapped away
		return fmt.Errorf("%s is no longer a folder", s.dir)
	}
	if err := exchangeFolders(s.tmp, s.dir); err == nil {
		keepUserEntries(s.tmp, s.dir) // s.tmp now holds the previous set
		os.RemoveAll(s.tmp)
		return nil
	} else if !errors.Is(err, errNoExchange) {
		return err
	}
	parent, base := filepath.Dir(s.dir), filepath.Base(s.dir)
	var old string
	old, err = os.MkdirTemp(parent, tmpPrefix(base)+"old-"+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return err
	}
	if err := os.Remove(old); err != nil { // only its name is wanted
		return err
	}
	if err := os.Rename(s.dir, old); err != nil {
		return err
	}
	if err := os.Rename(s.tmp, s.dir); err != nil {
		if rerr := os.Rename(old, s.dir); rerr != nil {
			return fmt.Errorf("%v; the previous files are in %s", err, old)
		}
		return err
	}
	keepUserEntries(old, s.dir)
	os.RemoveAll(old)
	return nil
}

// keepUserEntries moves the entries of from that mscppl run did not
// write into to, where to has no entry of that name.
func keepUserEntries(from, to string) {
	entries, _ := os.ReadDir(from)
	for _, e := range entries {
		if ownedOutput(e.Name()) || strings.HasPrefix(e.Name(), ".mscppl-probe") {
			continue
		}
		if _, err := os.Lstat(filepath.Join(to, e.Name())); errors.Is(err, os.ErrNotExist) {
			os.Rename(filepath.Join(from, e.Name()), filepath.Join(to, e.Name()))
		}
	}
}

// recoverOutSets finishes what a killed run into dir left beside it: when
// dir is missing and a previous set was set aside (the two-rename swap),
// it goes back; the user's entries in a left-over folder go back into
// dir; the folders of processes that no longer run are removed.
func recoverOutSets(dir string) {
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	prefix := tmpPrefix(base)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() {
			continue
		}
		rest, old := strings.CutPrefix(rest, "old-")
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || processRunning(pid) {
			continue
		}
		path := filepath.Join(parent, e.Name())
		if _, err := os.Lstat(dir); old && errors.Is(err, os.ErrNotExist) {
			if os.Rename(path, dir) == nil {
				continue
			}
		}
		if _, err := os.Stat(dir); err == nil {
			keepUserEntries(path, dir)
		}
		os.RemoveAll(path)
	}
	// the probe of a run killed while checking dir
	probes, _ := filepath.Glob(filepath.Join(dir, ".mscppl-probe-*"))
	for _, p := range probes {
		os.Remove(p)
	}
}

// syncDir fsyncs a folder, so that the entries written or renamed in it
// are on disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// errNoExchange: the system or file system cannot exchange two folders
// atomically.
var errNoExchange = errors.New("no atomic exchange of folders")
