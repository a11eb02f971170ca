package lang

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mscppl/mscppl/internal/testtier"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// briefExample is the tour of the language from the design brief.
const briefExample = `// line comments and /* block comments */
data {
  y: vector[N] from "Class"
  X: matrix[N, D] from all except "Class", "Id" standardized
  Z: matrix[N, K] from "V*"          // header glob, header order
  x: vector[T]                       // default: the column named x
  n: int = 5                         // a data constant may also be given a literal value
}
param {
  sigma2: real<lower=0> = 0.05       // model parameter learned by maximum likelihood, initial value required
  phi: real<lower=-1, upper=1> = 0.9
  mu: real = 0
}
latent {
  b: real
  w: vector[D]
  s: real<lower=0>
  M: matrix[2, 3]
}
model {
  b ~ normal(0, 1)
  eta = b + X * w                    // local definition
  y ~ bernoulli_probit(eta)
  for t in 2..T {                    // inclusive bounds, 1-based
    z[t] ~ normal(mu + phi * (z[t-1] - mu), sqrt(sigma2))
  }
  x[t] ~ normal(0, sqrt(beta * exp(z[t])))
}
infer {                              // optional inference settings
  family = "fullrank"
  samples = 10
  iters = 20000
}
`

func parseOK(t *testing.T, src string) *File {
	t.Helper()
	f, err := Parse("t.msc", []byte(src))
	require.NoError(t, err, src)
	return f
}

// rhs parses "model { x = EXPR }" and returns EXPR.
func rhs(t *testing.T, expr string) *Expr {
	t.Helper()
	return parseOK(t, "model { x = "+expr+" }").Blocks[0].Items[0].Stmt.Simple.Assign
}

func TestFormatExprRoundTrip(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a", "a"},
		{"a+b*c", "a + b * c"},
		{"-x^2", "-x^2"},
		{"a^b^c", "a^b^c"},
		{"a-b-c", "a - b - c"},
		{"(a - b) - c", "(a - b) - c"},
		{"a - (b - c)", "a - (b - c)"},
		{"X*w+b", "X * w + b"},
		{"a / b * c", "a / b * c"},
		{"z[t-1]", "z[t - 1]"},
		{"M[i, j]", "M[i, j]"},
		{"M[i][j]", "M[i][j]"},
		{"f()", "f()"},
		{"f(1, 2.5e-3, .5, 1E+4, 10)", "f(1, 2.5e-3, .5, 1E+4, 10)"},
		{"sqrt(beta * exp(z[t]))", "sqrt(beta * exp(z[t]))"},
		{"2^-1", "2^-1"},
		{"+a", "+a"},
		{"- - a", "--a"},
		{"f(x)[2]", "f(x)[2]"},
		{`"a\"b"`, `"a\"b"`},
		{"(((a)))", "(((a)))"},
		{"{1,2.5}", "{1, 2.5}"},
		{"{ {a, b}, {c, d} }[2, 1]", "{{a, b}, {c, d}}[2, 1]"},
		{"x[{1, 3}]", "x[{1, 3}]"},
		{"f({du_dt, dv_dt})", "f({du_dt, dv_dt})"},
	}
	for _, c := range cases {
		e := rhs(t, c.in)
		got := FormatExpr(e)
		assert.Equal(t, c.want, got, c.in)
		// printing is a fixed point: reparsing the output prints the same
		assert.Equal(t, got, FormatExpr(rhs(t, got)), c.in)
	}
	assert.Equal(t, "", FormatExpr(nil))
}

func TestPrecedenceStructure(t *testing.T) {
	// -x^2 is -(x^2): a unary minus whose operand is a power
	u := rhs(t, "-x^2").Left.Left
	require.Equal(t, "-", u.Op)
	require.Nil(t, u.Power)
	require.NotNil(t, u.X.Power.Exp)
	require.Equal(t, "x", *u.X.Power.Base.Prim.Ident)

	// a^b^c is a^(b^c)
	p := rhs(t, "a^b^c").Left.Left.Power
	require.Equal(t, "a", *p.Base.Prim.Ident)
	require.Equal(t, "b", *p.Exp.Power.Base.Prim.Ident)
	require.Equal(t, "c", *p.Exp.Power.Exp.Power.Base.Prim.Ident)

	// a - b - c is (a - b) - c: a flat, left-to-right list
	e := rhs(t, "a - b - c")
	require.Len(t, e.Rest, 2)
	require.Equal(t, "-", e.Rest[0].Op)
	require.Equal(t, "b", FormatExpr(&Expr{Left: e.Rest[0].Term}))

	// X*w+b is (X*w) + b
	e = rhs(t, "X*w+b")
	require.Len(t, e.Rest, 1)
	require.Len(t, e.Left.Rest, 1)
	require.Equal(t, "*", e.Left.Rest[0].Op)
	require.Equal(t, "+", e.Rest[0].Op)

	// 2^-1: the exponent may be signed
	p = rhs(t, "2^-1").Left.Left.Power
	require.Equal(t, "-", p.Exp.Op)

	// -a * b is (-a) * b
	e = rhs(t, "-a * b")
	require.Equal(t, "-", e.Left.Left.Op)
	require.Len(t, e.Left.Rest, 1)
}

