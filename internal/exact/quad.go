package exact

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"slices"
)

// The 15-point Gauss-Kronrod rule on [-1, 1] (QUADPACK's qk15): the
// Kronrod nodes xk (the odd-indexed ones are the 7-point Gauss nodes) and
// weights wk, and the Gauss weights wg of the nodes xk[1], xk[3], xk[5],
// xk[7].
var (
	gkX = [8]float64{
		0.991455371120812639206854697526329,
		0.949107912342758524526189684047851,
		0.864864423359769072789712788640926,
		0.741531185599394439863864773280788,
		0.586087235467691130294144845693013,
		0.405845151377397166906606412076961,
		0.207784955007898467600689403773245,
		0,
	}
	gkWK = [8]float64{
		0.022935322010529224963732008058970,
		0.063092092629978553290700663189204,
		0.104790010322250183839876322541518,
		0.140653259715525918745189590510238,
		0.169004726639267902826583426598550,
		0.190350578064785409913256402421014,
		0.204432940075298892414161999234649,
		0.209482141084727828012999174891714,
	}
	gkWG = [4]float64{
		0.129484966168869693270611432679082,
		0.279705391489276667901467771423780,
		0.381830050505118944950369775488975,
		0.417959183673469387755102040816327,
	}
)

// gk15 integrates f over [a, b] with the Kronrod rule and returns the
// estimate and |Kronrod - Gauss|, QUADPACK's raw error estimate.
func gk15(f func(float64) float64, a, b float64) (val, errEst float64) {
	c, h := (a+b)/2, (b-a)/2
	fc := f(c)
	k := fc * gkWK[7]
	g := fc * gkWG[3]
	for i := 0; i < 7; i++ {
		s := f(c-h*gkX[i]) + f(c+h*gkX[i])
		k += gkWK[i] * s
		if i%2 == 1 {
			g += gkWG[i/2] * s
		}
	}
	return k * h, math.Abs((k - g) * h)
}

// panel is one subinterval of an adaptive partition.
type panel struct{ a, b, val, err float64 }

type panelHeap []panel

func (h panelHeap) Len() int           { return len(h) }
func (h panelHeap) Less(i, j int) bool { return h[i].err > h[j].err }
func (h panelHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *panelHeap) Push(x any)        { *h = append(*h, x.(panel)) }
func (h *panelHeap) Pop() any {
	old := *h
	p := old[len(old)-1]
	*h = old[:len(old)-1]
	return p
}

// maxPanels bounds the adaptive partition.
const maxPanels = 20000

// Rule is a quadrature rule for integrals against a one-dimensional
// density: nodes X (increasing) and weights W that sum to 1, so that
// E[h(x)] = sum_i W[i] h(X[i]). It is the 15-point Kronrod rule on each
// panel of an adaptive partition, so it also gives the CDF at any point
// (the panels below it plus the Kronrod rule on the part of the panel it
// falls in).
type Rule struct {
	X, W []float64
	// the partition (Breaks[i], Breaks[i+1]) and each panel's cumulative
	// mass up to its left end
	Breaks, CumLeft []float64
	pdf             func(float64) float64 // the normalised density
}

// Density is an unnormalised one-dimensional density on [Lo, Hi] given by
// its log (which may be -Inf). Breaks are points inside the interval where
// the integrand has a feature the first partition must not miss (a mode,
// a kink); the interval is first cut into Init equal panels (64 when 0)
// and at the breaks.
type Density struct {
	LogPDF func(float64) float64
	Lo, Hi float64
	Breaks []float64
	Init   int
}

// Integrated is a Density's normalisation and its quadrature rule.
type Integrated struct {
	// LogZ is log of the integral of exp(LogPDF) over [Lo, Hi]: the log
	// evidence when LogPDF is a log joint density.
	LogZ float64
	// RelErr is the adaptive rule's estimate of the relative error of the
	// integral.
	RelErr float64
	// EdgeLog is the larger of LogPDF at Lo and at Hi minus its largest
	// value at a node: how negligible the density is at the ends.
	EdgeLog float64
	Rule    Rule
}

