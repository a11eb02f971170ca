package diag

import (
	"cmp"
	"errors"
	"math"
	"slices"
)

// PSISResult holds the output of PSIS. Its LogWeights slice is reused by
// later calls when it has enough capacity.
type PSISResult struct {
	// LogWeights are the Pareto smoothed log weights, truncated at the
	// largest raw ratio and normalised so that their logsumexp is 0.
	LogWeights []float64
	// Khat is the prior-adjusted estimated shape of the generalized Pareto
	// tail; +Inf when the tail was too short or degenerate to fit.
	Khat float64
	// TailLen is the tail length M = ceil(min(0.2 S, 3 sqrt(S))).
	TailLen int
	// ESS is 1/sum(w^2) of the normalised smoothed weights.
	ESS float64
}

// PSIS performs Pareto smoothed importance sampling on logRatios (log target
// minus log proposal density, one per draw) as loo::psis with r_eff = 1:
// the M largest ratios are replaced by quantiles (z - 1/2)/M, z = 1..M, of a
// generalized Pareto distribution fitted (GPDFit, on the exp scale, relative
// to the largest log ratio) to their exceedances over the (M+1)-th largest
// ratio, with the shape shrunk by the weakly informative prior
// k = (M k + 10 * 0.5)/(M + 10); all weights are then truncated at the
// largest raw ratio.
//
// If M < 5 or the tail holds fewer than 5 distinct values (loo only checks
// for a constant tail), the weights are left unsmoothed (but truncated and
// normalised) and Khat is +Inf, as loo reports Inf. A log ratio of -Inf is
// a zero weight; NaN or +Inf, or all ratios -Inf, is an error.
func PSIS(logRatios []float64, res *PSISResult) error {
	s := len(logRatios)
	if s == 0 {
		return errors.New("diag: PSIS: no log ratios")
	}
	maxLR := math.Inf(-1)
	for _, v := range logRatios {
		if math.IsNaN(v) || math.IsInf(v, 1) {
			return errors.New("diag: PSIS: log ratio is NaN or +Inf")
		}
		maxLR = math.Max(maxLR, v)
	}
	if math.IsInf(maxLR, -1) {
		return errors.New("diag: PSIS: all log ratios are -Inf")
	}
	if cap(res.LogWeights) < s {
		res.LogWeights = make([]float64, s)
	}
	lw := res.LogWeights[:s]
	res.LogWeights = lw
	for i, v := range logRatios {
		lw[i] = v - maxLR
	}
	m := int(math.Ceil(math.Min(0.2*float64(s), 3*math.Sqrt(float64(s)))))
	res.TailLen, res.Khat = m, math.Inf(1)
	if m >= 5 {
		smoothTail(lw, m, res)
	}
	for i, v := range lw {
		lw[i] = math.Min(v, 0) // truncate at the largest raw ratio
	}
	lse := logSumExp(lw)
	var sumSq float64
	for i, v := range lw {
		lw[i] = v - lse
		sumSq += math.Exp(2 * lw[i])
	}
	res.ESS = 1 / sumSq
	return nil
}

// smoothTail replaces the m largest entries of lw (log ratios shifted so
// the largest is 0) by generalized Pareto quantiles and sets res.Khat.
func smoothTail(lw []float64, m int, res *PSISResult) {
	s := len(lw)
	ord := make([]int, s)
	for i := range ord {
		ord[i] = i
	}
	// Stable, as R's sort.int: tied draws keep their order.
	slices.SortStableFunc(ord, func(a, b int) int { return cmp.Compare(lw[a], lw[b]) })
	tail := ord[s-m:]
	distinct := 1
	for i := 1; i < m; i++ {
		if lw[tail[i]] != lw[tail[i-1]] {
			distinct++
		}
	}
	if distinct < 5 {
		return
	}
	expCut := math.Exp(lw[ord[s-m-1]])
	x := make([]float64, m)
	for i, j := range tail {
		x[i] = math.Exp(lw[j]) - expCut
	}
	k, sigma := GPDFit(x)
	mf := float64(m)
	k = (mf*k + 10*0.5) / (mf + 10)
	if math.IsNaN(k) || math.IsInf(k, 0) || !(sigma > 0) {
		return
	}
	for i, j := range tail {
		p := (float64(i) + 0.5) / mf
		lw[j] = math.Log(gpdQuantile(p, k, sigma) + expCut)
	}
	res.Khat = k
}

// gpdQuantile is the quantile function of the generalized Pareto
// distribution with location 0, shape k and scale sigma (loo's qgpd).
func gpdQuantile(p, k, sigma float64) float64 {
	if k == 0 {
		return -sigma * math.Log1p(-p)
	}
	return sigma * math.Expm1(-k*math.Log1p(-p)) / k
}

// GPDFit estimates the shape k and scale sigma of a generalized Pareto
// distribution (location 0) from exceedances x, sorted ascending and
// positive, by the profile-likelihood empirical-Bayes method of Zhang and
// Stephens (2009) as loo's gpdfit with 30 + floor(sqrt(n)) grid points,
// without the weakly informative prior adjustment. The sign of k is that of
// loo: k > 0 is a heavy tail. A NaN shape is returned as +Inf, as loo does.
func GPDFit(x []float64) (k, sigma float64) {
	n := len(x)
	if n == 0 {
		return math.Inf(1), math.NaN()
	}
	const prior = 3
	m := 30 + int(math.Floor(math.Sqrt(float64(n))))
	xstar := x[max(int(math.Floor(float64(n)/4+0.5)), 1)-1] // first quartile
	theta := make([]float64, m)
	ll := make([]float64, m)
	for j := range theta {
		theta[j] = 1/x[n-1] + (1-math.Sqrt(float64(m)/(float64(j)+0.5)))/prior/xstar
		kj := meanLog1p(-theta[j], x)
		ll[j] = float64(n) * (math.Log(-theta[j]/kj) - kj - 1)
	}
	lse := logSumExp(ll)
	var thetaHat float64
	for j, t := range theta {
		thetaHat += t * math.Exp(ll[j]-lse)
	}
	k = meanLog1p(-thetaHat, x)
	sigma = -k / thetaHat
	if math.IsNaN(k) {
		k = math.Inf(1)
	}
	return k, sigma
}

// meanLog1p returns mean(log1p(a x)).
func meanLog1p(a float64, x []float64) float64 {
	var s float64
	for _, v := range x {
		s += math.Log1p(a * v)
	}
	return s / float64(len(x))
}

// logSumExp returns log(sum(exp(x))) computed stably.
func logSumExp(x []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = math.Max(mx, v)
	}
	if math.IsInf(mx, 0) {
		return mx
	}
	var s float64
	for _, v := range x {
		s += math.Exp(v - mx)
	}
	return mx + math.Log(s)
}
