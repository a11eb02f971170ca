package stdlib

import (
	"math"

	"github.com/mscppl/mscppl/stdlib/special"
)

// SumLogDensity is the vectorised log density of a family, with the method
// set of autodiff.Op: out[0] = sum_i log p(x_i | params_i). in[0] is x
// (length n); in[1..] are the parameters, each of length n or 1
// (broadcast). The hot families have loops of their own; the others call
// the family's scalar functions. It allocates nothing.
type SumLogDensity struct {
	F    *Family
	kind int
	p    [4]float64
	dp   [4]float64
	buf  []float64 // scratch of the slice functions (the op belongs to one compiled model)
	// logSD caches log(sd) + log(sqrt(2 pi)) of the last shared sd of a
	// normal: a constant sd (a likelihood's fixed noise, a prior's scale)
	// takes its log once instead of once per node and batch element
	sd, logSD float64
}

// scratch returns a buffer of length n, grown once.
func (o *SumLogDensity) scratch(n int) []float64 {
	if cap(o.buf) < n {
		o.buf = make([]float64, n)
	}
	return o.buf[:n]
}

const (
	kindGeneric = iota
	kindNormal
	kindProbit
	kindLogit
)

// NewSumLogDensity returns the vectorised log density of f.
func NewSumLogDensity(f *Family) *SumLogDensity {
	o := &SumLogDensity{F: f}
	switch f.Name {
	case "normal":
		o.kind = kindNormal
	case "bernoulli_probit":
		o.kind = kindProbit
	case "bernoulli_logit":
		o.kind = kindLogit
	}
	return o
}

// Name is the family's name.
func (o *SumLogDensity) Name() string { return o.F.Name }

func bc(x []float64, i int) float64 {
	if len(x) == 1 {
		return x[0]
	}
	return x[i]
}

func nElems(in [][]float64) int {
	n := 1
	for _, v := range in {
		if len(v) > n {
			n = len(v)
		}
	}
	return n
}

// Forward writes the summed log density into out[0].
func (o *SumLogDensity) Forward(out []float64, in [][]float64) {
	x := in[0]
	n := nElems(in)
	s := 0.0
	switch o.kind {
	case kindNormal:
		mu, sd := in[1], in[2]
		if len(sd) == 1 {
			v := sd[0]
			if !(v > 0) || math.IsInf(v, 0) {
				out[0] = normalLogPdf(bc(x, 0), []float64{bc(mu, 0), v})
				return
			}
			inv := 1 / v
			for i := 0; i < n; i++ {
				z := (bc(x, i) - bc(mu, i)) * inv
				s += z * z
			}
			if v != o.sd {
				o.sd, o.logSD = v, math.Log(v)+special.LnSqrt2Pi
			}
			r := -0.5*s - float64(n)*o.logSD
			if math.IsInf(r, 0) || math.IsNaN(r) {
				r = o.generic(in, n)
			}
			out[0] = r
			return
		}
		for i := 0; i < n; i++ {
			o.p[0], o.p[1] = bc(mu, i), sd[i]
			s += normalLogPdf(bc(x, i), o.p[:2])
		}
	case kindProbit, kindLogit:
		// log Phi(+-eta) or -log1p(exp(-+eta)), evaluated over the whole
		// slice at once (the fast slice functions pipeline)
		eta := in[1]
		sign := 1.0 // log Phi is added, log1p(exp) subtracted (s + -1*v is s - v, bit for bit)
		if o.kind == kindLogit {
			sign = -1
		}
		// blocks that stay in L1: the signed argument, the slice function,
		// the sum; the sign 2y - 1 without a branch on y (random 0/1
		// outcomes would mispredict half the time); y outside {0, 1} has
		// no mass. The sum of a block runs in the loop that prepares the
		// next one: the same order of additions, but their latency chain
		// (4 cycles each) overlaps the next block's arguments (in
		// BenchmarkPSISDraw, 100000 rows, the summing loop was a quarter
		// of the time).
		const block = 256
		bufs := o.scratch(2 * block)
		var prev []float64 // the previous block's values, not yet summed
		for lo := 0; lo < n; lo += block {
			hi := min(n, lo+block)
			b := bufs[:hi-lo]
			if (lo/block)%2 == 1 {
				b = bufs[block : block+hi-lo]
			}
			// t*t is 1 for y in {0, 1} only (NaN included): a branch that
			// is never taken, where y != 0 && y != 1 branched on y itself
			// (4.7 of 10.4 ms in BenchmarkProbitStep)
			m := min(len(prev), hi-lo)
			if n <= 2*block { // too few blocks for the overlap to pay (351 rows: 7% slower)
				m = 0
			}
			if len(x) == n && len(eta) == n { // the usual case: no broadcast
				xs, es, ps := x[lo:hi], eta[lo:hi], prev[:m]
				es, b = es[:len(xs)], b[:len(xs)]
				for k, v := range ps {
					s += sign * v
					t := 2*xs[k] - 1
					if t*t != 1 {
						out[0] = math.Inf(-1)
						return
					}
					b[k] = sign * t * es[k]
				}
				for k := m; k < len(xs); k++ {
					t := 2*xs[k] - 1
					if t*t != 1 {
						out[0] = math.Inf(-1)
						return
					}
					b[k] = sign * t * es[k]
				}
			} else {
				for _, v := range prev[:m] {
					s += sign * v
				}
				for k := range b {
					t := 2*bc(x, lo+k) - 1
					if t*t != 1 {
						out[0] = math.Inf(-1)
						return
					}
					b[k] = sign * t * bc(eta, lo+k)
				}
			}
			for _, v := range prev[m:] {
				s += sign * v
			}
			if o.kind == kindProbit {
				special.LogPhiSlice(b, b)
			} else {
				special.Log1pExpSlice(b, b)
			}
			prev = b
		}
		for _, v := range prev {
			s += sign * v
		}
	default:
		s = o.generic(in, n)
	}
	out[0] = s
}

