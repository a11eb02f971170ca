package resample

import (
	"math"
	"math/rand/v2"
)

// Normalise turns log weights into normalised weights and returns
// log(mean weight) and the ESS. ok is false if every weight is -Inf or a
// weight is NaN.
func Normalise(logw, wn []float64) (logMean, ess float64, ok bool) {
	mx, sum, ok := weights(logw, wn)
	if !ok {
		return mx, 0, false
	}
	sq := 0.0
	for i := range wn {
		wn[i] /= sum
		sq += wn[i] * wn[i]
	}
	return mx + math.Log(sum/float64(len(logw))), 1 / sq, true
}

// NormaliseWeights is Normalise without the mean and the ESS.
func NormaliseWeights(logw, wn []float64) bool {
	_, sum, ok := weights(logw, wn)
	if ok {
		for i := range wn {
			wn[i] /= sum
		}
	}
	return ok
}

// weights writes exp(logw - max) into wn and returns the max and the sum
// (NaN or -Inf and false if a weight is NaN or all are zero).
func weights(logw, wn []float64) (mx, sum float64, ok bool) {
	mx = math.Inf(-1)
	for _, lw := range logw {
		if math.IsNaN(lw) {
			return math.NaN(), 0, false
		}
		if lw > mx {
			mx = lw
		}
	}
	if math.IsInf(mx, -1) {
		return math.Inf(-1), 0, false
	}
	for i, lw := range logw {
		w := math.Exp(lw - mx)
		wn[i] = w
		sum += w
	}
	return mx, sum, true
}

// NormaliseStep normalises the log weights of one SMC step; if they
// degenerated (all -Inf or NaN) it sets uniform weights, so that the sweep
// can end, and reports false (the caller then keeps the retained
// trajectory).
func NormaliseStep(logw, wn []float64) (logMean, ess float64, ok bool) {
	logMean, ess, ok = Normalise(logw, wn)
	if !ok {
		for i := range wn {
			wn[i] = 1 / float64(len(wn))
		}
		ess = 0
	}
	return logMean, ess, ok
}

// Categorical draws an index with probabilities w (normalised).
func Categorical(rng *rand.Rand, w []float64) int {
	u := rng.Float64()
	c := 0.0
	for i, p := range w {
		c += p
		if u < c {
			return i
		}
	}
	return len(w) - 1
}

// Multinomial fills out with independent draws from the categorical
// distribution w, in O(len(w) + len(out)) time: sorted uniforms from
// normalised cumulative exponential spacings, merged with the cumulative
// weights. scratch needs len(out)+len(w) slots.
func Multinomial(rng *rand.Rand, w []float64, out []int32, scratch []float64) {
	n := len(out)
	if n == 0 {
		return
	}
	u := scratch[:n+1]
	s := 0.0
	for i := range u {
		s += rng.ExpFloat64()
		u[i] = s
	}
	total := u[n]
	if len(w) <= smallN {
		// draw i is the first j with x = u_i/total < c_j = w_0 + ... + w_j
		// (the last j at most): the number of j < len(w)-1 with c_j <= x,
		// the c_j being nondecreasing. For few particles counting is
		// faster than the merge below, whose exits are unpredictable, and
		// gives the same draws.
		c := scratch[n+1 : n+len(w)]
		cj := 0.0
		for j := range c {
			cj += w[j]
			c[j] = cj
		}
		for i := 0; i < n; i++ {
			x := u[i] / total
			k := 0
			for _, v := range c {
				if v <= x {
					k++
				}
			}
			out[i] = int32(k)
		}
		return
	}
	j, c := 0, w[0]
	for i := 0; i < n; i++ {
		x := u[i] / total
		for x >= c && j < len(w)-1 {
			j++
			c += w[j]
		}
		out[i] = int32(j)
	}
	// the draws are sorted; the kernel does not care about their order,
	// since particles are exchangeable
}

// smallN is the number of particles up to which multinomial counts
// instead of merging.
const smallN = 24

// LogMeanExpSE returns log of the mean of exp(x) and the standard error of
// that log (delta method).
func LogMeanExpSE(x []float64) (float64, float64) {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = math.Max(mx, v)
	}
	n := float64(len(x))
	m := 0.0
	for _, v := range x {
		m += math.Exp(v-mx) / n
	}
	s := 0.0
	for _, v := range x {
		d := math.Exp(v-mx) - m
		s += d * d
	}
	se := 0.0
	if len(x) > 1 {
		se = math.Sqrt(s/(n-1)/n) / m
	}
	return mx + math.Log(m), se
}
