package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/lang"
)

const noMissing = "mscppl has no missing-data model; remove row 1 or fill in the value"

// readErrCases are inputs Read must reject, with the exact message and the
// position of the first error.
var readErrCases = []struct {
	name, csv, want string
	line, col       int
}{
	{"empty file", "", "d.csv:1:1: empty CSV file: expected a header line (the first line names the columns, e.g. x,y)", 1, 1},
	{"blank file", "  \r\n\n\t\n", "d.csv:1:1: empty CSV file: expected a header line (the first line names the columns, e.g. x,y)", 1, 1},
	{"BOM only", "\xef\xbb\xbf", "d.csv:1:1: empty CSV file: expected a header line (the first line names the columns, e.g. x,y)", 1, 1},
	{"header only", "a,b\n", "d.csv:1:1: no data rows: the file has a header line but nothing below it", 1, 1},
	{"header only, no newline", "a,b", "d.csv:1:1: no data rows: the file has a header line but nothing below it", 1, 1},
	{"header after blank lines", "\n \na,b\n\n", "d.csv:3:1: no data rows: the file has a header line but nothing below it", 3, 1},
	{"too few fields", "a,b\n1,2\n3\n", "d.csv:3:1: row 2 has 1 fields, the header has 2", 3, 1},
	{"too many fields", "a,b\n1,2\n3,4,5\n", "d.csv:3:5: row 2 has 3 fields, the header has 2", 3, 5},
	{"trailing comma", "a,b\n1,2,\n", "d.csv:2:5: row 1 has 3 fields, the header has 2 (remove the trailing comma)", 2, 5},
	{"not a number", "a,b\n1,2\n3,abc\n", `d.csv:3:3: row 2, column "b": "abc" is not a number (all data must be numeric; encode categories as numbers)`, 3, 3},
	{"not a number, spaces trimmed", "a,b\n1, x \n", `d.csv:2:3: row 1, column "b": "x" is not a number (all data must be numeric; encode categories as numbers)`, 2, 3},
	{"TRUE", "a\nTRUE\n", `d.csv:2:1: row 1, column "a": "TRUE" is not a number (write logical values as 1 and 0)`, 2, 1},
	{"FALSE", "a\nFALSE\n", `d.csv:2:1: row 1, column "a": "FALSE" is not a number (write logical values as 1 and 0)`, 2, 1},
	{"hex", "a\n0x10\n", `d.csv:2:1: row 1, column "a": "0x10" is not a number (write the number in decimal)`, 2, 1},
	{"hex float", "a\n-0x1p-2\n", `d.csv:2:1: row 1, column "a": "-0x1p-2" is not a number (write the number in decimal)`, 2, 1},
	{"digit separator", "a\n1_000\n", `d.csv:2:1: row 1, column "a": "1_000" is not a number (remove the digit separators)`, 2, 1},
	{"decimal comma", "a\n\"1,5\"\n", `d.csv:2:1: row 1, column "a": "1,5" is not a number (use a decimal point and no thousands separators)`, 2, 1},
	{"semicolons", "a;b\n1;2\n", `d.csv:1:2: the header separates its fields by semicolons, not commas (mscppl reads comma-separated files with a decimal point: save the file with commas (R: write.csv, not write.csv2; pandas: to_csv with sep=","))`, 1, 2},
	{"semicolons, quoted header", "\"a\";\"b\"\n1,5;2\n", `d.csv:1:4: the header separates its fields by semicolons, not commas (mscppl reads comma-separated files with a decimal point: save the file with commas (R: write.csv, not write.csv2; pandas: to_csv with sep=","))`, 1, 4},
	{"semicolon in a quoted name, then a tab", "\"a;b\"\tc\n1\t2\n", `d.csv:1:6: the header separates its fields by tabs, not commas (mscppl reads comma-separated files with a decimal point: save the file with commas (R: write.csv, not write.csv2; pandas: to_csv with sep=","))`, 1, 6},
	{"tabs after a blank line", "\n a\tb\n1\t2\n", `d.csv:2:3: the header separates its fields by tabs, not commas (mscppl reads comma-separated files with a decimal point: save the file with commas (R: write.csv, not write.csv2; pandas: to_csv with sep=","))`, 2, 3},
	{"semicolons in the data only", "a\n1;2\n", `d.csv:2:1: row 1, column "a": "1;2" is not a number (mscppl reads comma-separated files; this one seems to use another separator)`, 2, 1},
	{"empty cell", "a,b\n1,\n", `d.csv:2:3: row 1, column "b": missing or non-finite value (empty cell) (` + noMissing + ")", 2, 3},
	{"quoted empty cell", "g\n\"\"\n", `d.csv:2:1: row 1, column "g": missing or non-finite value (empty cell) (` + noMissing + ")", 2, 1},
	{"NA", "a,b\n1,NA\n", `d.csv:2:3: row 1, column "b": missing or non-finite value "NA" (` + noMissing + ")", 2, 3},
	{"na", "a,b\n1,na\n", `d.csv:2:3: row 1, column "b": missing or non-finite value "na" (` + noMissing + ")", 2, 3},
	{"?", "a,b\n1,?\n", `d.csv:2:3: row 1, column "b": missing or non-finite value "?" (` + noMissing + ")", 2, 3},
	{"NaN", "a\nNaN\n", `d.csv:2:1: row 1, column "a": missing or non-finite value "NaN" (` + noMissing + ")", 2, 1},
	{"Inf", "a\nInf\n", `d.csv:2:1: row 1, column "a": missing or non-finite value "Inf" (` + noMissing + ")", 2, 1},
	{"-Inf", "a\n-Inf\n", `d.csv:2:1: row 1, column "a": missing or non-finite value "-Inf" (` + noMissing + ")", 2, 1},
	{"+infinity", "a\n+infinity\n", `d.csv:2:1: row 1, column "a": missing or non-finite value "+infinity" (` + noMissing + ")", 2, 1},
	{"overflow", "a\n1e400\n", `d.csv:2:1: row 1, column "a": "1e400" is too large for a 64-bit float (rescale the column)`, 2, 1},
	{"row number is not line number", "a,b\n\"1\n\",2\n3,x\n",
		`d.csv:4:3: row 2, column "b": "x" is not a number (all data must be numeric; encode categories as numbers)`, 4, 3},
	{"blank lines do not count as rows", "a,b\n\n1,2\n   \n3,x\n",
		`d.csv:5:3: row 2, column "b": "x" is not a number (all data must be numeric; encode categories as numbers)`, 5, 3},
	{"multi-line header", "a,\"b\nc\",d\n1,2,3\n4,x,6\n",
		`d.csv:4:3: row 2, column "b\nc": "x" is not a number (all data must be numeric; encode categories as numbers)`, 4, 3},
	{"CRLF", "a,b\r\n1,2\r\n3,x\r\n", `d.csv:3:3: row 2, column "b": "x" is not a number (all data must be numeric; encode categories as numbers)`, 3, 3},
	{"BOM does not shift columns", "\xef\xbb\xbfa,a\n1,2\n", `d.csv:1:3: duplicate column name "a": column 2 has the same name as column 1 (d.csv:1:1)`, 1, 3},
	{"duplicate name", "a,b,a\n1,2,3\n", `d.csv:1:5: duplicate column name "a": column 3 has the same name as column 1 (d.csv:1:1)`, 1, 5},
	{"duplicate after trimming", "x, x\n1,2\n", `d.csv:1:3: duplicate column name "x": column 2 has the same name as column 1 (d.csv:1:1)`, 1, 3},
	{"empty name", "a,,c\n1,2,3\n", "d.csv:1:3: column 2 has an empty name in the header (every column needs a name)", 1, 3},
	{"blank name", "a, ,c\n1,2,3\n", "d.csv:1:3: column 2 has an empty name in the header (every column needs a name)", 1, 3},
	{"header trailing comma", "a,b,\n1,2,3\n", "d.csv:1:5: column 3 has an empty name in the header (remove the trailing comma)", 1, 5},
	{"unclosed quote", "a,b\n1,\"2\n", `d.csv:2:5: quoted field is not closed before the end of the file (the field started on line 2; close it with a ")`, 2, 5},
	{"stray quote after quoted field", "a,b\n\"1\"2,3\n",
		`d.csv:2:3: extraneous or missing " in a quoted field (a quoted field ends at a " followed by a comma or the line end; a " inside it is written "")`, 2, 3},
	{"bare quote", "a,b\n1,2\"\n", `d.csv:2:4: bare " in an unquoted field (quote the whole field and double the quotes inside it, e.g. "a ""b""")`, 2, 4},
	{"bare quote in header", "a\"b\n1\n", `d.csv:1:2: bare " in an unquoted field (quote the whole field and double the quotes inside it, e.g. "a ""b""")`, 1, 2},
	{"not UTF-8", "a,b\n1,\xff\n", "d.csv:2:3: invalid UTF-8 byte 0xff (the file must be UTF-8 text; save it as UTF-8)", 2, 3},
	{"Latin-1 header", "a,gr\xf6\xdfe\n1,2\n", "d.csv:1:5: invalid UTF-8 byte 0xf6 (the file must be UTF-8 text; save it as UTF-8)", 1, 5},
	{"UTF-16", "\xff\xfea\x00\n\x00", "d.csv:1:1: the file is UTF-16 text (save it as UTF-8)", 1, 1},
}