func TestExprHelpers(t *testing.T) {
	name, ok := rhs(t, "abc").Ident()
	require.True(t, ok)
	require.Equal(t, "abc", name)
	_, ok = rhs(t, "abc[1]").Ident()
	require.False(t, ok)
	s, ok := rhs(t, `"fullrank"`).StringLit()
	require.True(t, ok)
	require.Equal(t, "fullrank", s)
	n, ok := rhs(t, "-1e-3").NumberLit()
	require.True(t, ok)
	require.Equal(t, "-1e-3", n)
	n, ok = rhs(t, "42").NumberLit()
	require.True(t, ok)
	require.Equal(t, "42", n)
	_, ok = rhs(t, "1 + 2").NumberLit()
	require.False(t, ok)
	_, ok = rhs(t, "--1").NumberLit()
	require.False(t, ok)
	require.NotNil(t, rhs(t, "f(1)").Primary().Call)
	require.Nil(t, rhs(t, "f(1) + 1").Primary())
}

func TestBriefExample(t *testing.T) {
	f := parseOK(t, briefExample)
	require.Equal(t, "t.msc", f.Name)
	require.Len(t, f.Blocks, 5)
	kinds := []string{}
	for _, b := range f.Blocks {
		kinds = append(kinds, b.Kind)
	}
	require.Equal(t, []string{"data", "param", "latent", "model", "infer"}, kinds)

	data := f.Block("data").Items
	require.Len(t, data, 5)
	y := data[0].Decl
	require.Equal(t, "y", y.Name)
	require.Equal(t, "vector[N]", y.Type.String())
	require.Equal(t, "Class", *y.From.Column)
	X := data[1].Decl
	require.Equal(t, []string{"Class", "Id"}, X.From.AllExcept)
	require.Nil(t, X.From.Column)
	require.True(t, X.Standardized)
	require.Equal(t, "matrix[N, D]", X.Type.String())
	require.Equal(t, "V*", *data[2].Decl.From.Column)
	require.Nil(t, data[3].Decl.From)
	require.Equal(t, "5", FormatExpr(data[4].Decl.Init))

	param := f.Block("param").Items
	require.Equal(t, "real<lower=0>", param[0].Decl.Type.String())
	require.Equal(t, "0.05", FormatExpr(param[0].Decl.Init))
	phi := param[1].Decl.Type
	require.Equal(t, "-1", FormatExpr(phi.Lower()))
	require.Equal(t, "1", FormatExpr(phi.Upper()))
	require.Nil(t, param[2].Decl.Type.Lower())

	latent := f.Block("latent").Items
	require.Equal(t, "matrix[2, 3]", latent[3].Decl.Type.String())
	require.Nil(t, latent[0].Decl.Init)

	model := f.Block("model").Items
	require.Len(t, model, 5)
	require.Equal(t, "b", FormatExpr(model[0].Stmt.Simple.LHS))
	require.Equal(t, "normal(0, 1)", model[0].Stmt.Simple.Tilde.String())
	require.Equal(t, "b + X * w", FormatExpr(model[1].Stmt.Simple.Assign))
	loop := model[3].Stmt.For
	require.Equal(t, "t", loop.Var)
	require.Equal(t, "2", FormatExpr(loop.Lo))
	require.Equal(t, "T", FormatExpr(loop.Hi))
	require.Len(t, loop.Body, 1)
	require.Equal(t, "z[t]", FormatExpr(loop.Body[0].Simple.LHS))
	require.Equal(t, "normal(mu + phi * (z[t - 1] - mu), sqrt(sigma2))", loop.Body[0].Simple.Tilde.String())

	infer := f.Block("infer").Items
	require.Len(t, infer, 3)
	fam, _ := infer[0].Stmt.Simple.LHS.Ident()
	require.Equal(t, "family", fam)
	v, _ := infer[0].Stmt.Simple.Assign.StringLit()
	require.Equal(t, "fullrank", v)
	require.Nil(t, f.Block("nope"))
}

