package sbc

import (
	"math"
	"slices"
	"sync"

	"github.com/mscppl/mscppl/infer"
	"gonum.org/v1/gonum/stat/distuv"
)

// The statistics of SBC ranks. Under calibration each rank is uniform on
// 0..L, independently across simulations. Two tests per latent component:
//
//   - Pearson's chi-square of the ranks in B equal bins (B divides L+1, so
//     each bin has probability 1/B exactly; the largest such B up to 20 with
//     at least 5 expected ranks per bin), with its p-value from the
//     chi-square distribution with B-1 degrees of freedom;
//   - the ECDF of the ranks at the K thresholds k(L+1)/K (K the largest
//     divisor of L+1 up to N), with simultaneous 95% bands (Säilynoja,
//     Bürkner and Vehtari 2022): each ECDF count is Binomial(N, k/K)
//     marginally; the statistic is the smallest two-sided binomial tail
//     probability over the thresholds, its null distribution is simulated
//     (uniform ranks, a fixed seed), the band is the counts whose tail
//     probability is at least the null's 5% quantile gamma, and the
//     p-value is the share of null statistics at or below the observed.
//
// A component is flagged when its ECDF leaves the band (its ECDF p-value
// is then below 0.05) or its chi-square p-value is below 0.01.

// SBCAlpha is the level of the ECDF's simultaneous band (95%), and
// SBCChiAlpha the chi-square p-value below which a component is flagged.
const (
	SBCAlpha    = 0.05
	SBCChiAlpha = 0.01
	// sbcNullReps are the simulated rank sets behind the ECDF's band and
	// p-values.
	sbcNullReps = 4000
	// maxRankBins caps the chi-square's bins.
	maxRankBins = 20
)

// RankBins is B, the bins of the chi-square test and the rank histogram.
func RankBins(L, n int) int {
	best := 1
	for b := 1; b <= min(L+1, maxRankBins); b++ {
		if (L+1)%b == 0 && float64(n)/float64(b) >= 5 {
			best = b
		}
	}
	return best
}

// ecdfPoints is K, the thresholds of the ECDF test.
func ecdfPoints(L, n int) int {
	best := 1
	for k := 1; k <= min(L+1, n); k++ {
		if (L+1)%k == 0 {
			best = k
		}
	}
	return best
}

// RankCounts are the ranks' counts in B equal bins of 0..L.
func RankCounts(ranks []int, L, B int) []int {
	c := make([]int, B)
	for _, r := range ranks {
		c[r*B/(L+1)]++
	}
	return c
}

// ChiSquare is Pearson's statistic of bin counts against equal
// probabilities, and its p-value.
func ChiSquare(counts []int) (stat, p float64) {
	n := 0
	for _, c := range counts {
		n += c
	}
	if len(counts) < 2 || n == 0 {
		return 0, 1
	}
	e := float64(n) / float64(len(counts))
	for _, c := range counts {
		stat += (float64(c) - e) * (float64(c) - e) / e
	}
	return stat, distuv.ChiSquared{K: float64(len(counts) - 1)}.Survival(stat)
}

// BinomialBand is the central interval of mass 1-alpha of Binomial(n, p),
// as the quantiles at alpha/2 and 1-alpha/2.
func BinomialBand(n int, p, alpha float64) (lo, hi int) {
	b := distuv.Binomial{N: float64(n), P: p}
	lo, hi = 0, n
	for c := 0; c <= n; c++ {
		if b.CDF(float64(c)) >= alpha/2 {
			lo = c
			break
		}
	}
	for c := 0; c <= n; c++ {
		if b.CDF(float64(c)) >= 1-alpha/2 {
			hi = c
			break
		}
	}
	return lo, hi
}

