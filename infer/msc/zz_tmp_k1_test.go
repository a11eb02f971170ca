package msc

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkTmpK1(b *testing.B) {
	const T, N = 2000, 10
	rng := rand.New(rand.NewPCG(1, 1))
	y := make([]float64, T)
	for t := range y {
		y[t] = rng.NormFloat64()
	}
	m := &lgvec{vlayout: vlayout{T: T, K: 1}, y: y, F: []float64{0.9}, Lq: []float64{0.5}, m0: []float64{0}, L0: []float64{1}, H: []float64{1}, r: 0.7}
	for _, generic := range []bool{false, true} {
		name := "scalar"
		if generic {
			name = "generic"
		}
		b.Run(name, func(b *testing.B) {
			tw, _ := NewTwisted(m)
			c, err := NewCSMC(ssProb(m), tw, N)
			if err != nil {
				b.Fatal(err)
			}
			c.p.(*twistedSteps).generic = generic
			c.Sweep(rng, false)
			for b.Loop() {
				c.Sweep(rng, true)
			}
		})
	}
}
