package stan

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/lang"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/bad")

// TestLowerExpr lowers Stan expressions and compares them, printed in
// .msc form, with the tree Stan's precedences give: parentheses appear
// exactly where lang's grammar would read the flat form otherwise.
func TestLowerExpr(t *testing.T) {
	cases := []struct{ stan, msc string }{
		{"a + b * c", "a + b * c"},
		{"(a + b) * c", "(a + b) * c"},
		{"a - (b - c)", "a - (b - c)"},
		{"a - b - c", "a - b - c"},
		{"a * b .* c", "a * (b .* c)"},
		{"a .* b * c", "a .* b * c"},
		{"a / (b * c)", "a / (b * c)"},
		{"-a ^ b", "-a^b"},
		{"(-a) ^ b", "(-a)^b"},
		{"a ^ b ^ c", "a^b^c"},
		{"(a ^ b) ^ c", "(a^b)^c"},
		{"a < b + c", "a < b + c"},
		{"a + b < c || d && e", "a + b < c || d && e"},
		{"(a || b) && c", "(a || b) && c"},
		{"a == (b < c)", "a == (b < c)"},
		{"a ? b : c ? d : e", "a ? b : c ? d : e"},
		{"(a ? b : c) + d", "(a ? b : c) + d"},
		{"!a + b", "!a + b"},
		{"!(a + b)", "!(a + b)"},
		{"i %/% 2", "i / 2"},
		{"m[i, :]'", "m[i, :]'"},
		{"m[i]'", "m[i]'"},
		{"m'", "m'"},
		{"(m * m)'", "(m * m)'"},
		{"m'[1, 2]", "(m')[1, 2]"},
		{"v[2:]", "v[2:]"},
		{"5. + .5e1 + 1.e-3", "5.0 + .5e1 + 1.0e-3"},
		{"normal_lpdf(a | b, c)", "normal_lpdf(a | b, c)"},
		{"sum({a, b})", "sum({a, b})"},
		{"r * v", "dot_product(r, v)"},
		{"v' * v", "dot_product(v, v)"},
		{"m[1] * v", "dot_product(m[1], v)"},
		{"sum(r * m)", "sum(m' * r)"},
		{"sum(2 * r / a)", "sum(2 * r / a)"},
		{"sum(r')", "sum(r')"},
		{"sum((2 * r)')", "sum(to_vector(2 * r))"},
		{"sum((v')')", "sum(to_vector(v))"},
		{"v * r", "v * to_vector(r)'"},
		{"[a, b] * v", "dot_product(to_vector({a, b}), v)"},
		{"sum(rep_row_vector(a, 2))", "sum(rep_vector(a, 2))"},
		{"a2[i][i + 1]", "a2[i, i + 1]"},
		{"m[i][2]", "m[i, 2]"},
		{"sum(a2[ix][1])", "sum(a2[ix][1])"},
		{"sum(a2[i:][1])", "sum(a2[i:][1])"},
	}
	for _, c := range cases {
		src := "transformed data {\n  real a; real b; real c; real d; real e; int i;\n  matrix[2, 2] m; vector[2] v; array[2, 2] real a2; array[2] int ix; row_vector[2] r;\n  real x = " + c.stan + ";\n}\n"
		f, _, err := Parse("t.stan", []byte(src))
		require.NoError(t, err, c.stan)
		items := f.Block("data").Items
		got := lang.FormatExpr(items[len(items)-1].Decl.Init)
		require.Equal(t, c.msc, got, c.stan)
	}
}

