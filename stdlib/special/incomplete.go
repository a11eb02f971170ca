package special

import "math"

// The regularized incomplete gamma and beta functions in log space, with
// their derivatives in every argument, for the CDFs of package stdlib
// (cdf_more.go).
//
// Method. Each function is computed by the classical expansion that
// converges fastest where it is used (Numerical Recipes' gser/gcf and
// betacf, i.e. the power series of P(a, x) for x < a + 1, Legendre's
// continued fraction of Q(a, x) otherwise, and the continued fraction of
// I_x(a, b) for x < (a + 1)/(a + b + 2), the complement I_{1-x}(b, a)
// otherwise), and only the smaller of the pair is computed: the other is
// log(1 - exp(small)) (Log1mExp), so that both log P and log Q (log I and
// log(1 - I)) keep their relative accuracy far in either tail, where the
// other one underflows. The derivatives in x are the closed forms (the
// density over the CDF). The derivatives in the shapes a and b are those
// of the same series and continued fractions carried forward exactly:
// each term of the series, and each step of the modified Lentz algorithm,
// is evaluated on dual numbers v + v'·da (+ v''·db), which differentiates
// the truncated expansion exactly (as Boik and Robison-Cox, "Derivatives
// of the incomplete beta function", J. Stat. Softw. 3(1), 1998, do for the
// beta fraction). The iteration stops only when both the value and the
// derivative have converged. The cost grows like sqrt(a) (sqrt(max(a, b)));
// shapes beyond about 1e8 would need Temme's uniform asymptotic expansions,
// which are not implemented (the expansions then stop at incMaxIter terms).

var negInf = math.Inf(-1)

const (
	incEps     = 1e-16
	incTiny    = 1e-300
	incMaxIter = 100000
)

// dual2 is a number with its derivatives in two variables (a and b).
type dual2 struct{ v, a, b float64 }

func (x dual2) add(y dual2) dual2 { return dual2{x.v + y.v, x.a + y.a, x.b + y.b} }
func (x dual2) mul(y dual2) dual2 {
	return dual2{x.v * y.v, x.a*y.v + x.v*y.a, x.b*y.v + x.v*y.b}
}
func (x dual2) inv() dual2 {
	r := 1 / x.v
	return dual2{r, -x.a * r * r, -x.b * r * r}
}
func (x dual2) div(y dual2) dual2     { return x.mul(y.inv()) }
func (x dual2) addc(c float64) dual2  { return dual2{x.v + c, x.a, x.b} }
func (x dual2) scale(c float64) dual2 { return dual2{x.v * c, x.a * c, x.b * c} }

// guard keeps a Lentz denominator off zero.
func (x dual2) guard() dual2 {
	if math.Abs(x.v) < incTiny {
		x.v = incTiny
	}
	return x
}

// IncGamma holds log P(a, x), log Q(a, x) and their derivatives.
type IncGamma struct {
	LogP, LogQ     float64 // log P, log Q
	DLogPA, DLogPX float64 // d log P / da, d log P / dx
	DLogQA, DLogQX float64 // d log Q / da, d log Q / dx
}