func (o *SumLogDensity) generic(in [][]float64, n int) float64 {
	np := len(in) - 1
	s := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < np; j++ {
			o.p[j] = bc(in[j+1], i)
		}
		s += o.F.LogPdf(bc(in[0], i), o.p[:np])
	}
	return s
}

// Backward accumulates the adjoints of x and the parameters.
func (o *SumLogDensity) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	d := dout[0]
	if d == 0 {
		return
	}
	n := nElems(in)
	np := len(in) - 1
	if o.kind == kindProbit && din[1] != nil {
		// only the derivative is needed: InvMills alone, not the Grad
		// of the family, which also computes log Phi
		x, eta := in[0], in[1]
		for i := 0; i < n; i++ {
			e, xi := bc(eta, i), bc(x, i)
			var g float64
			switch {
			case math.IsInf(e, 0) || e != e:
				o.backwardElem(d, in, din, i, np)
				continue
			case xi == 1:
				g = special.InvMills(e)
			case xi == 0:
				g = -special.InvMills(-e)
			default:
				o.backwardElem(d, in, din, i, np)
				continue
			}
			if din[0] != nil {
				accum(din[0], i, d*0)
			}
			accum(din[1], i, d*g)
		}
		return
	}
	for i := 0; i < n; i++ {
		o.backwardElem(d, in, din, i, np)
	}
}

// backwardElem accumulates the adjoints of element i through the family's
// Grad.
func (o *SumLogDensity) backwardElem(d float64, in, din [][]float64, i, np int) {
	for j := 0; j < np; j++ {
		o.p[j] = bc(in[j+1], i)
	}
	_, dx := o.F.Grad(bc(in[0], i), o.p[:np], o.dp[:np])
	if din[0] != nil {
		accum(din[0], i, d*dx)
	}
	for j := 0; j < np; j++ {
		if din[j+1] != nil {
			accum(din[j+1], i, d*o.dp[j])
		}
	}
}

func accum(dx []float64, i int, v float64) {
	if len(dx) == 1 {
		dx[0] += v
	} else {
		dx[i] += v
	}
}
