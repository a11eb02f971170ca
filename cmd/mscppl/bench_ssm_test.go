package main

import (
	"math/rand/v2"
	"testing"

	"github.com/mscppl/mscppl/infer/msc"
)

// BenchmarkGradParamsSV: the param gradient of
// examples/stochastic_volatility.msc (T = 1974) at a retained CSMC
// trajectory, as each MSC iteration of a state-space model computes it.
func BenchmarkGradParamsSV(b *testing.B) {
	c := compiled(b, "../../examples/stochastic_volatility.msc", "../../examples/data/dem2gbp.csv")
	k, err := msc.NewCSMC(c, msc.NewTwisted(c.Len()), 10)
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