func TestConstructs(t *testing.T) {
	cases := []struct {
		name, src string
		check     func(t *testing.T, f *File)
	}{
		{"semicolons", "model { a = 1; b ~ normal(a, 1); }", func(t *testing.T, f *File) {
			require.Len(t, f.Blocks[0].Items, 2)
			require.True(t, f.Blocks[0].Items[0].Stmt.Semi)
		}},
		{"semicolons on one line", "data { n: int = 3; m: int = 4 }\nmodel { a = 1 }", func(t *testing.T, f *File) {
			require.Len(t, f.Blocks[0].Items, 2)
			require.True(t, f.Blocks[0].Items[0].Decl.Semi)
		}},
		{"bounds either order", "latent { s: real<upper=2, lower=1> }\nmodel { s ~ normal(0, 1) }", func(t *testing.T, f *File) {
			ty := f.Blocks[0].Items[0].Decl.Type
			require.Equal(t, "1", FormatExpr(ty.Lower()))
			require.Equal(t, "2", FormatExpr(ty.Upper()))
		}},
		{"array types", "data { y: array[N, 2] real<lower=0>; g: array[N] int }\nlatent { p: array[K] simplex[K]; x: array[N] vector<lower=0>[D] }\nmodel { }", func(t *testing.T, f *File) {
			want := []string{"array[N, 2] real<lower=0>", "array[N] int", "array[K] simplex[K]", "array[N] vector<lower=0>[D]"}
			var got []string
			for _, b := range f.Blocks[:2] {
				for _, it := range b.Items {
					got = append(got, it.Decl.Type.String())
				}
			}
			require.Equal(t, want, got)
			require.Equal(t, 2, f.Blocks[0].Items[0].Decl.Type.ArrayDims())
			require.Equal(t, 1, f.Blocks[1].Items[1].Decl.Type.ArrayDims())
			require.Equal(t, 0, (&Type{Base: BaseReal}).ArrayDims())
		}},
		{"unsized array parameters and result", "functions { f(z: array[] real, m: array[,] real, v: array[] vector, k: int) -> array[] real { return {z[1], m[1, 2]} } }\nmodel { }", func(t *testing.T, f *File) {
			fd := f.Blocks[0].Items[0].Func
			dims := []int{}
			for _, p := range fd.Params {
				dims = append(dims, p.ArrayDims())
			}
			require.Equal(t, []int{1, 2, 1, 0}, dims)
			require.Equal(t, "array[] real", fd.Result.String())
			require.Equal(t, 1, fd.Result.ArrayDims())
			require.Equal(t, "{z[1], m[1, 2]}", FormatExpr(fd.Body[0].Return))
		}},
		{"stan order bounds on vector", "latent { w: vector<lower=0>[D] }\nmodel { w ~ normal(0, 1) }", func(t *testing.T, f *File) {
			ty := f.Blocks[0].Items[0].Decl.Type
			require.Len(t, ty.Bounds, 1)
			require.Empty(t, ty.After)
			require.Equal(t, "vector<lower=0>[D]", ty.String())
		}},
		{"bound expression", "latent { s: real<lower=-a^2, upper=f(1)> }\nmodel { }", func(t *testing.T, f *File) {
			require.Equal(t, "-a^2", FormatExpr(f.Blocks[0].Items[0].Decl.Type.Lower()))
		}},
		{"nested loops", "model {\n for i in 1..N {\n  for j in 1..M { y[i, j] ~ normal(0, 1) }\n }\n}", func(t *testing.T, f *File) {
			outer := f.Blocks[0].Items[0].Stmt.For
			inner := outer.Body[0].For
			require.Equal(t, "j", inner.Var)
			require.Equal(t, "y[i, j]", FormatExpr(inner.Body[0].Simple.LHS))
		}},
		{"empty loop and block", "model { for t in 1..2 { } }", func(t *testing.T, f *File) {
			require.Empty(t, f.Blocks[0].Items[0].Stmt.For.Body)
		}},
		{"loop then statement on one line", "model { for t in 1..2 { a = 1 } b = 2 }", func(t *testing.T, f *File) {
			require.Len(t, f.Blocks[0].Items, 2)
		}},
		{"loop bounds are expressions", "model { for t in a+1..T-1 { } }", func(t *testing.T, f *File) {
			loop := f.Blocks[0].Items[0].Stmt.For
			require.Equal(t, "a + 1", FormatExpr(loop.Lo))
			require.Equal(t, "T - 1", FormatExpr(loop.Hi))
		}},
		{"multi-line expression", "model {\n  eta = a +\n    b *\n    c\n  y ~ normal(eta,\n    1)\n}", func(t *testing.T, f *File) {
			require.Equal(t, "a + b * c", FormatExpr(f.Blocks[0].Items[0].Stmt.Simple.Assign))
		}},
		{"comments everywhere", "/* a */ model /* b */ { // c\n a = /* d */ 1 // e\n} // f", func(t *testing.T, f *File) {
			require.Len(t, f.Blocks[0].Items, 1)
		}},
		{"string escapes", `data { x: vector[N] from "a\"b\\c" }` + "\nmodel { }", func(t *testing.T, f *File) {
			require.Equal(t, `a"b\c`, *f.Blocks[0].Items[0].Decl.From.Column)
		}},
		{"blocks in any order", "model { }\nlatent { z: real }\ndata { }", func(t *testing.T, f *File) {
			require.Equal(t, "model", f.Blocks[0].Kind)
			require.NotNil(t, f.Block("latent"))
		}},
		{"keywords as names", "model { all = 1\n except = all\n}", func(t *testing.T, f *File) {
			require.Len(t, f.Blocks[0].Items, 2)
		}},
		{"crlf line ends", "model {\r\n  a = 1\r\n  b = 2\r\n}\r\n", func(t *testing.T, f *File) {
			require.Len(t, f.Blocks[0].Items, 2)
		}},
		{"compound assignment", "model { a += 1; b[i] -= x * 2\n M[:, j] *= 3; c /= -d }", func(t *testing.T, f *File) {
			items := f.Blocks[0].Items
			require.Len(t, items, 4)
			for i, op := range []string{"+=", "-=", "*=", "/="} {
				require.Equal(t, op, items[i].Stmt.Simple.Compound)
				require.Nil(t, items[i].Stmt.Simple.Assign)
			}
			require.Equal(t, "x * 2", FormatExpr(items[1].Stmt.Simple.Value))
			require.Equal(t, "M[:, j]", FormatExpr(items[2].Stmt.Simple.LHS))
			require.Equal(t, "-d", FormatExpr(items[3].Stmt.Simple.Value))
		}},
		{"target += is not a compound assignment", "model { target += 1 }", func(t *testing.T, f *File) {
			require.NotNil(t, f.Blocks[0].Items[0].Stmt.Target)
		}},
		{"statements in the data block", "data {\n N: int\n v: vector[N]\n for n in 1..N { v[n] = n; { w: real = 1 } }\n if N > 1 { v[1] = 0 }\n}\nmodel { }", func(t *testing.T, f *File) {
			items := f.Blocks[0].Items
			require.Len(t, items, 4)
			require.NotNil(t, items[2].Stmt.For)
			require.NotNil(t, items[2].Stmt.For.Body[1].Scope)
			require.NotNil(t, items[3].Stmt.If)
		}},
		{"negative setting", "model { }\ninfer { lr = -1e-3\n kernel = cis }", func(t *testing.T, f *File) {
			n, ok := f.Blocks[1].Items[0].Stmt.Simple.Assign.NumberLit()
			require.True(t, ok)
			require.Equal(t, "-1e-3", n)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.check(t, parseOK(t, c.src)) })
	}
}

