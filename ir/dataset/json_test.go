package dataset

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/lang"
)

func TestParseJSON(t *testing.T) {
	cases := []struct {
		name, json string
		field      string
		dims       []int
		values     []float64
		integer    bool
		line, col  int
	}{
		{"int scalar", `{"N": 100}`, "N", nil, []float64{100}, true, 1, 2},
		{"real scalar", `{"s": 1.5}`, "s", nil, []float64{1.5}, false, 1, 2},
		{"exponent integer", `{"s": 1e2}`, "s", nil, []float64{100}, true, 1, 2},
		{"vector", "{\n  \"J\": 2,\n  \"y\": [28, -3.5]\n}", "y", []int{2}, []float64{28, -3.5}, false, 3, 3},
		{"int array", `{"y": [1, 2, 3]}`, "y", []int{3}, []float64{1, 2, 3}, true, 1, 2},
		{"empty array", `{"y": []}`, "y", []int{0}, nil, true, 1, 2},
		{"matrix", `{"X": [[1, 2, 3], [4, 5, 6.5]]}`, "X", []int{2, 3}, []float64{1, 2, 3, 4, 5, 6.5}, false, 1, 2},
		{"one row", `{"X": [[1, 2]]}`, "X", []int{1, 2}, []float64{1, 2}, true, 1, 2},
		{"NaN and Inf strings", `{"z": ["NaN", "Inf", "-Inf", 1]}`, "z", []int{4}, []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1}, false, 1, 2},
		{"BOM and CRLF", "\xef\xbb\xbf{\r\n\"a\": 1,\r\n \"b\": [2]\r\n}", "b", []int{1}, []float64{2}, true, 3, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := ParseJSON("d.json", []byte(c.json))
			require.NoError(t, err)
			f, ok := d.Field(c.field)
			require.True(t, ok)
			assert.Equal(t, c.dims, f.Dims)
			require.Len(t, f.Values, len(c.values))
			for i, v := range c.values {
				if math.IsNaN(v) {
					assert.True(t, math.IsNaN(f.Values[i]))
				} else {
					assert.Equal(t, v, f.Values[i])
				}
			}
			assert.Equal(t, c.integer, f.Integer)
			assert.Equal(t, c.line, f.Pos.Line)
			assert.Equal(t, c.col, f.Pos.Col)
		})
	}
	t.Run("field order and element positions", func(t *testing.T) {
		d, err := ParseJSON("d.json", []byte("{\"b\": 1,\n \"a\": [1,\n  2.5]}"))
		require.NoError(t, err)
		assert.Equal(t, []string{"b", "a"}, d.Names)
		f, _ := d.Field("a")
		assert.Equal(t, lang.Pos{File: "d.json", Offset: 21, Line: 3, Col: 3}, f.ElemPos(1))
		assert.Equal(t, "an array of 2 numbers", f.Shape())
	})
}

