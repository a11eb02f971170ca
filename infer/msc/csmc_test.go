package msc

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// lgssm is a hand-written linear-Gaussian state-space model:
// z_1 ~ N(0, s0^2), z_t ~ N(phi z_{t-1}, q^2), x_t ~ N(z_t, r^2).
type lgssm struct {
	k1
	x             []float64
	phi, q, r, s0 float64
}

func (m *lgssm) Len() int               { return len(m.x) }
func (m *lgssm) ReserveParticles(n int) {}
func (m *lgssm) Transition(t int, prev, mean, sd []float64) {
	for i := range mean {
		if t == 0 {
			mean[i], sd[i] = 0, m.s0
		} else {
			mean[i], sd[i] = m.phi*prev[i], m.q
		}
	}
}
func (m *lgssm) ObsLogDensity(t int, cur, out []float64) {
	for i, z := range cur {
		d := (m.x[t] - z) / m.r
		out[i] = -0.5*d*d - math.Log(m.r) - 0.5*math.Log(2*math.Pi)
	}
}

// exact returns the posterior mean of z and log p(x) by dense Gaussian
// algebra (the joint of (z, x) is Gaussian).
func (m *lgssm) exact() (mean []float64, logZ float64) {
	T := len(m.x)
	// precision of z under the prior and likelihood
	P := mat.NewSymDense(T, nil)
	b := mat.NewVecDense(T, nil)
	for t := 0; t < T; t++ {
		v := 0.0
		if t == 0 {
			v += 1 / (m.s0 * m.s0)
		} else {
			v += 1 / (m.q * m.q)
		}
		if t < T-1 {
			v += m.phi * m.phi / (m.q * m.q)
			P.SetSym(t, t+1, -m.phi/(m.q*m.q))
		}
		v += 1 / (m.r * m.r)
		P.SetSym(t, t, v)
		b.SetVec(t, m.x[t]/(m.r*m.r))
	}
	var ch mat.Cholesky
	if !ch.Factorize(P) {
		panic("not PD")
	}
	var mu mat.VecDense
	if err := ch.SolveVecTo(&mu, b); err != nil {
		panic(err)
	}
	mean = make([]float64, T)
	for t := range mean {
		mean[t] = mu.AtVec(t)
	}
	// marginal of x: x = z + e, Cov(x) = Cov_prior(z) + r^2 I
	C := mat.NewSymDense(T, nil)
	for s := 0; s < T; s++ {
		for t := s; t < T; t++ {
			// prior covariance of the AR(1) with z_1 ~ N(0, s0^2)
			vs := m.s0 * m.s0
			for k := 1; k <= s; k++ {
				vs = m.phi*m.phi*vs + m.q*m.q
			}
			c := vs * math.Pow(m.phi, float64(t-s))
			if s == t {
				c += m.r * m.r
			}
			C.SetSym(s, t, c)
		}
	}
	var cc mat.Cholesky
	if !cc.Factorize(C) {
		panic("not PD")
	}
	xv := mat.NewVecDense(T, append([]float64(nil), m.x...))
	var sol mat.VecDense
	_ = cc.SolveVecTo(&sol, xv)
	logZ = -0.5*mat.Dot(xv, &sol) - 0.5*cc.LogDet() - 0.5*float64(T)*math.Log(2*math.Pi)
	return mean, logZ
}

