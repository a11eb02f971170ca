package lang

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func parseOK(t *testing.T, src string) *File {
	t.Helper()
	f, err := Parse("t.msc", []byte(src))
	require.NoError(t, err)
	return f
}

// firstExpr parses "model { x = EXPR }" and renders EXPR back.
func roundTrip(t *testing.T, expr string) string {
	f := parseOK(t, "model { x = "+expr+" }")
	return f.Blocks[0].Items[0].Stmt.Simple.Assign.String()
}

func TestExpressions(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a + b * c", "a + b * c"},
		{"-x^2", "-x^2"},
		{"a^b^c", "a^b^c"},
		{"(a - b) - c", "(a - b) - c"},
		{"X * w + b", "X * w + b"},
		{"z[t-1]", "z[t - 1]"},
		{"M[i, j]", "M[i, j]"},
		{"f(1, 2.5e-3, .5)", "f(1, 2.5e-3, .5)"},
		{"sqrt(beta * exp(z[t]))", "sqrt(beta * exp(z[t]))"},
		{"2^-1", "2^-1"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, roundTrip(t, c.in), c.in)
	}
}

func TestPrecedenceStructure(t *testing.T) {
	// -x^2 is -(x^2): a unary minus whose operand is a power
	f := parseOK(t, "model { y = -x^2 }")
	u := f.Blocks[0].Items[0].Stmt.Simple.Assign.Left.Left
	require.Equal(t, "-", u.Op)
	require.NotNil(t, u.X.Power.Exp)
	// a^b^c is a^(b^c)
	f = parseOK(t, "model { y = a^b^c }")
	p := f.Blocks[0].Items[0].Stmt.Simple.Assign.Left.Left.Power
	require.Equal(t, "a", *p.Base.Prim.Ident)
	require.NotNil(t, p.Exp.Power.Exp)
	// a - b - c is (a - b) - c: left-assoc as a flat list
	f = parseOK(t, "model { y = a - b - c }")
	require.Len(t, f.Blocks[0].Items[0].Stmt.Simple.Assign.Rest, 2)
}

func TestDeclarationsAndBlocks(t *testing.T) {
	src := `// comment
data {
  y: vector[N] from "Class"
  X: matrix[N, D] from all except "Class", "Id" standardized
  Z: matrix[N, K] from "V*"
  n: int = 5
}
param {
  phi: real<lower=-1, upper=1> = 0.9
}
latent {
  s: real<lower=0>
  w: vector<lower=0>[D]
}
model {
  /* block
     comment */
  for t in 2..T { z[t] ~ normal(phi * z[t-1], s); }
}
infer { family = "fullrank"
  samples = 10 }
`
	f := parseOK(t, src)
	require.Len(t, f.Blocks, 5)
	d := f.Blocks[0].Items
	require.Equal(t, "Class", *d[0].Decl.From.Column)
	require.Equal(t, []string{"Class", "Id"}, d[1].Decl.From.AllExcept)
	require.True(t, d[1].Decl.Standardized)
	require.Equal(t, "V*", *d[2].Decl.From.Column)
	require.Equal(t, "5", d[3].Decl.Init.String())
	b := f.Blocks[1].Items[0].Decl.Type.AllBounds()
	require.Len(t, b, 2)
	require.Equal(t, "-1", b[0].Value.String())
	w := f.Blocks[2].Items[1].Decl.Type
	require.Equal(t, "vector", w.Base)
	require.Len(t, w.Bounds, 1)
	loop := f.Blocks[3].Items[0].Stmt.For
	require.Equal(t, "t", loop.Var)
	require.Equal(t, "normal(phi * z[t - 1], s)", loop.Body[0].Simple.Tilde.String())
	// positions: line and column of the for statement
	require.Equal(t, 18, loop.Pos.Line)
	require.Equal(t, 3, loop.Pos.Column)
}

func TestSyntaxErrorsArePositioned(t *testing.T) {
	cases := []struct {
		src       string
		line, col int
		msg       string
	}{
		{"model {\n  x ~ normal(0, \n}\n", 3, 1, `unexpected "}"`},
		{"model {\n  x ~ normal(0, 1)\n", 3, 1, "unexpected end of file"},
		{"model { x ~ normal(0, 1) $ }", 1, 26, "unexpected character"},
		{"", 1, 1, "empty model"},
		{"// only a comment\n", 1, 1, "empty model"},
		{"model { x ~ normal(0, \"a) }", 1, 23, "unterminated string"},
		{"model { x = " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300) + " }", 1, 212, "nested more than"},
		{"model { x ~ \xff }", 1, 13, "not valid UTF-8"},
	}
	for _, c := range cases {
		_, err := Parse("t.msc", []byte(c.src))
		require.Error(t, err, c.src)
		list, ok := err.(ErrorList)
		require.True(t, ok)
		require.Equal(t, c.line, list[0].Pos.Line, c.src)
		require.Equal(t, c.col, list[0].Pos.Col, c.src)
		require.Contains(t, list[0].Msg, c.msg)
	}
}

func TestFormatCaret(t *testing.T) {
	src := []byte("model {\n\tx ~ normal(0, mu)\n}\n")
	l := ErrorList{{Pos: Pos{File: "m.msc", Line: 2, Col: 16}, Msg: "unknown name \"mu\"", Hint: "did you mean \"mu0\"?"}}
	var b bytes.Buffer
	l.Format(&b, map[string][]byte{"m.msc": src})
	require.Equal(t, "m.msc:2:16: unknown name \"mu\"\n    \tx ~ normal(0, mu)\n    \t              ^\n    hint: did you mean \"mu0\"?\n", b.String())
}

func TestSuggest(t *testing.T) {
	cands := []string{"normal", "lognormal", "half_normal", "gamma", "beta"}
	require.Equal(t, "normal", Suggest("normall", cands))
	require.Equal(t, "normal", Suggest("Normal", cands))
	require.Equal(t, "gamma", Suggest("gmama", cands))
	require.Equal(t, "", Suggest("poisson", cands))
}

func ExampleParse() {
	f, err := Parse("m.msc", []byte("latent { z: real }\nmodel { z ~ skew_normal(0.5, 2, 5) }\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range f.Blocks {
		fmt.Println(b.Kind, len(b.Items))
	}
	// Output:
	// latent 1
	// model 1
}

// FuzzParse: the parser never panics, and every error has a position
// inside the input. (The checker is fuzzed on the same corpus by
// ir.FuzzCheck.)
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("../examples/*.msc")
	more, _ := filepath.Glob("../cmd/mscppl/testdata/errors/*.msc")
	for _, p := range append(seeds, more...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("model { x ~ normal(0, 1) }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("f.msc", src)
		if err == nil {
			require.NotNil(t, file)
			return
		}
		list, ok := err.(ErrorList)
		require.True(t, ok, "error of type %T", err)
		lines := 1 + bytes.Count(src, []byte{'\n'})
		for _, e := range list {
			require.GreaterOrEqual(t, e.Pos.Line, 1)
			require.LessOrEqual(t, e.Pos.Line, lines)
			require.GreaterOrEqual(t, e.Pos.Col, 1)
		}
	})
}
