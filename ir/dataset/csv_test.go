package dataset

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadErrors(t *testing.T) {
	cases := []struct {
		name, csv, want string
	}{
		{"empty", "", "d.csv:1:1: empty CSV file"},
		{"header only", "a,b\n", "d.csv:1:1: no data rows"},
		{"ragged", "a,b\n1,2\n3\n", "d.csv:3:1: row 2 has 1 fields, the header has 2"},
		{"non-numeric", "a,b\n1,2\n3,x\n", `d.csv:3:3: row 2, column "b": "x" is not a number`},
		{"empty cell", "a,b\n1,\n", `d.csv:2:3: row 1, column "b": missing value ""`},
		{"NA", "a,b\n1,NA\n", `row 1, column "b": missing value "NA"`},
		{"NaN", "a\nNaN\n", `missing value "NaN"`},
		{"Inf", "a\nInf\n", `"Inf" is not a finite number`},
		{"duplicate", "a,b,a\n1,2,3\n", `d.csv:1:5: duplicate column name "a" (columns 1 and 3)`},
		{"empty name", "a,,c\n1,2,3\n", "column 2 has an empty name"},
		{"bad quote", "a,b\n1,\"2\n", "d.csv"},
		{"not utf8", "a,b\n1,\xff\n", "d.csv:2:3: the file is not valid UTF-8"},
		{"TRUE", "a\nTRUE\n", `"TRUE" is not a number`},
	}
	for _, c := range cases {
		_, err := Read("d.csv", strings.NewReader(c.csv))
		require.Error(t, err, c.name)
		require.Contains(t, err.Error(), c.want, c.name)
	}
}

func TestReadQuirks(t *testing.T) {
	// BOM, CRLF, quoted header with a comma, spaces, exponents, signs
	tb, err := Read("d.csv", strings.NewReader("\xef\xbb\xbf\"a,b\", c \r\n 1e3 ,-0.5\r\n+2,\"3\"\r\n"))
	require.NoError(t, err)
	require.Equal(t, []string{"a,b", "c"}, tb.Header)
	require.Equal(t, 2, tb.Rows)
	a, ok := tb.Column("a,b")
	require.True(t, ok)
	require.Equal(t, []float64{1000, 2}, a)
	c, _ := tb.Column("c")
	require.Equal(t, []float64{-0.5, 3}, c)
}

func TestSelect(t *testing.T) {
	tb, err := Read("d.csv", strings.NewReader("V1,V2,Class,V10\n1,2,0,3\n4,5,1,6\n"))
	require.NoError(t, err)
	cols, err := tb.Select(Selection{Kind: SelGlob, Pattern: "V*"})
	require.NoError(t, err)
	require.Equal(t, []int{0, 1, 3}, cols)
	cols, err = tb.Select(Selection{Kind: SelAllExcept, Names: []string{"Class"}})
	require.NoError(t, err)
	require.Equal(t, []int{0, 1, 3}, cols)
	require.Equal(t, []float64{1, 2, 3, 4, 5, 6}, tb.Matrix(cols))
	_, err = tb.Select(Selection{Kind: SelColumn, Names: []string{"Clas"}})
	require.ErrorContains(t, err, `did you mean "Class"?`)
	_, err = tb.Select(Selection{Kind: SelGlob, Pattern: "W*"})
	require.ErrorContains(t, err, "no column")
	_, err = tb.Select(Selection{Kind: SelAllExcept, Names: []string{"Klass"}})
	require.ErrorContains(t, err, `no column "Klass"`)
}

func TestStandardize(t *testing.T) {
	x := []float64{1, 5, 2, 5, 3, 5} // 3 rows x 2 cols; column 2 constant
	Standardize(x, 3, 2)
	require.InDeltaSlice(t, []float64{-1, 0, 0, 0, 1, 0}, x, 1e-12)
}

func TestRealFiles(t *testing.T) {
	for _, c := range []struct {
		file       string
		rows, cols int
	}{{"pima.csv", 768, 9}, {"ionosphere.csv", 351, 35}, {"dem2gbp.csv", 1974, 1}} {
		tb, err := ReadFile("../../examples/data/" + c.file)
		require.NoError(t, err)
		require.Equal(t, c.rows, tb.Rows)
		require.Len(t, tb.Header, c.cols)
	}
}

// FuzzRead: never panics; a table is consistent, an error is positioned
// inside the input.
func FuzzRead(f *testing.F) {
	f.Add([]byte("a,b\n1,2\n3,4\n"))
	f.Add([]byte("\xef\xbb\xbf\"a,b\",c\r\n1,2\r\n"))
	f.Add([]byte("a,b\n1,NA\n"))
	if b, err := os.ReadFile("../../examples/data/normal_mean.csv"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := Read("f.csv", strings.NewReader(string(data)))
		if err != nil {
			return
		}
		require.Positive(t, tb.Rows)
		for j := range tb.Header {
			require.Len(t, tb.Col(j), tb.Rows)
		}
	})
}