// Integrate normalises d by adaptive Gauss-Kronrod quadrature to relative
// error tol (1e-13 when 0): panels are split in two, the one with the
// largest error estimate first, until the summed estimates are below tol
// times the integral.
func (d Density) Integrate(tol float64) (*Integrated, error) {
	if tol == 0 {
		tol = 1e-13
	}
	if !(d.Lo < d.Hi) {
		return nil, fmt.Errorf("exact: empty interval [%g, %g]", d.Lo, d.Hi)
	}
	n := d.Init
	if n == 0 {
		n = 64
	}
	cuts := []float64{d.Lo, d.Hi}
	for i := 1; i < n; i++ {
		cuts = append(cuts, d.Lo+(d.Hi-d.Lo)*float64(i)/float64(n))
	}
	for _, b := range d.Breaks {
		if b > d.Lo && b < d.Hi {
			cuts = append(cuts, b)
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	// The shift: the largest log density at the first panels' midpoints
	// and at the breaks, so that exp does not overflow.
	shift := math.Inf(-1)
	for _, x := range append(slices.Clone(d.Breaks), cuts...) {
		shift = max(shift, d.LogPDF(x))
	}
	for i := 0; i+1 < len(cuts); i++ {
		shift = max(shift, d.LogPDF((cuts[i]+cuts[i+1])/2))
	}
	if math.IsInf(shift, -1) || math.IsNaN(shift) {
		return nil, errors.New("exact: the density is zero at every first point")
	}
	f := func(x float64) float64 { return math.Exp(d.LogPDF(x) - shift) }
	h := &panelHeap{}
	total, totalErr := 0.0, 0.0
	for i := 0; i+1 < len(cuts); i++ {
		v, e := gk15(f, cuts[i], cuts[i+1])
		heap.Push(h, panel{cuts[i], cuts[i+1], v, e})
		total += v
		totalErr += e
	}
	for totalErr > tol*total && h.Len() < maxPanels {
		p := heap.Pop(h).(panel)
		m := (p.a + p.b) / 2
		v1, e1 := gk15(f, p.a, m)
		v2, e2 := gk15(f, m, p.b)
		heap.Push(h, panel{p.a, m, v1, e1})
		heap.Push(h, panel{m, p.b, v2, e2})
		total += v1 + v2 - p.val
		totalErr += e1 + e2 - p.err
	}
	// Sum afresh (the running sums drift by rounding).
	ps := []panel(*h)
	slices.SortFunc(ps, func(x, y panel) int { return cmpFloat(x.a, y.a) })
	total, totalErr = 0, 0
	for _, p := range ps {
		total += p.val
		totalErr += p.err
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return nil, fmt.Errorf("exact: the integral is %g", total)
	}
	if totalErr > 1e3*tol*total {
		return nil, fmt.Errorf("exact: %d panels reach a relative error of only %.2g", len(ps), totalErr/total)
	}
	out := &Integrated{LogZ: shift + math.Log(total), RelErr: totalErr / total}
	r := &out.Rule
	maxLog := math.Inf(-1)
	cum := 0.0
	for _, p := range ps {
		r.Breaks = append(r.Breaks, p.a)
		r.CumLeft = append(r.CumLeft, cum)
		c, hw := (p.a+p.b)/2, (p.b-p.a)/2
		for i := 0; i < 15; i++ {
			var x, w float64
			switch {
			case i < 7:
				x, w = c-hw*gkX[i], gkWK[i]
			case i == 7:
				x, w = c, gkWK[7]
			default:
				x, w = c+hw*gkX[14-i], gkWK[14-i]
			}
			lp := d.LogPDF(x)
			maxLog = max(maxLog, lp)
			r.X = append(r.X, x)
			r.W = append(r.W, w*hw*math.Exp(lp-shift)/total)
		}
		cum += p.val / total
	}
	r.Breaks = append(r.Breaks, ps[len(ps)-1].b)
	r.pdf = func(x float64) float64 { return math.Exp(d.LogPDF(x)-shift) / total }
	out.EdgeLog = max(d.LogPDF(d.Lo), d.LogPDF(d.Hi)) - maxLog
	return out, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// CDF is P(x' <= x) under the rule's density.
func (r *Rule) CDF(x float64) float64 {
	if x <= r.Breaks[0] {
		return 0
	}
	if x >= r.Breaks[len(r.Breaks)-1] {
		return 1
	}
	i, _ := slices.BinarySearch(r.Breaks, x)
	i-- // Breaks[i] < x <= Breaks[i+1]
	v, _ := gk15(r.pdf, r.Breaks[i], x)
	return min(1, r.CumLeft[i]+v)
}

// Mean is E[h(x)].
func (r *Rule) Mean(h func(float64) float64) float64 {
	s := 0.0
	for i, x := range r.X {
		s += r.W[i] * h(x)
	}
	return s
}

// Prob is P(x in (a, b)) (a or b may be infinite).
func (r *Rule) Prob(a, b float64) float64 { return r.CDF(b) - r.CDF(a) }

// Summary is the posterior mean, sd and 5/50/95% quantiles of x itself
// under the rule (see Quantile for a quantile in a gap between modes).
func (r *Rule) Summary(name string) Summary {
	m := r.Mean(func(x float64) float64 { return x })
	v := r.Mean(func(x float64) float64 { return (x - m) * (x - m) })
	s := Summary{Name: name, Mean: m, SD: math.Sqrt(v)}
	s.Q05 = r.Quantile(0.05, s.SD)
	s.Q50 = r.Quantile(0.5, s.SD)
	s.Q95 = r.Quantile(0.95, s.SD)
	return s
}

// Quantile is the p-quantile by bisection on the CDF, to 1e-12 sd (sd is
// the density's). Where the CDF is flat at p (a gap between modes in
// which no value is more the quantile than another: the density times sd
// is below 1e-6 there), it is NaN.
func (r *Rule) Quantile(p, sd float64) float64 {
	lo, hi := r.Breaks[0], r.Breaks[len(r.Breaks)-1]
	q := bisect(func(x float64) float64 { return r.CDF(x) - p }, lo, hi, 1e-12*sd)
	if r.pdf(q)*sd < 1e-6 {
		return math.NaN()
	}
	return q
}

// bisect finds a root of the increasing function f in [lo, hi] to within
// tol.
func bisect(f func(float64) float64, lo, hi, tol float64) float64 {
	for hi-lo > tol {
		m := lo + (hi-lo)/2
		if m == lo || m == hi {
			break
		}
		if f(m) < 0 {
			lo = m
		} else {
			hi = m
		}
	}
	return lo + (hi-lo)/2
}
