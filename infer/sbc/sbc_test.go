package sbc

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/internal/testtier"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"
)

// sbcFit are short fits for the fast tests: 300 iterations, 1000 PSIS
// draws.
var sbcFit = infer.Options{Iters: 300, Fixed: true, Draws: 1000}

func loadCollinear(t *testing.T) *infer.Model {
	t.Helper()
	m, err := infer.Load("testdata/sbc/collinear.msc", "testdata/sbc/collinear.csv")
	require.NoError(t, err)
	return m
}

// TestSBCCalibrated: MSC on a well-specified model gives ranks inside the
// bands (20 simulations, fixed seed), and its verdicts say converged while
// missing the truth with the 99% interval no more often than the 1%
// calibration allows (at most 1 of 20: P(2 or more) = 1.7% at 1%).
func TestSBCCalibrated(t *testing.T) {
	res, err := Run(context.Background(), loadCollinear(t), Options{Sims: 20, Seed: 5, Fit: sbcFit})
	require.NoError(t, err)
	s := res.Summarize()
	require.Equal(t, 20, s.Runs)
	require.Zero(t, s.Failed)
	require.Zero(t, s.Flagged, "%+v", s.Latents)
	for _, l := range s.Latents {
		require.True(t, l.InBand, l.Name)
		require.Greater(t, l.ECDFP, SBCAlpha, l.Name)
		require.LessOrEqual(t, l.ConvergedOutside99, 1, l.Name)
	}
}

// TestSBCMiscalibrated: the same model fitted by ADVI with a mean-field
// family, which cannot represent its posterior correlation, has ranks
// piled at the ends, outside the band, flagged; and no fit said converged
// (k-hat is large).
func TestSBCMiscalibrated(t *testing.T) {
	fit := sbcFit
	fit.Method, fit.Family, fit.Iters, fit.Chains = "advi", "meanfield", 1000, 1
	res, err := Run(context.Background(), loadCollinear(t), Options{Sims: 10, Seed: 5, Fit: fit})
	require.NoError(t, err)
	s := res.Summarize()
	require.Equal(t, 2, s.Flagged, "%+v", s.Latents)
	for _, l := range s.Latents {
		require.False(t, l.InBand, l.Name)
		require.Less(t, l.ECDFP, SBCAlpha, l.Name)
		// 1% of the intervals should miss: 5 or more of 10 has
		// probability 2.4e-8
		require.GreaterOrEqual(t, l.Outside99, 5, l.Name)
	}
	require.Zero(t, s.Converged)
}

// TestSBCShards: the shards of an SBC, merged, are the SBC of one process
// (apart from the timings), in any order of the shards.
func TestSBCShards(t *testing.T) {
	m := loadCollinear(t)
	o := Options{Sims: 6, Seed: 9, Fit: sbcFit}
	whole, err := Run(context.Background(), m, o)
	require.NoError(t, err)
	var parts []*Result
	for _, i := range []int{3, 1, 4, 2} {
		o.Shard = infer.Shard{Index: i, Count: 4}
		p, err := Run(context.Background(), m, o)
		require.NoError(t, err)
		parts = append(parts, p)
	}
	merged, err := Merge(parts)
	require.NoError(t, err)
	for i := range whole.Runs {
		whole.Runs[i].Seconds, merged.Runs[i].Seconds = 0, 0
	}
	require.Equal(t, whole, merged)
	_, err = Merge(parts[:3])
	require.ErrorContains(t, err, "simulation 2 is in none of the shards")
	_, err = Merge(append(parts, parts[0]))
	require.ErrorContains(t, err, "is in more than one shard")
}

// TestShardRange: the shards cover the jobs once, in order, their sizes
// differing by one at most.
func TestShardRange(t *testing.T) {
	for _, n := range []int{0, 1, 3, 4, 7, 100} {
		for count := 1; count <= 6; count++ {
			next := 0
			for i := 1; i <= count; i++ {
				lo, hi, err := infer.Shard{Index: i, Count: count}.Range(n)
				require.NoError(t, err)
				require.Equal(t, next, lo)
				require.LessOrEqual(t, hi-lo, n/count+1)
				require.GreaterOrEqual(t, hi-lo, n/count)
				next = hi
			}
			require.Equal(t, n, next)
		}
	}
	_, _, err := infer.Shard{Index: 5, Count: 4}.Range(10)
	require.Error(t, err)
}

