package infer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/internal/simdata"
	"github.com/mscppl/mscppl/ir/lower"
)

// probitData writes simdata's probit regression of n rows and d
// coefficients into a temporary directory.
func probitData(t testing.TB, n, d int) (model, data string) {
	model, data, err := simdata.Probit(t.TempDir(), n, d)
	require.NoError(t, err)
	return model, data
}

// TestSplitTargetSameChain: one chain on a costly model takes both cores
// (its batch split over two compiled copies), and the run is bit for bit
// the run on one core.
func TestSplitTargetSameChain(t *testing.T) {
	if testing.Short() {
		t.Skip("long: a 20000-row regression")
	}
	model, data := probitData(t, 20000, 20)
	m, err := Load(model, data)
	require.NoError(t, err)
	tgt, stop, err := newSplitTarget(m.Comp, 2, 10, func() (*lower.Compiled, error) {
		c, err := m.Clone()
		if err != nil {
			return nil, err
		}
		return c.Comp, nil
	})
	require.NoError(t, err)
	defer stop()
	require.NotNil(t, tgt, "a 20000 x 20 probit batch must be costly enough to split")
	require.Len(t, tgt.parts, 2)

	fit := func(procs int) *Summary {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		f, err := Fit(context.Background(), m, Options{Seed: 5, Chains: 1, Iters: 60, Fixed: true, Init: "zero", Draws: 200})
		require.NoError(t, err)
		return f.Summary
	}
	a, b := fit(1), fit(2)
	for _, n := range a.LatentOrder {
		// %v prints each float in its shortest exact form (and NaN as NaN)
		require.Equal(t, fmt.Sprint(a.Latent[n]), fmt.Sprint(b.Latent[n]), n)
		require.Equal(t, fmt.Sprint(a.QLatent[n]), fmt.Sprint(b.QLatent[n]), n)
	}
}

// BenchmarkSplitLogJoint: the log joint of S = 10 rows of the n = 100000,
// d = 20 probit regression (BenchmarkProbitStep's model) on one compiled
// model ("one") and split over as many copies as there are cores ("split";
// run with -cpu 2).
func BenchmarkSplitLogJoint(b *testing.B) {
	model, data := probitData(b, 100000, 20)
	m, err := Load(model, data)
	require.NoError(b, err)
	const S = 10
	z, out := make([]float64, S*m.Comp.Dim()), make([]float64, S)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range z {
		z[i] = 0.3 * rng.NormFloat64()
	}
	b.Run("one", func(b *testing.B) {
		m.Comp.Reserve(S)
		b.ReportAllocs()
		for b.Loop() {
			m.Comp.LogJoint(z, out)
		}
	})
	b.Run("split", func(b *testing.B) {
		tgt, stop, err := newSplitTarget(m.Comp, splitWays(1), S, func() (*lower.Compiled, error) {
			c, err := m.Clone()
			if err != nil {
				return nil, err
			}
			return c.Comp, nil
		})
		require.NoError(b, err)
		defer stop()
		var st msc.Target = m.Comp
		if tgt != nil {
			st = tgt
		}
		b.ReportAllocs()
		for b.Loop() {
			st.LogJoint(z, out)
		}
	})
}
