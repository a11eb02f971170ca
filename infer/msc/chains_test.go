package msc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDrawBufThinning: the buffer keeps every thin-th iteration, never
// more than its capacity, and two buffers fed the same iterations keep the
// same records (what R-hat needs across chains).
func TestDrawBufThinning(t *testing.T) {
	a, b := newDrawBuf(3), newDrawBuf(3)
	z := make([]float64, 3)
	for it := 1; it <= 10000; it++ {
		for _, buf := range []*drawBuf{a, b} {
			if buf.wants(it) {
				z[0] = float64(it)
				buf.Add(it, z, -float64(it))
			}
		}
	}
	require.Equal(t, a.iters, b.iters)
	require.LessOrEqual(t, len(a.iters), a.cap)
	require.Greater(t, len(a.iters), a.cap/2)
	for i, it := range a.iters {
		require.Zero(t, it%a.thin)
		require.Equal(t, float64(it), a.z[i*3])
		require.Equal(t, -float64(it), a.lp[i], "the log joint kept with its record")
	}
}

// runChains runs C CIS chains of the full-rank family on target, started
// at means init[i] (nil: 0).
func runChains(t *testing.T, target Target, C int, s Settings, init [][]float64) *Result {
	t.Helper()
	chains := make([]Chain, C)
	for i := range C {
		q := NewFullRank(target.Dim())
		if init != nil {
			require.NoError(t, q.SetMoments(init[i], nil))
		}
		p := prob(target)
		chains[i] = Chain{Rand: rand.New(rand.NewPCG(7, uint64(i))), Problem: p, Q: q, Kernel: NewCIS(p, q, 10)}
	}
	var res Result
	require.NoError(t, RunChains(context.Background(), chains, s, &res))
	return &res
}

// TestRunChainsStops: on a correlated Gaussian the chains agree early, the
// rule stops the run well before the cap, the combined q is right, and
// the result is the same on one core as on all of them.
func TestRunChainsStops(t *testing.T) {
	g := gauss{m: []float64{1, -2}, prec: []float64{1 / 0.36, 0, 0, 4}}
	res := runChains(t, g, 4, Settings{Iters: 100000}, nil)
	require.True(t, res.StoppedByRule)
	require.Less(t, res.Iterations, 20000)
	require.True(t, res.Converged, res.Warnings)
	require.LessOrEqual(t, res.RhatMax, Defaults.RhatMax)
	require.LessOrEqual(t, res.SpreadMax, Defaults.AgreeSD)
	require.Len(t, res.Chains, 4)
	mean, sd, _ := moments(res)
	// q's averaged mean is within 0.05 sd of the target's (the stopping
	// rule's own tolerance) and its sds within 5%
	require.InDelta(t, 1, mean[0], 0.05*0.6)
	require.InDelta(t, -2, mean[1], 0.05*0.5)
	require.InDelta(t, 0.6, sd[0], 0.05*0.6)
	require.InDelta(t, 0.5, sd[1], 0.05*0.5)

	prev := runtime.GOMAXPROCS(1)
	one := runChains(t, g, 4, Settings{Iters: 100000}, nil)
	runtime.GOMAXPROCS(prev)
	m1, s1, _ := moments(one)
	require.Equal(t, res.Iterations, one.Iterations)
	require.Equal(t, mean, m1)
	require.Equal(t, sd, s1)
}

// TestRunChainsFlagsDisagreement: chains started far apart and stopped
// after 60 fixed iterations have not met; the verdict says so, names the
// check and its figure, and is false.
func TestRunChainsFlagsDisagreement(t *testing.T) {
	g := gauss{m: []float64{0}, prec: []float64{1}}
	res := runChains(t, g, 4, Settings{Iters: 60, Fixed: true, LR: 0.001}, [][]float64{{-20}, {-10}, {10}, {20}})
	require.False(t, res.Converged)
	require.False(t, res.StoppedByRule)
	require.Equal(t, 60, res.Iterations)
	require.Greater(t, res.RhatMax, 1.1)
	require.Greater(t, res.SpreadMax, 1.0)
	all := strings.Join(res.Warnings, "\n")
	require.Contains(t, all, "R-hat is")
	require.Contains(t, all, "averaged means differ")
}

