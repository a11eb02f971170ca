package dataset

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/mscppl/mscppl/lang"
)

// JSONData is a data file in the JSON format of CmdStan and posteriordb: one
// object whose fields are numbers, arrays of numbers, or arrays of arrays of
// numbers (a matrix, as its rows).
type JSONData struct {
	File   string // the name used in messages
	Names  []string
	Fields map[string]*JSONField

	bom     int
	data    []byte // the file after its BOM
	dropped bool   // no text kept (a streamed file): ElemPos reads the file again
}

// JSONField is one field of a JSON data file.
type JSONField struct {
	Name string
	// Dims is nil for a scalar, [n] for an array, [rows, cols] for an array
	// of rows.
	Dims []int
	// Values holds the numbers, row-major. CmdStan's strings "NaN", "Inf"
	// and "-Inf" are NaN and infinities.
	Values []float64
	// Integer reports whether every value is a finite integer.
	Integer bool
	// Pos is the position of the field's name in the file.
	Pos lang.Pos

	d   *JSONData
	val int // the offset of the field's value in d.data
}

// Shape describes the field's shape for messages: "a number", "an array of
// 8 numbers", "an array of 3 rows of 2 numbers".
func (f *JSONField) Shape() string {
	switch len(f.Dims) {
	case 0:
		return "a number"
	case 1:
		return fmt.Sprintf("an array of %d number%s", f.Dims[0], plural(f.Dims[0]))
	}
	return fmt.Sprintf("an array of %d row%s of %d number%s", f.Dims[0], plural(f.Dims[0]), f.Dims[1], plural(f.Dims[1]))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// ElemPos is the position in the file of value i (0-based, row-major).
func (f *JSONField) ElemPos(i int) lang.Pos {
	if i < 0 || i >= len(f.Values) {
		return f.Pos
	}
	if f.d.dropped {
		raw, err := os.ReadFile(f.d.File)
		if err != nil || len(raw) < f.d.bom {
			return f.Pos
		}
		f.d.data, f.d.dropped = raw[f.d.bom:], false
	}
	return f.d.pos(leafOffset(f.d.data, f.val, i))
}

// Field returns the field called name.
func (d *JSONData) Field(name string) (*JSONField, bool) {
	f, ok := d.Fields[name]
	return f, ok
}

// Missing is the error for a field that the file lacks, with a close name
// as a hint.
func (d *JSONData) Missing(name string) *SelectError {
	hint := ""
	if s := suggest(name, d.Names); s != "" {
		hint = fmt.Sprintf("did you mean %q?", s)
	} else if len(d.Names) > 0 {
		names := append([]string(nil), d.Names...)
		sort.Strings(names)
		if len(names) > 8 {
			names = append(names[:8], "...")
		}
		hint = fmt.Sprintf("its fields are %v", names)
	}
	return selErr(hint, "%s has no field %q", d.File, name)
}

// ParseJSON parses a JSON data file; filename is used in messages only.
// Problems are reported as a lang.ErrorList (up to 10) positioned at
// file:line:col (1-based byte column; a UTF-8 byte order mark is skipped
// and does not count). Nesting deeper than two levels, ragged rows,
// strings other than "NaN", "Inf" and "-Inf", booleans, nulls and objects
// as values are errors.
//
// A valid file is read in one pass by a scanner that writes the numbers
// straight into each field's Values (a matrix's rows flattened as they
// come) and records no per-value positions: ElemPos finds a value's
// position again when a message needs it, in raw, which the returned data
// keep (ReadJSONFile's keep no text and read the file again).
// A file the scanner rejects is parsed again, token by token, from the
// field where the scanner stopped, to report all the problems with their
// positions.
func ParseJSON(filename string, raw []byte) (*JSONData, error) {
	d := &JSONData{File: filename, Fields: map[string]*JSONField{}}
	if bytes.HasPrefix(raw, []byte("\xef\xbb\xbf")) {
		d.bom = 3
	}
	d.data = raw[d.bom:]
	from, ok := scanJSON(d)
	if ok {
		return d, nil
	}
	if from == 0 {
		d.Names, d.Fields = nil, map[string]*JSONField{}
	}
	return d.tree(from)
}

// ReadJSONFile reads the JSON data file at path as ParseJSON reads its
// text, in one streaming pass through a window of jsonWindow bytes: the
// file's text is never held whole, so reading takes about the memory of
// its numbers (a 10^6 x 10 matrix: 80 MB of values, where its text is 130
// MB). The data keep no text: ElemPos reads the file again. A file the scan rejects
// is read whole and given to ParseJSON, which reports its problems. Errors
// opening or reading the file are returned as the os package gives them.
func ReadJSONFile(path string) (*JSONData, error) {
	return readStreamed(path, func(r io.Reader, size int) (*JSONData, bool, error) {
		return streamJSON(path, r, size, jsonWindow)
	}, func(raw []byte) (*JSONData, error) { return ParseJSON(path, raw) })
}

// readStreamed opens the file at path and reads it with stream (given the
// file and its size, 0 if unknown); a file stream does not accept is read
// whole and given to whole. Errors opening or reading the file are the os
// package's.
func readStreamed[T any](path string, stream func(r io.Reader, size int) (T, bool, error), whole func(raw []byte) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	size := 0
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = int(st.Size())
	}
	v, ok, err := stream(f, size)
	if err != nil {
		return zero, err
	}
	if ok {
		return v, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return zero, err
	}
	return whole(raw)
}

// jsonWindow is the window of a JSON file that ReadJSONFile holds (it
// grows for a longer token).
const jsonWindow = 1 << 16

// pos is the position of offset off (in the data after the BOM). Lines end
// at '\n' only.
func (d *JSONData) pos(off int) lang.Pos {
	off = min(max(0, off), len(d.data))
	line := bytes.Count(d.data[:off], []byte{'\n'}) + 1
	col := off - (bytes.LastIndexByte(d.data[:off], '\n') + 1) + 1
	return lang.Pos{File: d.File, Offset: d.bom + off, Line: line, Col: col}
}
