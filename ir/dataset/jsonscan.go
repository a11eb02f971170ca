package dataset

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/mscppl/mscppl/lang"
)

// scanJSON reads d.data, a JSON data file, into d's fields in one pass over
// the bytes and reports whether the file is valid. It builds no tree: each
// number is parsed where it stands and appended to its field's Values (the
// rows of a matrix one after the other), and it keeps no position but each
// field's. It stops at the first problem of any kind, without a message:
// ParseJSON then parses the file again with parseJSONTree, which reports
// all the problems. On a file parseJSONTree accepts, scanJSON gives the
// same fields (the differential FuzzReadJSON checks this).
//
// When the problem is in a field's value (or the field is given twice),
// from is the offset of the field's name and d holds the fields before
// it, for the token parser to start there (JSONData.tree); otherwise from
// is 0.
func scanJSON(d *JSONData) (from int, ok bool) {
	s := jsonScanner{d: d, data: d.data, line: 1, size: len(d.data), keep: -1}
	ok = s.file()
	return s.from, ok
}

// streamJSON is scanJSON on the file read from r (size bytes, for the
// projections of grow; 0 if unknown) through a window of about window
// bytes instead of the whole text: d keeps no text (ElemPos reads the file again).
// ok is false when the file is not valid (or r failed: err).
func streamJSON(filename string, r io.Reader, size, window int) (d *JSONData, ok bool, err error) {
	d = &JSONData{File: filename, Fields: map[string]*JSONField{}, dropped: true}
	s := jsonScanner{d: d, data: make([]byte, 0, window), line: 1, size: size, keep: -1, r: r}
	s.fill(3)
	if bytes.HasPrefix(s.data, []byte("\xef\xbb\xbf")) {
		d.bom, s.i, s.base = 3, 3, -3 // offsets count from after the BOM
	}
	ok = s.file()
	return d, ok && s.rerr == nil, s.rerr
}

type jsonScanner struct {
	d    *JSONData
	data []byte // the file's text, or (streaming) the window of it at base
	i    int    // the next byte to read, in data
	// at is an offset already converted to a position: line is its line
	// and lineStart the offset where that line starts. Field names come
	// in order, so their positions take one pass over the file in all.
	// Offsets other than i (at, lineStart, from, keep, a field's val) are
	// absolute: from the start of the file after its BOM.
	at, line, lineStart int
	from                int // see scanJSON
	size                int // the file's length, for grow's projection
	// streaming (r not nil): data is the window of the file that starts at
	// offset base; more reads on, and drops what lies before both i and
	// keep (an offset whose position is still to be asked; -1: none)
	r    io.Reader
	base int
	keep int
	eof  bool
	rerr error
}

// abs is the absolute offset of data[i].
func (s *jsonScanner) abs(i int) int { return s.base + i }

// more reads more of the file into the window, and reports whether it
// did (false at the end of the file, or with the whole text in data).
func (s *jsonScanner) more() bool {
	if s.r == nil || s.eof {
		return false
	}
	drop := s.i
	if s.keep >= 0 {
		drop = min(drop, s.keep-s.base)
	}
	if drop > 0 {
		if to := s.abs(drop); to > s.at {
			s.lines(to)
		}
		n := copy(s.data, s.data[drop:])
		s.data, s.base, s.i = s.data[:n], s.base+drop, s.i-drop
	}
	if len(s.data) == cap(s.data) { // a token as long as the window
		s.data = slices.Grow(s.data, cap(s.data))
	}
	for {
		n, err := s.r.Read(s.data[len(s.data):cap(s.data)])
		s.data = s.data[:len(s.data)+n]
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.rerr = err
			}
		}
		if n > 0 || s.eof {
			return n > 0
		}
	}
}

// fill reads on until the window holds n bytes from i, or the file ends.
func (s *jsonScanner) fill(n int) {
	for len(s.data)-s.i < n && s.more() {
	}
}

func (s *jsonScanner) ws() {
	for {
		for s.i < len(s.data) {
			switch s.data[s.i] {
			case ' ', '\t', '\n', '\r':
				s.i++
				continue
			}
			return
		}
		if !s.more() {
			return
		}
	}
}

// eat consumes c if it is the next byte.
func (s *jsonScanner) eat(c byte) bool {
	if s.peek() == c && s.i < len(s.data) {
		s.i++
		return true
	}
	return false
}

func (s *jsonScanner) peek() byte {
	if s.i < len(s.data) || s.more() {
		return s.data[s.i]
	}
	return 0
}

// lines moves the position's bookkeeping from at to off (absolute, in the
// window, not before at).
func (s *jsonScanner) lines(off int) {
	seg := s.data[s.at-s.base : off-s.base]
	if n := bytes.Count(seg, []byte{'\n'}); n > 0 {
		s.line += n
		s.lineStart = s.at + bytes.LastIndexByte(seg, '\n') + 1
	}
	s.at = off
}

// pos is the position of the absolute offset off, which is not before the
// last offset asked.
func (s *jsonScanner) pos(off int) lang.Pos {
	s.lines(off)
	return lang.Pos{File: s.d.File, Offset: s.d.bom + off, Line: s.line, Col: off - s.lineStart + 1}
}

