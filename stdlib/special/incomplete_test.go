package special

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mathext"
)

// relClose requires got within tol of want, relative to max(1, |want|)
// (infinities exactly): the helper of the tests of package stdlib, which a
// _test.go file cannot share between packages.
func relClose(t *testing.T, want, got float64, tol float64, msg string, args ...any) {
	t.Helper()
	if math.IsInf(want, 0) || math.IsInf(got, 0) {
		require.Equalf(t, want, got, msg, args...)
		return
	}
	require.InDeltaf(t, want, got, tol*math.Max(1, math.Abs(want)), msg, args...)
}

// TestLogIncGamma: log P and log Q against gonum's mathext.GammaIncReg and
// GammaIncRegComp, against exact closed forms far in the tails (a = 1:
// Q = e^-x; a = 2: Q = e^-x (1 + x); a = 1/2: P = erf(sqrt x)), and their
// derivatives in a and x against central finite differences.
func TestLogIncGamma(t *testing.T) {
	for _, c := range [][2]float64{{0.5, 0.1}, {0.5, 3}, {1, 0.2}, {2.5, 1}, {2.5, 3.4}, {3, 9}, {10, 9}, {10, 12}, {0.05, 1e-3}, {150, 140}, {150, 170}, {1e3, 1.1e3}} {
		a, x := c[0], c[1]
		g := LogIncGamma(a, x)
		relClose(t, math.Log(mathext.GammaIncReg(a, x)), g.LogP, 1e-12, "log P(%g, %g)", a, x)
		relClose(t, math.Log(mathext.GammaIncRegComp(a, x)), g.LogQ, 1e-12, "log Q(%g, %g)", a, x)
		ha, hx := 1e-6*a, 1e-6*x
		gp, gm := LogIncGamma(a+ha, x), LogIncGamma(a-ha, x)
		relClose(t, (gp.LogP-gm.LogP)/(2*ha), g.DLogPA, 1e-6, "dlogP/da(%g, %g)", a, x)
		relClose(t, (gp.LogQ-gm.LogQ)/(2*ha), g.DLogQA, 1e-6, "dlogQ/da(%g, %g)", a, x)
		gp, gm = LogIncGamma(a, x+hx), LogIncGamma(a, x-hx)
		relClose(t, (gp.LogP-gm.LogP)/(2*hx), g.DLogPX, 1e-6, "dlogP/dx(%g, %g)", a, x)
		relClose(t, (gp.LogQ-gm.LogQ)/(2*hx), g.DLogQX, 1e-6, "dlogQ/dx(%g, %g)", a, x)
	}
	for _, x := range []float64{50, 800, 1e5} {
		relClose(t, -x, LogIncGamma(1, x).LogQ, 1e-14, "log Q(1, %g)", x)
		relClose(t, -x+math.Log1p(x), LogIncGamma(2, x).LogQ, 1e-14, "log Q(2, %g)", x)
		relClose(t, -1, LogIncGamma(1, x).DLogQX, 1e-12, "dlogQ/dx(1, %g)", x)
	}
	for _, x := range []float64{1e-30, 1e-12, 1e-4} {
		relClose(t, math.Log(math.Erf(math.Sqrt(x))), LogIncGamma(0.5, x).LogP, 1e-13, "log P(1/2, %g)", x)
		relClose(t, math.Log(-math.Expm1(-x)), LogIncGamma(1, x).LogP, 1e-13, "log P(1, %g)", x)
	}
	// a large shape with x far below it: P = x^a e^-x / Gamma(a+1) (1 + x/(a+1) + ...)
	for _, a := range []float64{30, 3000} {
		x := 1e-8
		lg, _ := math.Lgamma(a + 1)
		relClose(t, a*math.Log(x)-x-lg+math.Log1p(x/(a+1)*(1+x/(a+2))), LogIncGamma(a, x).LogP, 1e-14, "log P(%g, %g)", a, x)
	}
	require.True(t, math.IsInf(LogIncGamma(2, 0).LogP, -1))
}

// TestLogIncBeta: log I and log(1 - I) against gonum's
// mathext.RegIncBeta, against exact closed forms in the tails
// (I_x(1, b) = 1 - (1-x)^b, I_x(a, 1) = x^a), and their derivatives in
// a, b and x against central finite differences.
func TestLogIncBeta(t *testing.T) {
	for _, c := range [][3]float64{{2, 3, 0.3}, {2, 3, 0.8}, {0.5, 0.5, 0.01}, {0.5, 0.5, 0.97}, {1.5, 0.5, 0.4}, {20, 0.5, 0.9}, {30, 40, 0.45}, {30, 40, 0.3}, {0.1, 7, 0.2}, {200, 300, 0.41}} {
		a, b, x := c[0], c[1], c[2]
		r := LogIncBeta(a, b, x, 1-x)
		want := mathext.RegIncBeta(a, b, x)
		relClose(t, math.Log(want), r.LogI, 1e-11, "log I_%g(%g, %g)", x, a, b)
		relClose(t, math.Log(mathext.RegIncBeta(b, a, 1-x)), r.LogC, 1e-11, "log(1 - I_%g(%g, %g))", x, a, b)
		for j, h := range []float64{1e-6 * a, 1e-6 * b, 1e-7} {
			arg := func(s float64) IncBeta {
				v := [3]float64{a, b, x}
				v[j] += s
				return LogIncBeta(v[0], v[1], v[2], 1-v[2])
			}
			p, m := arg(h), arg(-h)
			relClose(t, (p.LogI-m.LogI)/(2*h), r.DLogI[j], 1e-6, "d log I/d arg %d at %v", j, c)
			relClose(t, (p.LogC-m.LogC)/(2*h), r.DLogC[j], 1e-6, "d log(1-I)/d arg %d at %v", j, c)
		}
	}
	for _, x := range []float64{1e-20, 1e-8, 0.5} {
		relClose(t, 3*math.Log(x), LogIncBeta(3, 1, x, 1-x).LogI, 1e-13, "log I_%g(3, 1)", x)
		relClose(t, math.Log(-math.Expm1(2.5*math.Log1p(-x))), LogIncBeta(1, 2.5, x, 1-x).LogI, 1e-13, "log I_%g(1, 2.5)", x)
		// the upper tail through y = 1 - x given exactly
		relClose(t, 2.5*math.Log(x), LogIncBeta(1, 2.5, 1-x, x).LogC, 1e-13, "log(1 - I_(1-%g)(1, 2.5))", x)
	}
}

