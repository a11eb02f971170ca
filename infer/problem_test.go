package infer

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer/msc"
)

// TestProblemStateSpace: the engine sees one state-space structure, ir's
// scalar state as K = 1 at z[t]; its transition's moments only when the
// transition is Gaussian; the statics' structure likewise.
func TestProblemStateSpace(t *testing.T) {
	for _, c := range []struct {
		model, data string
		K           int
		has         msc.Capability
	}{
		{"../examples/stochastic_volatility_paper.msc", "../examples/data/dem2gbp_monthly.csv", 1,
			msc.CapStateSpace | msc.CapGaussianTransition | msc.CapTransitionDensity},
		{"../examples/stochastic_volatility_t.msc", "../examples/data/dem2gbp_monthly.csv", 1,
			msc.CapStateSpace | msc.CapTransitionDensity},
		{"../internal/kalman/testdata/local_linear_trend.msc", "../internal/kalman/testdata/local_linear_trend.csv", 2,
			msc.CapStateSpace | msc.CapGaussianTransition | msc.CapTransitionDensity},
		{"../examples/stochastic_volatility_bayes.msc", "../examples/data/dem2gbp_monthly.csv", 0, msc.CapStatics},
	} {
		m, err := Load(c.model, c.data)
		require.NoError(t, err)
		p := m.Problem()
		require.Equal(t, c.has, p.Has()&(msc.CapStateSpace|msc.CapGaussianTransition|msc.CapTransitionDensity|msc.CapStatics), c.model)
		if c.K == 0 {
			g := p.Statics.Given()
			require.Equal(t, 1, g.StateDim())
			_, gauss := g.(msc.GaussianStateSpace)
			require.True(t, gauss, "the Bayesian SV model's transition is Gaussian")
			continue
		}
		ss := p.StateSpace
		require.Equal(t, c.K, ss.StateDim(), c.model)
		require.Equal(t, p.Dim, ss.Len()*ss.StateDim(), c.model)
		if c.K == 1 {
			for st := range ss.Len() {
				require.Equal(t, st, ss.Index(st, 0))
			}
		}
	}
}
