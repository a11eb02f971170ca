package infer

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir/lower"
)

// unweighted is an importance sample of rows with equal weights.
func unweighted(rows [][]float64) *importance {
	w := make([]float64, len(rows))
	for i := range w {
		w[i] = 1 / float64(len(rows))
	}
	return &importance{x: rows, w: w, ess: float64(len(rows))}
}

// TestTailsDisagreement: two independent samples of the same distribution
// agree on every seed; a mean shifted by 0.3 sd, an sd 25% wider and
// quantiles moved by skewness (the same mean and sd) are each named; a
// column that does not vary is skipped.
func TestTailsDisagreement(t *testing.T) {
	const n = 4000
	names := []string{"a", "b", "c"}
	sample := func(seed uint64, draw func(rng *rand.Rand) float64) *importance {
		rng := rand.New(rand.NewPCG(seed, 7))
		rows := make([][]float64, n)
		for i := range rows {
			rows[i] = []float64{rng.NormFloat64(), draw(rng), 3}
		}
		return unweighted(rows)
	}
	normal := func(rng *rand.Rand) float64 { return rng.NormFloat64() }
	for seed := uint64(1); seed <= 20; seed++ {
		require.Empty(t, tailsDisagreement(sample(seed, normal), sample(seed+100, normal), names), "seed %d", seed)
	}
	for _, tc := range []struct {
		name, want string
		draw       func(rng *rand.Rand) float64
	}{
		{"shifted", "b's mean", func(rng *rand.Rand) float64 { return 0.3 + rng.NormFloat64() }},
		{"wider", "b's sd", func(rng *rand.Rand) float64 { return 1.25 * rng.NormFloat64() }},
		{"skewed", "quantile", func(rng *rand.Rand) float64 {
			// a gamma(4) standardised: mean 0 and sd 1, but quantiles
			// at -1.317 and 1.877 (the normal's: -1.645, 1.645)
			g := 0.0
			for range 4 {
				g += rng.ExpFloat64()
			}
			return (g - 4) / 2
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tailsDisagreement(sample(1, normal), sample(2, tc.draw), names)
			t.Log(got)
			require.Contains(t, got, tc.want)
		})
	}
}

// TestWithTails: on a Student-t posterior with 4 degrees of freedom in
// two dimensions, weighed draws of a Gaussian of its mean and covariance
// leave the tails undersampled; with the heavy-tailed draws added, the
// sds and the 5% quantiles are the exact ones within their Monte Carlo
// error (sd sqrt(2), 5% quantile -2.132).
func TestWithTails(t *testing.T) {
	m, err := LoadSource("t.msc", []byte("latent { z: vector[2] }\nmodel { z ~ student_t(4, 0, 1) }\n"), "")
	require.NoError(t, err)
	comps := []*lower.Compiled{m.Comp}
	p := msc.NewFullRank(2)
	require.NoError(t, p.SetMoments(nil, []float64{2, 0, 0, 2}))
	rng := rand.New(rand.NewPCG(3, 4))
	const M = 8000
	im, err := importanceSample(rng, comps, p, M)
	require.NoError(t, err)
	out, mix, err := withTails(rng, comps, im, p, M/2)
	require.NoError(t, err)
	require.NotNil(t, mix)
	require.Len(t, out.x, M+M/2)
	q05 := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 4}.Quantile(0.05)
	for j, mo := range out.allMarginals(out.w) {
		t.Logf("z[%d]: mean %.3f sd %.3f q05 %.3f (k-hat %.2f, ESS %.0f)", j, float64(mo.Mean), float64(mo.SD), float64(mo.Q05), out.khat, out.ess)
		se := math.Sqrt(2 / out.ess)
		require.InDelta(t, 0, float64(mo.Mean), 5*se)
		require.InDelta(t, math.Sqrt(2), float64(mo.SD), 0.1*math.Sqrt(2))
		require.InDelta(t, q05, float64(mo.Q05), 0.2*math.Sqrt(2))
	}
	// (k-hat is no guide here: the ratios are bounded, within a factor
	// 1.5 of each other, but the few largest stand out from the rest)
	require.Greater(t, out.ess, 0.8*float64(len(out.x)))
	// the second opinion agrees
	require.Empty(t, secondOpinion(rng, comps, p, out, M/2, []string{"z[1]", "z[2]"}))
}

// TestSecondOpinionSeesTails: a Gaussian of sd 0.5 standing for a
// standard Cauchy-like posterior (Student-t, 2.5 degrees of freedom, in
// one dimension) is found out by the second opinion.
func TestSecondOpinionSeesTails(t *testing.T) {
	m, err := LoadSource("t.msc", []byte("latent { z: real }\nmodel { z ~ student_t(2.5, 0, 1) }\n"), "")
	require.NoError(t, err)
	comps := []*lower.Compiled{m.Comp}
	p := msc.NewFullRank(1)
	require.NoError(t, p.SetMoments(nil, []float64{0.25}))
	rng := rand.New(rand.NewPCG(5, 6))
	im, err := importanceSample(rng, comps, p, 4000)
	require.NoError(t, err)
	got := secondOpinion(rng, comps, p, im, 2000, []string{"z"})
	t.Log(got)
	require.True(t, strings.Contains(got, "k-hat") || strings.Contains(got, "z's"), got)
}

// TestSecondOpinionSkipsIntegers: a derived int that tracks the sign of z
// (a Viterbi-like path) has quantiles that jump between 0 and 1; the second
// opinion compares z and the real-valued derived quantity and leaves the int
// out (continuousNames), and importanceWeights, for k-hat alone, gives the
// same weights as importanceSample without computing a constrained row.
func TestSecondOpinionSkipsIntegers(t *testing.T) {
	m, err := LoadSource("t.msc", []byte("latent { z: real }\nmodel { z ~ normal(0, 1) }\nderived {\n  s: int = 0\n  if z > 0 { s = 1 }\n  w = 2 * z\n}\n"), "")
	require.NoError(t, err)
	require.Equal(t, []string{"z", "s", "w"}, m.IR.LatentNames())
	require.Equal(t, []string{"z", "", "w"}, continuousNames(m.IR))

	comps := []*lower.Compiled{m.Comp}
	p := msc.NewFullRank(1)
	require.NoError(t, p.SetMoments(nil, []float64{1.2}))
	a, err := importanceSample(rand.New(rand.NewPCG(7, 8)), comps, p, 500)
	require.NoError(t, err)
	b, err := importanceWeights(rand.New(rand.NewPCG(7, 8)), comps, p, 500)
	require.NoError(t, err)
	require.Equal(t, a.lr, b.lr)
	require.Equal(t, a.khat, b.khat)
	require.Len(t, a.x, 500)
	require.Empty(t, b.x, "no constrained rows for the weights alone")

	// two samples whose int differs in its mass at 0 by far more than its
	// Monte Carlo error: compared when named, not when left ""
	x := func(s float64) *importance {
		im := &importance{ess: 1000}
		for i := range 1000 {
			v := 0.0
			if float64(i) < s*1000 {
				v = 1
			}
			im.x = append(im.x, []float64{float64(i%7) - 3, v, 2 * (float64(i%7) - 3)})
			im.w = append(im.w, 1.0/1000)
		}
		return im
	}
	require.Contains(t, tailsDisagreement(x(0.5), x(0.9), []string{"z", "s", "w"}), "s's")
	require.Empty(t, tailsDisagreement(x(0.5), x(0.9), []string{"z", "", "w"}))
}