// ECDFBand is the ECDF test's setting for n simulations of ranks on 0..L.
type ECDFBand struct {
	N, L, K int
	// Gamma is the smallest tail probability inside the band.
	Gamma float64
	// Z are the thresholds' probabilities k/K (k = 1..K-1); Lower and
	// Upper the band's counts at each.
	Z            []float64
	Lower, Upper []int
	// tail[k][c] is the two-sided tail probability of count c at Z[k];
	// null the sorted statistics of the simulated uniform rank sets.
	tail [][]float64
	null []float64
}

var (
	bandMu    sync.Mutex
	bandCache = map[[2]int]*ECDFBand{}
)

// NewECDFBand computes (once per n and L) the ECDF test's band and null
// distribution; it depends on n and L alone.
func NewECDFBand(n, L int) *ECDFBand {
	bandMu.Lock()
	defer bandMu.Unlock()
	if b, ok := bandCache[[2]int{n, L}]; ok {
		return b
	}
	K := ecdfPoints(L, n)
	b := &ECDFBand{N: n, L: L, K: K}
	for k := 1; k < K; k++ {
		z := float64(k) / float64(K)
		bin := distuv.Binomial{N: float64(n), P: z}
		row := make([]float64, n+1)
		for c := range row {
			below := bin.CDF(float64(c))
			above := 1.0
			if c > 0 {
				above = 1 - bin.CDF(float64(c-1))
			}
			row[c] = math.Min(1, 2*math.Min(below, above))
		}
		b.Z = append(b.Z, z)
		b.tail = append(b.tail, row)
	}
	rng := infer.NewRand(0x5bc, uint64(n)<<32|uint64(L))
	ranks := make([]int, n)
	b.null = make([]float64, sbcNullReps)
	for r := range b.null {
		for i := range ranks {
			ranks[i] = rng.IntN(L + 1)
		}
		b.null[r] = b.stat(ranks)
	}
	slices.Sort(b.null)
	b.Gamma = b.null[int(SBCAlpha*float64(len(b.null)))]
	for k := range b.Z {
		lo, hi := -1, -1
		for c, t := range b.tail[k] {
			if t >= b.Gamma {
				if lo < 0 {
					lo = c
				}
				hi = c
			}
		}
		b.Lower, b.Upper = append(b.Lower, lo), append(b.Upper, hi)
	}
	bandCache[[2]int{n, L}] = b
	return b
}

// Counts are the ECDF's counts at the thresholds: the ranks below
// k(L+1)/K.
func (b *ECDFBand) Counts(ranks []int) []int {
	c := make([]int, b.K)
	for _, r := range ranks {
		c[r*b.K/(b.L+1)]++
	}
	out := make([]int, len(b.Z))
	sum := 0
	for k := range out {
		sum += c[k]
		out[k] = sum
	}
	return out
}

// stat is the smallest two-sided tail probability of the ECDF's counts.
func (b *ECDFBand) stat(ranks []int) float64 {
	s := 1.0
	for k, c := range b.Counts(ranks) {
		s = math.Min(s, b.tail[k][c])
	}
	return s
}

// Test returns the statistic of a set of n ranks, its p-value, and
// whether the ECDF stays inside the band.
func (b *ECDFBand) Test(ranks []int) (stat, p float64, inside bool) {
	stat = b.stat(ranks)
	below := sortSearch(b.null, stat)
	return stat, float64(1+below) / float64(1+len(b.null)), stat >= b.Gamma
}

// sortSearch counts the elements of the sorted xs at or below x.
func sortSearch(xs []float64, x float64) int {
	n, _ := slices.BinarySearchFunc(xs, x, func(e, t float64) int {
		if e <= t {
			return -1
		}
		return 1
	})
	return n
}