func TestPositions(t *testing.T) {
	src := "latent {\n  s: real<lower=0>\n}\nmodel {\n\tfor t in 2..T {\n\t\tz[t] ~ normal(phi * z[t-1], s)\n\t}\n}\n"
	f := parseOK(t, src)
	decl := f.Blocks[0].Items[0].Decl
	assert.Equal(t, Pos{File: "t.msc", Offset: 11, Line: 2, Col: 3}, decl.Position())
	assert.Equal(t, Pos{File: "t.msc", Offset: 14, Line: 2, Col: 6}, decl.Type.Position())
	assert.Equal(t, 2, decl.Type.Bounds[0].Position().Line)
	assert.Equal(t, 11, decl.Type.Bounds[0].Position().Col)

	model := f.Blocks[1]
	assert.Equal(t, Pos{File: "t.msc", Offset: 30, Line: 4, Col: 1}, model.Position())
	loop := model.Items[0].Stmt.For
	assert.Equal(t, 5, loop.Position().Line)
	assert.Equal(t, 2, loop.Position().Col) // after a tab: Col counts bytes
	st := loop.Body[0].Simple
	assert.Equal(t, Pos{File: "t.msc", Offset: 57, Line: 6, Col: 3}, st.Position())
	call := st.Tilde
	assert.Equal(t, 10, call.Position().Col)
	arg := call.Args[0]
	assert.Equal(t, 17, arg.Position().Col)
	idx := arg.Left.Rest[0].X.Power.Base
	assert.Equal(t, "z", *idx.Prim.Ident)
	assert.Equal(t, 23, idx.Position().Col)
	assert.Equal(t, 24, idx.Indexes[0].Position().Col)
	// End is just after the node's last token
	assert.Equal(t, 6, call.End().Line)
	assert.Equal(t, len("\t\tz[t] ~ normal(phi * z[t-1], s)")+1, call.End().Col)
	assert.Equal(t, "phi * z[t-1]", src[arg.Position().Offset:arg.End().Offset])

	// every node: valid position inside the file, start before end, and
	// the source text at the start offset matches the line and column
	count := 0
	Inspect(f, func(n Node) bool {
		count++
		p, e := n.Position(), n.End()
		require.Equal(t, "t.msc", p.File)
		require.True(t, p.IsValid(), "%T", n)
		require.LessOrEqual(t, p.Offset, e.Offset, "%T", n)
		require.Equal(t, posAt("t.msc", []byte(src), p.Offset), p, "%T", n)
		return true
	})
	require.Greater(t, count, 30)
}