// TestRowVectorDeclarations: a Stan row_vector is the language's
// row_vector, in a declaration and a function's signature; an array of
// row_vectors is an array of vectors (the language has no arrays of
// row_vectors), whose elements' transposes are written to_vector(a[i]).
func TestRowVectorDeclarations(t *testing.T) {
	src := "functions {\n  row_vector f(row_vector r, array[] row_vector a) { return (r' + a[1]')'; }\n}\n" +
		"data {\n  row_vector<lower=0>[2] r;\n  array[3] row_vector[2] a;\n}\nparameters {\n  row_vector[2] q;\n}\nmodel {\n  q ~ normal(f(r, a), 1);\n}\n"
	f, _, err := Parse("t.stan", []byte(src))
	require.NoError(t, err)
	got := lang.FormatFile(f)
	for _, want := range []string{"f(r: row_vector, a: array[] vector) -> row_vector {", "return (r' + to_vector(a[1]))'", "r: row_vector<lower=0>[2]", "a: array[3] vector[2]", "q: row_vector[2]"} {
		require.Contains(t, got, want)
	}
}

// TestRefusedGolden parses every testdata/bad/*.stan, which must be
// refused at parsing or lowering, and compares the formatted errors with
// the .golden file next to it (go test ./lang/stan -run Golden -update
// rewrites them).
func TestRefusedGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/bad/*.stan")
	require.NoError(t, err)
	require.NotEmpty(t, inputs)
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".stan")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			require.NoError(t, err)
			file := filepath.ToSlash(in)
			_, _, err = Parse(file, src)
			require.Error(t, err, "%s must be refused", in)
			list, ok := err.(lang.ErrorList)
			require.True(t, ok, "error of type %T", err)
			lines := 1 + bytes.Count(src, []byte{'\n'})
			for _, e := range list {
				require.Equal(t, file, e.Pos.File)
				require.True(t, e.Pos.Line >= 1 && e.Pos.Line <= lines && e.Pos.Col >= 1, "%v", e)
			}
			var b bytes.Buffer
			list.Format(&b, map[string][]byte{file: src})
			golden := strings.TrimSuffix(in, ".stan") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, b.Bytes(), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "missing golden file; run go test ./lang/stan -run Golden -update")
			require.Equal(t, string(want), b.String())
		})
	}
}

// TestLowerDecls: a declaration of several names is one declaration each,
// a profile block is a scope, 10_000 is 10000, and a transformed data
// variable never assigned is NaN.
func TestLowerDecls(t *testing.T) {
	src := "transformed data {\n  real a, b = 10_000;\n  profile(\"p\") {\n    real c = a;\n  }\n}\n"
	f, _, err := Parse("t.stan", []byte(src))
	require.NoError(t, err)
	require.Equal(t, "data {\n  a: real = not_a_number()\n  b: real = 10000\n  {\n    c: real = a\n  }\n}\n\nmodel {\n}\n", lang.FormatFile(f))
}

// TestMessagesLower: Stan's print and reject statements lower to lang's
// Message statements, their strings unquoted, and translate prints them
// back as .msc that parses to the same statements.
func TestMessagesLower(t *testing.T) {
	src := []byte(`parameters {
  real mu;
}
model {
  if (mu > 3) reject("mu \"big\": ", mu);
  print("mu = ", mu);
  mu ~ normal(0, 1);
}
`)
	f, _, err := Parse("m.stan", src)
	require.NoError(t, err)
	var msgs []*lang.Message
	for _, b := range f.Blocks {
		for _, it := range b.Items {
			if s := it.Stmt; s != nil {
				if s.If != nil && len(s.If.Then) == 1 {
					s = s.If.Then[0]
				}
				if s.Message != nil {
					msgs = append(msgs, s.Message)
				}
			}
		}
	}
	require.Len(t, msgs, 2)
	require.Equal(t, "reject", msgs[0].Kind)
	require.Equal(t, `mu "big": `, *msgs[0].Args[0].Left.Left.Power.Base.Prim.String)
	require.Equal(t, "print", msgs[1].Kind)
	text := lang.FormatFile(f)
	require.Contains(t, text, `reject("mu \"big\": ", mu)`)
	require.Contains(t, text, `print("mu = ", mu)`)
	g, err := lang.Parse("m.msc", []byte(text))
	require.NoError(t, err)
	require.Equal(t, text, lang.FormatFile(g))
}
