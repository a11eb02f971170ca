package check_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/check"
	"github.com/mscppl/mscppl/ir/dataset"
	"github.com/mscppl/mscppl/lang"
)

// rowsModel declares a row_vector in each block that takes declarations,
// beside matrices and column vectors.
const rowsModel = `functions {
  flip(a: row_vector) -> vector { return a' }
  same(a: vector) -> vector { return a }
  asrow(a: vector) -> row_vector { return a }
}
data {
  K: int
  M: matrix[K, K]
  A: matrix[3, K]
  r: row_vector<lower=0>[K]
  v: vector[K]
  rr: row_vector[K] = r * 2
  av: array[2] vector[K]
}
param { p: row_vector[K] = 0.5 }
latent { q: row_vector<lower=0>[K]; w: vector[K] }
transformed { tq: row_vector<lower=0>[K] = q }
model {
  loc: row_vector[K] = q + 1
  q ~ normal(0, 1)
  w ~ normal(0, 1)
}
derived {
  dq: row_vector[K] = q * 3
  f1 = flip(r)
  f2 = same(M[1])
  f3 = asrow(v)
}
`

// buildRows builds a model (rowsModel unless src is given) on K = 2 data.
func buildRows(t *testing.T, src string) (*ir.Model, error) {
	t.Helper()
	f, err := lang.Parse("m.msc", []byte(src))
	require.NoError(t, err)
	d, err := dataset.ParseJSON("d.json", []byte(`{"K": 2, "av": [[1, 2], [3, 4]], "M": [[1, 2], [3, 4]], "A": [[1, 0], [0, 1], [1, 1]], "r": [5, 6], "v": [7, 8]}`))
	require.NoError(t, err)
	return check.BuildJSON(f, d)
}

// TestRowVectorDeclarations: row_vector declared in data (from JSON and
// with a value), param, latent, transformed, model and derived is a
// row_vector of the declared size.
func TestRowVectorDeclarations(t *testing.T) {
	m, err := buildRows(t, rowsModel)
	require.NoError(t, err)
	got := map[string]string{}
	for _, v := range m.Vars {
		got[v.Name] = v.Type.String()
	}
	for _, name := range []string{"r", "rr", "p", "q", "tq", "loc", "dq"} {
		require.Equal(t, "row_vector[2]", got[name], name)
	}
	require.Equal(t, "vector[2]", got["v"])
	// a user function's parameters and result have their declared
	// orientation, whatever the argument's
	require.Equal(t, "vector[2]", got["f1"])
	require.Equal(t, "vector[2]", got["f2"])
	require.Equal(t, "row_vector[2]", got["f3"])
	for _, v := range m.Data {
		if v.Name == "r" {
			require.Equal(t, []float64{5, 6}, v.Value, "a row_vector's JSON is a flat array")
		}
	}
}