func TestSuggest(t *testing.T) {
	cands := []string{"normal", "lognormal", "half_normal", "gamma", "beta"}
	cases := []struct{ name, want string }{
		{"normall", "normal"},
		{"Normal", "normal"}, // case-insensitive
		{"NORMAL", "normal"}, // still a different spelling
		{"gmama", "gamma"},   // transposition counts once
		{"nromal", "normal"}, // transposition
		{"lognorml", "lognormal"},
		{"bta", "beta"},
		{"poisson", ""},         // too far
		{"normal", "lognormal"}, // exact matches are skipped
		{"", ""},
		{"x", ""},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Suggest(c.name, cands), c.name)
	}
	// the threshold is 1 + len/3 edits: 2 for a 5-letter name
	assert.Equal(t, "gamma", Suggest("gxmxa", []string{"gamma"}))
	assert.Equal(t, "", Suggest("gxxxa", []string{"gamma"}))
	assert.Equal(t, "model", Suggest("modle", BlockKinds))
	assert.Equal(t, "latent", Suggest("latnet", BlockKinds))
	assert.Equal(t, "", Suggest("xyz", BlockKinds))
	assert.Equal(t, "", Suggest("a", nil))
	assert.Equal(t, 3, editDistance("kitten", "sitting"))
	assert.Equal(t, 1, editDistance("ab", "ba"))
	assert.Equal(t, 0, editDistance("", ""))
}

func TestFormatCaret(t *testing.T) {
	src := []byte("model {\n\tx ~ normal(0, mu)\n}\n")
	l := ErrorList{{Pos: Pos{File: "m.msc", Line: 2, Col: 16}, Msg: `unknown name "mu"`, Hint: `did you mean "mu0"?`}}
	var b bytes.Buffer
	l.Format(&b, map[string][]byte{"m.msc": src})
	require.Equal(t, "m.msc:2:16: unknown name \"mu\"\n    \tx ~ normal(0, mu)\n    \t              ^\n    hint: did you mean \"mu0\"?\n", b.String())

	// unknown source, out-of-range line and column: no panic, no source line
	b.Reset()
	ErrorList{
		{Pos: Pos{File: "other.msc", Line: 1, Col: 1}, Msg: "a"},
		{Pos: Pos{File: "m.msc", Line: 99, Col: 1}, Msg: "b"},
		{Pos: Pos{File: "m.msc", Line: 3, Col: 99}, Msg: "c"},
		{Pos: Pos{}, Msg: "d"},
	}.Format(&b, map[string][]byte{"m.msc": src})
	require.Equal(t, "other.msc:1:1: a\nm.msc:99:1: b\nm.msc:3:99: c\n    }\n     ^\n-: d\n", b.String())
}