// LogIncGamma is the regularized incomplete gamma function pair for a > 0:
// P(a, x) = gamma(a, x)/Gamma(a) and Q = 1 - P, in logs, with derivatives.
// x <= 0 gives P = 0, Q = 1 (zero derivatives); x = +Inf gives P = 1.
func LogIncGamma(a, x float64) IncGamma {
	var g IncGamma
	switch {
	case x <= 0:
		g.LogP = negInf
		return g
	case math.IsInf(x, 1):
		g.LogQ = negInf
		return g
	}
	lx := math.Log(x)
	// pre = log(x^a e^-x / Gamma(a)) and ld = log of the density
	pre := gammaPrefix(a, x, lx)
	ld := pre - lx
	if x < a+1 {
		// P = x^a e^-x / Gamma(a+1) * sum_n x^n / ((a+1)...(a+n))
		t, s := dual2{v: 1}, dual2{v: 1}
		ap := dual2{v: a, a: 1}
		for n := 1; n < incMaxIter; n++ {
			ap = ap.addc(1)
			t = t.mul(ap.inv()).scale(x)
			s = s.add(t)
			if math.Abs(t.v) < math.Abs(s.v)*incEps && math.Abs(t.a) <= math.Abs(s.a)*incEps {
				break
			}
		}
		g.LogP = pre - math.Log(a) + math.Log(s.v)
		g.DLogPA = lx - Digamma(a+1) + s.a/s.v
		g.DLogPX = math.Exp(ld - g.LogP)
		g.LogQ = Log1mExp(g.LogP)
		r := -math.Exp(g.LogP - g.LogQ)
		g.DLogQA, g.DLogQX = r*g.DLogPA, r*g.DLogPX
		return g
	}
	// Q = x^a e^-x / Gamma(a) * 1/(x+1-a- 1(1-a)/(x+3-a- 2(2-a)/(x+5-a- ...)))
	b := dual2{v: x + 1 - a, a: -1}
	c := dual2{v: 1 / incTiny}
	d := b.inv()
	h := d
	for i := 1; i < incMaxIter; i++ {
		fi := float64(i)
		an := dual2{v: -fi * (fi - a), a: fi}
		b = b.addc(2)
		d = an.mul(d).add(b).guard()
		c = b.add(an.div(c)).guard()
		d = d.inv()
		del := d.mul(c)
		h = h.mul(del)
		if math.Abs(del.v-1) < incEps && math.Abs(del.a) <= incEps*(1+math.Abs(h.a/h.v)) {
			break
		}
	}
	g.LogQ = pre + math.Log(h.v)
	g.DLogQA = lx - Digamma(a) + h.a/h.v
	g.DLogQX = -math.Exp(ld - g.LogQ)
	g.LogP = Log1mExp(g.LogQ)
	r := -math.Exp(g.LogQ - g.LogP)
	g.DLogPA, g.DLogPX = r*g.DLogQA, r*g.DLogQX
	return g
}

// IncBeta holds log I_x(a, b), log(1 - I_x(a, b)) and their derivatives
// in (a, b, x).
type IncBeta struct {
	LogI, LogC   float64    // log I, log(1 - I)
	DLogI, DLogC [3]float64 // their derivatives in a, b, x
}

// LogIncBeta is the regularized incomplete beta function I_x(a, b) for
// a, b > 0, given x and y = 1 - x (each computed without cancellation by
// the caller), in logs, with derivatives.
func LogIncBeta(a, b, x, y float64) IncBeta {
	var r IncBeta
	switch {
	case x <= 0:
		r.LogI = negInf
		return r
	case y <= 0:
		r.LogC = negInf
		return r
	}
	if x*(a+b+2) < a+1 {
		r.LogI, r.DLogI = betaCF(a, b, x, y)
		r.LogC = Log1mExp(r.LogI)
		f := -math.Exp(r.LogI - r.LogC)
		for i := range r.DLogC {
			r.DLogC[i] = f * r.DLogI[i]
		}
		return r
	}
	lj, dj := betaCF(b, a, y, x) // log I_y(b, a) = log(1 - I_x(a, b))
	r.LogC = lj
	r.DLogC = [3]float64{dj[1], dj[0], -dj[2]}
	r.LogI = Log1mExp(lj)
	f := -math.Exp(r.LogC - r.LogI)
	for i := range r.DLogI {
		r.DLogI[i] = f * r.DLogC[i]
	}
	return r
}

