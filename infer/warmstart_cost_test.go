package infer

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer/msc"
)

// countingGrad counts the passes over the data a GradTarget makes: one per
// gradient and one per row of a batched log joint.
type countingGrad struct {
	msc.GradTarget
	grads, rows *atomic.Int64
}

func (c countingGrad) GradLogJoint(z, grad []float64) float64 {
	c.grads.Add(1)
	return c.GradTarget.GradLogJoint(z, grad)
}

func (c countingGrad) LogJoint(z, out []float64) {
	c.rows.Add(int64(len(out)))
	c.GradTarget.LogJoint(z, out)
}

// largeLogisticJSON writes examples/logistic_large.msc's data (n rows, k
// predictors) as CmdStan JSON, simulated as examples/tools/biglogistic does.
func largeLogisticJSON(t testing.TB, n, k int) string {
	path := filepath.Join(t.TempDir(), "logistic.json")
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	w := bufio.NewWriter(f)
	rng := rand.New(rand.NewPCG(1, 2))
	fmt.Fprintf(w, "{\"N\": %d, \"K\": %d, \"X\": [", n, k)
	y := make([]int, n)
	for i := range n {
		if i > 0 {
			w.WriteString(",")
		}
		w.WriteString("[")
		eta := -0.5
		for j := range k {
			x := rng.NormFloat64()
			b := 0.5 / math.Sqrt(float64(j+1))
			if j%2 == 1 {
				b = -b
			}
			eta += b * x
			if j > 0 {
				w.WriteString(",")
			}
			fmt.Fprintf(w, "%.6f", x)
		}
		w.WriteString("]")
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			y[i] = 1
		}
	}
	w.WriteString("], \"y\": [")
	for i, v := range y {
		if i > 0 {
			w.WriteString(",")
		}
		fmt.Fprintf(w, "%d", v)
	}
	w.WriteString("]}\n")
	require.NoError(t, w.Flush())
	return path
}

// TestWarmStartPasses: the warm start of a 20000-row logistic regression (d = 11, so
// 16 searches) costs a few passes over the data per search: chain 1's
// search runs to the mode (about a dozen L-BFGS gradients and d more for
// the curvature), the others stop within an sd of it (about 8 each). It
// cost 498 gradients before the searches stopped on the Newton decrement
// and shared chain 1's mode (the searches ran on until L-BFGS's line
// searches failed, about 160 each at 100000 rows).
func TestWarmStartPasses(t *testing.T) {
	m, err := Load("../examples/logistic_large.msc", largeLogisticJSON(t, 20000, 10))
	require.NoError(t, err)
	chains := chainsFor(t, m, 4)
	var grads, rows atomic.Int64
	for i := range chains {
		chains[i].Problem.Grad = countingGrad{chains[i].Problem.Grad, &grads, &rows}
	}
	w := startAtLaplace(1, chains)
	require.True(t, w.started, w.reason)
	t.Logf("gradients %d, log-joint rows %d", grads.Load(), rows.Load())
	require.LessOrEqual(t, grads.Load()+rows.Load(), int64(180))
	for _, ch := range chains[1:] {
		require.Equal(t, chains[0].Q.(msc.Sampler).LogQ(w.modes[0].x), ch.Q.(msc.Sampler).LogQ(w.modes[0].x), "every chain starts at the mode chain 1 found")
	}
}

// TestTapeCost: the cost of a row of the log joint is its tape's length,
// which grows with the data: the 30000-row logistic regression's chains
// (S = 10, 4 chains) compute enough per iteration for the dense checks,
// normal_mean's do not.
func TestTapeCost(t *testing.T) {
	small, err := Load("../examples/logistic_large.msc", largeLogisticJSON(t, 100, 10))
	require.NoError(t, err)
	large, err := Load("../examples/logistic_large.msc", largeLogisticJSON(t, 30000, 10))
	require.NoError(t, err)
	cs, cl := tapeCost(small.Comp), tapeCost(large.Comp)
	// each row adds its linear predictor, one Affine node (alpha + X *
	// beta was the product's node and the sum's, 2 values a row)
	require.Equal(t, 1.0*(30000-100), cl-cs, "the cost grows with the rows")
	require.GreaterOrEqual(t, 40*cl, msc.Defaults.DenseCost)
	m, err := Load("../examples/normal_mean.msc", "../examples/data/normal_mean.csv")
	require.NoError(t, err)
	require.Less(t, 40*tapeCost(m.Comp), msc.Defaults.DenseCost)
}

// BenchmarkWarmStart: the warm start (16 mode searches and a curvature) of
// a 20000-row logistic regression, 4 chains.
func BenchmarkWarmStart(b *testing.B) {
	m, err := Load("../examples/logistic_large.msc", largeLogisticJSON(b, 20000, 10))
	require.NoError(b, err)
	chains := chainsFor(b, m, 4)
	b.ResetTimer()
	for b.Loop() {
		w := startAtLaplace(1, chains)
		require.True(b, w.started)
	}
}
