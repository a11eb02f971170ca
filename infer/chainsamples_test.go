package infer

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChainSamplesLogJoint: the chains' written samples (output_N.csv's
// lp__) take the log joint the CIS kernel cached for each retained
// sample, and it is the model's log joint at that sample.
func TestChainSamplesLogJoint(t *testing.T) {
	m, err := Load("../examples/probit_pima.msc", "../examples/data/pima.csv")
	require.NoError(t, err)
	f, err := Fit(context.Background(), m, Options{Seed: 2, Iters: 400, Fixed: true})
	require.NoError(t, err)
	res := f.Result
	require.NotNil(t, res.ChainLogJoint, "the kernel's cached log joints are kept")
	cs := f.ChainSamples()
	require.NotNil(t, cs)
	d := m.Comp.Dim()
	for i, z := range res.ChainDraws {
		want := make([]float64, len(z)/d)
		m.Comp.LogJoint(z, want)
		require.Len(t, cs.Draws[i], len(want))
		for r, row := range cs.Draws[i] {
			require.InEpsilon(t, want[r], row[0], 1e-12, "chain %d row %d", i+1, r)
		}
	}
}
