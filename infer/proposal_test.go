package infer

import (
	"testing"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/stretchr/testify/require"
)

// TestWidenedProposal: a Gaussian q with sds 0.65 of N(0, I)'s has weights
// with a Pareto tail of index k = 1 - 0.65^2 = 0.58, where PSIS estimates
// converge slowly; q with 1.1 times its sds (k = 1 - 0.715^2 = 0.49) takes
// over (or the Gaussian of the PSIS moments that follows it), and the
// summaries' sds come out closer to 1. A q that fits well is never
// widened.
func TestWidenedProposal(t *testing.T) {
	const d = 5
	m, err := LoadSource("g.msc", []byte("latent { z: vector[5] }\nmodel { z ~ normal(0, 1) }\n"), "")
	require.NoError(t, err)
	check := func(scale float64) *Fitted {
		q := msc.NewFullRank(d)
		cov := make([]float64, d*d)
		for i := range d {
			cov[i*d+i] = scale * scale
		}
		require.NoError(t, q.SetMoments(nil, cov))
		f := &Fitted{Model: m, Q: q, Result: &msc.Result{}}
		require.NoError(t, f.check(&plan{draws: 4000, seed: 1}))
		return f
	}
	worstSD := func(im *importance) float64 {
		w := 0.0
		for _, mo := range im.allMarginals(im.w) {
			w = max(w, abs(float64(mo.SD)-1))
		}
		return w
	}
	f := check(0.65)
	t.Logf("q's k-hat %.2f, the proposal's %.2f (%s); worst sd error %.3f against q's own draws' %.3f",
		f.impQ.khat, f.imp.khat, f.imp.proposal, worstSD(f.imp), worstSD(f.impQ))
	require.Greater(t, f.impQ.khat, khatGood)
	require.Less(t, f.imp.khat, f.impQ.khat)
	require.NotEmpty(t, f.imp.proposal)
	require.NotContains(t, f.imp.proposal, "Student-t", "q's k-hat is below 0.7")
	require.Less(t, worstSD(f.imp), worstSD(f.impQ))
	f = check(1.05) // wider than the target: light-tailed weights
	require.Less(t, f.impQ.khat, khatGood)
	require.NotContains(t, f.imp.proposal, "q with 1.1 times its sds")
	require.NotContains(t, f.imp.proposal, "Student-t")
}

func abs(x float64) float64 { return max(x, -x) }