func TestReadErrors(t *testing.T) {
	for _, c := range readErrCases {
		t.Run(c.name, func(t *testing.T) {
			tb, err := Read("d.csv", strings.NewReader(c.csv))
			require.Error(t, err)
			require.Nil(t, tb)
			assert.Equal(t, c.want, err.Error())
			var list lang.ErrorList
			require.True(t, errors.As(err, &list), "%T", err)
			require.NotEmpty(t, list)
			assert.Equal(t, lang.Pos{File: "d.csv", Offset: list[0].Pos.Offset, Line: c.line, Col: c.col}, list[0].Pos)
		})
	}
}

func TestReadOK(t *testing.T) {
	cases := []struct {
		name, csv string
		header    []string
		cols      [][]float64
		lines     []int
	}{
		{"plain", "a,b\n1,2\n3,4\n", []string{"a", "b"}, [][]float64{{1, 3}, {2, 4}}, []int{2, 3}},
		{"no final newline", "a,b\n1,2\n3,4", []string{"a", "b"}, [][]float64{{1, 3}, {2, 4}}, []int{2, 3}},
		{"BOM and CRLF", "\xef\xbb\xbfa,b\r\n1,2\r\n", []string{"a", "b"}, [][]float64{{1}, {2}}, []int{2}},
		{"classic Mac line ends", "a,b\r1,2\r3,4\r", []string{"a", "b"}, [][]float64{{1, 3}, {2, 4}}, []int{2, 3}},
		{"quoted header and cells", "\"a,b\",\"c\"\n\"1.5\",\" 2 \"\n", []string{"a,b", "c"}, [][]float64{{1.5}, {2}}, []int{2}},
		{"spaces trimmed", " a , b \n 1 ,\t2\t\n", []string{"a", "b"}, [][]float64{{1}, {2}}, []int{2}},
		{"number syntax", "x\n1e3\n-0.5\n+2\n.5\n5.\n1E-2\n1e-400\n", []string{"x"},
			[][]float64{{1000, -0.5, 2, 0.5, 5, 0.01, 0}}, []int{2, 3, 4, 5, 6, 7, 8}},
		{"blank lines skipped", "\n  \na,b\n\n1,2\n \t \n3,4\n\n", []string{"a", "b"}, [][]float64{{1, 3}, {2, 4}}, []int{5, 7}},
		{"one column, blank line", "g\n1\n  \n2\n", []string{"g"}, [][]float64{{1, 2}}, []int{2, 4}},
		{"multi-line quoted field", "a,\"b\nc\"\n\"1\n\",2\n3,4\n", []string{"a", "b\nc"}, [][]float64{{1, 3}, {2, 4}}, []int{3, 5}},
		{"unicode header", "größe,β\n1,2\n", []string{"größe", "β"}, [][]float64{{1}, {2}}, []int{2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb, err := Read("d.csv", strings.NewReader(c.csv))
			require.NoError(t, err)
			assert.Equal(t, "d.csv", tb.File)
			assert.Equal(t, c.header, tb.Header)
			require.Equal(t, len(c.cols[0]), tb.Rows)
			for j, h := range c.header {
				col, ok := tb.Column(h)
				require.True(t, ok, h)
				assert.Equal(t, c.cols[j], col, h)
				assert.Equal(t, j, tb.Index(h))
				assert.Equal(t, c.cols[j], tb.Col(j))
			}
			for i, l := range c.lines {
				assert.Equal(t, l, tb.Line(i))
				assert.Equal(t, lang.Pos{File: "d.csv", Line: l, Col: 1}, tb.RowPos(i))
			}
			_, ok := tb.Column("nope")
			assert.False(t, ok)
			assert.Equal(t, -1, tb.Index("nope"))
		})
	}
}

