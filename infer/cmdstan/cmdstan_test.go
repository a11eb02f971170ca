package cmdstan

import (
	"bytes"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFixture reads a real CmdStan output file (testdata/README.md says
// where it comes from): the configuration before the header, the columns,
// 100 rows, the adaptation and timing comment blocks skipped; written back
// and read again it is the same.
func TestFixture(t *testing.T) {
	b, err := os.ReadFile("testdata/bern-1.csv")
	require.NoError(t, err)
	f, err := Read(bytes.NewReader(b))
	require.NoError(t, err)
	require.Equal(t, []string{"lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__", "energy__", "theta"}, f.Columns)
	require.Len(t, f.Rows, 100)
	require.Equal(t, []float64{-7.49727, 1, 0.738376, 2, 3, 0, 8.37774, 0.419069}, f.Rows[0])
	require.Equal(t, 0.150163, f.Column("theta")[99])
	for key, want := range map[string]string{
		"stan_version_major": "2", "model": "bernoulli_model", "method": "sample", "num_samples": "100",
		"thin": "1", "save_warmup": "0", "id": "1", "seed": "12345", "algorithm": "hmc", "metric_file": "",
	} {
		got, ok := f.Value(key)
		require.True(t, ok, key)
		require.Equal(t, want, got, key)
	}
	_, ok := f.Value("Step size") // after the header: skipped
	require.False(t, ok)
	require.Equal(t, "  sample", f.Config[5])
	require.Nil(t, f.Column("nope"))

	again, err := Read(bytes.NewReader(f.Bytes()))
	require.NoError(t, err)
	require.Equal(t, f, again)
}

// TestValues: CmdStan's spellings of the special values, and the shortest
// decimals that read back exactly.
func TestValues(t *testing.T) {
	f := &File{Config: []string{"method = sample (Default)", "  sample", "    thin = 3"}, Columns: []string{"lp__", "a.1", "L.2.1"},
		Rows: [][]float64{{-1.5, math.Inf(1), math.Inf(-1)}, {math.Nextafter(0.3, 1), math.NaN(), 1e-300}}}
	b := f.Bytes()
	require.Equal(t, "# method = sample (Default)\n#   sample\n#     thin = 3\nlp__,a.1,L.2.1\n-1.5,inf,-inf\n0.30000000000000004,nan,1e-300\n", string(b))
	g, err := Read(bytes.NewReader(b))
	require.NoError(t, err)
	require.Equal(t, f.Rows[0], g.Rows[0])
	require.Equal(t, math.Nextafter(0.3, 1), g.Rows[1][0])
	require.True(t, math.IsNaN(g.Rows[1][1]))
	v, _ := g.Value("thin")
	require.Equal(t, "3", v)
	v, _ = g.Value("method")
	require.Equal(t, "sample", v)
	for _, s := range []string{"+inf", "Inf", "-NaN", "NaN"} {
		_, err := parse(s)
		require.NoError(t, err, s)
	}
}

// TestReadErrors: bad files are errors that name the line, never panics.
func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"# only comments\n", "no header line (the column names)"},
		{"", "no header line (the column names)"},
		{"a,b\n1,2\n3\n", "line 3: 1 values for the 2 columns of the header"},
		{"# c\na,b\n1,x\n", `line 3, column b: "x" is not a number`},
	} {
		_, err := Read(bytes.NewReader([]byte(tc.in)))
		require.EqualError(t, err, tc.want, tc.in)
	}
}

// TestName: Stan's column names.
func TestName(t *testing.T) {
	for in, want := range map[string]string{"z": "z", "a[3]": "a.3", "L[2,1]": "L.2.1", "M[1, 12]": "M.1.12"} {
		require.Equal(t, want, Name(in))
	}
}

// TestOrder: matrices column-major, everything else where it was.
func TestOrder(t *testing.T) {
	names := []string{"z", "L[1,1]", "L[1,2]", "L[2,1]", "L[2,2]", "a[1]", "a[2]", "a[10]", "w"}
	var got []string
	for _, k := range Order(names) {
		got = append(got, Name(names[k]))
	}
	require.Equal(t, []string{"z", "L.1.1", "L.2.1", "L.1.2", "L.2.2", "a.1", "a.2", "a.10", "w"}, got)
}
