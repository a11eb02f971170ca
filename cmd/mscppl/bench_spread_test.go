package main

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/infer/msc"
)

// BenchmarkZhatSpreadSV measures the sd of log Zhat over unconditional
// sweeps (the particle filter of msc.LogEvidence) on
// examples/stochastic_volatility.msc with examples/data/dem2gbp.csv
// (T = 1974) at the model's starting params: with the bootstrap proposal
// (the twisted one at psi = 1), the twisted proposal's start and the
// per-step proposal at the transition. With MSCPPL_SV_VARIATIONAL naming a
// variational.json of that model (mscppl run --out), also at its params
// with its learned proposal:
//
//	MSCPPL_SV_VARIATIONAL=DIR/variational.json go test -run '^$' -bench ZhatSpreadSV -benchtime 1x ./cmd/mscppl
func BenchmarkZhatSpreadSV(b *testing.B) {
	const model, data = "../../examples/stochastic_volatility.msc", "../../examples/data/dem2gbp.csv"
	m := loaded(b, model, data)
	p := m.Problem()
	boot, err := msc.NewTwisted(p.StateSpace)
	if err != nil {
		b.Fatal(err)
	}
	for i := range boot.LogDiag {
		boot.LogDiag[i] = math.Inf(-1)
	}
	start, err := msc.NewTwisted(p.StateSpace)
	if err != nil {
		b.Fatal(err)
	}
	// the starting params: sigma2 = 0.05, phi = 0.9, mu = 0
	ar, err := msc.NewARProposal(p.StateSpace)
	if err != nil {
		b.Fatal(err)
	}
	for t := range ar.B {
		ar.B[t] = 0.9
		ar.LogDiag[t] = 0.5 * math.Log(0.05)
	}
	ar.LogDiag[0] = 0.5 * math.Log(0.05/(1-0.81))
	type spreadCase struct {
		name string
		p    *msc.Problem
		q    msc.Family
	}
	cases := []spreadCase{{"bootstrap", p, boot}, {"twisted-start", p, start}, {"per-step-transition", p, ar}}
	if path := os.Getenv("MSCPPL_SV_VARIATIONAL"); path != "" {
		mf := loaded(b, model, data)
		q, err := infer.ReadVariational(path, mf)
		if err != nil {
			b.Fatal(err)
		}
		pf := mf.Problem()
		fb, err := msc.NewTwisted(pf.StateSpace)
		if err != nil {
			b.Fatal(err)
		}
		for i := range fb.LogDiag {
			fb.LogDiag[i] = math.Inf(-1)
		}
		cases = append(cases, spreadCase{"fitted-params/bootstrap", pf, fb}, spreadCase{"fitted-params/learned-twisted", pf, q})
	}
	for i, c := range cases {
		for _, n := range []int{10, 100} {
			b.Run(c.name+"/N"+strconv.Itoa(n), func(b *testing.B) {
				reps := 4000 / n
				ls := make([]float64, reps)
				for b.Loop() {
					k, err := msc.NewCSMC(c.p, c.q, n)
					if err != nil {
						b.Fatal(err)
					}
					rng := rand.New(rand.NewPCG(uint64(i+1), 34))
					for r := range ls {
						k.Sweep(rng, false)
						ls[r] = k.LogZ
					}
				}
				s, s2 := 0.0, 0.0
				for _, v := range ls {
					s += v
					s2 += v * v
				}
				mean := s / float64(reps)
				b.ReportMetric(math.Sqrt(s2/float64(reps)-mean*mean), "sd-logZ")
				b.ReportMetric(mean, "mean-logZ")
			})
		}
	}
}

// BenchmarkCSMCMixingSV measures how the retained trajectory of the csmc
// kernel (N = 10) moves on the same model at the params and with the
// learned twisted proposal of MSCPPL_SV_VARIATIONAL (and with the bootstrap
// proposal at those params): over 1000 conditional sweeps, the fraction of
// sweeps in which the state at step t changed, its mean and its smallest
// value over t and its 1% and 5% quantiles, and the sweeps' mean ESS.
func BenchmarkCSMCMixingSV(b *testing.B) {
	path := os.Getenv("MSCPPL_SV_VARIATIONAL")
	if path == "" {
		b.Skip("MSCPPL_SV_VARIATIONAL names no variational.json")
	}
	const model, data = "../../examples/stochastic_volatility.msc", "../../examples/data/dem2gbp.csv"
	m := loaded(b, model, data)
	q, err := infer.ReadVariational(path, m)
	if err != nil {
		b.Fatal(err)
	}
	p := m.Problem()
	boot, err := msc.NewTwisted(p.StateSpace)
	if err != nil {
		b.Fatal(err)
	}
	for i := range boot.LogDiag {
		boot.LogDiag[i] = math.Inf(-1)
	}
	for i, c := range []struct {
		name string
		q    msc.Family
	}{{"learned-twisted", q}, {"bootstrap", boot}} {
		b.Run(c.name, func(b *testing.B) {
			const sweeps = 1000
			var rate []float64
			ess := 0.0
			for b.Loop() {
				k, err := msc.NewCSMC(p, c.q, 10)
				if err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(uint64(i+1), 35))
				k.Sweep(rng, false)
				for range 50 {
					k.Sweep(rng, true)
				}
				prev := append([]float64(nil), k.Reference()...)
				rate = make([]float64, len(prev))
				ess = 0
				for range sweeps {
					k.Sweep(rng, true)
					ess += k.MeanESS / sweeps
					for j, v := range k.Reference() {
						if v != prev[j] {
							rate[j] += 1.0 / sweeps
							prev[j] = v
						}
					}
				}
			}
			mean := 0.0
			for _, r := range rate {
				mean += r / float64(len(rate))
			}
			slices.Sort(rate)
			b.ReportMetric(mean, "update-rate-mean")
			b.ReportMetric(rate[0], "update-rate-min")
			b.ReportMetric(rate[len(rate)/100], "update-rate-q01")
			b.ReportMetric(rate[len(rate)/20], "update-rate-q05")
			b.ReportMetric(ess, "mean-ESS")
		})
	}
}
