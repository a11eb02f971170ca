package msc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
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

// confirm is a Settings.Corrected that answers ok and counts its calls.
type confirm struct {
	ok    bool
	calls []int
}

func (c *confirm) corrected(q Family, n int) (bool, string) {
	c.calls = append(c.calls, n)
	return c.ok, fmt.Sprintf("asked at %d", n)
}

// runCorrected is runCostly with Settings.Corrected answering ok, a cap of
// iters, and chain i's q started at mus[i] (nil: N(0, I)) with sd 0.5.
func runCorrected(t *testing.T, target Target, cost float64, iters int, mus [][]float64, c *confirm) *Result {
	t.Helper()
	chains := make([]Chain, 4)
	for i := range chains {
		q := NewFullRank(target.Dim())
		if mus != nil {
			copy(q.Mu, mus[i])
			for j := range q.D {
				q.L[j*q.D+j] = 0.5
			}
		}
		p := prob(target)
		p.Cost = cost
		chains[i] = Chain{Rand: rand.New(rand.NewPCG(7, uint64(i))), Problem: p, Q: q, Kernel: NewCIS(p, q, 10)}
	}
	var res Result
	require.NoError(t, RunChains(context.Background(), chains, Settings{Iters: iters, Corrected: c.corrected}, &res))
	return &res
}

// TestRunChainsDenseCorrected: a costly run whose summaries importance
// weights correct (Settings.Corrected) checks every CheckStep iterations
// from FirstCheckCorrected on against AgreeSDCorrected, and stops at the
// second of two passing checks once Corrected confirms it, before the
// uncorrected schedule's first check; the same on one core. A cheap run
// ignores Corrected; a refusal sends the run on to the uncorrected rule.
func TestRunChainsDenseCorrected(t *testing.T) {
	g := gauss{m: []float64{1, -2}, prec: []float64{1 / 0.36, 0, 0, 4}}
	cost := Defaults.DenseCost / 40
	yes := &confirm{ok: true}
	res := runCorrected(t, g, cost, 100000, nil, yes)
	require.Equal(t, []int{res.Iterations}, yes.calls, "asked once, when the run stops")
	require.Equal(t, fmt.Sprintf("asked at %d", res.Iterations), res.Confirmed)
	require.True(t, res.StoppedByRule)
	require.True(t, res.Converged, res.Warnings)
	require.Equal(t, Defaults.AgreeSDCorrected, res.AgreeSD)
	require.Zero(t, res.Iterations%Defaults.CheckStep)
	require.GreaterOrEqual(t, res.Iterations, Defaults.FirstCheckCorrected+Defaults.CheckStep, "two passing checks")
	require.Less(t, res.Iterations, Defaults.FirstCheck, "the corrected schedule stops before the uncorrected one's first check")
	require.Equal(t, (res.Iterations-Defaults.FirstCheckCorrected)/Defaults.CheckStep+1, res.Checks)
	require.LessOrEqual(t, res.RhatMax, Defaults.RhatMax)
	require.LessOrEqual(t, res.SpreadMax, Defaults.AgreeSDCorrected)
	// q's mean within the agreement it was asked for: about 0.025 sd per
	// component, 4 such Monte Carlo sds at most
	m, s, _ := moments(res)
	for j, want := range g.m {
		sd := 1 / math.Sqrt(g.prec[j*3])
		require.InDelta(t, want, m[j], 0.1*sd, "mean %d", j)
		require.InDelta(t, sd, s[j], 0.1*sd, "sd %d", j)
	}

	prev := runtime.GOMAXPROCS(1)
	one := runCorrected(t, g, cost, 100000, nil, &confirm{ok: true})
	runtime.GOMAXPROCS(prev)
	require.Equal(t, res.Iterations, one.Iterations)
	m1, s1, _ := moments(one)
	require.Equal(t, m, m1)
	require.Equal(t, s, s1)

	never := &confirm{ok: true}
	cheap := runCorrected(t, g, cost/2, 100000, nil, never)
	require.Equal(t, Defaults.AgreeSD, cheap.AgreeSD)
	require.GreaterOrEqual(t, cheap.Iterations, Defaults.FirstCheck+Defaults.FirstCheck/2)
	require.Empty(t, never.calls)

	no := &confirm{ok: false}
	refused := runCorrected(t, g, cost, 100000, nil, no)
	require.Len(t, no.calls, 1, "asked once: the run then goes on under the uncorrected rule")
	require.Less(t, no.calls[0], Defaults.FirstCheck)
	require.True(t, refused.StoppedByRule)
	require.True(t, refused.Converged, refused.Warnings)
	require.Equal(t, Defaults.AgreeSD, refused.AgreeSD)
	require.GreaterOrEqual(t, refused.Iterations, Defaults.FirstCheck+Defaults.CheckStep)
	require.LessOrEqual(t, refused.SpreadMax, Defaults.AgreeSD)
}

// bimodal is an equal mixture of N(-4, 0.5^2) and N(4, 0.5^2).
type bimodal struct{}

func (bimodal) Dim() int      { return 1 }
func (bimodal) Reserve(n int) {}
func (bimodal) LogJoint(z, out []float64) {
	for b := range out {
		a, c := -0.5*math.Pow((z[b]+4)/0.5, 2), -0.5*math.Pow((z[b]-4)/0.5, 2)
		hi := math.Max(a, c)
		out[b] = hi + math.Log(math.Exp(a-hi)+math.Exp(c-hi))
	}
}

// TestRunChainsDenseCorrectedDisagree: the looser agreement still fails
// chains that sit in different modes: the run goes to its cap, not
// converged, with the spread's warning at the corrected threshold.
func TestRunChainsDenseCorrectedDisagree(t *testing.T) {
	mus := [][]float64{{-4}, {-4}, {4}, {4}}
	res := runCorrected(t, bimodal{}, Defaults.DenseCost/40, 1500, mus, &confirm{ok: true})
	require.False(t, res.StoppedByRule)
	require.False(t, res.Converged)
	require.Equal(t, 1500, res.Iterations)
	require.Greater(t, res.SpreadMax, 1.0)
	require.Condition(t, func() bool {
		for _, w := range res.Warnings {
			if strings.Contains(w, "(threshold 0.10)") {
				return true
			}
		}
		return false
	}, "%q", res.Warnings)
}
