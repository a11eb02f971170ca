package dataset

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mscppl/mscppl/lang"
)

// maxErrors bounds the number of cell and row errors Read collects before
// it stops.
const maxErrors = 10

// Table is a numeric CSV table, stored column-major.
type Table struct {
	File   string   // the name used in messages
	Header []string // column names, in file order, surrounding spaces trimmed
	Rows   int      // number of data rows

	cols  [][]float64 // cols[j][i] is row i of column j
	lines []int       // lines[i] is the file line (1-based) where data row i starts
}

// Read parses a comma-separated file whose first line names the columns and
// whose other lines hold finite numbers. filename is used in messages only.
//
// Problems in the data are reported as a lang.ErrorList (up to 10 of them)
// whose positions are file:line:col, with the physical line of the file
// (the header is line 1, and a quoted field that spans lines counts all of
// them) and the 1-based byte column of the offending field. A UTF-8 byte
// order mark is skipped and does not count towards the column. Errors from
// r itself are returned as they are, prefixed with filename. The contents
// of a *bytes.Buffer (any reader with a Bytes method) are read in place,
// not copied, and not changed.
func Read(filename string, r io.Reader) (*Table, error) {
	var raw []byte
	if b, ok := r.(interface{ Bytes() []byte }); ok {
		raw = b.Bytes() // a *bytes.Buffer: its contents, not a copy (a large file is not held twice)
	} else {
		var err error
		if raw, err = io.ReadAll(r); err != nil {
			return nil, fmt.Errorf("%s: %w", filename, err)
		}
	}
	p := &parser{file: filename}
	return p.parse(raw)
}

type parser struct {
	file   string
	bom    int    // length of the stripped byte order mark
	data   []byte // the file without its BOM
	starts []int  // starts[i] is the offset in data of line i+1
	errs   lang.ErrorList
}

func (p *parser) pos(line, col int) lang.Pos {
	off := 0
	if line >= 1 && line <= len(p.starts) {
		off = p.starts[line-1] + col - 1
	}
	return lang.Pos{File: p.file, Offset: p.bom + off, Line: line, Col: col}
}

func (p *parser) errorf(line, col int, format string, args ...any) *lang.Error {
	return p.errs.Addf(p.pos(line, col), format, args...)
}

// fail returns the collected errors as the result of Read.
func (p *parser) fail() (*Table, error) { return nil, p.errs }