func (s *jsonScanner) file() bool {
	d := s.d
	s.ws()
	if !s.eat('{') {
		return false
	}
	s.ws()
	if !s.eat('}') {
		for {
			s.ws()
			koff := s.abs(s.i)
			s.keep = koff
			name, ok := s.str()
			if !ok {
				return false
			}
			pos := s.pos(koff)
			s.keep = -1
			s.ws()
			if !s.eat(':') {
				return false
			}
			s.ws()
			if _, dup := d.Fields[name]; dup {
				s.from = koff
				return false
			}
			f := &JSONField{Name: name, d: d, val: s.abs(s.i), Pos: pos}
			if !s.value(f) {
				s.from = koff
				return false
			}
			d.Names = append(d.Names, name)
			d.Fields[name] = f
			s.ws()
			if s.eat(',') {
				continue
			}
			if s.eat('}') {
				break
			}
			return false
		}
	}
	// After the object, parseJSONTree skips commas and colons with the
	// white space.
	for s.i < len(s.data) || s.more() {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r', ',', ':':
			s.i++
			continue
		}
		return false
	}
	return true
}

// value reads a field's value: a number, an array of numbers or an array
// of rows of numbers.
func (s *jsonScanner) value(f *JSONField) bool {
	if s.peek() != '[' {
		x, ok := s.leaf()
		if ok {
			f.Values = []float64{x}
			f.Integer = isInteger(x)
		}
		return ok
	}
	s.i++ // the '[' peek saw
	s.ws()
	if s.eat(']') {
		f.Dims, f.Integer = []int{0}, true
		return true
	}
	integer := true
	if s.peek() != '[' {
		n, ok := s.numbers(f, &integer)
		if !ok {
			return false
		}
		f.Dims, f.Integer = []int{n}, integer
		return true
	}
	rows, cols := 0, -1
	for {
		if !s.eat('[') {
			return false
		}
		n := 0
		s.ws()
		if !s.eat(']') {
			var ok bool
			if n, ok = s.numbers(f, &integer); !ok {
				return false
			}
		}
		if cols < 0 {
			cols = n
		} else if n != cols {
			return false
		}
		rows++
		s.ws()
		if s.eat(']') {
			break
		}
		if !s.eat(',') {
			return false
		}
		s.ws()
	}
	f.Dims, f.Integer = []int{rows, cols}, integer
	return true
}

// numbers reads the numbers of a non-empty array, from its first number
// through its closing bracket, onto f.Values, and clears *integer at a
// number that is not one. It returns how many it read and whether the
// array was well formed.
func (s *jsonScanner) numbers(f *JSONField, integer *bool) (int, bool) {
	n := 0
	for {
		x, ok := s.leaf()
		if !ok {
			return n, false
		}
		if len(f.Values) == cap(f.Values) {
			f.Values = s.grow(f.Values, f.val)
		}
		f.Values = append(f.Values, x)
		*integer = *integer && isInteger(x)
		n++
		s.ws()
		if s.eat(']') {
			return n, true
		}
		if !s.eat(',') {
			return n, false
		}
		s.ws()
	}
}

// grow makes room for more values in vals, the values of a field whose
// value starts at data[start:]: it projects the number of values from those
// read so far and the bytes they took, to the end of the file (the largest
// field of a file is mostly the rest of it), between 1.25 and 8 times
// len(vals). A large array is then allocated a few times, not the dozens
// of times (and bytes) of append's growth.
func (s *jsonScanner) grow(vals []float64, start int) []float64 {
	n, at := len(vals), s.abs(s.i)
	proj := n + int(float64(n)*float64(max(0, s.size-at))/float64(max(1, at-start))) + n/64
	return slices.Grow(vals, min(max(proj, n+n/4), 8*n)-n+64)
}

func isInteger(x float64) bool { return x == math.Trunc(x) && !math.IsInf(x, 0) }

// leaf reads a number, or one of the strings that stand for NaN and the
// infinities.
func (s *jsonScanner) leaf() (float64, bool) {
	if s.peek() == '"' {
		raw, simple, ok := s.quoted()
		if !ok {
			return 0, false
		}
		if simple {
			return special(raw[1 : len(raw)-1])
		}
		var str string
		if json.Unmarshal(raw, &str) != nil {
			return 0, false
		}
		return special([]byte(str))
	}
	return s.number()
}

// special is the value of the strings that stand for NaN and the
// infinities.
func special(b []byte) (float64, bool) {
	switch string(b) {
	case "NaN":
		return math.NaN(), true
	case "Inf", "+Inf", "Infinity":
		return math.Inf(1), true
	case "-Inf", "-Infinity":
		return math.Inf(-1), true
	}
	return 0, false
}

// str reads a string (an object's key).
func (s *jsonScanner) str() (string, bool) {
	if s.peek() != '"' {
		return "", false
	}
	raw, simple, ok := s.quoted()
	if !ok {
		return "", false
	}
	if simple {
		return string(raw[1 : len(raw)-1]), true
	}
	var str string
	if json.Unmarshal(raw, &str) != nil {
		return "", false
	}
	return str, true
}

