package lower

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/ir/check"
	"github.com/mscppl/mscppl/lang"
	"github.com/stretchr/testify/require"
)

// intCmpRow is an expression of x and y, their type (int or real) and
// values, and its value (divZero: an integer division by zero).
type intCmpRow struct {
	expr    string
	typ     string
	x, y    float64
	want    float64
	divZero bool
}

var (
	inf = math.Inf(1)
	nan = math.NaN()
)

// intCmpRows are Stan's integer arithmetic (truncating /, %, %/%) and
// IEEE's comparisons on infinities and NaN.
var intCmpRows = []intCmpRow{
	{expr: "x / y", typ: "int", x: 7, y: 2, want: 3},
	{expr: "x / y", typ: "int", x: -7, y: 2, want: -3},
	{expr: "x / y", typ: "int", x: 7, y: -2, want: -3},
	{expr: "x / y", typ: "int", x: -7, y: -2, want: 3},
	{expr: "x / y", typ: "int", x: 1, y: 3, want: 0},
	{expr: "x / y", typ: "int", x: 9007199254740989, y: 9007199254740990, want: 0},
	{expr: "x / y", typ: "int", x: 7, y: 0, divZero: true},
	{expr: "x %/% y", typ: "int", x: -7, y: 2, want: -3},
	{expr: "x %/% y", typ: "int", x: 0, y: 0, divZero: true},
	{expr: "x % y", typ: "int", x: 7, y: 2, want: 1},
	{expr: "x % y", typ: "int", x: -7, y: 2, want: -1},
	{expr: "x % y", typ: "int", x: 7, y: -2, want: 1},
	{expr: "x % y", typ: "int", x: -7, y: -2, want: -1},
	{expr: "x % y", typ: "int", x: 6, y: 3, want: 0},
	{expr: "x % y", typ: "int", x: 7, y: 0, divZero: true},
	{expr: "x / y * y + x % y", typ: "int", x: -13, y: 4, want: -13},
	{expr: "x / y + 0.5", typ: "int", x: 7, y: 2, want: 3.5},
	{expr: "x * 1.0 / y", typ: "int", x: 7, y: 2, want: 3.5},
	{expr: "x / 2.0", typ: "int", x: 7, y: 2, want: 3.5},
	{expr: "x / y", typ: "real", x: 7, y: 2, want: 3.5},
	{expr: "x / y", typ: "real", x: 7, y: 0, want: inf},
	{expr: "x == y", typ: "real", x: -inf, y: -inf, want: 1},
	{expr: "x == y", typ: "real", x: inf, y: inf, want: 1},
	{expr: "x == y", typ: "real", x: inf, y: -inf, want: 0},
	{expr: "x == y", typ: "real", x: nan, y: nan, want: 0},
	{expr: "x != y", typ: "real", x: inf, y: inf, want: 0},
	{expr: "x != y", typ: "real", x: nan, y: nan, want: 1},
	{expr: "x != y", typ: "real", x: nan, y: 1, want: 1},
	{expr: "x >= y", typ: "real", x: inf, y: inf, want: 1},
	{expr: "x >= y", typ: "real", x: -inf, y: -inf, want: 1},
	{expr: "x <= y", typ: "real", x: inf, y: inf, want: 1},
	{expr: "x <= y", typ: "real", x: nan, y: nan, want: 0},
	{expr: "x < y", typ: "real", x: -inf, y: inf, want: 1},
	{expr: "x < y", typ: "real", x: inf, y: inf, want: 0},
	{expr: "x < y", typ: "real", x: nan, y: 1, want: 0},
	{expr: "x > y", typ: "real", x: 1, y: nan, want: 0},
	{expr: "x > y", typ: "real", x: inf, y: 1e308, want: 1},
	{expr: "x > y", typ: "real", x: 1e308, y: -1e308, want: 1},
	{expr: "x == y", typ: "real", x: 1e308, y: -1e308, want: 0},
	{expr: "x < y || x == y", typ: "real", x: -inf, y: -inf, want: 1},
	{expr: "x >= y && y <= x", typ: "real", x: inf, y: inf, want: 1},
	{expr: "x == y ? 2 : 3", typ: "real", x: -inf, y: -inf, want: 2},
	{expr: "x == y", typ: "int", x: 3, y: 3, want: 1},
	{expr: "x > y", typ: "int", x: -3, y: 3, want: 0},
}