// TestReadOffset checks that Pos.Offset points at the offending field in
// the original bytes, BOM included.
func TestReadOffset(t *testing.T) {
	for _, in := range []string{"a,b\n1,2\n3,xyz\n", "\xef\xbb\xbfa,b\r\n1,2\r\n3,xyz\r\n", "a,\"b\nc\"\n1,2\n3,xyz\n"} {
		_, err := Read("d.csv", strings.NewReader(in))
		var list lang.ErrorList
		require.True(t, errors.As(err, &list))
		off := list[0].Pos.Offset
		require.True(t, strings.HasPrefix(in[off:], "xyz"), "%q at %d", in, off)
	}
}

func TestReadCollectsErrors(t *testing.T) {
	in := "a,b\n1,x\n2\n3,4\nNA,5\n"
	_, err := Read("d.csv", strings.NewReader(in))
	require.Error(t, err)
	assert.Equal(t, `d.csv:2:3: row 1, column "b": "x" is not a number (all data must be numeric; encode categories as numbers)
d.csv:3:1: row 2 has 1 fields, the header has 2
d.csv:5:1: row 4, column "a": missing or non-finite value "NA" (mscppl has no missing-data model; remove row 4 or fill in the value)`, err.Error())

	// A file full of errors stops after maxErrors of them.
	var b strings.Builder
	b.WriteString("a\n")
	for range 100 {
		b.WriteString("x\n")
	}
	_, err = Read("d.csv", strings.NewReader(b.String()))
	var list lang.ErrorList
	require.True(t, errors.As(err, &list))
	require.Len(t, list, maxErrors+1)
	assert.Equal(t, "d.csv:11:1: too many errors; stopping", list[maxErrors].Error())

	// Several header problems are reported together.
	_, err = Read("d.csv", strings.NewReader("a,,a\n1,2,3\n"))
	assert.Equal(t, `d.csv:1:3: column 2 has an empty name in the header (every column needs a name)
d.csv:1:4: duplicate column name "a": column 3 has the same name as column 1 (d.csv:1:1)`, err.Error())
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadIOError(t *testing.T) {
	_, err := Read("d.csv", failingReader{})
	require.EqualError(t, err, "d.csv: disk on fire")
}

// exampleData holds the real data sets the examples use; they are part of
// the repository, so a missing file is a failure, not a reason to skip.
const exampleData = "../../examples/data/"

func readExample(t testing.TB, name string) *Table {
	t.Helper()
	b, err := os.ReadFile(exampleData + name)
	require.NoError(t, err, "the example data set %s must be in the repository", name)
	tb, err := Read(exampleData+name, bytes.NewReader(b))
	require.NoError(t, err)
	return tb
}

func TestRealFiles(t *testing.T) {
	for _, c := range []struct {
		file        string
		rows, cols  int
		first, last string
	}{
		{"pima.csv", 768, 9, "pregnant", "diabetes"},
		{"ionosphere.csv", 351, 35, "V1", "Class"},
		{"dem2gbp.csv", 1974, 1, "DEM2GBP", "DEM2GBP"},
	} {
		t.Run(c.file, func(t *testing.T) {
			tb := readExample(t, c.file)
			assert.Equal(t, exampleData+c.file, tb.File)
			require.Equal(t, c.rows, tb.Rows)
			require.Len(t, tb.Header, c.cols)
			assert.Equal(t, c.first, tb.Header[0])
			assert.Equal(t, c.last, tb.Header[c.cols-1])
			for j := range tb.Header {
				require.Len(t, tb.Col(j), c.rows)
			}
			assert.Equal(t, 2, tb.Line(0))
			assert.Equal(t, c.rows+1, tb.Line(c.rows-1))
		})
	}
	t.Run("values", func(t *testing.T) {
		pima := readExample(t, "pima.csv")
		g, _ := pima.Column("glucose")
		assert.Equal(t, []float64{148, 85}, g[:2])
		assert.Equal(t, 93.0, g[767])
		d, _ := pima.Column("diabetes")
		for _, v := range d {
			require.True(t, v == 0 || v == 1)
		}
		ion := readExample(t, "ionosphere.csv")
		v2, _ := ion.Column("V2")
		for _, v := range v2 {
			require.Zero(t, v) // constant, per the data README
		}
		fx := readExample(t, "dem2gbp.csv")
		r, _ := fx.Column("DEM2GBP")
		assert.Equal(t, 0.12533286, r[0])
		assert.Equal(t, 0.52804687, r[1973])
	})
}

func TestMatrixAndSubset(t *testing.T) {
	tb, err := Read("d.csv", strings.NewReader("a,b,c\n1,2,3\n4,5,6\n7,8,9\n"))
	require.NoError(t, err)
	assert.Equal(t, []float64{3, 1, 6, 4, 9, 7}, tb.Matrix([]int{2, 0}))
	assert.Equal(t, []float64{2, 5, 8}, tb.Matrix([]int{1}))
	assert.Empty(t, tb.Matrix(nil))
	s := tb.Subset([]int{2, 0})
	assert.Equal(t, 2, s.Rows)
	assert.Equal(t, []float64{7, 8, 9, 1, 2, 3}, s.Matrix([]int{0, 1, 2}))
	assert.Equal(t, 4, s.Line(0))
	assert.Equal(t, 2, s.Line(1))
	assert.Equal(t, []float64{1, 4, 7}, tb.Col(0), "Subset must not alias the original")
}

func TestStandardize(t *testing.T) {
	t.Run("small", func(t *testing.T) {
		x := []float64{1, 5, 2, 5, 3, 5} // 3 rows x 2 cols; column 2 constant
		Standardize(x, 3, 2)
		assert.Equal(t, []float64{-1, 0, 0, 0, 1, 0}, x)
	})
	t.Run("constant columns are zeros", func(t *testing.T) {
		// 0.1 three times: the rounded mean differs from 0.1, so a naive
		// two-pass sd is tiny but non-zero.
		for _, v := range []float64{0.1, 1e300, -7, 0, 5e-324, 1.0 / 3} {
			x := []float64{v, v, v}
			Standardize(x, 3, 1)
			assert.Equal(t, []float64{0, 0, 0}, x, v)
		}
	})
	t.Run("one row", func(t *testing.T) {
		x := []float64{3, 4}
		Standardize(x, 1, 2)
		assert.Equal(t, []float64{0, 0}, x)
	})
	t.Run("empty", func(t *testing.T) {
		Standardize(nil, 0, 3)
		Standardize(nil, 5, 0)
	})
	t.Run("mean 0 and sd 1", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		const rows, cols = 200, 4
		scale := []float64{1, 1e-200, 1e300, 3}
		x := make([]float64, rows*cols)
		for i := range rows {
			for j := range cols {
				x[i*cols+j] = scale[j] * (rng.NormFloat64()*2 + 10)
			}
		}
		orig := append([]float64(nil), x...)
		Standardize(x, rows, cols)
		for j := range cols {
			m, ss := 0.0, 0.0
			for i := range rows {
				require.False(t, math.IsNaN(x[i*cols+j]) || math.IsInf(x[i*cols+j], 0))
				m += x[i*cols+j]
			}
			m /= rows
			for i := range rows {
				ss += (x[i*cols+j] - m) * (x[i*cols+j] - m)
			}
			assert.InDelta(t, 0, m, 1e-12, "column %d", j)
			assert.InDelta(t, 1, math.Sqrt(ss/(rows-1)), 1e-12, "column %d", j)
			// an affine map with positive slope: order is kept
			for i := 1; i < rows; i++ {
				require.Equal(t, orig[i*cols+j] > orig[(i-1)*cols+j], x[i*cols+j] > x[(i-1)*cols+j])
			}
		}
	})
	t.Run("sample sd", func(t *testing.T) {
		x := []float64{0, 2} // mean 1, sample sd sqrt(2)
		Standardize(x, 2, 1)
		assert.InDeltaSlice(t, []float64{-1 / math.Sqrt2, 1 / math.Sqrt2}, x, 1e-15)
	})
	t.Run("no allocations", func(t *testing.T) {
		x := make([]float64, 100*3)
		for i := range x {
			x[i] = float64(i % 7)
		}
		assert.Zero(t, testing.AllocsPerRun(10, func() { Standardize(x, 100, 3) }))
	})
}

