package diag

import (
	"math"
	"slices"
)

// posterior's rhat_basic, ess_basic and ess_tail, which mscppl does not
// report (it reports Rhat and ESSBulk): tests only, where they check the
// pieces they share with Rhat and ESSBulk (splitChains, rhatOf and essOf
// without the rank normalisation, quantile7) against posterior's values
// (TestRhatESSAgainstPosterior) and on simulated chains.

// SplitRhat returns the classic split R-hat (posterior::rhat_basic, Stan's
// split_rhat): each chain is split in halves (the middle draw is dropped
// when the length is odd) and the Gelman-Rubin potential scale reduction
// factor is computed on the 2C half chains. It returns NaN if a draw is NaN
// or ±Inf, if all draws are equal, or if chains have unequal lengths or
// fewer than 4 draws (as Rhat).
func SplitRhat(chains [][]float64) float64 {
	s, ok := splitChains(chains)
	if !ok {
		return math.NaN()
	}
	return rhatOf(s)
}

// ESS returns the plain split-chain effective sample size
// (posterior::ess_basic) with Geyer's initial positive and monotone
// sequence estimator, without rank normalisation. It returns NaN in the
// cases listed at Rhat.
func ESS(chains [][]float64) float64 {
	s, ok := splitChains(chains)
	if !ok {
		return math.NaN()
	}
	return essOf(s)
}

// ESSTail returns the tail effective sample size (posterior::ess_tail):
// the minimum of the split-chain ESS of the indicators I(x <= q05) and
// I(x <= q95), with the quantiles taken over all draws by R's default
// (type 7) rule. It returns NaN in the cases listed at Rhat.
func ESSTail(chains [][]float64) float64 {
	if _, ok := splitChains(chains); !ok {
		return math.NaN()
	}
	all := pooled(chains)
	slices.Sort(all)
	lo := essOf(indicator(chains, quantile7(all, 0.05)))
	hi := essOf(indicator(chains, quantile7(all, 0.95)))
	return math.Min(lo, hi) // NaN propagates through math.Min
}

// indicator returns the split chains of I(x <= q).
func indicator(chains [][]float64, q float64) [][]float64 {
	ind := make([][]float64, len(chains))
	for i, c := range chains {
		ind[i] = make([]float64, len(c))
		for j, x := range c {
			if x <= q {
				ind[i][j] = 1
			}
		}
	}
	s, _ := splitChains(ind)
	return s
}