// TestRowVectorTypes: each rule of the row_vector's meaning, by the type
// of an expression or the message refusing it.
func TestRowVectorTypes(t *testing.T) {
	m, err := buildRows(t, rowsModel)
	require.NoError(t, err)
	for _, c := range []struct{ expr, want string }{
		// rows of a matrix, declared rows, transposes
		{"M[1]", "row_vector[2]"},
		{"M[2, :]", "row_vector[2]"},
		{"M[1, 1:2]", "row_vector[2]"},
		{"row(M, 1)", "row_vector[2]"},
		{"M[:, 1]", "vector[2]"},
		{"col(M, 1)", "vector[2]"},
		{"M[1:2]", "matrix[2, 2]"},
		{"r", "row_vector[2]"},
		{"r'", "vector[2]"},
		{"v'", "row_vector[2]"},
		{"(v')'", "vector[2]"},
		{"M[1]'", "vector[2]"},
		{"r[1]", "real"},
		{"r[1:1]", "row_vector[1]"},
		{"r[{2, 1, 2}]", "row_vector[3]"},
		{"v[{2, 1, 2}]", "vector[3]"},
		{"M'", "matrix[2, 2]"},
		// products
		{"r * v", "real"},
		{"v' * w", "real"},
		{"M[1] * v", "real"},
		{"r * M", "row_vector[2]"},
		{"r * A'", "row_vector[3]"},
		{"v * r", "matrix[2, 2]"},
		{"A * v", "vector[3]"},
		{"A * M[1]", "vector[3]"}, // a matrix times a row: its elements as a column
		{"M * M", "matrix[2, 2]"},
		{"2 * r", "row_vector[2]"},
		{"r * 2", "row_vector[2]"},
		{"r / 2", "row_vector[2]"},
		// elementwise
		{"r + r", "row_vector[2]"},
		{"r - 1", "row_vector[2]"},
		{"r .* q", "row_vector[2]"},
		{"r ./ q", "row_vector[2]"},
		{"r ^ 2", "row_vector[2]"},
		{"-r", "row_vector[2]"},
		{"r > 1", "row_vector[2]"},
		{"r + v", "vector[2]"}, // a row and a column elementwise: a column, as before
		{"K > 1 ? r : q", "row_vector[2]"},
		{"r[1] > 1 ? r : q", "row_vector[2]"},
		{"r[1] > 1 ? r : v", "vector[2]"},
		{"exp(r)", "row_vector[2]"},
		{"pow(r, 2)", "row_vector[2]"},
		{"head(r, 1)", "row_vector[1]"},
		{"segment(r, 2, 1)", "row_vector[1]"},
		{"cumulative_sum(r)", "row_vector[2]"},
		// functions that take a row as a vector
		{"sum(r)", "real"},
		{"dot(r, v)", "real"},
		{"to_vector(r)", "vector[2]"},
		{"num_elements(r)", "int"},
		{"normal_lpdf(r | v, 1)", "real"},
		{"dirichlet_lpdf(softmax(v) | r)", "real"},
		// refused
		{"r * r", "error: cannot apply * to row_vector[2] and row_vector[2]"},
		{"M[1] * M[2]", "error: the inner product of rows r and s is r * s' or dot(r, s)"},
		{"M[1]' * v", "error: M[1] is a row_vector (a row of a matrix, or declared one), and M[1]' a column vector"},
		{"v * w", "error: use dot(a, b) for the inner product"},
		{"av[1] * v", "error: cannot apply * to vector[2] and vector[2]"}, // an array's element is a column vector
		{"v * M", "error: cannot apply * to vector[2] and matrix[2, 2]"},
		{"r * A", "error: shape mismatch in r * A: row_vector[2] has 2 elements but matrix[3, 2] has 3 rows"},
		{"A' * r", "error: r is a row_vector, and a vector * row_vector is the outer product"},
		{"r + M", "error: cannot apply + to row_vector[2] and matrix[2, 2]"},
		{"rows(r)", "error: r is a row_vector, which rows does not take"},
		{"cols(M[1])", "error: M[1] is a row_vector, which cols does not take"},
		{"dims(r)", "error: r is a row_vector, which dims does not take"},
		{"append_row(r, 1)", "error: r is a row_vector, which append_row does not take"},
		{"diag_matrix(r)", "error: r is a row_vector, which diag_matrix does not take"},
		{"rows_dot_product(r, r)", "error: r is a row_vector, which rows_dot_product does not take"},
		{"rows(r')", "int"},
	} {
		t.Run(c.expr, func(t *testing.T) {
			x, err := check.ResolveExpr(m, "e", []byte(c.expr))
			if len(c.want) > 7 && c.want[:7] == "error: " {
				require.Error(t, err)
				var el lang.ErrorList
				require.ErrorAs(t, err, &el)
				require.Contains(t, el[0].Msg+" hint: "+el[0].Hint, c.want[7:])
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, x.Type().String())
		})
	}
}

// TestRowVectorRefusedDeclarations: an array of row_vectors is refused
// at its type.
func TestRowVectorRefusedDeclarations(t *testing.T) {
	_, err := buildRows(t, "latent { a: array[2] row_vector[2] }\nmodel { }")
	require.ErrorContains(t, err, "m.msc:1:13: arrays of row_vector are not supported")
	_, err = buildRows(t, "latent { a: row_vector }\nmodel { }")
	require.ErrorContains(t, err, "m.msc:1:13: row_vector needs one size, as in row_vector[N]")
	_, err = buildRows(t, "model { a: row_vector[2, 2] = 1 }")
	require.ErrorContains(t, err, "m.msc:1:12: row_vector needs one size, as in row_vector[N]")
	_, err = buildRows(t, "functions { same(a: vector) -> vector { return a } }\ndata { M: matrix[2, 2] }\nmodel { target += same(M[1]) * same(M[1]) }")
	require.ErrorContains(t, err, "m.msc:3:30: cannot apply * to vector[2] and vector[2]", "a vector parameter is a column vector")
}