// FuzzRead: Read never panics; it returns either a table of consistent
// sizes or an error positioned inside the input.
func FuzzRead(f *testing.F) {
	for _, c := range readErrCases {
		f.Add([]byte(c.csv))
	}
	for _, s := range []string{
		"a,b\n1,2\n3,4\n", "\xef\xbb\xbf\"a,b\",c\r\n1,2\r\n", "a,b\r1,2\r", "a,\"b\nc\"\n\"1\n\",2\n",
		"\n  \na,b\n\n1,2\n \t \n3,4\n\n", "x\n1e3\n-0.5\n+2\n",
	} {
		f.Add([]byte(s))
	}
	for _, name := range []string{"pima.csv", "dem2gbp.csv"} {
		b, err := os.ReadFile(exampleData + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 400)])
	}
	f.Fuzz(checkRead)
}

func checkRead(t *testing.T, data []byte) {
	tb, err := Read("f.csv", bytes.NewReader(data))
	requireCSVStreamAgrees(t, data, tb)
	if err == nil {
		require.NotNil(t, tb)
		require.Positive(t, tb.Rows)
		require.NotEmpty(t, tb.Header)
		require.Len(t, tb.lines, tb.Rows)
		for j, h := range tb.Header {
			require.Len(t, tb.Col(j), tb.Rows)
			require.NotEmpty(t, h)
			require.Equal(t, j, tb.Index(h))
			for _, v := range tb.Col(j) {
				require.False(t, math.IsNaN(v) || math.IsInf(v, 0))
			}
		}
		require.Len(t, tb.Matrix([]int{0}), tb.Rows)
		return
	}
	require.Nil(t, tb)
	var list lang.ErrorList
	require.True(t, errors.As(err, &list), "%T %v", err, err)
	require.NotEmpty(t, list)
	nlines := bytes.Count(data, []byte{'\n'}) + 1
	if !bytes.ContainsRune(data, '\n') {
		nlines += bytes.Count(data, []byte{'\r'})
	}
	for _, e := range list {
		require.Equal(t, "f.csv", e.Pos.File)
		require.True(t, e.Pos.Line >= 1 && e.Pos.Line <= nlines, "%v: line %d of %d", e, e.Pos.Line, nlines)
		require.GreaterOrEqual(t, e.Pos.Col, 1, "%v", e)
		require.True(t, e.Pos.Offset >= 0 && e.Pos.Offset <= len(data), "%v: offset %d of %d", e, e.Pos.Offset, len(data))
		require.NotEmpty(t, e.Msg)
	}
}