// rawLine returns line n (1-based) of the file without its line end.
func (p *parser) rawLine(n int) []byte {
	if n < 1 || n > len(p.starts) {
		return nil
	}
	s := p.data[p.starts[n-1]:]
	if i := bytes.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func (p *parser) parse(raw []byte) (*Table, error) {
	switch {
	case bytes.HasPrefix(raw, []byte("\xef\xbb\xbf")):
		p.bom = 3
	case bytes.HasPrefix(raw, []byte("\xff\xfe")), bytes.HasPrefix(raw, []byte("\xfe\xff")):
		p.data = raw
		p.starts = []int{0}
		p.errorf(1, 1, "the file is UTF-16 text").Hint = "save it as UTF-8"
		return p.fail()
	}
	data := raw[p.bom:]
	if !bytes.ContainsRune(data, '\n') && bytes.ContainsRune(data, '\r') {
		// Classic Mac line ends: a lone CR ends each line. Same length, so
		// offsets stay valid.
		data = bytes.ReplaceAll(data, []byte{'\r'}, []byte{'\n'})
	}
	p.data = data
	p.starts = []int{0}
	for i, c := range data {
		if c == '\n' {
			p.starts = append(p.starts, i+1)
		}
	}

	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			ru, size := utf8.DecodeRune(data[off:])
			if ru == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		line := bytes.Count(data[:off], []byte{'\n'}) + 1
		col := off - p.starts[line-1] + 1
		p.errorf(line, col, "invalid UTF-8 byte 0x%02x", data[off]).Hint = "the file must be UTF-8 text; save it as UTF-8"
		return p.fail()
	}
	if len(bytes.TrimSpace(data)) == 0 {
		p.errorf(1, 1, "empty CSV file: expected a header line").Hint = "the first line names the columns, e.g. x,y"
		return p.fail()
	}

	if p.otherSeparator() {
		return p.fail()
	}

	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true

	// The header: the first line that is not blank.
	var header []string
	for {
		rec, err := cr.Read()
		if err != nil {
			// io.EOF cannot happen: the file has a non-space byte.
			p.csvError(err)
			return p.fail()
		}
		if p.blank(cr, rec) {
			continue
		}
		header = append([]string(nil), rec...)
		break
	}
	headerLine, _ := cr.FieldPos(0)
	first := make(map[string]int, len(header))
	for j, h := range header {
		h = strings.TrimSpace(h)
		header[j] = h
		line, col := cr.FieldPos(j)
		if h == "" {
			e := p.errorf(line, col, "column %d has an empty name in the header", j+1)
			if j == len(header)-1 && j > 0 {
				e.Hint = "remove the trailing comma"
			} else {
				e.Hint = "every column needs a name"
			}
			continue
		}
		if k, dup := first[h]; dup {
			kl, kc := cr.FieldPos(k)
			p.errorf(line, col, "duplicate column name %q: column %d has the same name as column %d (%s)",
				h, j+1, k+1, p.pos(kl, kc))
			continue
		}
		first[h] = j
	}
	if len(p.errs) > 0 {
		return p.fail()
	}

	t := &Table{File: p.file, Header: header, cols: make([][]float64, len(header))}
	// Room for a value per column on each line, as far as the bytes allow
	// (a row of c numbers takes at least 2c bytes): no allocation is larger
	// than about 4 times the file's size, whatever its lines claim.
	lines := len(p.starts)
	if p.starts[lines-1] == len(data) { // the file ends with a line end
		lines--
	}
	rows := max(0, min(lines-headerLine, len(data)/(2*len(header))+1))
	for j := range t.cols {
		t.cols[j] = make([]float64, 0, rows)
	}
	t.lines = make([]int, 0, rows)
	row := 0 // 1-based number of the current data row
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			p.csvError(err)
			return p.fail()
		}
		if p.blank(cr, rec) {
			continue
		}
		row++
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			col := 1
			if len(rec) > len(header) {
				_, col = cr.FieldPos(len(header))
			}
			e := p.errorf(line, col, "row %d has %d fields, the header has %d", row, len(rec), len(header))
			if len(rec) == len(header)+1 && strings.TrimSpace(rec[len(rec)-1]) == "" {
				e.Hint = "remove the trailing comma"
			}
			if p.tooMany(line) {
				return p.fail()
			}
			continue
		}
		ok := true
		for j, cell := range rec {
			v, msg, hint := parseCell(cell, row)
			if msg == "" {
				t.cols[j] = append(t.cols[j], v)
				continue
			}
			ok = false
			_, col := cr.FieldPos(j)
			p.errorf(line, col, "row %d, column %q: %s", row, header[j], msg).Hint = hint
			if p.tooMany(line) {
				return p.fail()
			}
		}
		if !ok {
			continue
		}
		t.lines = append(t.lines, line)
		t.Rows++
	}
	if len(p.errs) > 0 {
		return p.fail()
	}
	if t.Rows == 0 {
		p.errorf(headerLine, 1, "no data rows: the file has a header line but nothing below it")
		return p.fail()
	}
	return t, nil
}

