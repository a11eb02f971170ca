package main

import (
	"math/rand/v2"
	"testing"

	"github.com/mscppl/mscppl/infer/msc"
)

// BenchmarkGradParamsSV: the param gradient of
// examples/stochastic_volatility_paper.msc (T = 1974) at a retained CSMC
// trajectory, as each MSC iteration of a state-space model computes it.
func BenchmarkGradParamsSV(b *testing.B) {
	m := loaded(b, "../../examples/stochastic_volatility_paper.msc", "../../examples/data/dem2gbp.csv")
	c := m.Comp
	p := m.Problem()
	tw, err := msc.NewTwisted(p.StateSpace)
	if err != nil {
		b.Fatal(err)
	}
	k, err := msc.NewCSMC(p, tw, 10)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	k.Sweep(rng, false)
	for i := 0; i < 5; i++ {
		k.Sweep(rng, true)
	}
	grad := make([]float64, c.NumParams())
	theta := append([]float64(nil), c.Params()...)
	c.GradParams(k.Reference(), grad)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		// the params move every iteration, as in a run
		i++
		theta[0] += 1e-9 * float64(i%2*2-1)
		c.SetParams(theta)
		c.GradParams(k.Reference(), grad)
	}
}

// BenchmarkCSMCSweepSVt: one CSMC sweep (S = 10 particles, per-step
// Gaussian proposals) of examples/stochastic_volatility_t.msc, whose
// Student-t transition is not Gaussian: the transition density is
// evaluated for the proposals and for ancestor sampling.
func BenchmarkCSMCSweepSVt(b *testing.B) {
	p := problem(b, "../../examples/stochastic_volatility_t.msc", "../../examples/data/dem2gbp.csv")
	q, err := msc.NewARProposal(p.StateSpace)
	if err != nil {
		b.Fatal(err)
	}
	for t := range q.B {
		q.B[t] = 0.9
		q.LogDiag[t] = -1.5
	}
	k, err := msc.NewCSMC(p, q, 10)
	if err != nil {
		b.Fatal(err)
	}
	benchSweeps(b, k)
}

// BenchmarkPGStepSVBayes: one step of the particle Gibbs kernel (a CSMC
// sweep of S = 10 particles, the centred CIS block and the non-centred one)
// on examples/stochastic_volatility_bayes.msc, T = 1974.
func BenchmarkPGStepSVBayes(b *testing.B) {
	p := problem(b, "../../examples/stochastic_volatility_bayes.msc", "../../examples/data/dem2gbp.csv")
	q, err := msc.NewProposal(p)
	if err != nil {
		b.Fatal(err)
	}
	spec, _ := msc.LookupKernel("pg")
	k, release, err := msc.NewKernel(spec, p, q, 10, msc.KernelOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer release()
	rng := rand.New(rand.NewPCG(1, 2))
	if err := k.Init(rng); err != nil {
		b.Fatal(err)
	}
	for range 5 {
		if _, err := k.Step(rng); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := k.Step(rng); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPGStepAllocatesNothing: a particle Gibbs step (its three blocks)
// allocates nothing once its buffers exist.
func TestPGStepAllocatesNothing(t *testing.T) {
	p := problem(t, "../../examples/stochastic_volatility_bayes.msc", "../../examples/data/dem2gbp_monthly.csv")
	q, err := msc.NewProposal(p)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := msc.LookupKernel("pg")
	k, release, err := msc.NewKernel(spec, p, q, 10, msc.KernelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	rng := rand.New(rand.NewPCG(1, 2))
	if err := k.Init(rng); err != nil {
		t.Fatal(err)
	}
	step := func() {
		if _, err := k.Step(rng); err != nil {
			t.Fatal(err)
		}
	}
	step()
	if a := testing.AllocsPerRun(20, step); a != 0 {
		t.Fatalf("a particle Gibbs step allocates %v times", a)
	}
}