// TestReadAllocationBounded: the columns are allocated from the line count
// but never beyond what the file's bytes can hold (a row of c numbers
// takes at least 2c bytes), so a wide header over many blank lines claims
// little memory; a plain file gets exactly its rows.
func TestReadAllocationBounded(t *testing.T) {
	var b strings.Builder
	for j := range 1000 {
		if j > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "c%d", j)
	}
	b.WriteString("\n")
	b.WriteString(strings.Repeat("\n", 100000))
	b.WriteString(strings.Repeat("1,", 999) + "1\n")
	data := b.String()
	tab, err := Read("d.csv", strings.NewReader(data))
	require.NoError(t, err)
	require.Equal(t, 1, tab.Rows)
	total := 0
	for j := range tab.Header {
		total += cap(tab.Col(j))
	}
	assert.LessOrEqual(t, total, len(data)/2+len(tab.Header))

	tab, err = Read("d.csv", strings.NewReader("a,b\n1,2\n3,4\n5,6\n"))
	require.NoError(t, err)
	assert.Equal(t, 3, cap(tab.Col(0)))
}

// TestReadBufferInPlace: Read takes a *bytes.Buffer's contents in place
// (infer.Load hands it the file it read): the same table as from another
// reader, without a copy of the file, and the buffer left as it was.
func TestReadBufferInPlace(t *testing.T) {
	data := logisticCSV(2000, 10)
	want, err := Read("d.csv", strings.NewReader(string(data)))
	require.NoError(t, err)
	buf := bytes.NewBuffer(data)
	got, err := Read("d.csv", buf)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, len(data), buf.Len())
	bytesPerRead := func(r io.Reader) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Read("d.csv", r)
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		return after.TotalAlloc - before.TotalAlloc
	}
	inPlace := bytesPerRead(bytes.NewBuffer(data))
	copied := bytesPerRead(bytes.NewReader(data))
	assert.Less(t, inPlace+uint64(len(data)), copied, "in place %d bytes, copied %d, file %d", inPlace, copied, len(data))
}