// lit is v as a .msc expression.
func lit(v float64) string {
	switch {
	case math.IsNaN(v):
		return "not_a_number()"
	case math.IsInf(v, 1):
		return "positive_infinity()"
	case math.IsInf(v, -1):
		return "negative_infinity()"
	case v == math.Trunc(v) && math.Abs(v) < 1<<53:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// perDraw declares x of the row's type with the value v known only per
// draw (the latent mu is finite).
func perDraw(name, typ string, v float64) string {
	if typ == "int" {
		return " " + name + ": int = " + lit(v+1) + "\n if mu > negative_infinity() { " + name + " = " + lit(v) + " }\n"
	}
	return " " + name + ": real = " + lit(v) + " + 0 * mu\n"
}

// TestIntCmp evaluates each row of intCmpRows in every place an
// expression is evaluated: a data declaration (folded by the resolver), a
// data statement and the derived and model blocks with x and y known (the
// tape, folded as it is built) and known only per draw (the tape,
// evaluated at a draw).
func TestIntCmp(t *testing.T) {
	const prior = "latent { mu: real }\nmodel { mu ~ normal(0, 1) }\n"
	for _, r := range intCmpRows {
		data := " x: " + r.typ + " = " + lit(r.x) + "\n y: " + r.typ + " = " + lit(r.y) + "\n"
		places := []struct {
			name, src string
			read      string // "data": v's value; "expr": CompileExpr("v"); "x": the derived quantity v
			draw      bool
		}{
			{"data declaration", "data {\n" + data + " v: real = " + r.expr + "\n}\n" + prior, "data", false},
			{"data statement", "data {\n" + data + " v: real\n v = " + r.expr + "\n}\n" + prior, "expr", false},
			{"derived", "data {\n" + data + "}\n" + prior + "derived {\n v: real = " + r.expr + "\n}\n", "x", false},
			{"derived per draw", prior + "derived {\n" + perDraw("x", r.typ, r.x) + perDraw("y", r.typ, r.y) + " v: real = " + r.expr + "\n}\n", "x", true},
			{"model per draw", "latent { mu: real }\nmodel {\n mu ~ normal(0, 1)\n" + perDraw("x", r.typ, r.x) + perDraw("y", r.typ, r.y) + " v = " + r.expr + "\n}\n", "expr", true},
		}
		for _, p := range places {
			name := r.expr + " " + lit(r.x) + " " + lit(r.y) + " " + p.name
			if r.divZero && !p.draw {
				err := compileErr(t, p.src)
				require.Error(t, err, name)
				require.Contains(t, err.Error(), "integer division by zero in", name)
				require.Regexp(t, `^m\.msc:\d+:\d+: `, err.Error(), name)
				continue
			}
			c := compile(t, p.src, "")
			var got float64
			switch p.read {
			case "data":
				for _, v := range c.Model.Data {
					if v.Name == "v" {
						got = v.Value[0]
					}
				}
			case "expr":
				e, err := CompileExpr(c, "<eval>", []byte("v"))
				require.NoError(t, err, name)
				got = e.Eval([]float64{0.5})[0]
			case "x":
				x := make([]float64, c.Model.XDim)
				c.Constrain([]float64{0.5}, x)
				got = x[c.Model.Latents[len(c.Model.Latents)-1].XOffset]
			}
			if r.divZero {
				require.True(t, math.IsNaN(got), "%s: got %g", name, got)
				err := RNGError(c)
				require.Error(t, err, name)
				require.Contains(t, err.Error(), "integer division by zero in "+strings.Fields(r.expr)[0], name)
				continue
			}
			require.NoError(t, RNGError(c), name)
			if math.IsNaN(r.want) {
				require.True(t, math.IsNaN(got), name)
			} else {
				require.Equal(t, r.want, got, name)
			}
		}
	}
}

// compileErr is the error of building and compiling src, or nil.
func compileErr(t *testing.T, src string) error {
	t.Helper()
	f, err := lang.Parse("m.msc", []byte(src))
	require.NoError(t, err)
	m, err := check.Build(f, nil)
	if err == nil {
		_, err = Compile(m, CompileOptions{})
	}
	return err
}

// TestIntDivisionNote: / of two ints gets stanc3's note once per division
// (a function's body is resolved at each call), %/% and a real operand
// none; % takes ints only.
func TestIntDivisionNote(t *testing.T) {
	c := compile(t, "functions {\n half(n: int) -> real {\n  return n / 2\n }\n}\ndata { N: int = 7\n a: int = N %/% 2\n b: real = N / 2.0 }\nlatent { mu: real }\nmodel { mu ~ normal(half(N) + half(3), 1) }\n", "")
	require.Equal(t, []string{"m.msc:3:10: found int division n / 2: values will be rounded towards zero (write n * 1.0 / 2 if rounding is not wanted, or n %/% 2 if it is)"}, c.Model.Notes)
	err := compileErr(t, "latent { mu: real }\nmodel { mu ~ normal(mu % 2, 1) }\n")
	require.EqualError(t, err, "m.msc:2:24: % takes integers, got real and int (the operands of % and %/% are ints; for reals, x - floor(x / y) * y is the remainder)")
}
