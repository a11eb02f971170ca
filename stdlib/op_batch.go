package stdlib

import (
	"math"

	"github.com/mscppl/mscppl/stdlib/special"
)

// ForwardBatch evaluates the log density of scalar arguments for a batch
// at once: out[b] = log p(x_b | params_b), where in[j] holds one value
// per batch element (len(out) values) or one value shared by the batch.
// It gives the same values, to the bit, as Forward called element by
// element. It reports false, writing nothing, for the families it has no
// batch loop for (the caller then calls Forward per element).
func (o *SumLogDensity) ForwardBatch(out []float64, in [][]float64) bool {
	for _, v := range in {
		if len(v) != 1 && len(v) != len(out) {
			return false
		}
	}
	switch {
	case o.kind == kindNormal && len(in) == 3:
		o.normalBatch(out, in)
	case o.F.Name == "student_t" && len(in) == 4:
		o.studentBatch(out, in)
	default:
		return false
	}
	return true
}

// one sets dst to the inputs of batch element b.
func one(dst, in [][]float64, b int) [][]float64 {
	for j, w := range in {
		k := b
		if len(w) == 1 {
			k = 0
		}
		dst[j] = w[k : k+1]
	}
	return dst
}

// studentBatch is the student_t log density (studentGrad's value, without
// its gradient), with the terms of nu and of the scale computed once per
// value (once per batch when they are shared).
func (o *SumLogDensity) studentBatch(out []float64, in [][]float64) {
	x, nus, loc, scs := in[0], in[1], in[2], in[3]
	var args [4][]float64
	ix, inu, iloc, isc := stride(x), stride(nus), stride(loc), stride(scs)
	cNu, cK := math.NaN(), 0.0 // K(nu) = lgamma((nu+1)/2) - lgamma(nu/2) - log(nu pi)/2
	cSc, cLs := math.NaN(), 0.0
	for b := range out {
		xb, nu, l, s := x[b*ix], nus[b*inu], loc[b*iloc], scs[b*isc]
		if xb != xb || nu != nu || l != l || s != s || !(nu > 0) || !(s > 0) ||
			math.IsInf(nu, 0) || math.IsInf(s, 0) || math.IsInf(l, 0) || math.IsInf(xb, 0) {
			out[b] = o.generic(one(args[:4], in, b), 1)
			continue
		}
		if nu != cNu {
			cNu, cK = nu, lgamma((nu+1)/2)-lgamma(nu/2)-0.5*math.Log(nu*math.Pi)
		}
		if s != cSc {
			cSc, cLs = s, math.Log(s)
		}
		z := (xb - l) / s
		l1 := math.Log1p(z * z / nu)
		lp := cK - cLs - (nu+1)/2*l1
		r := 0.0
		r += lp
		out[b] = r
	}
}

// normalBatch is Forward with n = 1, element by element.
func (o *SumLogDensity) normalBatch(out []float64, in [][]float64) {
	x, mu, sd := in[0], in[1], in[2]
	var args [3][]float64
	ix, im, is := stride(x), stride(mu), stride(sd)
	for b := range out {
		xb, mb, v := x[b*ix], mu[b*im], sd[b*is]
		if !(v > 0) || math.IsInf(v, 0) {
			o.p[0], o.p[1] = mb, v
			out[b] = normalLogPdf(xb, o.p[:2])
			continue
		}
		// Forward with n = 1
		inv := 1 / v
		z := (xb - mb) * inv
		s := 0.0
		s += z * z
		r := -0.5*s - 1*(math.Log(v)+special.LnSqrt2Pi)
		if math.IsInf(r, 0) || math.IsNaN(r) {
			r = o.generic(one(args[:], in, b), 1)
		}
		out[b] = r
	}
}

// stride is 0 for an input shared by the batch, 1 for one value per element.
func stride(v []float64) int {
	if len(v) == 1 {
		return 0
	}
	return 1
}
