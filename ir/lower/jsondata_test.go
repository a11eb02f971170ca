package lower

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/check"
	"github.com/mscppl/mscppl/ir/dataset"
	"github.com/mscppl/mscppl/lang"
)

// buildJSON builds src with the JSON data text js, written to a temp file
// and read back as mscppl run would.
func buildJSON(t *testing.T, src, js string) (*ir.Model, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "d.json")
	require.NoError(t, os.WriteFile(path, []byte(js), 0o644))
	f, err := lang.Parse("m.msc", []byte(src))
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	d, err := dataset.ParseJSON(path, b)
	require.NoError(t, err)
	m, err := check.BuildJSON(f, d)
	if err == nil {
		_, err = Compile(m, CompileOptions{})
	}
	return m, err
}

const jsonTail = "latent { z: real }\nmodel { z ~ normal(0, 1) }\n"

func TestBindJSON(t *testing.T) {
	type want struct {
		name string
		typ  string
		vals []float64
	}
	cases := []struct {
		name, src, js string
		want          []want
	}{
		{"scalars", "data { N: int; s: real<lower=0> }\n", `{"N": 3, "s": 0.5, "other": [1]}`,
			[]want{{"N", "int", []float64{3}}, {"s", "real", []float64{0.5}}}},
		{"vector binds a new size", "data { y: vector[N] }\n", `{"y": [1, 2.5]}`,
			[]want{{"y", "vector[2]", []float64{1, 2.5}}}},
		{"vector checks a declared size", "data { N: int; y: vector[N] }\n", `{"N": 2, "y": [1, 2.5]}`,
			[]want{{"N", "int", []float64{2}}, {"y", "vector[2]", []float64{1, 2.5}}}},
		{"size used before its declaration", "data { y: vector[N]; N: int }\n", `{"N": 2, "y": [1, 2.5]}`,
			[]want{{"y", "vector[2]", []float64{1, 2.5}}, {"N", "int", []float64{2}}}},
		{"matrix of rows", "data { N: int; X: matrix[N, K] }\n", `{"N": 2, "X": [[1, 2, 3], [4, 5, 6]]}`,
			[]want{{"N", "int", []float64{2}}, {"X", "matrix[2, 3]", []float64{1, 2, 3, 4, 5, 6}}}},
		{"int array with bounds", "data { J: int; g: int<lower=1, upper=J>[N] }\n", `{"J": 3, "g": [1, 3, 2, 3]}`,
			[]want{{"J", "int", []float64{3}}, {"g", "int[4]", []float64{1, 3, 2, 3}}}},
		{"a value in the model wins", "data { N: int = 7 }\n", `{"N": 3}`,
			[]want{{"N", "int", []float64{7}}}},
		{"a value in the model without a field", "data { a: real = 2.5 }\n", `{}`,
			[]want{{"a", "real", []float64{2.5}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := buildJSON(t, c.src+jsonTail, c.js)
			require.NoError(t, err)
			require.Len(t, m.Data, len(c.want))
			for i, w := range c.want {
				v := m.Data[i]
				require.Equal(t, w.name, v.Name)
				require.Equal(t, w.typ, v.Type.String())
				require.Equal(t, w.vals, v.Value)
			}
		})
	}
}

func TestBindJSONErrors(t *testing.T) {
	cases := []struct{ name, src, js, want string }{
		{"missing field", "data { sigma: vector[N] }\n", `{"sigam": [1]}`,
			`m.msc:1:8: data sigma: ` + "%s" + ` has no field "sigma" (did you mean "sigam"?)`},
		{"length mismatch", "data { N: int; y: vector[N] }\n", `{"N": 3, "y": [1, 2]}`,
			`m.msc:1:26: the size N is 3, but field "y" of %s has 2 values`},
		{"undeclared size disagrees with the file", "data { y: vector[N] }\n", `{"N": 3, "y": [1, 2]}`,
			`m.msc:1:18: the size N is 3 in %s, but field "y" has 2 values (declare N: int before y to read it from the file)`},
		{"matrix columns", "data { X: matrix[N, 2] }\n", `{"X": [[1, 2, 3]]}`,
			`m.msc:1:21: the size 2 is 2, but field "X" of %s has 3 columns`},
		{"int scalar not integer", "data { N: int }\n", `{"N": 2.5}`,
			`%s:1:7: int data N has a non-integer value 2.5`},
		{"int array not integer", "data { g: int[N] }\n", "{\"g\": [1,\n 2, 2.5]}",
			`%s:2:5: int data g has a non-integer value 2.5 at element [3]`},
		{"scalar given an array", "data { N: int }\n", `{"N": [1, 2]}`,
			`m.msc:1:8: data N is an int, but field "N" of %s is an array of 2 numbers (the field is at %s:1:2)`},
		{"vector given a matrix", "data { y: vector[N] }\n", `{"y": [[1], [2]]}`,
			`m.msc:1:8: data y is a vector, but field "y" of %s is an array of 2 rows of 1 number (the field is at %s:1:2)`},
		{"int array given a number", "data { g: int[N] }\n", `{"g": 1}`,
			`m.msc:1:8: data g is an int array, but field "g" of %s is a number (the field is at %s:1:2)`},
		{"NaN", "data { y: vector[N] }\n", `{"y": [1, "NaN"]}`,
			`%s:1:11: data y[2] is NaN; mscppl needs finite data`},
		{"bounds", "data { s: real<lower=0> }\n", `{"s": -1}`,
			`m.msc:1:8: data s violates its constraint <lower=0>: element 1 is -1`},
		{"from", "data { y: vector[N] from \"x\" }\n", `{"y": [1]}`,
			`m.msc:1:26: from selects CSV columns, but the data file %s is JSON (with a JSON file, data y binds to the field "y"; remove the from clause)`},
		{"all except", "data { X: matrix[N, K] from all except \"y\" }\n", `{"X": [[1]]}`,
			`m.msc:1:29: from selects CSV columns, but the data file %s is JSON (with a JSON file, data X binds to the field "X"; remove the from clause)`},
		{"standardized", "data { y: vector[N] standardized }\n", `{"y": [1]}`,
			`m.msc:1:8: standardized applies to CSV columns, but the data file %s is JSON (standardize the values in the file, or in the model)`},
		{"int index out of range", "data { g: int[N] }\nlatent { a: vector[2] }\nmodel { a ~ normal(0, 1)\n for n in 1..N { a[g[n]] ~ normal(0, 1) } }\n", `{"g": [1, 3]}`,
			`m.msc:4:20: index 3 is out of range: a has 2 elements (indices start at 1) (at n = 2)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.src
			if !containsModel(src) {
				src += jsonTail
			}
			_, err := buildJSON(t, src, c.js)
			require.Error(t, err)
			got := err.Error()
			require.Equal(t, c.want, replacePath(got))
		})
	}
}

func containsModel(src string) bool { return strings.Contains(src, "model {") }

// replacePath puts %s for the temp directory path of d.json.
func replacePath(s string) string {
	re := regexp.MustCompile(`/[^ :]*d\.json`)
	return re.ReplaceAllString(s, "%s")
}

func TestIntArrayCSV(t *testing.T) {
	src := "data { g: int<lower=1>[N]; y: vector[N] }\nlatent { a: vector[2] }\nmodel {\n a ~ normal(0, 1)\n for n in 1..N { y[n] ~ normal(a[g[n]], 1) }\n}\n"
	c := compile(t, src, "g,y\n1,0.5\n2,-1\n2,3\n")
	a := []float64{0.2, -0.7}
	out := make([]float64, 1)
	c.LogJoint(a, out)
	want := logNormal(0.2, 0, 1) + logNormal(-0.7, 0, 1) + logNormal(0.5, 0.2, 1) + logNormal(-1, -0.7, 1) + logNormal(3, -0.7, 1)
	require.InDelta(t, want, out[0], 1e-12)

	got := buildErr(t, "data { g: int[N] }\n"+jsonTail, "g\n1\n2.5\n")
	require.Equal(t, `m.msc:1:8: int data g has a non-integer value 2.5 at element 2 (column "g" of d.csv)`, got)
	got = buildErr(t, "data { g: int[N] standardized }\n"+jsonTail, "g\n1\n2\n")
	require.Equal(t, `m.msc:1:8: int data g cannot be standardized; declare it a vector`, got)
	got = buildErr(t, "data { g: int[N, 2] }\n"+jsonTail, "g\n1\n2\n")
	require.Equal(t, `m.msc:1:11: int takes no size (a scalar) or one (an integer array, as in int[N])`, got)
	got = buildErr(t, "latent { g: int[3] }\nmodel { }\n", "")
	require.Contains(t, got, "int is for data")
}

// TestBindJSONSharesValues: a data matrix is bound to its field's values,
// not to a copy (a 10^6 x 10 matrix is 80 MB), and appending to the bound
// values cannot write into the field's.
func TestBindJSONSharesValues(t *testing.T) {
	f, err := lang.Parse("m.msc", []byte("data { X: matrix[N, K] }\n"+jsonTail))
	require.NoError(t, err)
	d, err := dataset.ParseJSON("d.json", []byte(`{"X": [[1, 2], [3, 4], [5, 6]]}`))
	require.NoError(t, err)
	m, err := check.BuildJSON(f, d)
	require.NoError(t, err)
	fx, _ := d.Field("X")
	for _, v := range m.Data {
		if v.Name == "X" {
			require.Same(t, &fx.Values[0], &v.Value[0])
			require.Equal(t, len(v.Value), cap(v.Value))
			return
		}
	}
	t.Fatal("no data X")
}
