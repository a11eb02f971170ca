package exact

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// MHResult is a Metropolis run's estimate of one quantity: the summary
// and the Monte Carlo standard error of its mean (by batch means over 50
// batches per chain).
type MHResult struct {
	Summary
	MCSE float64
}

// HierMH is the random-walk Metropolis cross-check of ExactHier, which it
// shares nothing with but the data: chains on (mu, log tau) targeting the
// marginal posterior p(mu, tau | y) (the a's integrated out: ybar_j ~ N(mu,
// tau^2 + sigma^2/n_j)) with the log tau Jacobian, Gaussian steps of sd
// 0.35 in mu and 1.2 in log tau, started at (mean of the ybar's, log 0.5);
// burn iterations of each chain are dropped. a_j's mean and sd are
// Rao-Blackwellised (a_j given mu and tau is normal); mu's and tau's
// quantiles are those of the kept draws. It returns mu, tau and the a's,
// and the acceptance rate.
func HierMH(d *HierData, chains, iters, burn int, seed uint64) ([]MHResult, float64) {
	ybar, n, _ := d.groups()
	h := hierGiven{ybar: ybar, s2: make([]float64, len(ybar))}
	start := 0.0
	for j := range ybar {
		h.s2[j] = d.Sigma * d.Sigma / float64(n[j])
		start += ybar[j] / float64(len(ybar))
	}
	J := len(ybar)
	target := func(mu, u float64) float64 {
		t := math.Exp(u)
		return logNormal(mu, 0, HierPriorMuSD) + logHalfNormal(t, HierPriorTauSD) + u + h.logLikGiven(mu, t)
	}
	const batches = 50
	K := J + 2
	// per chain and batch: sums of each quantity and of its square (a's:
	// conditional means and second moments)
	var batchMeans [][]float64 // [chain*batches+b][k]
	var all [][]float64        // mean of x and of x^2 over all kept draws, per chain
	var muDraws, tauDraws []float64
	accepted := 0
	for c := range chains {
		rng := rand.New(rand.NewPCG(seed, uint64(c)))
		mu, u := start, math.Log(0.5)
		lp := target(mu, u)
		kept := iters - burn
		per := kept / batches
		sum, sum2 := make([]float64, K), make([]float64, K)
		bsum := make([]float64, K)
		for it := range iters {
			mu2, u2 := mu+0.35*rng.NormFloat64(), u+1.2*rng.NormFloat64()
			lp2 := target(mu2, u2)
			if math.Log(rng.Float64()) < lp2-lp {
				mu, u, lp = mu2, u2, lp2
				if it >= burn {
					accepted++
				}
			}
			if it < burn {
				continue
			}
			k := it - burn
			t := math.Exp(u)
			x := func(i int, m, m2 float64) {
				sum[i] += m
				sum2[i] += m2
				bsum[i] += m
			}
			x(0, mu, mu*mu)
			x(1, t, t*t)
			for j := range J {
				b := h.s2[j] / (h.s2[j] + t*t)
				m := (1-b)*ybar[j] + b*mu
				x(2+j, m, m*m+(1-b)*h.s2[j])
			}
			if k%10 == 0 {
				muDraws = append(muDraws, mu)
				tauDraws = append(tauDraws, t)
			}
			if (k+1)%per == 0 && (k+1)/per <= batches {
				bm := make([]float64, K)
				for i := range K {
					bm[i] = bsum[i] / float64(per)
					bsum[i] = 0
				}
				batchMeans = append(batchMeans, bm)
			}
		}
		row := make([]float64, 2*K)
		for i := range K {
			row[i], row[K+i] = sum[i]/float64(kept), sum2[i]/float64(kept)
		}
		all = append(all, row)
	}
	names := []string{"mu", "tau"}
	for j := range J {
		names = append(names, fmt.Sprintf("a[%d]", j+1))
	}
	out := make([]MHResult, K)
	for i := range K {
		m, m2 := 0.0, 0.0
		for _, row := range all {
			m += row[i] / float64(chains)
			m2 += row[K+i] / float64(chains)
		}
		v := 0.0
		for _, bm := range batchMeans {
			v += (bm[i] - m) * (bm[i] - m)
		}
		nb := float64(len(batchMeans))
		out[i] = MHResult{
			Summary: Summary{Name: names[i], Mean: m, SD: math.Sqrt(m2 - m*m), Q05: math.NaN(), Q50: math.NaN(), Q95: math.NaN()},
			MCSE:    math.Sqrt(v / (nb - 1) / nb),
		}
	}
	for i, draws := range [][]float64{muDraws, tauDraws} {
		slices.Sort(draws)
		q := func(p float64) float64 { return draws[int(p*float64(len(draws)-1)+0.5)] }
		out[i].Q05, out[i].Q50, out[i].Q95 = q(0.05), q(0.5), q(0.95)
	}
	return out, float64(accepted) / float64(chains*(iters-burn))
}
