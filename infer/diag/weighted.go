package diag

import (
	"math"
	"math/rand/v2"
)

// WeightedMean returns sum w_i x_i for normalised weights w.
func WeightedMean(x, w []float64) float64 {
	var m float64
	for i, xi := range x {
		m += w[i] * xi
	}
	return m
}

// WeightedSD returns sqrt(sum w_i (x_i - m)^2) with m = WeightedMean(x, w),
// without any small-sample correction.
func WeightedSD(x, w []float64) float64 {
	m := WeightedMean(x, w)
	var v float64
	for i, xi := range x {
		v += w[i] * (xi - m) * (xi - m)
	}
	return math.Sqrt(v)
}

// WeightedQuantiles writes into q[k] the ps[k]-quantile of x under
// weights w by loo's E_loo rule: with the draws sorted by x and cumulative
// weights W_1..W_S (divided by W_S), take the first j with W_j >= p;
// return x_(1) if j = 1, else interpolate linearly between
// (W_{j-1}, x_(j-1)) and (W_j, x_(j)). With equal weights this is R's
// quantile type 4: x_(k) + (pS - k)(x_(k+1) - x_(k)), k = floor(pS). (loo
// itself switches to type 7 for exactly equal weights; this function does
// not.)
//
// x is sorted once, into the order of cmp.Compare with ties broken by
// index (NaN first, -0 equal to 0), by an LSD radix sort of the values'
// bits: 35 components of 64000 draws take a few tens of ms, where a
// comparison sort of the indices took 0.8 s. scratch, reused across calls
// when not nil, holds the sort's buffers.
func WeightedQuantiles(x, w, ps, q []float64, scratch *QuantileScratch) {
	if scratch == nil {
		scratch = new(QuantileScratch)
	}
	ord := scratch.order(x)
	s := len(x)
	var total float64
	for _, wi := range w {
		total += wi
	}
	for k, p := range ps {
		q[k] = math.NaN() // empty input
		var cum, prev float64
		for j, i := range ord {
			prev, cum = cum, cum+w[i]/total
			if cum >= p || j == s-1 {
				if j == 0 {
					q[k] = x[i]
					break
				}
				x0 := x[ord[j-1]]
				q[k] = x0 + (x[i]-x0)*(p-prev)/(cum-prev)
				break
			}
		}
	}
}

// QuantileScratch holds the buffers of WeightedQuantiles' sort.
type QuantileScratch struct {
	keys, keys2 []uint64
	ord, ord2   []int32
	out         []int
}

// order returns the indices of x sorted by value, ties by index.
func (sc *QuantileScratch) order(x []float64) []int {
	n := len(x)
	if cap(sc.keys) < n {
		sc.keys, sc.keys2 = make([]uint64, n), make([]uint64, n)
		sc.ord, sc.ord2 = make([]int32, n), make([]int32, n)
		sc.out = make([]int, n)
	}
	keys, keys2 := sc.keys[:n], sc.keys2[:n]
	ord, ord2 := sc.ord[:n], sc.ord2[:n]
	// order-preserving keys: NaN lowest (0), -0 as +0, negatives with
	// all bits flipped, the rest with the sign bit set
	var or, and uint64 = 0, math.MaxUint64
	for i, v := range x {
		var b uint64
		switch {
		case v != v:
			b = 0
		case v == 0:
			b = 1 << 63
		default:
			b = math.Float64bits(v)
			if b>>63 != 0 {
				b = ^b
			} else {
				b |= 1 << 63
			}
		}
		keys[i], ord[i] = b, int32(i)
		or, and = or|b, and&b
	}
	// stable LSD passes of 8 bits, skipping bytes that all keys share
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		if (or>>shift)&0xff == (and>>shift)&0xff {
			continue
		}
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&0xff]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for j, k := range keys {
			d := (k >> shift) & 0xff
			p := count[d]
			count[d]++
			keys2[p], ord2[p] = k, ord[j]
		}
		keys, keys2 = keys2, keys
		ord, ord2 = ord2, ord
	}
	out := sc.out[:n]
	for j, i := range ord {
		out[j] = int(i)
	}
	return out
}

// MCSEMean returns the Monte Carlo standard error of the self-normalised
// importance sampling estimate of the mean of x, assuming independent
// draws: sqrt(sum w_i^2 (x_i - m)^2), m = WeightedMean(x, w) (loo's E_loo
// with r_eff = 1).
func MCSEMean(x, w []float64) float64 {
	m := WeightedMean(x, w)
	var v float64
	for i, xi := range x {
		d := w[i] * (xi - m)
		v += d * d
	}
	return math.Sqrt(v)
}

// Resample fills out with len(out) indices drawn from weights w (not
// necessarily normalised, non-negative) by systematic resampling: one
// uniform u in [0, 1) from rng and the points (i + u)/len(out) of the
// cumulative distribution. An index of zero weight is never returned. The
// output is deterministic for a seeded rng.
func Resample(rng *rand.Rand, w []float64, out []int) {
	n := len(out)
	if n == 0 {
		return
	}
	var total float64
	last := -1
	for i, wi := range w {
		total += wi
		if wi > 0 {
			last = i
		}
	}
	u := rng.Float64()
	j, cum := 0, 0.0
	if len(w) > 0 {
		cum = w[0] / total
	}
	for i := range out {
		pos := (float64(i) + u) / float64(n)
		for pos >= cum && j < last {
			j++
			cum += w[j] / total
		}
		out[i] = j
	}
}
