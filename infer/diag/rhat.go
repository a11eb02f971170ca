package diag

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/stat/distuv"
)

// Rhat returns the rank-normalised split R-hat of Vehtari et al. (2021),
// as posterior::rhat and arviz.rhat(method="rank"): the maximum of the bulk
// R-hat of the rank-normalised split chains and the tail R-hat of the
// rank-normalised split folded draws |x - median(x)|, the median taken over
// all draws. Rank normalisation uses pooled average ranks r of the S split
// draws and z = Phi^-1((r - 3/8)/(S + 1/4)). It returns NaN if a draw is
// NaN or ±Inf, if all draws are equal, or if chains have unequal lengths
// or fewer than 4 draws.
func Rhat(chains [][]float64) float64 {
	s, ok := splitChains(chains)
	if !ok {
		return math.NaN()
	}
	bulk := rhatOf(zScale(s))
	med := median(chains)
	folded := make([][]float64, len(chains))
	for i, c := range chains {
		folded[i] = make([]float64, len(c))
		for j, x := range c {
			folded[i][j] = math.Abs(x - med)
		}
	}
	fs, _ := splitChains(folded)
	tail := rhatOf(zScale(fs))
	if math.IsNaN(bulk) || math.IsNaN(tail) {
		return math.NaN()
	}
	return math.Max(bulk, tail)
}

// ESSBulk returns the bulk effective sample size (posterior::ess_bulk):
// ESS of the rank-normalised split chains. It returns NaN in the cases
// listed at Rhat.
func ESSBulk(chains [][]float64) float64 {
	s, ok := splitChains(chains)
	if !ok {
		return math.NaN()
	}
	return essOf(zScale(s))
}

// splitChains splits each chain into halves, dropping the middle draw of
// odd-length chains; ok is false for invalid or non-finite input. The
// halves share memory with the input.
func splitChains(chains [][]float64) (split [][]float64, ok bool) {
	if len(chains) == 0 {
		return nil, false
	}
	n := len(chains[0])
	if n < 4 {
		return nil, false
	}
	h := n / 2
	split = make([][]float64, 0, 2*len(chains))
	for _, c := range chains {
		if len(c) != n {
			return nil, false
		}
		for _, x := range c {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, false
			}
		}
		split = append(split, c[:h], c[n-h:])
	}
	return split, true
}