// TestChiSquare against a hand computation: counts 10, 0, 0, 10 of 20 in
// 4 bins give (25 + 25 + 25 + 25)/5 = 20 on 3 degrees of freedom.
func TestChiSquare(t *testing.T) {
	stat, p := ChiSquare([]int{10, 0, 0, 10})
	require.InDelta(t, 20, stat, 1e-12)
	// the survival function of chi-square(3) at 20:
	// erfc(sqrt(10)) + sqrt(2*20/pi) exp(-10)
	want := math.Erfc(math.Sqrt(10)) + math.Sqrt(40/math.Pi)*math.Exp(-10)
	require.InDelta(t, want, p, 1e-12)
	_, p = ChiSquare([]int{5, 5, 5, 5})
	require.Equal(t, 1.0, p)
	require.Equal(t, 4, RankBins(99, 20))
	require.Equal(t, 20, RankBins(99, 200))
	require.Equal(t, []int{2, 1, 1}, RankCounts([]int{0, 2, 3, 8}, 8, 3))
}

// TestECDFBandLevel: uniform ranks leave the simultaneous 95% band 5% of
// the time (2000 rank sets drawn apart from the band's own null; 4
// standard errors), and p-values below 0.05 as often; ranks piled at the
// ends leave it.
func TestECDFBandLevel(t *testing.T) {
	for _, c := range []struct{ n, L int }{{20, 99}, {200, 99}, {50, 9}} {
		b := NewECDFBand(c.n, c.L)
		rng := infer.NewRand(42, 42)
		const reps = 2000
		out, low := 0, 0
		ranks := make([]int, c.n)
		for range reps {
			for i := range ranks {
				ranks[i] = rng.IntN(c.L + 1)
			}
			_, p, inside := b.Test(ranks)
			if !inside {
				out++
			}
			if p <= SBCAlpha {
				low++
			}
		}
		se := math.Sqrt(SBCAlpha * (1 - SBCAlpha) / reps)
		// the counts are discrete, so the band's level is at most 5%
		require.InDelta(t, SBCAlpha, float64(out)/reps, 4*se+0.01, "n %d, L %d", c.n, c.L)
		require.InDelta(t, SBCAlpha, float64(low)/reps, 4*se+0.01, "n %d, L %d", c.n, c.L)
		for i := range ranks {
			ranks[i] = (i % 2) * c.L
		}
		_, p, inside := b.Test(ranks)
		require.False(t, inside)
		require.Less(t, p, 0.001)
		// the band holds the central counts of each binomial marginal
		for k, z := range b.Z {
			mean := float64(c.n) * z
			require.Less(t, float64(b.Lower[k]), mean)
			require.Greater(t, float64(b.Upper[k]), mean)
		}
	}
}

// TestBinomialBand against the quantiles of gonum's binomial.
func TestBinomialBand(t *testing.T) {
	lo, hi := BinomialBand(20, 0.25, 0.01)
	b := distuv.Binomial{N: 20, P: 0.25}
	require.GreaterOrEqual(t, b.CDF(float64(lo)), 0.005)
	require.Less(t, b.CDF(float64(lo-1)), 0.005)
	require.GreaterOrEqual(t, b.CDF(float64(hi)), 0.995)
	require.Less(t, b.CDF(float64(hi-1)), 0.995)
	// P(X <= 0) = 0.0032, P(X <= 1) = 0.0243; P(X <= 9) = 0.9861,
	// P(X <= 10) = 0.9961
	require.Equal(t, 1, lo)
	require.Equal(t, 10, hi)
}

// TestSBCEightSchools (long tier): the full-size check, 200
// simulations of the non-centred eight schools with run's defaults: every
// latent's ranks inside the bands, and the runs that say converged miss
// the truth with their 99% interval no more often than calibration allows
// (fewer misses than the count a 1% rate exceeds with probability 0.001).
func TestSBCEightSchools(t *testing.T) {
	testtier.Skip(t)
	m, err := infer.Load("../../examples/eight_schools_noncentered.msc", "../../examples/data/eight_schools.csv")
	require.NoError(t, err)
	res, err := Run(context.Background(), m, Options{Sims: 200, Seed: 1})
	require.NoError(t, err)
	s := res.Summarize()
	require.Zero(t, s.Failed)
	require.Zero(t, s.Flagged, "%+v", s.Latents)
	most := distuv.Binomial{N: float64(s.Converged), P: 0.01}
	for _, l := range s.Latents {
		require.Greater(t, most.Survival(float64(l.ConvergedOutside99)-0.5), 0.001, "%s: %d of %d converged runs missed", l.Name, l.ConvergedOutside99, s.Converged)
	}
}

// TestNumberJSON: a record's k-hat reads back as written, NaN and the
// infinities included.
func TestNumberJSON(t *testing.T) {
	for _, x := range []float64{1.5, -0.25, 0, math.NaN(), math.Inf(1), math.Inf(-1), 1e-300} {
		b, err := json.Marshal(Number(x))
		require.NoError(t, err)
		var y Number
		require.NoError(t, json.Unmarshal(b, &y))
		if math.IsNaN(x) {
			require.True(t, math.IsNaN(float64(y)), string(b))
		} else {
			require.Equal(t, x, float64(y), string(b))
		}
	}
}
