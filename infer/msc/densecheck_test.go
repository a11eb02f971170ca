package msc

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// runCostly is runChains with the problem's Cost set.
func runCostly(t *testing.T, target Target, cost float64) *Result {
	t.Helper()
	chains := make([]Chain, 4)
	for i := range chains {
		q := NewFullRank(target.Dim())
		p := prob(target)
		p.Cost = cost
		chains[i] = Chain{Rand: rand.New(rand.NewPCG(7, uint64(i))), Problem: p, Q: q, Kernel: NewCIS(p, q, 10)}
	}
	var res Result
	require.NoError(t, RunChains(context.Background(), chains, Settings{Iters: 100000}, &res))
	return &res
}

// TestRunChainsDenseChecks: when an iteration is costly (S x chains x Cost
// at least Defaults.DenseCost) the rule is checked every CheckStep
// iterations from FirstCheck on, and the run stops at the second of two
// successive passing checks, converged, with the same result on one core;
// a cheap problem keeps the sparse schedule (checks 500 or more apart).
func TestRunChainsDenseChecks(t *testing.T) {
	g := gauss{m: []float64{1, -2}, prec: []float64{1 / 0.36, 0, 0, 4}}
	cost := Defaults.DenseCost / 40
	res := runCostly(t, g, cost)
	require.True(t, res.StoppedByRule)
	require.True(t, res.Converged, res.Warnings)
	require.Zero(t, res.Iterations%Defaults.CheckStep)
	require.GreaterOrEqual(t, res.Iterations, Defaults.FirstCheck+Defaults.CheckStep, "two passing checks")
	require.Equal(t, (res.Iterations-Defaults.FirstCheck)/Defaults.CheckStep+1, res.Checks, "a check every CheckStep iterations")
	require.LessOrEqual(t, res.RhatMax, Defaults.RhatMax)
	require.LessOrEqual(t, res.SpreadMax, Defaults.AgreeSD)

	prev := runtime.GOMAXPROCS(1)
	one := runCostly(t, g, cost)
	runtime.GOMAXPROCS(prev)
	require.Equal(t, res.Iterations, one.Iterations)
	m0, s0, _ := moments(res)
	m1, s1, _ := moments(one)
	require.Equal(t, m0, m1)
	require.Equal(t, s0, s1)

	cheap := runCostly(t, g, cost/2)
	require.True(t, cheap.StoppedByRule)
	require.GreaterOrEqual(t, cheap.Iterations, Defaults.FirstCheck+Defaults.FirstCheck/2, "the sparse schedule's first check cannot stop (no stability reference)")
	require.Less(t, cheap.Checks, (cheap.Iterations-Defaults.FirstCheck)/Defaults.CheckStep+1)
}