// isConstant reports whether all draws are equal (posterior's is_constant,
// tolerance machine epsilon).
func isConstant(chains [][]float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range chains {
		for _, x := range c {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	return math.Abs(hi-lo) < 0x1p-52
}

// rhatOf is posterior's .rhat on already split chains.
func rhatOf(chains [][]float64) float64 {
	if isConstant(chains) {
		return math.NaN()
	}
	n := float64(len(chains[0]))
	means := make([]float64, len(chains))
	var within float64
	for i, c := range chains {
		m, v := meanVar(c)
		means[i] = m
		within += v
	}
	within /= float64(len(chains))
	_, vm := meanVar(means)
	between := n * vm
	return math.Sqrt((between/within + n - 1) / n)
}

// meanVar returns the mean and the unbiased (n-1) variance of x.
func meanVar(x []float64) (m, v float64) {
	for _, xi := range x {
		m += xi
	}
	m /= float64(len(x))
	if len(x) < 2 {
		return m, math.NaN()
	}
	for _, xi := range x {
		v += (xi - m) * (xi - m)
	}
	return m, v / float64(len(x)-1)
}

// pooled returns a copy of all draws.
func pooled(chains [][]float64) []float64 {
	var all []float64
	for _, c := range chains {
		all = append(all, c...)
	}
	return all
}

// median returns R's median of all draws.
func median(chains [][]float64) float64 {
	all := pooled(chains)
	slices.Sort(all)
	return quantile7(all, 0.5)
}

// quantile7 is R's default (type 7) quantile of sorted x.
func quantile7(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// zScale rank-normalises the pooled draws: average ranks r over all S
// draws, z = Phi^-1((r - 3/8)/(S + 1/4)).
func zScale(chains [][]float64) [][]float64 {
	n := 0
	for _, c := range chains {
		n += len(c)
	}
	x := make([]float64, 0, n)
	for _, c := range chains {
		x = append(x, c...)
	}
	var sc QuantileScratch
	ord := sc.order(x) // by value (NaN first, as cmp.Compare), ties by index
	z := make([]float64, len(x))
	s := float64(len(x))
	for k := 0; k < len(ord); {
		e := k + 1
		for e < len(ord) && x[ord[e]] == x[ord[k]] {
			e++
		}
		r := float64(k+1+e) / 2 // average of ranks k+1..e
		v := distuv.UnitNormal.Quantile((r - 3.0/8) / (s + 0.25))
		for ; k < e; k++ {
			z[ord[k]] = v
		}
	}
	out := make([][]float64, len(chains))
	for i, c := range chains {
		out[i], z = z[:len(c):len(c)], z[len(c):]
	}
	return out
}

// essOf is posterior's .ess on already split chains: Geyer's initial
// positive sequence, made monotone, with the antithetic improvement and the
// cap tau >= 1/log10(S).
func essOf(chains [][]float64) float64 {
	m, n := len(chains), len(chains[0])
	if n < 3 || isConstant(chains) {
		return math.NaN()
	}
	acov := make([]float64, n) // mean over chains of the autocovariances
	means := make([]float64, m)
	ac := newAutocov(n)
	for i, c := range chains {
		means[i] = ac.compute(c)
		for t, v := range ac.out {
			acov[t] += v / float64(m)
		}
	}
	nf := float64(n)
	meanVar0 := acov[0] * nf / (nf - 1)
	varPlus := meanVar0 * (nf - 1) / nf
	if m > 1 {
		_, vm := meanVar(means)
		varPlus += vm
	}
	rho := make([]float64, n)
	t := 0
	even, odd := 1.0, 1-(meanVar0-acov[1])/varPlus
	rho[0], rho[1] = even, odd
	for t < n-5 && !math.IsNaN(even+odd) && even+odd > 0 {
		t += 2
		even = 1 - (meanVar0-acov[t])/varPlus
		odd = 1 - (meanVar0-acov[t+1])/varPlus
		if even+odd >= 0 {
			rho[t], rho[t+1] = even, odd
		}
	}
	maxT := t
	if even > 0 {
		rho[maxT] = even
	}
	for t = 0; t <= maxT-4; {
		t += 2
		if rho[t]+rho[t+1] > rho[t-2]+rho[t-1] {
			rho[t] = (rho[t-2] + rho[t-1]) / 2
			rho[t+1] = rho[t]
		}
	}
	// R's sum(rho_hat_t[1:max_t]) with max_t = 0 sums rho_hat_t[1].
	sum := rho[0]
	for _, r := range rho[1:max(maxT, 1)] { // (maxT is 0 for chains shorter than 6)
		sum += r
	}
	s := float64(m * n)
	tau := math.Max(-1+2*sum+rho[maxT], 1/math.Log10(s))
	return s / tau
}

// autocov computes biased autocovariances (divisor n) via a zero-padded
// real FFT.
type autocov struct {
	fft   *fourier.FFT
	buf   []float64
	coeff []complex128
	out   []float64
}

func newAutocov(n int) *autocov {
	size := 1
	for size < 2*n {
		size *= 2
	}
	return &autocov{
		fft:   fourier.NewFFT(size),
		buf:   make([]float64, size),
		coeff: make([]complex128, size/2+1),
		out:   make([]float64, n),
	}
}

// compute fills a.out with the autocovariances of x and returns its mean.
func (a *autocov) compute(x []float64) float64 {
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	clear(a.buf)
	for i, v := range x {
		a.buf[i] = v - mean
	}
	a.fft.Coefficients(a.coeff, a.buf)
	for i, c := range a.coeff {
		a.coeff[i] = complex(real(c)*real(c)+imag(c)*imag(c), 0)
	}
	a.fft.Sequence(a.buf, a.coeff)
	norm := float64(len(a.buf)) * float64(len(x))
	for t := range a.out {
		a.out[t] = a.buf[t] / norm
	}
	return mean
}

// Quantile is R's default (type 7) quantile p of sorted draws.
func Quantile(sorted []float64, p float64) float64 { return quantile7(sorted, p) }

// ESSBatch returns the effective sample size of the draws' mean by batch
// means: each of the C chains cut into 5 batches (the last n - n mod 5
// draws), ESS = 5 C s^2 / v for the draws' pooled variance s^2 and the
// variance v of the batch means about the mean of all the draws. Batches
// a fifth of a chain long see autocorrelation over most of the window, and
// chains that disagree (their batches deviate together), which the bulk
// ESS of a window can miss; with 4 chains the figure has 19 degrees of
// freedom (a relative sd of about a third). It is the second opinion on
// ESSBulk that keeps a Monte Carlo standard error from being many times
// too small. It returns NaN in the cases listed at Rhat and for chains of
// fewer than 10 draws.
func ESSBatch(chains [][]float64) float64 {
	const a = 5 // batches per chain
	if _, ok := splitChains(chains); !ok || isConstant(chains) || len(chains[0]) < 2*a {
		return math.NaN()
	}
	n := len(chains[0])
	b := n / a
	m, s2 := meanVar(pooled(chains))
	v := 0.0
	for _, c := range chains {
		for k := range a {
			bm := 0.0
			for _, x := range c[n-(k+1)*b : n-k*b] {
				bm += x
			}
			d := bm/float64(b) - m
			v += d * d
		}
	}
	na := float64(len(chains) * a)
	return na * s2 / (v / (na - 1))
}