var jsonErrCases = []struct {
	name, json, want string
	line, col        int
}{
	{"empty", "", "d.json:1:1: the file is empty; a JSON data file holds one object, as in {\"N\": 3, \"y\": [1, 2, 3]}", 1, 1},
	{"array", "[1, 2]", "d.json:1:1: a JSON data file must hold one object {...}, not an array (as in {\"N\": 3, \"y\": [1, 2, 3]})", 1, 1},
	{"number", "\n 3", "d.json:2:2: a JSON data file must hold one object {...}, not the number 3 (as in {\"N\": 3, \"y\": [1, 2, 3]})", 2, 2},
	{"syntax", "{\"a\": 1,\n \"b\" 2}", "d.json:2:6: invalid JSON: invalid character '2' after object key", 2, 6},
	{"truncated", "{\"a\": [1, 2", "d.json:1:12: the JSON ends too early", 1, 12},
	{"trailing", "{\"a\": 1} x", "d.json:1:10: extra text after the JSON object", 1, 10},
	{"string", "{\"a\": [1, \"two\"]}", "d.json:1:11: expected a number, got the string \"two\" (the only strings taken as numbers are \"NaN\", \"Inf\" and \"-Inf\")", 1, 11},
	{"null", "{\"a\": null}", "d.json:1:7: expected a number, got null", 1, 7},
	{"bool", "{\"a\": [true]}", "d.json:1:8: expected a number, got true", 1, 8},
	{"object", "{\"a\": {\"b\": 1}}", "d.json:1:7: expected a number or an array, got an object", 1, 7},
	{"ragged", "{\"X\": [[1, 2],\n [3]]}", "d.json:2:2: field \"X\" is ragged: row 2 has 1 value, row 1 has 2 (a matrix is an array of rows of equal length)", 2, 2},
	{"mixed", "{\"X\": [1, [3]]}", "d.json:1:11: field \"X\" mixes numbers and arrays: element 2 is an array, element 1 a number", 1, 11},
	{"mixed rows", "{\"X\": [[1], 3]}", "d.json:1:13: field \"X\" mixes numbers and arrays: row 2 is a number, row 1 an array", 1, 13},
	{"too deep", "{\"X\": [[[1]]]}", "d.json:1:9: arrays are nested more than two levels deep; mscppl takes numbers, arrays and arrays of rows (matrices)", 1, 9},
	{"duplicate", "{\"a\": 1,\n\"a\": 2}", "d.json:2:1: field \"a\" is given twice (first at 1:2)", 2, 1},
	{"overflow", "{\"a\": 1e400}", "d.json:1:7: number 1e400 is out of range", 1, 7},
}

func TestParseJSONErrors(t *testing.T) {
	for _, c := range jsonErrCases {
		t.Run(c.name, func(t *testing.T) {
			d, err := ParseJSON("d.json", []byte(c.json))
			require.Error(t, err)
			require.Nil(t, d)
			assert.Equal(t, c.want, err.Error())
			var list lang.ErrorList
			require.True(t, errors.As(err, &list), "%T", err)
			assert.Equal(t, c.line, list[0].Pos.Line)
			assert.Equal(t, c.col, list[0].Pos.Col)
		})
	}
	t.Run("several errors", func(t *testing.T) {
		_, err := ParseJSON("d.json", []byte(`{"a": "x", "b": [null], "c": 1}`))
		var list lang.ErrorList
		require.True(t, errors.As(err, &list))
		assert.Len(t, list, 2)
	})
	t.Run("missing field hint", func(t *testing.T) {
		d, err := ParseJSON("d.json", []byte(`{"sigma": [1], "y": [2]}`))
		require.NoError(t, err)
		assert.Equal(t, `d.json has no field "sigam" (did you mean "sigma"?)`, d.Missing("sigam").Error())
		assert.Equal(t, `d.json has no field "zzzzzz" (its fields are [sigma y])`, d.Missing("zzzzzz").Error())
	})
}

