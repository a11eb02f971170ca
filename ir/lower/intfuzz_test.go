package lower

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// errIntDivZero is an integer division by zero in intExprGen's Go value.
var errIntDivZero = errors.New("integer division by zero")

// intExprGen makes an integer expression of .msc from fuzz bytes, and its
// value by Go's int64 arithmetic (/ and % truncating toward zero). Its
// literals are small and its depth bounded, so that no value leaves the
// integers a float64 holds exactly.
type intExprGen struct {
	b []byte
	i int
	// perDraw writes each literal v as (v + z), z an int known only per
	// draw (0)
	perDraw bool
}

func (g *intExprGen) next() int {
	if g.i >= len(g.b) {
		return 0
	}
	g.i++
	return int(g.b[g.i-1])
}

// expr returns the source, the value and errIntDivZero when a divisor is
// 0 anywhere in it.
func (g *intExprGen) expr(depth int) (string, int64, error) {
	c := g.next()
	if depth == 0 || c%8 == 0 {
		v := int64(g.next()%19) - 9
		if g.perDraw {
			return "(" + strconv.FormatInt(v, 10) + " + z)", v, nil
		}
		return strconv.FormatInt(v, 10), v, nil
	}
	if c%8 == 1 {
		s, v, err := g.expr(depth - 1)
		return "-(" + s + ")", -v, err
	}
	ops := []string{"+", "-", "*", "/", "%", "%/%"}
	op := ops[(c/8)%len(ops)]
	xs, x, errx := g.expr(depth - 1)
	ys, y, erry := g.expr(depth - 1)
	src := "(" + xs + ") " + op + " (" + ys + ")"
	if err := errors.Join(errx, erry); err != nil {
		return src, 0, errIntDivZero
	}
	switch op {
	case "+":
		return src, x + y, nil
	case "-":
		return src, x - y, nil
	case "*":
		return src, x * y, nil
	}
	if y == 0 {
		return src, 0, errIntDivZero
	}
	if op == "%" {
		return src, x % y, nil
	}
	return src, x / y, nil
}

// FuzzIntArith compares integer expressions with Go's int64 arithmetic,
// in a data declaration (folded by the resolver) and in the derived block
// (the tape): the same value, and a division by zero an error at check,
// never a panic or a value; with the literals known only per draw, the
// same value, or NaN and the division reported at the draw.
func FuzzIntArith(f *testing.F) {
	for _, s := range []string{"\x03\x08\x10\x08\x05", "\x23\x08\x02\x08\x09", "\x2b\x08\x01\x08\x09", "\x13\x09\x08\x03\x08\x10", "\x1b\x08\x00\x08\x09"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		g := &intExprGen{b: b}
		src, want, werr := g.expr(3)
		for _, place := range []string{
			"data {\n v: int = " + src + "\n}\nlatent { mu: real }\nmodel { mu ~ normal(0, 1) }\n",
			"latent { mu: real }\nmodel { mu ~ normal(0, 1) }\nderived {\n v: int = " + src + "\n}\n",
		} {
			err := compileErr(t, place)
			if werr != nil {
				if err == nil || !strings.Contains(err.Error(), "integer division by zero in") {
					t.Fatalf("%s: want an integer division by zero, got %v", src, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			c := compile(t, place, "")
			var got float64
			if strings.HasPrefix(place, "data") {
				got = c.Model.Data[0].Value[0]
			} else {
				x := make([]float64, c.Model.XDim)
				c.Constrain([]float64{0}, x)
				got = x[1]
			}
			if got != float64(want) {
				t.Fatalf("%s = %g, want %d", src, got, want)
			}
		}
		g = &intExprGen{b: b, perDraw: true}
		src, _, _ = g.expr(3)
		c := compile(t, "latent { mu: real }\nmodel { mu ~ normal(0, 1) }\nderived {\n z: int = 1\n if mu > negative_infinity() { z = 0 }\n v: int = "+src+"\n}\n", "")
		x := make([]float64, c.Model.XDim)
		c.Constrain([]float64{0}, x)
		got := x[c.Model.Latents[len(c.Model.Latents)-1].XOffset]
		err := RNGError(c)
		switch {
		case werr != nil && (!math.IsNaN(got) || err == nil || !strings.Contains(err.Error(), "integer division by zero in")):
			t.Fatalf("%s per draw: want NaN and a division by zero, got %g, %v", src, got, err)
		case werr == nil && (got != float64(want) || err != nil):
			t.Fatalf("%s per draw = %g (%v), want %d", src, got, err, want)
		}
	})
}
