package infer

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/ir/check"
	"github.com/mscppl/mscppl/ir/lower"
)

// countCompiles runs f and returns how many times it built, compiled
// and cloned a model (ir's counters: no other test of the package may run
// in parallel with it).
func countCompiles(f func()) (builds, compiles, clones int64) {
	b, c, k := check.Builds(), lower.Compiles(), lower.Clones()
	f()
	return check.Builds() - b, lower.Compiles() - c, lower.Clones() - k
}

// TestRunBuildsOnce: a 4-chain run builds and compiles its model once, at
// Load, and copies it for the other chains (Model.Clone); cross-validation
// (Rebind) still builds its subsets.
func TestRunBuildsOnce(t *testing.T) {
	model, data := probitData(t, 200, 3)
	var m *Model
	var f *Fitted
	problems := problemsMade.Load()
	b, c, k := countCompiles(func() {
		var err error
		m, err = Load(model, data)
		require.NoError(t, err)
		f, err = Fit(context.Background(), m, Options{Seed: 1, Chains: 4, Iters: 5, Fixed: true, Draws: 100})
		require.NoError(t, err)
	})
	require.Equal(t, [3]int64{1, 1, 3}, [3]int64{b, c, k}, "builds, compiles, clones")
	// the engine's view of each chain's model is made once (the first
	// chain's model is the one the kernel was chosen on), and the evidence
	// of the fit reuses it
	require.Equal(t, int64(4), problemsMade.Load()-problems, "problems made")
	_, err := f.Evidence(200, 2, 1)
	require.NoError(t, err)
	require.Equal(t, int64(4), problemsMade.Load()-problems, "problems made with the evidence")

	b, c, k = countCompiles(func() {
		_, err := m.Rebind(m.Table.Subset([]int{0, 1, 2}))
		require.NoError(t, err)
	})
	require.Equal(t, [3]int64{1, 1, 0}, [3]int64{b, c, k}, "Rebind builds and compiles")
}

// TestSplitRunBuildsOnce: a 4-chain run whose chains each split their
// batch over two copies (8 cores' worth: GOMAXPROCS 8, and every model
// costly enough) builds and compiles once and clones the 3 other chains
// and the 4 workers.
func TestSplitRunBuildsOnce(t *testing.T) {
	model, data := probitData(t, 200, 3)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	require.Equal(t, 2, splitWays(4))
	defer func(c time.Duration) { splitMinCost = c }(splitMinCost)
	splitMinCost = 0
	b, c, k := countCompiles(func() {
		m, err := Load(model, data)
		require.NoError(t, err)
		_, err = Fit(context.Background(), m, Options{Seed: 1, Chains: 4, Iters: 3, Fixed: true, Init: "zero", Draws: 100})
		require.NoError(t, err)
	})
	require.Equal(t, [3]int64{1, 1, 3 + 4}, [3]int64{b, c, k}, "builds, compiles, clones (3 chains, 4 split workers)")
}

// BenchmarkClone: a chain's copy of posteriordb's diamonds (5000 x 24
// data, its transformed data folded into constants) by Clone against
// the build and compile it replaces (Rebind).
func BenchmarkClone(b *testing.B) {
	const dir = "../examples/posteriordb/diamonds-diamonds/"
	m, err := Load(dir+"model.msc", dir+"data.json")
	require.NoError(b, err)
	b.Run("rebuild", func(b *testing.B) {
		for b.Loop() {
			_, err := m.Rebind(m.Table)
			require.NoError(b, err)
		}
	})
	b.Run("clone", func(b *testing.B) {
		for b.Loop() {
			_, err := m.Clone()
			require.NoError(b, err)
		}
	})
}

// TestClonesAtOnce: clones of one model made at once from several
// goroutines (as Sweep makes them; run with -race) each give the model's
// log joint and gradient, here of an ODE model (its op's own tape copied).
func TestClonesAtOnce(t *testing.T) {
	const dir = "../examples/posteriordb/hudson_lynx_hare-lotka_volterra/"
	m, err := Load(dir+"model.msc", dir+"data.json")
	require.NoError(t, err)
	d := m.Comp.Dim()
	z := make([]float64, d)
	for i := range z {
		z[i] = 0.1 * float64(i%3)
	}
	want, wantGrad := m.Comp.GradLogJoint(z, make([]float64, d)), make([]float64, d)
	m.Comp.GradLogJoint(z, wantGrad)
	got := make([][]float64, 4)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := m.Clone()
			if errs[i] = err; err != nil {
				return
			}
			grad := make([]float64, d)
			got[i] = append([]float64{c.Comp.GradLogJoint(z, grad)}, grad...)
		}()
	}
	wg.Wait()
	for i := range got {
		require.NoError(t, errs[i])
		require.Equal(t, append([]float64{want}, wantGrad...), got[i])
	}
}
