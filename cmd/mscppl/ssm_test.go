package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/ir/lower"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/stretchr/testify/require"
)

const lgssmModel = `// linear-Gaussian state-space model
data { x: vector[T] }
param { phi: real<lower=-1, upper=1> = 0.3 }
latent { z: vector[T] }
model {
  z[1] ~ normal(0, 1)
  for t in 2..T {
    z[t] ~ normal(phi * z[t-1], 0.5)
  }
  for t in 1..T {
    x[t] ~ normal(z[t], 0.7)
  }
}
`

const lgQ, lgR = 0.5, 0.7

// kalman returns the log-likelihood and the smoothed means (RTS) of the
// model above for a given phi.
func kalman(x []float64, phi float64) (ll float64, smooth []float64) {
	T := len(x)
	mf, pf := make([]float64, T), make([]float64, T) // filtered
	mp, pp := make([]float64, T), make([]float64, T) // predicted
	for t := 0; t < T; t++ {
		if t == 0 {
			mp[t], pp[t] = 0, 1
		} else {
			mp[t], pp[t] = phi*mf[t-1], phi*phi*pf[t-1]+lgQ*lgQ
		}
		s := pp[t] + lgR*lgR
		ll += -0.5*math.Log(2*math.Pi*s) - 0.5*(x[t]-mp[t])*(x[t]-mp[t])/s
		k := pp[t] / s
		mf[t] = mp[t] + k*(x[t]-mp[t])
		pf[t] = (1 - k) * pp[t]
	}
	smooth = make([]float64, T)
	smooth[T-1] = mf[T-1]
	for t := T - 2; t >= 0; t-- {
		j := pf[t] * phi / pp[t+1]
		smooth[t] = mf[t] + j*(smooth[t+1]-mp[t+1])
	}
	return ll, smooth
}

func lgssmData(t *testing.T, T int) (dir string, x []float64) {
	rng := rand.New(rand.NewPCG(42, 43))
	x = make([]float64, T)
	z := rng.NormFloat64()
	var b strings.Builder
	b.WriteString("x\n")
	for i := 0; i < T; i++ {
		if i > 0 {
			z = 0.8*z + lgQ*rng.NormFloat64()
		}
		x[i] = z + lgR*rng.NormFloat64()
		fmt.Fprintf(&b, "%.10g\n", x[i])
	}
	dir = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.csv"), []byte(b.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "lgssm.msc"), []byte(lgssmModel), 0o644))
	// the CSV was written with %.10g: read back what the model sees
	for i, f := range strings.Fields(b.String())[1:] {
		fmt.Sscan(f, &x[i])
	}
	return dir, x
}

// TestLGSSMAgainstKalman: the CSMC kernel's chain means of z[t], and the
// particle filter's log-likelihood, against a Kalman filter and smoother;
// and MSC's learned phi against the Kalman maximum-likelihood estimate.
func TestLGSSMAgainstKalman(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	dir, x := lgssmData(t, 60)
	lm := loaded(nil, filepath.Join(dir, "lgssm.msc"), filepath.Join(dir, "x.csv"))
	comp := lm.Comp
	require.True(t, lower.StructureOf(comp).StateSpace)
	phi := 0.3 // the param's initial value
	ll, smooth := kalman(x, phi)

	// (a) chain means of the CSMC kernel with the bootstrap proposal
	p := lm.Problem()
	tw, err := msc.NewTwisted(p.StateSpace)
	require.NoError(t, err)
	k, err := msc.NewCSMC(p, tw, 10)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(5, 6))
	k.Sweep(rng, false)
	const sweeps, nb = 20000, 40
	batch := make([][]float64, nb)
	for i := range batch {
		batch[i] = make([]float64, len(x))
	}
	for i := 0; i < 500; i++ {
		k.Sweep(rng, true)
	}
	for i := 0; i < sweeps; i++ {
		k.Sweep(rng, true)
		for s, v := range k.Reference() {
			batch[i/(sweeps/nb)][s] += v / float64(sweeps/nb)
		}
	}
	bad := 0
	for s := range x {
		col := make([]float64, nb)
		for b := range batch {
			col[b] = batch[b][s]
		}
		m, sd := infer.MeanSD(col)
		se := sd / math.Sqrt(nb)
		if math.Abs(m-smooth[s]) > 4*se+1e-3 {
			bad++
			t.Logf("z[%d]: chain %.4f, Kalman %.4f, se %.4f", s+1, m, smooth[s], se)
		}
	}
	require.Zero(t, bad, "chain means outside 4 standard errors of the Kalman smoother")

	// (b) particle-filter log-likelihood
	est, se, err := msc.LogEvidence(rand.New(rand.NewPCG(7, 8)), lm.Problem(), tw, 2000, 20)
	require.NoError(t, err)
	require.InDeltaf(t, ll, est, 4*se+0.01, "PF %.4f +- %.4f, Kalman %.4f", est, se, ll)

	// (c) MSC learns phi: compare with the Kalman MLE (golden-section search)
	lo, hi := -0.99, 0.99
	g := (math.Sqrt(5) - 1) / 2
	for i := 0; i < 80; i++ {
		a, b := hi-g*(hi-lo), lo+g*(hi-lo)
		la, _ := kalman(x, a)
		lb, _ := kalman(x, b)
		if la > lb {
			hi = b
		} else {
			lo = a
		}
	}
	mle := (lo + hi) / 2
	s := runJSON(t, "run", filepath.Join(dir, "lgssm.msc"), filepath.Join(dir, "x.csv"), "--iters", "4000", "--param-lr", "0.02", "--seed", "3")
	require.Equal(t, "csmc", s.Kernel)
	t.Logf("phi: MSC %.4f, Kalman MLE %.4f", s.Params["phi"], mle)
	require.InDelta(t, mle, s.Params["phi"], 0.05)

	// (d) the latents' quantiles and MCSE come from the retained
	// trajectories; the smoothing marginals are Gaussian, so the 5%-95%
	// range is 2 x 1.645 sds and the median is the mean
	for _, name := range s.LatentOrder {
		m := s.Latent[name]
		q05, q50, q95, mcse := float64(m.Q05), float64(m.Q50), float64(m.Q95), float64(m.MCSE)
		require.Truef(t, q05 < q50 && q50 < q95, "%s: quantiles %g %g %g", name, q05, q50, q95)
		require.Truef(t, mcse > 0 && mcse < 0.1*m.SD, "%s: mcse %g, sd %g", name, mcse, m.SD)
		require.InDeltaf(t, 2*1.645*m.SD, q95-q05, 0.2*2*1.645*m.SD, "%s: 5%%-95%% range against its sd", name)
		require.InDeltaf(t, m.Mean, q50, 0.2*m.SD, "%s: median against mean", name)
	}
}