// quoted reads a string literal and returns it with its quotes; simple
// reports that it holds only printable ASCII without escapes, so that its
// bytes are its value (otherwise encoding/json decodes it, with its escapes
// and its replacement of invalid UTF-8).
func (s *jsonScanner) quoted() (raw []byte, simple, ok bool) {
	simple = true
	for i := s.i + 1; ; i++ {
		for i >= len(s.data) {
			k := i - s.i // more moves the window's bytes, not i's place from s.i
			if !s.more() {
				return nil, false, false
			}
			i = s.i + k
		}
		switch c := s.data[i]; {
		case c == '"':
			raw = s.data[s.i : i+1]
			s.i = i + 1
			return raw, simple, true
		case c == '\\':
			simple = false
			i++ // the escaped byte; encoding/json checks the escape
		case c < 0x20:
			return nil, false, false
		case c >= 0x80:
			simple = false
		}
	}
}

// number reads the JSON number at s.data[s.i:], which must end at white
// space, a comma, a bracket or a brace (or the end of the file), and
// parses it as strconv.ParseFloat does, refusing what is out of range
// (overflow and underflow). Its one pass over the digits validates the
// number and accumulates its significant digits m and decimal exponent e:
// when m <= 2^53 and |e| <= 22, m and 10^|e| are exact float64s and one
// multiplication or division rounds m * 10^e correctly (Clinger's fast
// path, as strconv's), so the result is strconv.ParseFloat's. Other
// numbers go to strconv.ParseFloat.
//
// Streaming, the window holds numberAhead bytes from the number's start
// (or the rest of the file) before it is parsed, and more when no
// delimiter ends the number within them.
func (s *jsonScanner) number() (float64, bool) {
	if s.r != nil && len(s.data)-s.i < numberAhead {
		s.fill(numberAhead)
	}
	x, end, ok := parseNumber(s.data, s.i)
	if (!ok || end == len(s.data)) && !s.eof && s.r != nil {
		// a number that may go on past the window (or is bad)
		for !bytes.ContainsAny(s.data[s.i:], " \t\n\r,]}") && s.more() {
		}
		x, end, ok = parseNumber(s.data, s.i)
	}
	if ok {
		s.i = end
	}
	return x, ok
}

// numberAhead is the bytes a streaming scan holds ahead of a number: more
// than any number a program writes takes.
const numberAhead = 128

// parseNumber is jsonScanner.number on data[i:] (a file's bytes, or a CSV
// cell), returning the end of the number.
func parseNumber[T string | []byte](data T, i int) (x float64, end int, ok bool) {
	start := i
	neg := i < len(data) && data[i] == '-'
	if neg {
		i++
	}
	var m uint64
	nd, exp := 0, 0 // significant digits read; the decimal exponent
	fast := true
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		for ; i < len(data) && data[i] >= '0' && data[i] <= '9'; i++ {
			if nd < 16 {
				m = m*10 + uint64(data[i]-'0')
				nd++
			} else {
				fast = false
			}
		}
	default:
		return 0, 0, false
	}
	if i < len(data) && data[i] == '.' {
		i++
		j := i
		for ; i < len(data) && data[i] >= '0' && data[i] <= '9'; i++ {
			switch {
			case m == 0 && data[i] == '0':
				exp--
			case nd < 16:
				m = m*10 + uint64(data[i]-'0')
				nd++
				exp--
			default:
				fast = false
			}
		}
		if i == j {
			return 0, 0, false
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		eneg := i < len(data) && data[i] == '-'
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j, e := i, 0
		for ; i < len(data) && data[i] >= '0' && data[i] <= '9'; i++ {
			if e < 10000 {
				e = e*10 + int(data[i]-'0')
			}
		}
		if i == j {
			return 0, 0, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r', ',', ']', '}':
		default:
			return 0, 0, false
		}
	}
	if fast && m <= 1<<53 && exp >= -22 && exp <= 22 {
		x := float64(m)
		switch {
		case m == 0:
		case exp >= 0:
			x *= pow10[exp]
		default:
			x /= pow10[-exp]
		}
		if neg {
			x = -x
		}
		return x, i, true
	}
	x, err := strconv.ParseFloat(string(data[start:i]), 64)
	if err != nil || math.IsInf(x, 0) {
		return 0, 0, false
	}
	return x, i, true
}

// pow10 holds the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// leafOffset is the offset of value i (0-based, row-major) of the value
// that starts at data[off:], a number or an array of numbers or rows that
// ParseJSON accepted.
func leafOffset(data []byte, off, i int) int {
	k := 0
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\n', '\r', ',', '[', ']':
			off++
			continue
		}
		if k == i {
			return off
		}
		k++
		if data[off] == '"' {
			for off++; off < len(data) && data[off] != '"'; off++ {
				if data[off] == '\\' {
					off++
				}
			}
			off++
			continue
		}
		s := jsonScanner{data: data, i: off}
		s.number()
		off = max(s.i, off+1)
	}
	return off
}