// FuzzReadJSON: ParseJSON never panics; it returns consistent fields or
// errors positioned inside the input.
func FuzzReadJSON(f *testing.F) {
	for _, c := range jsonErrCases {
		f.Add([]byte(c.json))
	}
	for _, s := range []string{
		`{"N": 3, "y": [1, 2, 3], "X": [[1, 2], [3, 4]]}`, `{"a": ["NaN", "Inf"]}`, "\xef\xbb\xbf{\"a\":1}",
		`{"J": 8, "y": [28, 8, -3, 7, -1, 1, 18, 12], "sigma": [15, 10, 16, 11, 9, 11, 10, 18]}`,
		`{"x": [1e22, 1e23, -0.0, 9007199254740993, 1.5E-3, 1e-400, 4.9e-324, 123456789012345678901234567890]}`,
		`{"\u0061": 1, "b\n": ["\u004eaN", "-Infinity", "+Inf"], "\u00e9": 2}`,
		"{\"a\": [[], []], \"b\": [[1], [2]]}\r\n,:", `{}`, `{"X": [[1, 2], [3, "Inf"]], "a": 01}`,
		"{\"X\":\r[[1 ,2 ] ,\n\t[3,4]\n]\n}", `{"a": [1, 2,]}`, `{"a": 1,}`, `{"a": "\x"}`,
		`{"N": 1, "y": [1, A]}`, `{"N": 1, "y": ["NA", 2], "z": tru}`, `{"N": 1, "y": [[1], [2, 3]], "N": 2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseJSON("f.json", data)
		requireScanAgrees(t, data)
		requireStreamAgrees(t, data)
		if err == nil {
			require.Len(t, d.Fields, len(d.Names))
			for _, name := range d.Names {
				fl := d.Fields[name]
				n := 1
				for _, k := range fl.Dims {
					n *= k
				}
				require.Len(t, fl.Values, n)
				prev := -1
				for i, x := range fl.Values {
					p := fl.ElemPos(i)
					require.True(t, p.Line >= 1 && p.Col >= 1)
					// ElemPos points at value i: after value i-1, at a
					// number or string that reads as x.
					require.Greater(t, p.Offset, prev)
					prev = p.Offset
					s := jsonScanner{data: data, i: p.Offset}
					y, ok := s.leaf()
					require.True(t, ok, "value %d of %s at %v", i, name, p)
					require.Equal(t, math.Float64bits(x), math.Float64bits(y), "value %d of %s at %v", i, name, p)
				}
			}
			return
		}
		require.Nil(t, d)
		// Resumed at the field where the scanner stopped, the token parser
		// gives the messages it gives on the whole file.
		_, full := parseJSONTree("f.json", data)
		require.Equal(t, full.Error(), err.Error())
		var list lang.ErrorList
		require.True(t, errors.As(err, &list), "%T %v", err, err)
		require.NotEmpty(t, list)
		nlines := bytes.Count(data, []byte{'\n'}) + 1
		for _, e := range list {
			require.Equal(t, "f.json", e.Pos.File)
			require.True(t, e.Pos.Line >= 1 && e.Pos.Line <= nlines, "%v", e)
			require.GreaterOrEqual(t, e.Pos.Col, 1, "%v", e)
			require.True(t, e.Pos.Offset >= 0 && e.Pos.Offset <= len(data), "%v", e)
		}
	})
}

// requireScanAgrees checks that the scanner of ParseJSON accepts the files
// that the token-by-token parser accepts, and reads the same fields from
// them: values (bit for bit), shapes, integer flags and positions.
func requireScanAgrees(t *testing.T, data []byte) {
	t.Helper()
	ref, refErr := parseJSONTree("f.json", data)
	d := &JSONData{File: "f.json", Fields: map[string]*JSONField{}}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		d.bom = 3
	}
	d.data = data[d.bom:]
	_, ok := scanJSON(d)
	require.Equal(t, refErr == nil, ok, "the tree parser says %v, the scanner %v on %q", refErr, ok, data)
	if !ok {
		return
	}
	requireSameFields(t, ref, d)
}

// requireSameFields: d has ref's fields, their shapes, positions, offsets
// and values, bit for bit.
func requireSameFields(t *testing.T, ref, d *JSONData) {
	t.Helper()
	require.Equal(t, ref.Names, d.Names)
	for _, name := range ref.Names {
		a, b := ref.Fields[name], d.Fields[name]
		require.Equal(t, a.Dims, b.Dims, name)
		require.Equal(t, a.Integer, b.Integer, name)
		require.Equal(t, a.Pos, b.Pos, name)
		require.Equal(t, a.val, b.val, name)
		require.Equal(t, len(a.Values), len(b.Values), name)
		for i := range a.Values {
			require.Equal(t, math.Float64bits(a.Values[i]), math.Float64bits(b.Values[i]), "%s value %d", name, i)
		}
	}
}

// requireStreamAgrees: the streaming scan (ReadJSONFile's), through
// windows from 1 byte up and readers that return fewer bytes than asked or
// the end of the file with the last bytes, accepts what the whole-text
// scan accepts and gives the same fields, positions and offsets.
func requireStreamAgrees(t *testing.T, data []byte) {
	t.Helper()
	ref := &JSONData{File: "f.json", Fields: map[string]*JSONField{}}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		ref.bom = 3
	}
	ref.data = data[ref.bom:]
	_, refOK := scanJSON(ref)
	readers := map[string]func() io.Reader{
		"whole":    func() io.Reader { return bytes.NewReader(data) },
		"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) },
		"half":     func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) },
		"data+EOF": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(data)) },
	}
	for _, window := range []int{1, 2, 3, 5, 16, 4096} {
		for what, r := range readers {
			d, ok, err := streamJSON("f.json", r(), len(data), window)
			require.NoError(t, err)
			require.Equal(t, refOK, ok, "window %d, %s reader, on %q", window, what, data)
			if !ok {
				continue
			}
			require.Equal(t, ref.bom, d.bom)
			requireSameFields(t, ref, d)
		}
	}
}

// TestReadJSONFile: a valid file reads as ParseJSON reads its text, with
// no text kept (a value's position is found in the file again); a bad one
// gets ParseJSON's positioned messages; a missing one the os error.
func TestReadJSONFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	text := "\xef\xbb\xbf{\"N\": 3,\n \"y\": [1, 2.5, \"NaN\"],\n \"X\": [[1, 2], [3, 4]]}\n"
	require.NoError(t, os.WriteFile(good, []byte(text), 0o644))
	d, err := ReadJSONFile(good)
	require.NoError(t, err)
	ref, err := ParseJSON(good, []byte(text))
	require.NoError(t, err)
	require.Nil(t, d.data, "no text kept")
	require.Equal(t, ref.Names, d.Names)
	for _, name := range ref.Names {
		require.Equal(t, ref.Fields[name].Pos, d.Fields[name].Pos)
		require.Equal(t, ref.Fields[name].Dims, d.Fields[name].Dims)
		for i := range ref.Fields[name].Values {
			require.Equal(t, ref.Fields[name].ElemPos(i), d.Fields[name].ElemPos(i), "%s[%d]", name, i)
		}
	}
	require.Equal(t, lang.Pos{File: good, Offset: 27, Line: 2, Col: 16}, d.Fields["y"].ElemPos(2))

	bad := filepath.Join(dir, "bad.json")
	btext := "{\"N\": 3,\n \"y\": [1, 2, x]}"
	require.NoError(t, os.WriteFile(bad, []byte(btext), 0o644))
	_, err = ReadJSONFile(bad)
	_, want := ParseJSON(bad, []byte(btext))
	require.Error(t, err)
	require.Equal(t, want.Error(), err.Error())
	require.Contains(t, err.Error(), "bad.json:2:")

	_, err = ReadJSONFile(filepath.Join(dir, "missing.json"))
	require.ErrorIs(t, err, fs.ErrNotExist)
}

// TestNumberMatchesStrconv: the scanner's number parser gives
// strconv.ParseFloat's value bit for bit, and refuses exactly what
// ParseFloat cannot parse or rounds to an infinity or (underflow) reports
// out of range.
func TestNumberMatchesStrconv(t *testing.T) {
	cases := []string{"0", "-0", "0.0", "-0.0e5", "0e400", "1", "-1", "10", "100e-2", "0.1", "0.3", "-0.57761193",
		"9007199254740991", "9007199254740992", "9007199254740993", "18014398509481985", "1e22", "1e23", "-1e-22", "1e-23",
		"123456789012345678901234567890", "1.000000000000000000001", "0.000000000000000000000000000001",
		"4.9e-324", "5e-324", "2e-324", "1e-400", "1.7976931348623157e308", "1.8e308", "1e400",
		"12345678901234567e-5", "1234567890123456e-22", "1234567890123456e22", "0.00012345678901234567",
		"1E+2", "1e+0002", "1e-00000000000000000000400"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		var b []byte
		if r.IntN(4) == 0 {
			b = append(b, '-')
		}
		nint := 1 + r.IntN(20)
		b = append(b, byte('1'+r.IntN(9)))
		for range nint - 1 {
			b = append(b, byte('0'+r.IntN(10)))
		}
		if r.IntN(10) == 0 {
			b = []byte(strings.TrimLeft(string(b), "-123456789"))
			b = append([]byte("0"), b...)
			b = b[:1]
		}
		if r.IntN(2) == 0 {
			b = append(b, '.')
			for range 1 + r.IntN(20) {
				b = append(b, byte('0'+r.IntN(10)))
			}
		}
		if r.IntN(2) == 0 {
			b = append(b, "eE"[r.IntN(2)])
			b = append(b, []string{"", "+", "-"}[r.IntN(3)]...)
			b = strconv.AppendInt(b, int64(r.IntN([]int{30, 400}[r.IntN(2)])), 10)
		}
		cases = append(cases, string(b))
	}
	for _, c := range cases {
		for _, end := range []string{"", ",", "]", " "} {
			s := jsonScanner{data: []byte(c + end)}
			got, ok := s.number()
			want, err := strconv.ParseFloat(c, 64)
			wantOK := err == nil && !math.IsInf(want, 0)
			if ok != wantOK || ok && (math.Float64bits(want) != math.Float64bits(got) || s.i != len(c)) {
				t.Fatalf("%q: got %v (%v, end %d), strconv.ParseFloat gives %v (%v)", c, got, ok, s.i, want, err)
			}
		}
	}
	for _, bad := range []string{"", "-", "01", "1.", ".5", "+1", "1e", "1e+", "1x", "--1", "1.2.3", "0x10", "1_0", "Infinity"} {
		s := jsonScanner{data: []byte(bad)}
		_, ok := s.number()
		require.False(t, ok, bad)
	}
}

// TestParseJSONCapacity: a large array's values are allocated close to
// their number (projected from the bytes left), not with append's slack,
// and a small array read before a large one is not given the large one's
// room beyond 8 times its own.
func TestParseJSONCapacity(t *testing.T) {
	d, err := ParseJSON("d.json", logisticJSON(20000, 10))
	require.NoError(t, err)
	x, _ := d.Field("X")
	require.Len(t, x.Values, 200000)
	assert.LessOrEqual(t, cap(x.Values), 200000*21/20)

	var b bytes.Buffer
	b.WriteString(`{"y": [`)
	for i := range 1000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("1")
	}
	b.WriteString(`], "z": [` + strings.Repeat("0.123456789, ", 100000) + `1]}`)
	d, err = ParseJSON("d.json", b.Bytes())
	require.NoError(t, err)
	y, _ := d.Field("y")
	require.Len(t, y.Values, 1000)
	assert.LessOrEqual(t, cap(y.Values), 8*1000+64)
}

// TestParseJSONExamples: on the JSON data of examples/posteriordb the
// scanner reads what the token-by-token parser reads, value for value.
func TestParseJSONExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/posteriordb/*/data.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		requireScanAgrees(t, data)
	}
}

// parseJSONTree, the reference of the tests, parses a whole JSON data file
// token by token into a tree of values and then shapes the fields, as
// ParseJSON did before its scanner (and does for the files the scanner
// rejects, from the field where it stopped).
func parseJSONTree(filename string, raw []byte) (*JSONData, error) {
	d := &JSONData{File: filename, Fields: map[string]*JSONField{}}
	if bytes.HasPrefix(raw, []byte("\xef\xbb\xbf")) {
		d.bom = 3
	}
	d.data = raw[d.bom:]
	return d.tree(0)
}
