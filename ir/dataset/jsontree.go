package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mscppl/mscppl/lang"
)

// tree parses d.data token by token from offset from: 0 (then d has no
// fields yet), or the offset of a field's name, after the fields before
// it, which d holds (scanJSON read them and found a problem in that
// field). The decoder then reads "{" and the rest of the file from there,
// in the state it would be in after the fields before, and gives the same
// messages, but for one: encoding/json places a syntax error inside a
// value by the bytes of all the values and names it decoded before, so on
// a syntax error the file is parsed again from its start.
func (d *JSONData) tree(from int) (*JSONData, error) {
	var r io.Reader = bytes.NewReader(d.data)
	base := 0
	if from > 0 {
		r = io.MultiReader(strings.NewReader("{"), bytes.NewReader(d.data[from:]))
		base = from - 1
	}
	p := &jsonParser{d: d, data: d.data, base: base, dec: json.NewDecoder(r), starts: []int{0}}
	for i, c := range d.data {
		if c == '\n' {
			p.starts = append(p.starts, i+1)
		}
	}
	p.dec.UseNumber()
	if !p.parse() {
		d.Names, d.Fields = nil, map[string]*JSONField{}
		return d.tree(0)
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return d, nil
}

type jsonParser struct {
	d      *JSONData
	data   []byte
	dec    *json.Decoder
	errs   lang.ErrorList
	starts []int // starts[i] is the offset of line i+1
	base   int   // the offset in data of the decoder's offset 0 (> 0: resumed)
}

// pos is JSONData.pos with a table of line starts, for the many positions
// of a file with many fields or errors.
func (p *jsonParser) pos(off int) lang.Pos {
	off = max(0, off)
	line := sort.Search(len(p.starts), func(i int) bool { return p.starts[i] > off })
	return lang.Pos{File: p.d.File, Offset: p.d.bom + off, Line: line, Col: off - p.starts[line-1] + 1}
}

// errStop ends parsing after a syntax error or too many errors; errResync
// ends a resumed parse at a syntax error.
var (
	errStop   = errors.New("stop")
	errResync = errors.New("resync")
)

func (p *jsonParser) errorf(off int, format string, args ...any) *lang.Error {
	e := p.errs.Addf(p.pos(off), format, args...)
	if len(p.errs) >= maxErrors {
		panic(errStop)
	}
	return e
}

// start returns the offset where the next token starts.
func (p *jsonParser) start() int {
	off := int(p.dec.InputOffset()) + p.base
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\n', '\r', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

// token reads the next token and its offset; a syntax error stops parsing.
func (p *jsonParser) token() (json.Token, int) {
	off := p.start()
	t, err := p.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se) && p.base > 0:
			panic(errResync)
		case errors.As(err, &se):
			p.errorf(min(int(se.Offset), len(p.data)), "invalid JSON: %s", se.Error())
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			p.errorf(len(p.data), "the JSON ends too early")
		default:
			p.errorf(off, "invalid JSON: %v", err)
		}
		panic(errStop)
	}
	return t, off
}

// parse reports false when a resumed parse met a syntax error.
func (p *jsonParser) parse() (ok bool) {
	defer func() {
		switch x := recover(); x {
		case nil, errStop:
		case errResync:
			ok = false
		default:
			panic(x)
		}
	}()
	ok = true
	if len(bytes.TrimSpace(p.data)) == 0 {
		p.errorf(0, "the file is empty; a JSON data file holds one object, as in {\"N\": 3, \"y\": [1, 2, 3]}")
		return
	}
	t, off := p.token()
	if t != json.Delim('{') {
		e := p.errorf(off, "a JSON data file must hold one object {...}, not %s", describe(t))
		e.Hint = `as in {"N": 3, "y": [1, 2, 3]}`
		return
	}
	for p.dec.More() {
		kt, koff := p.token()
		name, _ := kt.(string)
		v := p.value(0)
		if old, dup := p.d.Fields[name]; dup {
			p.errorf(koff, "field %q is given twice (first at %d:%d)", name, old.Pos.Line, old.Pos.Col)
			continue
		}
		f := &JSONField{Name: name, Pos: p.pos(koff), d: p.d}
		if !p.shape(f, v) {
			continue
		}
		p.d.Names = append(p.d.Names, name)
		p.d.Fields[name] = f
	}
	p.token() // the closing brace
	if off := p.start(); off < len(p.data) {
		p.errorf(off, "extra text after the JSON object")
	}
	return ok
}