func TestParseErrorIsErrorList(t *testing.T) {
	for _, src := range []string{"", "model {", "\xff", "model { x = (((1 }"} {
		_, err := Parse("e.msc", []byte(src))
		var list ErrorList
		require.ErrorAs(t, err, &list)
		require.Len(t, list, 1)
		require.Equal(t, "e.msc", list[0].Pos.File)
	}
}

// Large inputs: a model just under MaxSource with many statements and one
// very long expression parses; a file over 1 MB with an unclosed bracket at
// its end is rejected by the bracket check alone, with the error's
// position; a 10 MB file is refused at once, at the line where it crosses
// MaxSource. The two 1 MB parses take about 10 s: they run in the long
// tier; the fast tier keeps the 10 MB refusal.
func TestLargeInput(t *testing.T) {
	if testtier.Long() {
		largeInputParses(t)
	}
	var b strings.Builder
	b.WriteString("latent { z: real }\nmodel {\n")
	for b.Len() < 10<<20 {
		b.WriteString("  z ~ normal(0, 1)\n")
	}
	b.WriteString("}\n")
	src := []byte(b.String())
	start := time.Now()
	_, err := Parse("huge.msc", src)
	elapsed := time.Since(start)
	require.Error(t, err)
	list := err.(ErrorList)
	checkPositions(t, src, list)
	require.Equal(t, 1+bytes.Count(src[:MaxSource], []byte{'\n'}), list[0].Pos.Line)
	require.Equal(t, "the model file is 10.0 MB, more than the 1 MB a model file may have", list[0].Msg)
	require.Less(t, elapsed, time.Second, "refused at once")
}

// largeInputParses: a model just under MaxSource parses, and one with an
// unclosed bracket at its end is rejected with the error's position.
func largeInputParses(t *testing.T) {
	var b strings.Builder
	b.WriteString("model {\n")
	for b.Len() < MaxSource/2 {
		fmt.Fprintf(&b, "  y%d ~ normal(mu + x[%d] * beta, sqrt(s2)) // comment\n", b.Len(), b.Len()%100+1)
	}
	b.WriteString("  e = 1")
	for b.Len() < MaxSource-16 {
		b.WriteString(" + a * b")
	}
	b.WriteString("\n}\n")
	start := time.Now()
	f, err := Parse("big.msc", []byte(b.String()))
	require.NoError(t, err)
	require.Greater(t, len(f.Blocks[0].Items), 8000)
	t.Logf("1 MB parsed in %v", time.Since(start))

	b.Reset()
	b.WriteString("model {\n")
	for b.Len() < MaxSource-100 {
		b.WriteString("  y ~ normal(mu + x[1] * beta, sqrt(s2)) /* comment */\n")
	}
	b.WriteString("  y ~ normal(0, 1\n}\n")
	src := []byte(b.String())
	start = time.Now()
	_, err = Parse("huge.msc", src)
	require.Error(t, err)
	list := err.(ErrorList)
	checkPositions(t, src, list)
	require.Equal(t, bytes.Count(src, []byte{'\n'}), list[0].Pos.Line)
	require.Equal(t, `missing ")" before "}"`, list[0].Msg)
	t.Logf("1 MB with an unclosed bracket rejected in %v", time.Since(start))
}

