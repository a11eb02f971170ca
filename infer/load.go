package infer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/check"
	"github.com/mscppl/mscppl/ir/dataset"
	"github.com/mscppl/mscppl/ir/lower"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/lang/stan"
)

// UserError is an error caused by the user's input, with an optional hint.
type UserError struct {
	Msg  string
	Hint string
}

func (e *UserError) Error() string { return e.Msg }

// Errorf builds a *UserError.
func Errorf(hint, format string, args ...any) error {
	return &UserError{Msg: fmt.Sprintf(format, args...), Hint: hint}
}

// Model is a loaded model: its source, its data, the checked IR and the
// compiled target.
type Model struct {
	Path, DataPath string
	// Sources holds the text of the model and data files by name, for
	// printing errors with their source line. A successful Load drops the
	// data file's (as large as the data again): read it again if needed.
	Sources map[string][]byte
	File    *lang.File
	Table   *dataset.Table    // nil without a CSV data file
	JSON    *dataset.JSONData // the data file when it is JSON (*.json)
	IR      *ir.Model
	Comp    *lower.Compiled
	// data replaces the values of data variables by name after binding
	// (WithData: a data set drawn from the model); nil for the file's own
	data map[string][]float64

	// readTime and compileTime: the wall time of reading the files (the
	// data parsed) and of binding and compiling, for Summary.Timing
	readTime, compileTime time.Duration
	// compile are the options of Load's compile, which a model compiled
	// again (Rebind, WithData, a Clone that ir cannot copy) keeps
	compile lower.CompileOptions
}

// LoadOptions tune Load.
type LoadOptions struct {
	MaxNodes int // see lower.CompileOptions
}

// Load reads, parses and checks a model, binds its data (dataPath may be
// empty) and compiles it. On error, the returned Model (if not nil) still
// holds the sources read so far, for printing the error.
func Load(modelPath, dataPath string, opt ...LoadOptions) (*Model, error) {
	m := &Model{Path: modelPath, DataPath: dataPath, Sources: map[string][]byte{}}
	src, err := os.ReadFile(modelPath)
	if err != nil {
		return m, FileError(modelPath, "model", err)
	}
	return m, m.load(src, opt...)
}

// LoadSource is Load for a model given as text named name.
func LoadSource(name string, src []byte, dataPath string, opt ...LoadOptions) (*Model, error) {
	m := &Model{Path: name, DataPath: dataPath, Sources: map[string][]byte{}}
	return m, m.load(src, opt...)
}

func (m *Model) load(src []byte, opt ...LoadOptions) error {
	start := time.Now()
	src = lang.Normalize(src)
	m.Sources[m.Path] = src
	f, notes, err := ParseModel(m.Path, src)
	if err != nil {
		return err
	}
	m.File = f
	if m.DataPath != "" {
		// streamed: the text is not kept (a message that quotes a line of
		// it reads the file again)
		if IsJSON(m.DataPath) {
			m.JSON, err = dataset.ReadJSONFile(m.DataPath)
		} else {
			m.Table, err = dataset.ReadCSVFile(m.DataPath)
		}
		if err != nil {
			var lerr lang.ErrorList
			if errors.As(err, &lerr) {
				return err
			}
			return FileError(m.DataPath, "data", err)
		}
	}
	read := time.Now()
	m.readTime = read.Sub(start)
	if m.IR, err = m.BuildIR(f, m.Table); err != nil {
		if IsStan(m.Path) {
			// a Stan program's transformed parameters are in the model
			// block and again in derived: an error in them is reported once
			err = dedupe(err)
		}
		return err
	}
	if err := checkBlock(m.IR.Settings); err != nil {
		return err
	}
	m.IR.Notes = append(notes, m.IR.Notes...)
	if len(opt) > 0 {
		m.compile.MaxNodes = opt[0].MaxNodes
	}
	m.Comp, err = lower.Compile(m.IR, m.compile)
	m.compileTime = time.Since(read)
	return err
}

// IsStan reports whether a model file is read as a Stan program: its name
// ends in .stan (any case); other files are .msc.
func IsStan(path string) bool { return strings.EqualFold(filepath.Ext(path), ".stan") }

