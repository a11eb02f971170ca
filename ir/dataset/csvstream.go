package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"io"
	"strings"
	"unicode/utf8"
)

// ReadCSVFile reads the CSV data file at path as Read reads its text, in
// one streaming pass through a buffer of csvWindow bytes: the text is
// never held whole, so reading takes about the memory of the columns (a
// 10^6 x 11 table: 88 MB of values, where its text is 114 MB). A file the
// streaming pass does not accept as it stands (any problem, and the rare
// forms it leaves to Read: a one-column header, a line of spaces, lines
// ended by a lone CR) is read whole and given to Read, which reports its
// problems or reads it. Errors opening or reading the file are returned
// as the os package gives them.
func ReadCSVFile(path string) (*Table, error) {
	return readStreamed(path, func(r io.Reader, size int) (*Table, bool, error) {
		return streamCSV(path, r, size, csvWindow)
	}, func(raw []byte) (*Table, error) { return Read(path, bytes.NewBuffer(raw)) })
}

// csvWindow is the buffer through which ReadCSVFile reads a file.
const csvWindow = 1 << 16

// streamCSV is Read's parse of a valid file, from r (size bytes, for the
// columns' capacity; 0 if unknown) through a buffer of window bytes. ok is
// false, with no table, at anything Read would report and at the forms it
// leaves to Read (see ReadCSVFile); err is r's error.
func streamCSV(filename string, r io.Reader, size, window int) (t *Table, ok bool, err error) {
	rd := &errReader{r: r}
	br := bufio.NewReaderSize(rd, max(window, 16))
	head, _ := br.Peek(br.Size())
	switch {
	case bytes.HasPrefix(head, []byte("\xef\xbb\xbf")):
		br.Discard(3)
	case bytes.HasPrefix(head, []byte("\xff\xfe")), bytes.HasPrefix(head, []byte("\xfe\xff")):
		return nil, false, rd.err
	}
	if !bytes.ContainsRune(head, '\n') { // a lone CR may end its lines; or one line, or empty
		return nil, false, rd.err
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	// the header (csv.Reader skips empty lines; a line of spaces and a
	// one-column header, whose separator Read checks, are left to Read)
	rec, err := cr.Read()
	if err != nil || !validUTF8(rec) || len(rec) < 2 {
		return nil, false, rd.err
	}
	header := make([]string, len(rec))
	seen := make(map[string]bool, len(rec))
	for j, h := range rec {
		h = strings.TrimSpace(h)
		if h == "" || seen[h] {
			return nil, false, rd.err
		}
		header[j], seen[h] = h, true
	}
	t = &Table{File: filename, Header: header, cols: make([][]float64, len(header))}
	// the columns' room: from the bytes the first rows took, projected to
	// the file's size (then append's growth if the projection falls short)
	const probe = 256
	row := 0
	for {
		rec, err = cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil || len(rec) != len(header) || !validUTF8(rec) || spaces(rec) {
			return nil, false, rd.err
		}
		row++
		if row == 1 || row == probe+1 {
			room := probe
			if row > 1 {
				room = int(float64(size)/float64(max(1, cr.InputOffset()))*float64(row-1)*1.02) + 16
			}
			for j := range t.cols {
				t.cols[j] = growTo(t.cols[j], room)
			}
			t.lines = growTo(t.lines, room)
		}
		for j, cell := range rec {
			v, msg, _ := parseCell(cell, row)
			if msg != "" {
				return nil, false, rd.err
			}
			t.cols[j] = append(t.cols[j], v)
		}
		line, _ := cr.FieldPos(0)
		t.lines = append(t.lines, line)
	}
	if rd.err != nil || row == 0 {
		return nil, false, rd.err
	}
	t.Rows = row
	return t, true, nil
}

// growTo returns s with room for n elements in all (at least).
func growTo[T any](s []T, n int) []T {
	if n > cap(s) {
		s = append(make([]T, 0, n), s...)
	}
	return s
}

// validUTF8 reports whether every field of rec is UTF-8 (the bytes between
// fields are ASCII: commas, quotes and line ends).
func validUTF8(rec []string) bool {
	for _, f := range rec {
		if !utf8.ValidString(f) {
			return false
		}
	}
	return true
}

// spaces reports a record of one field of white space: a blank line for
// Read, which tells it from a quoted field by the line's text.
func spaces(rec []string) bool { return len(rec) == 1 && strings.TrimSpace(rec[0]) == "" }

// errReader keeps the first error of r other than io.EOF, which a
// csv.Reader would report as a parse error.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}