func ExampleParse() {
	src := []byte("latent { z: real }\nmodel {\n  z ~ normal(0, 1)\n  w = -z^2\n}\n")
	f, err := Parse("m.msc", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range f.Blocks {
		fmt.Println(b.Kind, len(b.Items), b.Position())
	}
	fmt.Println(FormatExpr(f.Block("model").Items[1].Stmt.Simple.Assign))

	_, err = Parse("bad.msc", []byte("model {\n  z ~ normal(0, 1\n}\n"))
	err.(ErrorList).Format(os.Stdout, map[string][]byte{"bad.msc": []byte("model {\n  z ~ normal(0, 1\n}\n")})
	// Output:
	// latent 1 m.msc:1:1
	// model 2 m.msc:2:1
	// -z^2
	// bad.msc:3:1: missing ")" before "}"
	//     }
	//     ^
	//     hint: the "(" at 2:13 is not closed
}

// TestErrorWording pins translations of participle's errors and tree
// checks that the golden files do not cover.
func TestErrorWording(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"param { s: real<lower 0> }\nmodel { }", `1:23: unexpected "0"; expected "=" after "lower"`},
		{"param { s: real<lower=0, uper=1> }\nmodel { }", `1:26: unknown bound "uper"; expected lower or upper`},
		{"data { X: matrix[N, D] from all except 1 }\nmodel { }", `1:40: unexpected "1"; expected a column name in double quotes`},
		{"model { for [ t in 1..T { } }", `1:13: unexpected "["; expected a loop variable after "for"`},
		{"model { z ~ (0, 1) }", `1:13: unexpected "("; expected a distribution after "~"`},
		{"model { }\ninfer { samples = 10; = 2 }", `2:23: the infer block holds settings such as samples = 10`},
		{"model { }\ninfer { samples ~ normal(0, 1) }", `2:17: unexpected "~"; expected "=" after the setting "samples"`},
		{"model { a = 1; b = 2 c = 3 }", `1:22: unexpected "c"; expected a new line or ";" after the statement`},
		{"model { for t in 1..T { a = 1 b = 2 } }", `1:31: unexpected "b"; expected a new line or ";" after the statement`},
		{"model { z ~ normal(0, 1) }\nmodle { }\nmodel { z ~ normal(0 1) }", `2:1: unknown block "modle"; the blocks are functions, data, param, latent, transformed, model, derived and infer`},
		{"latent { a: real b: real }\nmodel { z ~ normal(0 1) }", `1:18: unexpected "b"; expected a new line or ";" after the declaration`},
		{"model { z = (a + b }", `1:20: missing ")" before "}"`},
		{"model { z = a[1 }", `1:17: missing "]" before "}"`},
		{"model { z = f(a b) }", `1:17: unexpected "b"; expected "," or ")"`},
		{"latent { w: vector[D]<lower=0, upper=1> }\nmodel { }", `1:22: bounds must come before the sizes`},
		{") model { }", `1:1: unexpected ")"; expected a block such as model { ... }`},
		{"model { z = 1) }", `1:14: unexpected ")": there is no open "("`},
	} {
		_, err := Parse("w.msc", []byte(c.src))
		require.Error(t, err, c.src)
		list := err.(ErrorList)
		checkPositions(t, []byte(c.src), list)
		e := list[0]
		require.Equal(t, c.want, fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg), c.src)
	}
}

// TestFormatManyErrors: a list longer than MaxShownErrors prints that
// many and counts the rest (a CSV header of 10^6 duplicate names printed
// 10^6 errors, each with its 2 MB line, for 12 s).
func TestFormatManyErrors(t *testing.T) {
	var l ErrorList
	for i := range MaxShownErrors + 5 {
		l.Add(Pos{File: "m.msc", Line: i + 1, Col: 1}, fmt.Sprintf("e%d", i))
	}
	var b bytes.Buffer
	l.Format(&b, nil)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, MaxShownErrors+1)
	require.Equal(t, fmt.Sprintf("m.msc:%d:1: e%d", MaxShownErrors, MaxShownErrors-1), lines[MaxShownErrors-1])
	require.Equal(t, "... and 5 more errors", lines[MaxShownErrors])
}

// TestBoundsThenStatement: a declaration whose type ends with its bounds,
// followed on the next line by an assignment, a for loop, target +=,
// print or reject, ends at the bound (the > is no comparison); the
// comparisons the lookahead leaves alone still parse as comparisons.
func TestBoundsThenStatement(t *testing.T) {
	for _, next := range []string{"s = 1", "s += 1", ";\n  s[1] = 1", "for k in 1..2 { s = k }", "target += s", "print(s)", "reject(s)", "t: real = s"} {
		src := "model {\n  s: real<lower=0>\n  " + next + "\n}\n" // (any other statement after a ";")
		f, err := Parse("m.msc", []byte(src))
		require.NoError(t, err, src)
		require.Len(t, f.Blocks[0].Items, 2, src)
		require.Len(t, f.Blocks[0].Items[0].Decl.Type.Bounds[0].Value.Rest, 0, "%s: the bound is 0 alone", src)
	}
	f, err := Parse("m.msc", []byte("model {\n  if a > b { c = 1 }\n  d = a > b\n  e = a < f(b)\n}\n"))
	require.NoError(t, err)
	require.Len(t, f.Blocks[0].Items, 3)
}