// requireCSVStreamAgrees: what the streaming pass (ReadCSVFile's) accepts,
// through buffers from 16 bytes up and readers that return fewer bytes
// than asked or the end of the file with the last bytes, Read accepts too,
// as the same table (ref; nil when Read rejects the file).
func requireCSVStreamAgrees(t *testing.T, data []byte, ref *Table) {
	t.Helper()
	readers := map[string]func() io.Reader{
		"whole":    func() io.Reader { return bytes.NewReader(data) },
		"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) },
		"half":     func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) },
		"data+EOF": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(data)) },
	}
	for _, window := range []int{16, 64, 4096} {
		for what, r := range readers {
			tb, ok, err := streamCSV("f.csv", r(), len(data), window)
			require.NoError(t, err)
			if !ok {
				require.Nil(t, tb)
				continue
			}
			require.NotNil(t, ref, "window %d, %s reader: the stream accepts %q, Read does not", window, what, data)
			require.Equal(t, ref, tb, "window %d, %s reader", window, what)
		}
	}
}

// TestReadCSVFile: a valid file streams to the table Read makes of its
// text (pima.csv, and a BOM and CRLF file); the forms the stream leaves
// to Read (one column, a line of spaces, CR-only line ends) and bad files
// are read whole, with Read's table or messages; a missing file gives the
// os error.
func TestReadCSVFile(t *testing.T) {
	pima, err := os.ReadFile(exampleData + "pima.csv")
	require.NoError(t, err)
	dir := t.TempDir()
	for _, c := range []struct {
		name, text string
		streamed   bool
	}{
		{"pima", string(pima), true},
		{"bom_crlf", "\xef\xbb\xbfa, b\r\n1,2\r\n\r\n3,4e-1\r\n", true},
		{"one_column", "x\n1\n2\n", false},
		{"spaces_line", "a,b\n1,2\n   \n3,4\n", false},
		{"cr_only", "a,b\r1,2\r3,4\r", false},
		{"bad_cell", "a,b\n1,2\n3,x\n", false},
		{"ragged", "a,b\n1,2\n3\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".csv")
			require.NoError(t, os.WriteFile(path, []byte(c.text), 0o644))
			want, wantErr := Read(path, bytes.NewReader([]byte(c.text)))
			_, ok, err := streamCSV(path, strings.NewReader(c.text), len(c.text), csvWindow)
			require.NoError(t, err)
			require.Equal(t, c.streamed, ok)
			got, gotErr := ReadCSVFile(path)
			if wantErr != nil {
				require.Error(t, gotErr)
				require.Equal(t, wantErr.Error(), gotErr.Error())
				return
			}
			require.NoError(t, gotErr)
			require.Equal(t, want, got)
		})
	}
	_, err = ReadCSVFile(filepath.Join(dir, "missing.csv"))
	require.ErrorIs(t, err, fs.ErrNotExist)
}