// betaCF is log I_x(a, b) by its continued fraction (accurate for
// x < (a+1)/(a+b+2)) and its derivatives in a, b and x.
func betaCF(a, b, x, y float64) (float64, [3]float64) {
	A, B := dual2{v: a, a: 1}, dual2{v: b, b: 1}
	qab, qap, qam := A.add(B), A.addc(1), A.addc(-1)
	one := dual2{v: 1}
	c := one
	d := one.add(qab.div(qap).scale(-x)).guard().inv()
	h := d
	for m := 1; m < incMaxIter; m++ {
		fm := float64(m)
		m2 := 2 * fm
		// even step: m (b - m) x / ((a + 2m - 1)(a + 2m))
		aa := B.addc(-fm).scale(fm * x).div(qam.addc(m2).mul(A.addc(m2)))
		d = one.add(aa.mul(d)).guard().inv()
		c = one.add(aa.div(c)).guard()
		h = h.mul(d).mul(c)
		// odd step: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
		aa = A.addc(fm).mul(qab.addc(fm)).scale(-x).div(A.addc(m2).mul(qap.addc(m2)))
		d = one.add(aa.mul(d)).guard().inv()
		c = one.add(aa.div(c)).guard()
		del := d.mul(c)
		h = h.mul(del)
		if math.Abs(del.v-1) < incEps && math.Abs(del.a)+math.Abs(del.b) <= incEps*(1+math.Abs(h.a/h.v)+math.Abs(h.b/h.v)) {
			break
		}
	}
	// log x and log y, each from the smaller of x and y (log1p) so that
	// a log x stays accurate for x near 1 and a large
	lx, ly := math.Log(x), math.Log(y)
	if x > 0.5 {
		lx = math.Log1p(-y)
	}
	if y > 0.5 {
		ly = math.Log1p(-x)
	}
	lbeta := lbetaStirling(a, b)
	li := a*lx + b*ly - lbeta - math.Log(a) + math.Log(h.v)
	dab := Digamma(a + b)
	return li, [3]float64{
		lx - Digamma(a) + dab - 1/a + h.a/h.v,
		ly - Digamma(b) + dab + h.b/h.v,
		math.Exp((a-1)*lx + (b-1)*ly - lbeta - li),
	}
}

// stirlingErr is lgamma(x) - ((x - 1/2) log x - x + log(2 pi)/2), the
// error of Stirling's formula, for x >= 10 (its asymptotic series, to
// x^-13: below 1e-17 there).
func stirlingErr(x float64) float64 {
	r := 1 / x
	r2 := r * r
	return r * (1.0/12 - r2*(1.0/360-r2*(1.0/1260-r2*(1.0/1680-r2*(1.0/1188-r2*(691.0/360360-r2/156))))))
}

const lnSqrt2PiInc = 0.91893853320467274178 // log(2 pi)/2

// lbetaStirling is log B(a, b) for a, b > 0 without the cancellation of
// lgamma(a) + lgamma(b) - lgamma(a + b) when a or b is large (Stirling's
// formula with its error term, as Stan's lbeta).
func lbetaStirling(a, b float64) float64 {
	x, y := math.Min(a, b), math.Max(a, b)
	if y < 10 {
		lx, _ := math.Lgamma(x)
		ly, _ := math.Lgamma(y)
		lxy, _ := math.Lgamma(x + y)
		return lx + ly - lxy
	}
	corr := stirlingErr(y) - stirlingErr(x+y)
	if x < 10 {
		lx, _ := math.Lgamma(x)
		return lx + corr - (y-0.5)*math.Log1p(x/y) - x*math.Log(x+y) + x
	}
	return lnSqrt2PiInc - 0.5*math.Log(y) + stirlingErr(x) + corr +
		(x-0.5)*math.Log(x/(x+y)) + y*math.Log1p(-x/(x+y))
}

// gammaPrefix is log(x^a e^-x / Gamma(a)) given lx = log x, written for
// a >= 10 as a (log1p(t) - t) + log(a)/2 - log(2 pi)/2 - stirlingErr(a)
// with t = (x - a)/a, which keeps its accuracy for large a with x near a
// (for x far from a, a log(x/a) + a - x in place of a (log1p(t) - t)).
func gammaPrefix(a, x, lx float64) float64 {
	if a < 10 {
		lga, _ := math.Lgamma(a)
		return a*lx - x - lga
	}
	var m float64 // a log(x/a) + a - x
	if t := (x - a) / a; math.Abs(t) < 0.5 {
		m = a * log1pmx(t)
	} else {
		m = a*(lx-math.Log(a)) + a - x // t's rounding would spoil log1p(t) near -1
	}
	return m + 0.5*math.Log(a) - lnSqrt2PiInc - stirlingErr(a)
}

// log1pmx is log(1 + t) - t, by its series for small |t|.
func log1pmx(t float64) float64 {
	if math.Abs(t) > 0.25 {
		return math.Log1p(t) - t
	}
	// -t^2/2 + t^3/3 - t^4/4 + ...
	sum, p := 0.0, -t // p = (-t)^k
	for k := 2; k < 200; k++ {
		p *= -t
		term := -p / float64(k) // -(-t)^k / k
		sum += term
		if math.Abs(term) <= 1e-17*math.Abs(sum) {
			break
		}
	}
	return sum
}