// otherSeparator reports (as an error) a header line that separates its
// fields by semicolons or tabs rather than commas: with quoted names such a
// line would otherwise be a quoting error, and without them one column
// with a strange name.
func (p *parser) otherSeparator() bool {
	line := 1
	for line < len(p.starts) && len(bytes.TrimSpace(p.rawLine(line))) == 0 {
		line++
	}
	head := p.rawLine(line)
	quoted := false
	first := map[byte]int{}
	for i, c := range head {
		switch {
		case c == '"':
			quoted = !quoted
		case !quoted && (c == ',' || c == ';' || c == '\t'):
			if _, ok := first[c]; !ok {
				first[c] = i
			}
		}
	}
	if _, ok := first[',']; ok {
		return false
	}
	for _, sep := range []byte{';', '\t'} {
		if i, ok := first[sep]; ok {
			name := map[byte]string{';': "semicolons", '\t': "tabs"}[sep]
			p.errorf(line, i+1, "the header separates its fields by %s, not commas", name).Hint =
				"mscppl reads comma-separated files with a decimal point: save the file with commas (R: write.csv, not write.csv2; pandas: to_csv with sep=\",\")"
			return true
		}
	}
	return false
}

// blank reports whether rec comes from a line holding only spaces (empty
// lines are skipped by encoding/csv already).
func (p *parser) blank(cr *csv.Reader, rec []string) bool {
	if len(rec) != 1 || strings.TrimSpace(rec[0]) != "" {
		return false
	}
	line, _ := cr.FieldPos(0)
	return len(bytes.TrimSpace(p.rawLine(line))) == 0
}

// tooMany stops the reader once maxErrors errors were collected.
func (p *parser) tooMany(line int) bool {
	if len(p.errs) < maxErrors {
		return false
	}
	p.errorf(line, 1, "too many errors; stopping")
	return true
}

func (p *parser) csvError(err error) {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		p.errs.Addf(lang.Pos{File: p.file}, "%v", err)
		return
	}
	line, col := pe.Line, pe.Column
	if line > len(p.starts) { // never expected; keep the position inside the file
		line = len(p.starts)
	}
	if line < 1 {
		line = 1
	}
	if col < 1 {
		col = 1
	}
	if n := len(p.rawLine(line)) + 1; col > n {
		col = n
	}
	atEOF := p.starts[line-1]+col-1 >= len(bytes.TrimRight(p.data, " \t\r\n"))
	switch {
	case errors.Is(pe.Err, csv.ErrQuote) && atEOF:
		p.errorf(line, col, `quoted field is not closed before the end of the file`).Hint =
			fmt.Sprintf(`the field started on line %d; close it with a "`, pe.StartLine)
	case errors.Is(pe.Err, csv.ErrBareQuote):
		p.errorf(line, col, `bare " in an unquoted field`).Hint = `quote the whole field and double the quotes inside it, e.g. "a ""b"""`
	case errors.Is(pe.Err, csv.ErrQuote):
		e := p.errorf(line, col, `extraneous or missing " in a quoted field`)
		e.Hint = `a quoted field ends at a " followed by a comma or the line end; a " inside it is written ""`
		if pe.StartLine != pe.Line {
			e.Hint += fmt.Sprintf("; the field started on line %d", pe.StartLine)
		}
	default:
		p.errorf(line, col, "%v", pe.Err)
	}
}

// missingTokens are spellings of "no value" that some programs write into
// CSV files.
var missingTokens = []string{"NA", "N/A", "#N/A", "NULL", "None", "?", "."}

