package stdlib

import "math"

// ForwardBatch evaluates the log density of scalar arguments for a batch
// at once: out[b] = log p(x_b | params_b), where in[j] holds one value
// per batch element (len(out) values) or one value shared by the batch.
// It gives the same values, to the bit, as Forward called element by
// element. It reports false, writing nothing, for the families it has no
// batch loop for (the caller then calls Forward per element).
func (o *SumLogDensity) ForwardBatch(out []float64, in [][]float64) bool {
	if o.kind != kindNormal || len(in) != 3 {
		return false
	}
	x, mu, sd := in[0], in[1], in[2]
	for _, v := range in {
		if len(v) != 1 && len(v) != len(out) {
			return false
		}
	}
	var one [3][]float64
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
		r := -0.5*s - 1*(math.Log(v)+lnSqrt2Pi)
		if math.IsInf(r, 0) || math.IsNaN(r) {
			for j, w := range in {
				k := b
				if len(w) == 1 {
					k = 0
				}
				one[j] = w[k : k+1]
			}
			r = o.generic(one[:], 1)
		}
		out[b] = r
	}
	return true
}

// stride is 0 for an input shared by the batch, 1 for one value per element.
func stride(v []float64) int {
	if len(v) == 1 {
		return 0
	}
	return 1
}