// node is a parsed value: a number or an array.
type node struct {
	off   int
	num   float64
	ok    bool // a valid number
	array bool
	elems []node
}

// value reads one value; depth counts enclosing arrays.
func (p *jsonParser) value(depth int) node {
	t, off := p.token()
	n := node{off: off}
	switch t := t.(type) {
	case json.Number:
		x, err := strconv.ParseFloat(string(t), 64)
		if err != nil || math.IsInf(x, 0) {
			p.errorf(off, "number %s is out of range", t)
			return n
		}
		n.num, n.ok = x, true
	case string:
		switch t {
		case "NaN":
			n.num, n.ok = math.NaN(), true
		case "Inf", "+Inf", "Infinity":
			n.num, n.ok = math.Inf(1), true
		case "-Inf", "-Infinity":
			n.num, n.ok = math.Inf(-1), true
		default:
			p.errorf(off, "expected a number, got the string %q", t).Hint = `the only strings taken as numbers are "NaN", "Inf" and "-Inf"`
		}
	case json.Delim:
		if t == '{' {
			p.errorf(off, "expected a number or an array, got an object")
			p.skip(1)
			return n
		}
		if depth >= 2 {
			p.errorf(off, "arrays are nested more than two levels deep; mscppl takes numbers, arrays and arrays of rows (matrices)")
			p.skip(1)
			return n
		}
		n.array = true
		for p.dec.More() {
			n.elems = append(n.elems, p.value(depth+1))
		}
		p.token() // ]
	default:
		p.errorf(off, "expected a number, got %s", describe(t))
	}
	return n
}

// skip consumes tokens until depth open delimiters are closed.
func (p *jsonParser) skip(depth int) {
	for depth > 0 {
		t, _ := p.token()
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

func describe(t json.Token) string {
	switch t := t.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(t)
	case string:
		return strconv.Quote(t)
	case json.Number:
		return "the number " + string(t)
	case json.Delim:
		switch t {
		case '[':
			return "an array"
		case '{':
			return "an object"
		}
		return string(t)
	}
	return fmt.Sprint(t)
}

// shape fills f from v, reporting ragged and too deep arrays.
func (p *jsonParser) shape(f *JSONField, v node) bool {
	bad := false
	f.val = v.off
	add := func(n node) {
		if !n.ok {
			bad = true
		}
		f.Values = append(f.Values, n.num)
	}
	switch {
	case !v.array:
		add(v)
	case len(v.elems) == 0 || !v.elems[0].array:
		f.Dims = []int{len(v.elems)}
		for i, e := range v.elems {
			if e.array {
				p.errorf(e.off, "field %q mixes numbers and arrays: element %d is an array, element 1 a number", f.Name, i+1)
				return false
			}
			add(e)
		}
	default:
		cols := len(v.elems[0].elems)
		f.Dims = []int{len(v.elems), cols}
		for i, row := range v.elems {
			if !row.array {
				p.errorf(row.off, "field %q mixes numbers and arrays: row %d is a number, row 1 an array", f.Name, i+1)
				return false
			}
			if len(row.elems) != cols {
				p.errorf(row.off, "field %q is ragged: row %d has %d value%s, row 1 has %d", f.Name, i+1, len(row.elems), plural(len(row.elems)), cols).Hint = "a matrix is an array of rows of equal length"
				return false
			}
			for _, e := range row.elems {
				if e.array {
					p.errorf(e.off, "field %q is nested more than two levels deep; mscppl takes numbers, arrays and arrays of rows (matrices)", f.Name)
					return false
				}
				add(e)
			}
		}
	}
	if bad {
		return false
	}
	f.Integer = true
	for _, x := range f.Values {
		if x != math.Trunc(x) || math.IsInf(x, 0) {
			f.Integer = false
			break
		}
	}
	return true
}
