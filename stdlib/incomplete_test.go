package stdlib

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mathext"
)

// TestLogIncGamma: log P and log Q against gonum's mathext.GammaIncReg and
// GammaIncRegComp, against exact closed forms far in the tails (a = 1:
// Q = e^-x; a = 2: Q = e^-x (1 + x); a = 1/2: P = erf(sqrt x)), and their
// derivatives in a and x against central finite differences.
func TestLogIncGamma(t *testing.T) {
	for _, c := range [][2]float64{{0.5, 0.1}, {0.5, 3}, {1, 0.2}, {2.5, 1}, {2.5, 3.4}, {3, 9}, {10, 9}, {10, 12}, {0.05, 1e-3}, {150, 140}, {150, 170}, {1e3, 1.1e3}} {
		a, x := c[0], c[1]
		g := logIncGamma(a, x)
		relClose(t, math.Log(mathext.GammaIncReg(a, x)), g.lp, 1e-12, "log P(%g, %g)", a, x)
		relClose(t, math.Log(mathext.GammaIncRegComp(a, x)), g.lq, 1e-12, "log Q(%g, %g)", a, x)
		ha, hx := 1e-6*a, 1e-6*x
		gp, gm := logIncGamma(a+ha, x), logIncGamma(a-ha, x)
		relClose(t, (gp.lp-gm.lp)/(2*ha), g.lpA, 1e-6, "dlogP/da(%g, %g)", a, x)
		relClose(t, (gp.lq-gm.lq)/(2*ha), g.lqA, 1e-6, "dlogQ/da(%g, %g)", a, x)
		gp, gm = logIncGamma(a, x+hx), logIncGamma(a, x-hx)
		relClose(t, (gp.lp-gm.lp)/(2*hx), g.lpX, 1e-6, "dlogP/dx(%g, %g)", a, x)
		relClose(t, (gp.lq-gm.lq)/(2*hx), g.lqX, 1e-6, "dlogQ/dx(%g, %g)", a, x)
	}
	for _, x := range []float64{50, 800, 1e5} {
		relClose(t, -x, logIncGamma(1, x).lq, 1e-14, "log Q(1, %g)", x)
		relClose(t, -x+math.Log1p(x), logIncGamma(2, x).lq, 1e-14, "log Q(2, %g)", x)
		relClose(t, -1, logIncGamma(1, x).lqX, 1e-12, "dlogQ/dx(1, %g)", x)
	}
	for _, x := range []float64{1e-30, 1e-12, 1e-4} {
		relClose(t, math.Log(math.Erf(math.Sqrt(x))), logIncGamma(0.5, x).lp, 1e-13, "log P(1/2, %g)", x)
		relClose(t, math.Log(-math.Expm1(-x)), logIncGamma(1, x).lp, 1e-13, "log P(1, %g)", x)
	}
	require.True(t, math.IsInf(logIncGamma(2, 0).lp, -1))
}

// TestLogIncBeta: log I and log(1 - I) against gonum's
// mathext.RegIncBeta, against exact closed forms in the tails
// (I_x(1, b) = 1 - (1-x)^b, I_x(a, 1) = x^a), and their derivatives in
// a, b and x against central finite differences.
func TestLogIncBeta(t *testing.T) {
	for _, c := range [][3]float64{{2, 3, 0.3}, {2, 3, 0.8}, {0.5, 0.5, 0.01}, {0.5, 0.5, 0.97}, {1.5, 0.5, 0.4}, {20, 0.5, 0.9}, {30, 40, 0.45}, {30, 40, 0.3}, {0.1, 7, 0.2}, {200, 300, 0.41}} {
		a, b, x := c[0], c[1], c[2]
		r := logIncBeta(a, b, x, 1-x)
		want := mathext.RegIncBeta(a, b, x)
		relClose(t, math.Log(want), r.li, 1e-11, "log I_%g(%g, %g)", x, a, b)
		relClose(t, math.Log(mathext.RegIncBeta(b, a, 1-x)), r.lc, 1e-11, "log(1 - I_%g(%g, %g))", x, a, b)
		for j, h := range []float64{1e-6 * a, 1e-6 * b, 1e-7} {
			arg := func(s float64) incBeta {
				v := [3]float64{a, b, x}
				v[j] += s
				return logIncBeta(v[0], v[1], v[2], 1-v[2])
			}
			p, m := arg(h), arg(-h)
			relClose(t, (p.li-m.li)/(2*h), r.di[j], 1e-6, "d log I/d arg %d at %v", j, c)
			relClose(t, (p.lc-m.lc)/(2*h), r.dc[j], 1e-6, "d log(1-I)/d arg %d at %v", j, c)
		}
	}
	for _, x := range []float64{1e-20, 1e-8, 0.5} {
		relClose(t, 3*math.Log(x), logIncBeta(3, 1, x, 1-x).li, 1e-13, "log I_%g(3, 1)", x)
		relClose(t, math.Log(-math.Expm1(2.5*math.Log1p(-x))), logIncBeta(1, 2.5, x, 1-x).li, 1e-13, "log I_%g(1, 2.5)", x)
		// the upper tail through y = 1 - x given exactly
		relClose(t, 2.5*math.Log(x), logIncBeta(1, 2.5, 1-x, x).lc, 1e-13, "log(1 - I_(1-%g)(1, 2.5))", x)
	}
}