// Latent are the statistics of one latent component's ranks.
type Latent struct {
	Name     string  `json:"name"`
	Chi2     float64 `json:"chi2"`
	Chi2DF   int     `json:"chi2_df"`
	Chi2P    float64 `json:"chi2_p"`
	ECDFStat float64 `json:"ecdf_min_tail_prob"`
	ECDFP    float64 `json:"ecdf_p"`
	// InBand: the ECDF stays inside the simultaneous 95% band.
	InBand  bool `json:"ecdf_in_band"`
	Flagged bool `json:"flagged"`
	// Outside99 counts the runs whose central 99% interval missed the true
	// value; ConvergedOutside99 those of them that said converged.
	Outside99          int     `json:"outside99"`
	ConvergedOutside99 int     `json:"converged_outside99"`
	ConvergedMissRate  float64 `json:"converged_miss_rate"` // ConvergedOutside99 / converged runs
}

// Summary are the statistics of an SBC.
type Summary struct {
	Sims      int    `json:"sims"`
	RankDraws int    `json:"rank_draws"`
	Seed      uint64 `json:"seed"`
	// Runs are the simulations whose fit finished (Failed failed);
	// Converged of them said converged.
	Runs         int     `json:"runs"`
	Failed       int     `json:"failed"`
	Converged    int     `json:"converged"`
	NotConverged float64 `json:"not_converged_rate"`
	Bins         int     `json:"bins"`
	ECDFPoints   int     `json:"ecdf_points"`
	ECDFGamma    float64 `json:"ecdf_gamma"`
	Flagged      int     `json:"flagged"`
	// KhatMedian is the median k-hat of the runs.
	KhatMedian infer.Figure `json:"khat_median"` // NaN (null) when no run has one
	Latents    []Latent     `json:"latents"`
}

// Summarize computes the statistics of the ranks of the runs that
// finished.
func (r *Result) Summarize() *Summary {
	s := &Summary{Sims: r.Sims, RankDraws: r.RankDraws, Seed: r.Seed}
	var ok []Sim
	var khat []float64
	for _, run := range r.Runs {
		if run.Err != "" {
			s.Failed++
			continue
		}
		ok = append(ok, run)
		if run.Converged {
			s.Converged++
		}
		if finite(float64(run.Khat)) {
			khat = append(khat, float64(run.Khat))
		}
	}
	s.Runs = len(ok)
	s.KhatMedian = infer.Figure(math.NaN())
	if n := len(khat); n > 0 {
		slices.Sort(khat)
		s.KhatMedian = infer.Figure((khat[(n-1)/2] + khat[n/2]) / 2)
	}
	if s.Runs == 0 {
		return s
	}
	s.NotConverged = 1 - float64(s.Converged)/float64(s.Runs)
	s.Bins = RankBins(r.RankDraws, s.Runs)
	band := NewECDFBand(s.Runs, r.RankDraws)
	s.ECDFPoints, s.ECDFGamma = band.K, band.Gamma
	ranks := make([]int, s.Runs)
	for j, name := range r.Names {
		l := Latent{Name: name, Chi2DF: s.Bins - 1}
		for i, run := range ok {
			ranks[i] = run.Ranks[j]
			if t := run.Truth[j]; t < run.Lower[j] || t > run.Upper[j] {
				l.Outside99++
				if run.Converged {
					l.ConvergedOutside99++
				}
			}
		}
		if s.Converged > 0 {
			l.ConvergedMissRate = float64(l.ConvergedOutside99) / float64(s.Converged)
		}
		l.Chi2, l.Chi2P = ChiSquare(RankCounts(ranks, r.RankDraws, s.Bins))
		l.ECDFStat, l.ECDFP, l.InBand = band.Test(ranks)
		l.Flagged = !l.InBand || l.Chi2P < SBCChiAlpha
		if l.Flagged {
			s.Flagged++
		}
		s.Latents = append(s.Latents, l)
	}
	return s
}

// Ranks are the ranks of component j over the runs that finished.
func (r *Result) Ranks(j int) []int {
	var out []int
	for _, run := range r.Runs {
		if run.Err == "" {
			out = append(out, run.Ranks[j])
		}
	}
	return out
}
