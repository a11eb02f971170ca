package lower

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/ir/check"
	"github.com/mscppl/mscppl/lang"
)

// fuzzBytes hands out a fuzz input's bytes one at a time (0 once used up).
type fuzzBytes []byte

func (b *fuzzBytes) next() int {
	if len(*b) == 0 {
		return 0
	}
	v := int((*b)[0])
	*b = (*b)[1:]
	return v
}

// exprGen turns fuzz bytes into a random well-formed scalar expression of
// the latent vector z (length 3).
type exprGen struct {
	fuzzBytes
	depth int
}

func (g *exprGen) expr() string {
	g.depth++
	defer func() { g.depth-- }()
	if g.depth > 5 {
		return g.leaf()
	}
	switch g.next() % 10 {
	case 0, 1:
		return g.leaf()
	case 2:
		return "(" + g.expr() + " + " + g.expr() + ")"
	case 3:
		return "(" + g.expr() + " - " + g.expr() + ")"
	case 4:
		return "(" + g.expr() + " * " + g.expr() + ")"
	case 5:
		return "(" + g.expr() + " / (1 + square(" + g.expr() + ")))"
	case 6:
		fns := []string{"exp", "log1p_exp", "inv_logit", "Phi", "log_Phi", "sqrt1", "abs1", "log_inv_logit"}
		f := fns[g.next()%len(fns)]
		switch f {
		case "sqrt1":
			return "sqrt(1 + square(" + g.expr() + "))"
		case "abs1":
			return "log(1 + square(" + g.expr() + "))"
		case "exp":
			return "exp(" + g.expr() + " / 4)"
		}
		return f + "(" + g.expr() + ")"
	case 7:
		return "-" + g.leaf()
	case 8:
		return "(" + g.expr() + ")^2"
	default:
		return "dot(z, z) / 3"
	}
}

func (g *exprGen) leaf() string {
	switch v := g.next() % 5; v {
	case 0, 1, 2:
		return fmt.Sprintf("z[%d]", v+1)
	case 3:
		return "sum(z)"
	}
	return fmt.Sprintf("%g", float64(g.next()%7)/4+0.5)
}

// FuzzExpressionGradient compiles random expressions into a model and
// checks the tape's gradient of the log joint against central finite
// differences.
func FuzzExpressionGradient(f *testing.F) {
	f.Add([]byte{2, 0, 1, 4, 1, 2})
	f.Add([]byte{6, 3, 4, 0, 5, 8, 1})
	f.Add([]byte{9, 8, 6, 4, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		g := &exprGen{fuzzBytes: b}
		e := g.expr()
		src := "latent { z: vector[3] }\nmodel {\n  z ~ normal(0, 1)\n  1.5 ~ normal(" + e + ", 2)\n}\n"
		src = strings.Replace(src, "1.5 ~", "zz ~", 1)
		src = strings.Replace(src, "latent { z: vector[3] }", "data { zz: real = 1.5 }\nlatent { z: vector[3] }", 1)
		file, err := lang.Parse("f.msc", []byte(src))
		if err != nil {
			t.Fatalf("generated source does not parse: %v\n%s", err, src)
		}
		m, err := check.Build(file, nil)
		if err != nil {
			t.Fatalf("generated source does not check: %v\n%s", err, src)
		}
		c, err := Compile(m, CompileOptions{})
		if err != nil {
			// a constant argument can fold to Inf: the checker reports
			// it with a position, which is the right outcome
			list, ok := err.(lang.ErrorList)
			if !ok || !list[0].Pos.IsValid() {
				t.Fatalf("unpositioned error: %v", err)
			}
			return
		}
		z := []float64{0.3, -0.7, 1.1}
		grad := make([]float64, 3)
		lp := c.GradLogJoint(z, grad)
		if math.IsNaN(lp) || math.IsInf(lp, 0) || math.Abs(lp) > 1e6 {
			return
		}
		f := func() float64 {
			var o [1]float64
			c.LogJoint(z, o[:])
			return o[0]
		}
		for i := range z {
			old := z[i]
			h := 1e-5
			z[i] = old + h
			fp := f()
			z[i] = old - h
			fm := f()
			z[i] = old
			fd := (fp - fm) / (2 * h)
			if math.IsNaN(fd) || math.Abs(fd) > 1e5 {
				continue
			}
			if math.Abs(fd-grad[i]) > 1e-4*math.Max(1, math.Abs(fd)) {
				t.Fatalf("%s: d/dz[%d] tape %g, finite differences %g", e, i+1, grad[i], fd)
			}
		}
	})
}