// TestRunChainsEarlyStopReportsItsWindow: a cancelled run is not converged
// and says which iterations it averaged.
func TestRunChainsEarlyStopReportsItsWindow(t *testing.T) {
	g := gauss{m: []float64{0}, prec: []float64{1}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q := NewFullRank(1)
	s := Settings{Iters: 1000, Fixed: true}
	var res Result
	p := prob(g)
	require.NoError(t, RunChains(ctx, []Chain{{rand.New(rand.NewPCG(1, 1)), p, q, NewCIS(p, q, 10)}}, s, &res))
	require.False(t, res.Converged)
	require.True(t, res.Stopped)
	require.Contains(t, res.Reported, "interrupted at iteration 63 of at most 1000")
	require.Contains(t, res.Reported, "iterations 32-63")
}

// BenchmarkChainIteration is one whole iteration of a chain (kernel step,
// natural step, the window's sums and the draw record) on a 5-dimensional
// Gaussian with S = 10: the blocks are reused, so it does not allocate.
func BenchmarkChainIteration(b *testing.B) {
	d := 5
	g := gauss{m: make([]float64, d), prec: make([]float64, d*d)}
	for i := range d {
		g.prec[i*d+i] = 1
	}
	q := NewFullRank(d)
	s, err := fillFor(Settings{Iters: 1 << 30}, d, "cis", "fullrank")
	require.NoError(b, err)
	p := prob(g)
	c, err := newChain(rand.New(rand.NewPCG(1, 1)), p, q, NewCIS(p, q, 10), &s)
	require.NoError(b, err)
	require.NoError(b, c.advance(context.Background(), 100000)) // past the blocks' first allocations
	b.ReportAllocs()
	b.ResetTimer()
	require.NoError(b, c.advance(context.Background(), c.it+b.N))
}

// TestRunChainsInterruptIteration: chains that outnumber the cores and are
// cancelled part-way (from chain 1's trace, at iteration 700) all stop near
// that iteration, with --fixed as without, and the result says so: the
// chains waiting for a core must not be left at their first iteration
// (the run used to report "interrupted at iteration 63" under --fixed).
func TestRunChainsInterruptIteration(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	g := gauss{m: []float64{1, -2}, prec: []float64{1 / 0.36, 0, 0, 4}}
	for _, fixed := range []bool{true, false} {
		ctx, cancel := context.WithCancel(context.Background())
		s := Settings{Iters: 100000, Fixed: fixed, TraceEvery: 100, Trace: func(e *TraceEntry) {
			if e.Iter >= 700 {
				cancel()
			}
		}}
		chains := make([]Chain, 4)
		for i := range chains {
			q := NewFullRank(g.Dim())
			p := prob(g)
			chains[i] = Chain{Rand: rand.New(rand.NewPCG(7, uint64(i))), Problem: p, Q: q, Kernel: NewCIS(p, q, 10)}
		}
		var res Result
		require.NoError(t, RunChains(ctx, chains, s, &res))
		cancel()
		require.True(t, res.Stopped, "fixed=%v", fixed)
		// chain 1 stops at 700, before the next iteration (the context is
		// read at every iteration after the 64th; it was read every 64, and
		// chain 1 stopped at 703); the others within a round of it
		require.GreaterOrEqual(t, res.Iterations, 700-advanceRound-1, "fixed=%v", fixed)
		require.LessOrEqual(t, res.Iterations, 700, "fixed=%v", fixed)
		for i, r := range res.Chains {
			require.GreaterOrEqual(t, r.Iterations, res.Iterations, "fixed=%v chain %d", fixed, i+1)
			require.LessOrEqual(t, r.Iterations, 700, "fixed=%v chain %d", fixed, i+1)
		}
		require.Contains(t, res.Reported, fmt.Sprintf("interrupted at iteration %d of at most 100000", res.Iterations))
	}
}

// TestRunChainsInterruptedStateSpace: a state-space run (its summaries the
// chains' own, judged by R-hat and the ESS) cancelled at iteration 300
// says that it was interrupted, and its warnings blame the interruption
// instead of suggesting more --iters (issue 33: a signal-stopped run read
// "stopped early at iteration 6079" and "more --iters (the cap was 20000)").
func TestRunChainsInterruptedStateSpace(t *testing.T) {
	m := &lgssm{x: []float64{0.8, -0.4, 1.3}, phi: 0.7, q: 0.6, r: 0.5, s0: 1}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := fillFor(Settings{Iters: 100000, TraceEvery: 100, Trace: func(e *TraceEntry) {
		if e.Iter >= 300 {
			cancel()
		}
	}}, 3, "csmc", "twisted-gaussian")
	require.NoError(t, err)
	chains := make([]Chain, 4)
	for i := range chains {
		q := twisted1(3)
		k, err := NewSMCKernel(ssProb(m), q, 10, true)
		require.NoError(t, err)
		chains[i] = Chain{Rand: rand.New(rand.NewPCG(3, uint64(i))), Problem: ssProb(m), Q: q, Kernel: k}
	}
	var res Result
	require.NoError(t, RunChains(ctx, chains, s, &res))
	require.True(t, res.Stopped)
	require.False(t, res.Converged)
	require.Contains(t, res.Reported, fmt.Sprintf("interrupted at iteration %d of at most 100000", res.Iterations))
	require.NotEmpty(t, res.Warnings)
	blamed := false
	for _, w := range res.Warnings {
		require.NotContains(t, w, "--iters", w)
		blamed = blamed || strings.Contains(w, "the run was interrupted")
	}
	require.True(t, blamed, "%q", res.Warnings)
}