// parseCell parses one numeric cell. On failure it returns a message and a
// hint for the user.
func parseCell(cell string, row int) (v float64, msg, hint string) {
	s := strings.TrimSpace(cell)
	if f, end, ok := parseNumber(s, 0); ok && end == len(s) { // a plain decimal, as most cells are
		return f, "", ""
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) &&
		!strings.ContainsAny(s, "xX_") { // decimal numbers only: no hex, no digit separators
		return f, "", ""
	}
	noMissing := fmt.Sprintf("mscppl has no missing-data model; remove row %d or fill in the value", row)
	if s == "" {
		return 0, "missing or non-finite value (empty cell)", noMissing
	}
	for _, m := range missingTokens {
		if strings.EqualFold(s, m) {
			return 0, fmt.Sprintf("missing or non-finite value %q", s), noMissing
		}
	}
	if !strings.ContainsAny(s, "xX_") {
		f, err := strconv.ParseFloat(s, 64)
		switch {
		case err == nil: // NaN or ±Inf
			return 0, fmt.Sprintf("missing or non-finite value %q", s), noMissing
		case errors.Is(err, strconv.ErrRange) && !math.IsInf(f, 0): // underflow: keep the rounded value
			return f, "", ""
		case errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0):
			return 0, fmt.Sprintf("%q is too large for a 64-bit float", s), "rescale the column"
		}
	}
	msg = fmt.Sprintf("%q is not a number", s)
	switch {
	case strings.EqualFold(s, "true") || strings.EqualFold(s, "false") ||
		strings.EqualFold(s, "yes") || strings.EqualFold(s, "no"):
		hint = "write logical values as 1 and 0"
	case strings.ContainsAny(s, ";\t"):
		hint = "mscppl reads comma-separated files; this one seems to use another separator"
	case strings.Contains(s, ","):
		hint = "use a decimal point and no thousands separators"
	case strings.Contains(s, "_") && strings.ContainsAny(s, "0123456789"):
		hint = "remove the digit separators"
	case strings.HasPrefix(strings.TrimLeft(s, "+-"), "0x") || strings.HasPrefix(strings.TrimLeft(s, "+-"), "0X"):
		hint = "write the number in decimal"
	default:
		hint = "all data must be numeric; encode categories as numbers"
	}
	return 0, msg, hint
}

// Index returns the position of a column in the header, or -1.
func (t *Table) Index(name string) int {
	for j, h := range t.Header {
		if h == name {
			return j
		}
	}
	return -1
}

// Column returns a column's values (not a copy) and whether it exists.
func (t *Table) Column(name string) ([]float64, bool) {
	j := t.Index(name)
	if j < 0 {
		return nil, false
	}
	return t.cols[j], true
}

// Col returns column j (not a copy).
func (t *Table) Col(j int) []float64 { return t.cols[j] }

// Line returns the file line where data row i (0-based) starts.
func (t *Table) Line(i int) int { return t.lines[i] }

// RowPos returns the position of data row i (0-based) in the file.
func (t *Table) RowPos(i int) lang.Pos { return lang.Pos{File: t.File, Line: t.lines[i], Col: 1} }

// Matrix returns the selected columns as a row-major Rows x len(cols)
// slice.
func (t *Table) Matrix(cols []int) []float64 {
	out := make([]float64, t.Rows*len(cols))
	for k, j := range cols {
		for i, v := range t.cols[j] {
			out[i*len(cols)+k] = v
		}
	}
	return out
}

// Subset returns a table with the given rows (0-based, in the given order),
// for cross-validation splits.
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

// Standardize centres and scales each column of a row-major rows x cols
// matrix to mean 0 and sample standard deviation 1 (divisor rows-1). A
// constant column, or any column when rows < 2, becomes all zeros, never
// NaN. The input must be finite; any finite values work, however large or
// small. It allocates nothing.
func Standardize(data []float64, rows, cols int) {
	for j := 0; j < cols; j++ {
		constant := true
		amax := 0.0
		for i := 0; i < rows; i++ {
			x := data[i*cols+j]
			if x != data[j] {
				constant = false
			}
			amax = math.Max(amax, math.Abs(x))
		}
		if constant || rows < 2 {
			for i := 0; i < rows; i++ {
				data[i*cols+j] = 0
			}
			continue
		}
		// Work on values scaled by a power of two (exact) into [-1, 1], so
		// that sums of squares cannot overflow; standardizing is scale
		// invariant.
		_, e := math.Frexp(amax)
		m := 0.0
		for i := 0; i < rows; i++ {
			m += math.Ldexp(data[i*cols+j], -e)
		}
		m /= float64(rows)
		ss := 0.0
		for i := 0; i < rows; i++ {
			d := math.Ldexp(data[i*cols+j], -e) - m
			ss += d * d
		}
		sd := math.Sqrt(ss / float64(rows-1))
		for i := 0; i < rows; i++ {
			if sd > 0 {
				data[i*cols+j] = (math.Ldexp(data[i*cols+j], -e) - m) / sd
			} else {
				data[i*cols+j] = 0
			}
		}
	}
}