// TestCSMCInvariance runs the CSMC chain with fixed, non-trivial twisted
// proposals on a T = 3 model and checks its means against the exact
// posterior within Monte Carlo error (batch means).
func TestCSMCInvariance(t *testing.T) {
	m := &lgssm{x: []float64{0.8, -0.4, 1.3}, phi: 0.7, q: 0.6, r: 0.5, s0: 1}
	exact, _ := m.exact()
	for _, n := range []int{3, 10} {
		tw := twisted1(3)
		copy(tw.Nu, []float64{0.5, -0.3, 0.9})
		copy(tw.LogDiag, []float64{math.Log(0.8), math.Log(1.5), math.Log(0.3)})
		k, err := NewCSMC(ssProb(m), tw, n)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(7, uint64(n)))
		k.SetReference([]float64{0, 0, 0})
		const iters, nb = 200000, 50
		bs := iters / nb
		batch := make([][]float64, nb)
		for b := range batch {
			batch[b] = make([]float64, 3)
		}
		for it := 0; it < 1000; it++ {
			k.Sweep(rng, true)
		}
		for it := 0; it < iters; it++ {
			require.True(t, k.Sweep(rng, true))
			for s := 0; s < 3; s++ {
				batch[it/bs][s] += k.Reference()[s] / float64(bs)
			}
		}
		for s := 0; s < 3; s++ {
			mean, sq := 0.0, 0.0
			for b := range batch {
				mean += batch[b][s] / nb
			}
			for b := range batch {
				sq += (batch[b][s] - mean) * (batch[b][s] - mean)
			}
			se := math.Sqrt(sq / (nb - 1) / nb)
			require.Lessf(t, math.Abs(mean-exact[s]), 4.5*se+1e-4,
				"N=%d z[%d]: chain mean %.4f, exact %.4f, se %.4f", n, s+1, mean, exact[s], se)
		}
	}
}

// TestParticleFilterEvidence checks the unconditional sweep's estimate of
// p(x) (unbiased in Z) against the exact marginal likelihood.
func TestParticleFilterEvidence(t *testing.T) {
	m := &lgssm{x: []float64{0.8, -0.4, 1.3, 0.2, -1.1, 0.5}, phi: 0.7, q: 0.6, r: 0.5, s0: 1}
	_, logZ := m.exact()
	tw := twisted1(m.Len())
	tw.Nu[2], tw.LogDiag[2] = 0.4, math.Log(2)
	k, err := NewCSMC(ssProb(m), tw, 50)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 4))
	const reps = 2000
	ratios := make([]float64, reps)
	mean := 0.0
	for i := range ratios {
		k.Sweep(rng, false)
		ratios[i] = math.Exp(k.LogZ - logZ)
		mean += ratios[i] / reps
	}
	sq := 0.0
	for _, r := range ratios {
		sq += (r - mean) * (r - mean)
	}
	se := math.Sqrt(sq / (reps - 1) / reps)
	require.Lessf(t, math.Abs(mean-1), 4*se+1e-3, "E[Zhat/Z] = %.4f (se %.4f)", mean, se)
}

// optimalTwist is the backward information filter of the LGSSM: the twist
// psi_t(z) = p(x_{t:T} | z_t) for which the twisted proposal is the exact
// posterior conditional, i.e. the inclusive-KL optimum of the family.
func (m *lgssm) optimalTwist() (nu, lam []float64) {
	T := len(m.x)
	nu, lam = make([]float64, T), make([]float64, T)
	r2, q2 := m.r*m.r, m.q*m.q
	lam[T-1], nu[T-1] = 1/r2, m.x[T-1]/r2
	for t := T - 2; t >= 0; t-- {
		v := q2 + 1/lam[t+1]
		lam[t] = m.phi*m.phi/v + 1/r2
		nu[t] = m.phi*(nu[t+1]/lam[t+1])/v + m.x[t]/r2
	}
	return nu, lam
}

// TestRunSSMLearnsOptimalTwist checks that MSC with the CSMC kernel drives
// the twisted proposal to the inclusive-KL optimum, which for a
// linear-Gaussian model is known exactly.
func TestRunSSMLearnsOptimalTwist(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	m := &lgssm{x: []float64{0.8, -0.4, 1.3, 0.2}, phi: 0.7, q: 0.6, r: 0.5, s0: 1}
	nu, lam := m.optimalTwist()
	var res Result
	tw := twisted1(m.Len())
	k, err := NewSMCKernel(ssProb(m), tw, 10, true)
	require.NoError(t, err)
	s := Settings{Samples: 10, Iters: 40000, LR: 0.01, Optimizer: Adam}
	require.NoError(t, Run(context.Background(), rand.New(rand.NewPCG(1, 2)), ssProb(m), tw, k, s, &res))
	got := res.Q.(*Twisted)
	for i := range nu {
		require.InDeltaf(t, nu[i], got.Nu[i], 0.1*math.Max(1, math.Abs(nu[i])), "nu[%d]", i)
		require.InDeltaf(t, math.Log(lam[i]), got.LogDiag[i], 0.1, "log lambda[%d]", i)
	}
	require.Greater(t, res.ChangeRate, 0.5)
}
