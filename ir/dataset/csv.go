package dataset

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mscppl/mscppl/lang"
)

// Table is a numeric CSV table, stored column-major.
type Table struct {
	File   string
	Header []string
	Rows   int
	cols   [][]float64
	// line of each data row in the file (1-based), for messages
	lines []int
	// byte column of each cell of the header, for messages
}

// ReadFile reads a CSV file.
func ReadFile(p string) (*Table, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return Read(p, bytes.NewReader(b))
}

func errAt(file string, line, col int, format string, args ...any) error {
	return lang.ErrorList{lang.Errorf(lang.Pos{File: file, Line: line, Col: col}, format, args...)}
}

// Read parses a CSV with a header line. Cells must be finite numbers.
func Read(file string, r io.Reader) (*Table, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			ru, size := utf8.DecodeRune(data[off:])
			if ru == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		line := 1 + bytes.Count(data[:off], []byte{'\n'})
		col := off - bytes.LastIndexByte(data[:off], '\n')
		return nil, errAt(file, line, col, "the file is not valid UTF-8 text; save it as UTF-8")
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errAt(file, 1, 1, "empty CSV file: expected a header line with column names")
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err != nil {
		return nil, csvErr(file, err)
	}
	t := &Table{File: file, Header: header}
	seen := map[string]int{}
	for j, h := range header {
		h = strings.TrimSpace(h)
		header[j] = h
		line, col := cr.FieldPos(j)
		if h == "" {
			return nil, errAt(file, line, col, "column %d has an empty name in the header", j+1)
		}
		if k, dup := seen[h]; dup {
			return nil, errAt(file, line, col, "duplicate column name %q (columns %d and %d)", h, k+1, j+1)
		}
		seen[h] = j
	}
	t.cols = make([][]float64, len(header))
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvErr(file, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" && len(header) > 1 {
			continue // blank line
		}
		if len(rec) != len(header) {
			return nil, errAt(file, line, 1, "row %d has %d fields, the header has %d", t.Rows+1, len(rec), len(header))
		}
		for j, cell := range rec {
			_, col := cr.FieldPos(j)
			s := strings.TrimSpace(cell)
			v, perr := strconv.ParseFloat(s, 64)
			switch {
			case s == "" || strings.EqualFold(s, "NA") || strings.EqualFold(s, "NaN") || (perr == nil && math.IsNaN(v)):
				return nil, errAt(file, line, col, "row %d, column %q: missing value %q; mscppl has no model for missing data, remove the row or impute it", t.Rows+1, header[j], s)
			case perr != nil && !errors.Is(perr, strconv.ErrRange):
				return nil, errAt(file, line, col, "row %d, column %q: %q is not a number", t.Rows+1, header[j], s)
			case math.IsInf(v, 0):
				return nil, errAt(file, line, col, "row %d, column %q: %q is not a finite number", t.Rows+1, header[j], s)
			}
			t.cols[j] = append(t.cols[j], v)
		}
		t.lines = append(t.lines, line)
		t.Rows++
	}
	if t.Rows == 0 {
		return nil, errAt(file, 1, 1, "no data rows: the CSV has a header but nothing below it")
	}
	return t, nil
}

func csvErr(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := pe.Err.Error()
		if errors.Is(pe.Err, csv.ErrBareQuote) || errors.Is(pe.Err, csv.ErrQuote) {
			msg = "malformed quoted field (a \" inside a field must be doubled, and quotes must close)"
		}
		return errAt(file, pe.Line, pe.Column, "%s", msg)
	}
	return err
}

// Index returns the position of a column, or -1.
func (t *Table) Index(name string) int {
	for j, h := range t.Header {
		if h == name {
			return j
		}
	}
	return -1
}

// Column returns a column's values.
func (t *Table) Column(name string) ([]float64, bool) {
	j := t.Index(name)
	if j < 0 {
		return nil, false
	}
	return t.cols[j], true
}

// Col returns column j.
func (t *Table) Col(j int) []float64 { return t.cols[j] }

// Line returns the file line of data row i (0-based).
func (t *Table) Line(i int) int { return t.lines[i] }

// SelKind is the kind of a column selection.
type SelKind int

const (
	SelColumn    SelKind = iota // one named column
	SelGlob                     // header names matching a glob, in header order
	SelAllExcept                // every column but the named ones
)

// Selection chooses columns of a table.
type Selection struct {
	Kind    SelKind
	Names   []string
	Pattern string
}

// IsGlob reports whether a column name given by the user is a glob.
func IsGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// Select resolves a selection to column indices. Errors are plain
// messages; the caller adds the model's position.
func (t *Table) Select(sel Selection) ([]int, error) {
	switch sel.Kind {
	case SelColumn:
		name := sel.Names[0]
		j := t.Index(name)
		if j < 0 {
			return nil, t.missing(name)
		}
		return []int{j}, nil
	case SelGlob:
		if _, err := path.Match(sel.Pattern, ""); err != nil {
			return nil, fmt.Errorf("bad column pattern %q: %v", sel.Pattern, err)
		}
		var out []int
		for j, h := range t.Header {
			if ok, _ := path.Match(sel.Pattern, h); ok {
				out = append(out, j)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no column of %s matches %q", t.File, sel.Pattern)
		}
		return out, nil
	}
	excl := map[string]bool{}
	for _, n := range sel.Names {
		if t.Index(n) < 0 {
			return nil, t.missing(n)
		}
		excl[n] = true
	}
	var out []int
	for j, h := range t.Header {
		if !excl[h] {
			out = append(out, j)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no columns of %s are left after the exclusions", t.File)
	}
	return out, nil
}

func (t *Table) missing(name string) error {
	msg := fmt.Sprintf("%s has no column %q", t.File, name)
	if s := lang.Suggest(name, t.Header); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	} else if len(t.Header) <= 12 {
		msg += fmt.Sprintf("; its columns are %s", strings.Join(quoteAll(t.Header), ", "))
	}
	return errors.New(msg)
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Quote(x)
	}
	return out
}

// Matrix returns the selected columns as a row-major Rows x len(cols) slice.
func (t *Table) Matrix(cols []int) []float64 {
	out := make([]float64, t.Rows*len(cols))
	for k, j := range cols {
		for i, v := range t.cols[j] {
			out[i*len(cols)+k] = v
		}
	}
	return out
}

// Subset returns a table with the given rows (0-based), for
// cross-validation splits.
func (t *Table) Subset(rows []int) *Table {
	s := &Table{File: t.File, Header: t.Header, Rows: len(rows), cols: make([][]float64, len(t.cols)), lines: make([]int, len(rows))}
	for j := range t.cols {
		s.cols[j] = make([]float64, len(rows))
		for k, i := range rows {
			s.cols[j][k] = t.cols[j][i]
		}
	}
	for k, i := range rows {
		s.lines[k] = t.lines[i]
	}
	return s
}

// Standardize centres and scales each column of a row-major matrix (sample
// sd with n-1). A constant column becomes zeros, never NaN.
func Standardize(data []float64, rows, cols int) {
	for j := 0; j < cols; j++ {
		m := 0.0
		for i := 0; i < rows; i++ {
			m += data[i*cols+j]
		}
		m /= float64(rows)
		ss := 0.0
		for i := 0; i < rows; i++ {
			d := data[i*cols+j] - m
			ss += d * d
		}
		sd := 0.0
		if rows > 1 {
			sd = math.Sqrt(ss / float64(rows-1))
		}
		for i := 0; i < rows; i++ {
			if sd > 0 {
				data[i*cols+j] = (data[i*cols+j] - m) / sd
			} else {
				data[i*cols+j] = 0
			}
		}
	}
}