// TestIncLargeShapes: large shapes, where lgamma differences lose digits,
// against mpmath (50-digit gammainc and betainc, derivatives by mpmath.diff;
// the script is in the comment below): values to 1e-12 relative, the
// derivatives in the shapes to 1e-8.
//
//	from mpmath import mp, gammainc, betainc, log, diff, inf
//	mp.dps = 40
//	lP = lambda a, x: log(gammainc(a, 0, x, regularized=True))   # and lQ: (a, x, inf)
//	lI = lambda a, b, x: log(betainc(a, b, 0, x, regularized=True)) # and lC: (a, b, x, 1)
//	print(lP(a, x), lQ(a, x), diff(lambda s: lP(s, x), a), diff(lambda s: lQ(s, x), a))
func TestIncLargeShapes(t *testing.T) {
	// a, x, log P, log Q, dlogP/da, dlogQ/da
	gammas := [][6]float64{
		{100000.0, 100300.0, -0.18797392788625588, -1.7639671462025727, -0.00097018221558462115, 0.0046913568343061819},
		{100000.0, 99700.0, -1.7636542597494873, -0.18803864566445524, -0.0046955204330870027, 0.00097140999563143539},
		{300000.0, 300900.0, -0.051589055631040553, -2.9901293664953367, -0.00019905641808823961, 0.0037598284238541922},
		{5000.0, 4800.0, -6.1644876381888418, -0.0021050094593880547, -0.044929447015559215, 9.4676523501788004e-5},
		{20000.0, 21000.0, -1.7148666085768689e-12, -27.091685817591936, -8.5360833656361959e-14, 0.049776952463450144},
		{20.0, 3.0, -23.210444234617719, -8.3144235885373471e-11, -1.929660349864562, 1.6044013531446128e-10},
	}
	for _, c := range gammas {
		g := LogIncGamma(c[0], c[1])
		require.InEpsilonf(t, c[2], g.LogP, 1e-12, "log P%v", c[:2])
		require.InEpsilonf(t, c[3], g.LogQ, 1e-12, "log Q%v", c[:2])
		require.InEpsilonf(t, c[4], g.DLogPA, 1e-8, "dlogP/da%v", c[:2])
		require.InEpsilonf(t, c[5], g.DLogQA, 1e-8, "dlogQ/da%v", c[:2])
	}
	// a, b, y = 1 - x, log I_x(a, b), log(1 - I), dlogI/da, dlogI/db
	betas := [][7]float64{
		{3000.0, 3000.0, 0.48999999999999999, -0.062574332517615132, -2.8025241324255472, -0.0016348412545770799, 0.001667869648212},
		{1000000.0, 0.5, 9.9999999999999995e-7, -1.8496058398045236, -0.17114325366701572, -1.3194843573125305e-6, 2.4783162901738399},
		{3000.0, 20.0, 0.01, -3.9236961700914847, -0.019965892552026575, -0.0041503994253588138, 0.50637250481780384},
		{400.0, 600.0, 0.62, -2.3247663093875947, -0.10292603451826387, -0.069758047502921127, 0.044587746813699739},
		{200000.0, 2000.0, 0.0099000000000000008, -0.69542211578262632, -0.69087740892293067, -0.00017792244825580831, 0.017794611399927755},
		{200000.0, 2000.0, 0.0101, -1.6994254533667126, -0.20185736133381273, -0.00032464912677254129, 0.032142368904652055},
		{50000.0, 0.5, 2.0000000000000002e-5, -1.8496121074865049, -0.17114208374127024, -2.6389915222825787e-5, 2.4783069816420203},
	}
	for _, c := range betas {
		r := LogIncBeta(c[0], c[1], 1-c[2], c[2])
		require.InEpsilonf(t, c[3], r.LogI, 1e-12, "log I%v", c[:3])
		require.InEpsilonf(t, c[4], r.LogC, 1e-12, "log(1 - I)%v", c[:3])
		require.InEpsilonf(t, c[5], r.DLogI[0], 1e-8, "dlogI/da%v", c[:3])
		require.InEpsilonf(t, c[6], r.DLogI[1], 1e-8, "dlogI/db%v", c[:3])
	}
}