// ParseModel parses a model's text, a Stan program (package lang/stan)
// when its name ends in .stan and a .msc file otherwise, into lang's tree.
// The notes are remarks on a Stan program that are not errors, as
// file:line:col: text.
func ParseModel(path string, src []byte) (*lang.File, []string, error) {
	if !IsStan(path) {
		f, err := lang.Parse(path, src)
		return f, nil, err
	}
	f, notes, err := stan.Parse(path, src)
	var out []string
	for _, n := range notes {
		out = append(out, n.Error())
	}
	return f, out, err
}

// dedupe drops the repeats of an error list's errors (same position and
// message).
func dedupe(err error) error {
	var list lang.ErrorList
	if !errors.As(err, &list) {
		return err
	}
	seen := map[string]bool{}
	var out lang.ErrorList
	for _, e := range list {
		if k := e.Error(); !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

// Rebind returns the model compiled on another table (a subset of the rows
// for cross-validation). The result is independent of m.
func (m *Model) Rebind(t *dataset.Table) (*Model, error) {
	c := &Model{Path: m.Path, DataPath: m.DataPath, Sources: m.Sources, File: m.File, Table: t, JSON: m.JSON, data: m.data, compile: m.compile}
	var err error
	if c.IR, err = c.BuildIR(m.File, t); err != nil {
		return nil, err
	}
	c.Comp, err = lower.Compile(c.IR, c.compile)
	return c, err
}

// IsJSON reports whether a data file is read as JSON: its name ends in
// .json (any case); other files are CSV.
func IsJSON(path string) bool { return strings.EqualFold(filepath.Ext(path), ".json") }

// WithData returns the model compiled with the values of the data
// variables named in values replaced (a data set drawn from the model);
// its clones (one per chain) keep them. The result is independent of m.
func (m *Model) WithData(values map[string][]float64) (*Model, error) {
	c := *m
	c.data = values
	return c.Rebind(m.Table)
}

// build binds the model to its JSON data, or else to the table, and
// replaces the values of the data WithData gave.
func (m *Model) BuildIR(f *lang.File, t *dataset.Table) (*ir.Model, error) {
	var irm *ir.Model
	var err error
	if m.JSON != nil {
		irm, err = check.BuildJSON(f, m.JSON)
	} else {
		irm, err = check.Build(f, t)
	}
	if err == nil && m.data != nil {
		err = irm.SetData(m.data)
	}
	return irm, err
}

// Clone returns an independent copy of the model for another chain or
// worker (a compiled model is not safe for concurrent use): the compiled
// model copied (lower.Compiled.Clone), not built and compiled again, sharing
// the checked IR, the data and the constants. A model that ir cannot copy
// (one with an op that has no Clone) is compiled again. Clones of one
// model may be made at once from several goroutines, but not while m
// itself is evaluated.
func (m *Model) Clone() (*Model, error) {
	comp, ok := m.Comp.Clone()
	if !ok {
		return m.Rebind(m.Table)
	}
	return &Model{Path: m.Path, DataPath: m.DataPath, Sources: m.Sources, File: m.File, Table: m.Table, JSON: m.JSON, IR: m.IR, Comp: comp, data: m.data, compile: m.compile}, nil
}

// FileError words an error reading a user's file.
func FileError(path, what string, err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return Errorf("check the path", "cannot read the %s file %s: no such file", what, path)
	case errors.Is(err, os.ErrPermission):
		return Errorf("", "cannot read the %s file %s: permission denied", what, path)
	}
	return Errorf("", "cannot read the %s file %s: %v", what, path, err)
}

// NeedsDataFile reports whether the model file at path parses and declares
// data bound to CSV columns.
func NeedsDataFile(path string) bool {
	src, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	f, _, err := ParseModel(path, lang.Normalize(src))
	return err == nil && NeedsData(f)
}

// NeedsData reports whether a model file declares data bound to CSV
// columns (and so cannot be checked without a data file).
func NeedsData(f *lang.File) bool {
	for _, b := range f.Blocks {
		if k, _ := b.KindOf(); k != lang.BlockData {
			continue
		}
		for _, it := range b.Items {
			if it.Decl != nil && it.Decl.Init == nil {
				return true
			}
		}
	}
	return false
}
