package msc

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mscppl/mscppl/internal/smallmat"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// chainMeans runs sweeps conditional sweeps after burn and returns the
// chain's means of every latent with their batch-means standard errors.
func chainMeans(t *testing.T, c *CSMC, rng *rand.Rand, burn, sweeps, nb int) (mean, se []float64) {
	d := len(c.Reference())
	batch := make([][]float64, nb)
	for b := range batch {
		batch[b] = make([]float64, d)
	}
	for i := 0; i < burn; i++ {
		c.Sweep(rng, true)
	}
	bs := sweeps / nb
	for i := 0; i < sweeps; i++ {
		require.True(t, c.Sweep(rng, true))
		for j, v := range c.Reference() {
			batch[i/bs][j] += v / float64(bs)
		}
	}
	mean, se = make([]float64, d), make([]float64, d)
	col := make([]float64, nb)
	for j := range mean {
		for b := range batch {
			col[b] = batch[b][j]
			mean[j] += col[b] / float64(nb)
		}
		se[j] = batchSE(col)
	}
	return mean, se
}

// TestVecCSMCInvariance: with fixed, deliberately non-trivial twisted
// proposals (correlated Lambda_t), the CSMC chain on the local linear
// trend (K = 2, T = 5, the states as two latent vectors) has the exact
// posterior means of dense Gaussian algebra, within Monte Carlo error
// (batch means), for 3 and 10 particles.
func TestVecCSMCInvariance(t *testing.T) {
	m := newLLT(lltY, true)
	exact, _ := m.exact()
	for _, n := range []int{3, 10} {
		tw, err := NewTwisted(m)
		require.NoError(t, err)
		randomTwist(tw, rand.New(rand.NewPCG(11, 12)))
		c, err := NewCSMC(ssProb(m), tw, n)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(7, uint64(n)))
		c.Sweep(rng, false)
		mean, se := chainMeans(t, c, rng, 1000, 200000, 50)
		for j := range mean {
			t.Logf("N=%d z[%d]: chain %.4f exact %.4f se %.4f", n, j, mean[j], exact[j], se[j])
			require.Lessf(t, math.Abs(mean[j]-exact[j]), 4.5*se[j]+1e-4,
				"N=%d z[%d]: chain mean %.4f, exact %.4f, se %.4f", n, j, mean[j], exact[j], se[j])
		}
	}
}

// skewedAR is a deliberately non-trivial per-step proposal for the local
// linear trends: B_t the dynamics F perturbed (sd 0.15), A_t ~ N(0, 0.3^2),
// scales about 0.5 (level) and 0.3 (slope) perturbed, correlated (Off ~
// N(0, 0.2^2)). (A proposal that ignores the dynamics altogether leaves
// the chain invariant too, see TestVecOneSweepInvariance, but mixes along
// the slopes too slowly for batch means.)
func skewedAR(t *testing.T, l Layout) *ARProposal {
	p, err := NewARProposal(l)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 3))
	F := []float64{1, 1, 0, 1}
	for st := 0; st < l.Len(); st++ {
		for k := 0; k < 2; k++ {
			p.A[2*st+k] = 0.3 * rng.NormFloat64()
			p.LogDiag[2*st+k] = math.Log([]float64{0.5, 0.3}[k]) + 0.3*rng.NormFloat64()
			for j := 0; j < 2; j++ {
				if st > 0 {
					p.B[4*st+2*k+j] = F[2*k+j] + 0.15*rng.NormFloat64()
				}
			}
		}
		p.Off[st] = 0.2 * rng.NormFloat64()
	}
	p.LogDiag[0], p.LogDiag[1] = 0, 0 // N(A_1, about I) at the first step
	return p
}

// widerAR is a per-step proposal for the local linear trends whose
// weights p / q are bounded (so that Zhat has a finite variance): the
// dynamics with B_t slightly perturbed (sd 0.05), scales wider than the
// transition's (0.9 for the level, 0.4 for the slope, 1.3 at the first
// step), mildly correlated.
func widerAR(t *testing.T, l Layout) *ARProposal {
	p, err := NewARProposal(l)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(4, 4))
	F := []float64{1, 1, 0, 1}
	for st := 0; st < l.Len(); st++ {
		for k := 0; k < 2; k++ {
			p.A[2*st+k] = 0.1 * rng.NormFloat64()
			p.LogDiag[2*st+k] = math.Log([]float64{0.9, 0.4}[k])
			for j := 0; j < 2; j++ {
				if st > 0 {
					p.B[4*st+2*k+j] = F[2*k+j] + 0.05*rng.NormFloat64()
				}
			}
		}
		p.Off[st] = 0.05 * rng.NormFloat64()
	}
	p.LogDiag[0], p.LogDiag[1] = math.Log(1.3), math.Log(1.3)
	return p
}

// TestVecCSMCARInvariance: with a non-Gaussian transition (the level's
// noise a two-component mixture) and a fixed, deliberately non-trivial
// per-step proposal (full B_t, correlated L_t), the chain has the exact
// posterior means, which enumerating the 2^(T-1) mixture components makes
// a sum of dense Gaussian posteriors (the states as a matrix[T, 2] row by
// row).
func TestVecCSMCARInvariance(t *testing.T) {
	m := newMixLLT(mixY)
	exact, _ := m.exact()
	p := skewedAR(t, m)
	for _, n := range []int{3, 10} {
		c, err := NewCSMC(ssProb(m), p, n)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(9, uint64(n)))
		c.Sweep(rng, false)
		mean, se := chainMeans(t, c, rng, 1000, 200000, 50)
		for j := range mean {
			t.Logf("N=%d z[%d]: chain %.4f exact %.4f se %.4f", n, j, mean[j], exact[j], se[j])
			require.Lessf(t, math.Abs(mean[j]-exact[j]), 4.5*se[j]+1e-4,
				"N=%d z[%d]: chain mean %.4f, exact %.4f, se %.4f", n, j, mean[j], exact[j], se[j])
		}
	}
}

// TestVecOneSweepInvariance: one conditional sweep started at an exact
// posterior draw returns an exact posterior draw, whatever the proposal:
// over independent repeats (so that the standard error is exact, with no
// mixing involved) the means after one sweep are the exact posterior
// means, with proposals that are deliberately poor: a random twist, and a
// per-step proposal that ignores the dynamics (random A_t, B_t, L_t), on
// the local linear trend and, for the per-step one, on the mixture
// transition (whose exact draws pick a component sequence, then the
// Gaussian posterior given it).
func TestVecOneSweepInvariance(t *testing.T) {
	llt := newLLT(lltY, true)
	mix := newMixLLT(mixY)
	tw, err := NewTwisted(llt)
	require.NoError(t, err)
	randomTwist(tw, rand.New(rand.NewPCG(11, 12)))
	poor := func(l Layout) *ARProposal {
		p, err := NewARProposal(l)
		require.NoError(t, err)
		lam := make([]float64, p.NumLambda())
		rng := rand.New(rand.NewPCG(3, 3))
		for i := range lam {
			lam[i] = 0.4 * rng.NormFloat64()
		}
		p.SetLambda(lam)
		return p
	}
	for _, c := range []struct {
		name string
		m    StateSpace
		post *gaussMix
		q    Family
	}{{"twisted", llt, llt.posterior(), tw}, {"per-step", llt, llt.posterior(), poor(llt)}, {"per-step, mixture", mix, mix.posterior(), poor(mix)}} {
		exact, _ := c.post.moments()
		for _, n := range []int{2, 5} {
			k, err := NewCSMC(ssProb(c.m), c.q, n)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(21, uint64(n)))
			const reps = 100000
			d := len(exact)
			sum, sq, z := make([]float64, d), make([]float64, d), make([]float64, d)
			changed := 0
			for r := 0; r < reps; r++ {
				c.post.draw(rng, z)
				k.SetReference(z)
				require.True(t, k.Sweep(rng, true))
				if k.Changed {
					changed++
				}
				for i, v := range k.Reference() {
					sum[i] += v
					sq[i] += v * v
				}
			}
			require.Greater(t, changed, reps/20, "%s: the sweeps must move", c.name)
			for i := range sum {
				mu := sum[i] / reps
				se := math.Sqrt((sq[i]/reps - mu*mu) / reps)
				require.Lessf(t, math.Abs(mu-exact[i]), 4.5*se, "%s N=%d z[%d]: %.4f after one sweep, exact %.4f, se %.4f", c.name, n, i, mu, exact[i], se)
			}
		}
	}
}

// zHatRatio runs reps particle filters and returns the mean of Zhat / Z
// and its standard error.
func zHatRatio(c *CSMC, rng *rand.Rand, logZ float64, reps int) (mean, se float64) {
	r := make([]float64, reps)
	for i := range r {
		c.Sweep(rng, false)
		r[i] = math.Exp(c.LogZ - logZ)
		mean += r[i] / float64(reps)
	}
	sq := 0.0
	for _, v := range r {
		sq += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sq / float64(reps-1) / float64(reps))
}

// TestVecParticleFilterEvidence: the unconditional sweep's estimate of
// p(y) is unbiased: the mean of Zhat / Z over repeats is 1 within Monte
// Carlo error, Z exact (dense Gaussian algebra; for the mixture transition
// the enumeration of its components), with a non-trivial twist, with the
// per-step proposal on the Gaussian model and on the mixture.
func TestVecParticleFilterEvidence(t *testing.T) {
	llt := newLLT(lltY, true)
	_, logZ := llt.exact()
	tw, err := NewTwisted(llt)
	require.NoError(t, err)
	randomTwist(tw, rand.New(rand.NewPCG(1, 5)))
	arL := widerAR(t, llt)
	mix := newMixLLT(mixY)
	_, logZmix := mix.exact()
	arM := widerAR(t, mix)
	for _, c := range []struct {
		name string
		m    StateSpace
		q    Family
		logZ float64
	}{{"twisted", llt, tw, logZ}, {"per-step", llt, arL, logZ}, {"per-step, mixture", mix, arM, logZmix}} {
		k, err := NewCSMC(ssProb(c.m), c.q, 20)
		require.NoError(t, err)
		mean, se := zHatRatio(k, rand.New(rand.NewPCG(3, 4)), c.logZ, 20000)
		t.Logf("%s: E[Zhat/Z] = %.4f (se %.4f)", c.name, mean, se)
		require.Lessf(t, math.Abs(mean-1), 4*se+1e-3, "%s: E[Zhat/Z] = %.4f (se %.4f)", c.name, mean, se)
		require.Less(t, se, 0.025)
	}
	// LogEvidence (the facade's) goes through the same sweep
	est, se, err := LogEvidence(rand.New(rand.NewPCG(5, 6)), ssProb(llt), tw, 200, 20)
	require.NoError(t, err)
	require.InDeltaf(t, logZ, est, 4*se+1e-3, "LogEvidence %.4f +- %.4f, exact %.4f", est, se, logZ)
}

// TestVecOptimalTwistIsExact: at the backward information filter's twist
// the proposal is the posterior, so every particle filter estimates log p(y)
// exactly (zero variance): a check of the closed-form optimum and of the
// twisted weights. Lambda_T is singular (only the level is observed), kept
// in the family by eps = 1e-12.
func TestVecOptimalTwistIsExact(t *testing.T) {
	m := newLLT(lltY, false)
	_, logZ := m.exact()
	tw, err := NewTwisted(m)
	require.NoError(t, err)
	nu, lam := m.optimalTwist()
	setTwist(tw, nu, lam, 1e-12)
	c, err := NewCSMC(ssProb(m), tw, 5)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 100; i++ {
		c.Sweep(rng, false)
		require.InDelta(t, logZ, c.LogZ, 1e-8)
		require.InDelta(t, 5, c.MeanESS, 1e-6)
	}
}

// TestVecRunLearnsOptimalTwist: MSC (Run with the csmc kernel, chosen and
// built for the problem by the registry) drives the vector twisted
// proposal from the bootstrap start to the inclusive-KL optimum, the
// backward information filter's twist (nu_t, Lambda_t); Lambda_T's slope
// row, 0 at the optimum (only the level is observed), goes to 0. A
// state-space proposal's Adam step decreases ((1 + k/1000)^-0.6): with a
// constant step the averaged iterates settled short of the optimum by a
// bias that shrank with the step (about 8% at 0.01, 3% at 0.003), the
// kernel adapting to its latest trajectories. The tolerance is 6% of each
// value's scale: over seeds 1-5 Lambda_3's slope entry (2.439 at the
// optimum) read 2.32-2.49 with the paper's weights and 2.32-2.49 with the
// look-ahead ones (sd about 0.06, 2.5% of its scale), the other values
// within 4.5% (the 2-3% short of the optimum above, and the noise).
func TestVecRunLearnsOptimalTwist(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	m := newLLT(lltY[:4], true)
	nu, lam := m.optimalTwist()
	p := ssProb(m)
	spec, err := ChooseKernel("msc", p, KernelOptions{})
	require.NoError(t, err)
	require.Equal(t, "csmc", spec.Name)
	q, err := NewProposal(p)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 2))
	var res Result
	for _, s := range []Settings{
		{Samples: 10, Iters: 200000, LR: 0.05, Optimizer: Adam, Fixed: true},
	} {
		k, release, err := NewKernel(spec, p, q, 10, KernelOptions{})
		require.NoError(t, err)
		require.NoError(t, Run(context.Background(), rng, p, q, k, s, &res))
		release()
		q = res.Q
	}
	got := res.Q.(*Twisted)
	K := m.K
	L := make([]float64, K*K)
	for st := range nu {
		got.LambdaMatrix(st, L)
		for i := 0; i < K; i++ {
			t.Logf("t=%d nu[%d] %.3f (optimum %.3f); Lambda row %d %.3f %.3f (optimum %.3f %.3f)", st, i,
				got.Nu[st*K+i], nu[st].AtVec(i), i, L[i*K], L[i*K+1], lam[st].At(i, 0), lam[st].At(i, 1))
		}
		// the scale of nu_k is that of the optimal proposal's precision
		// P = S^-1 + Lambda (nu_k / sqrt(P_kk) moves its mean by so many
		// sd), that of Lambda_ij the larger of Lambda_ii and Lambda_jj
		P := m.transitionPrecision(st)
		for i := 0; i < K; i++ {
			scale := math.Max(1, math.Max(math.Abs(nu[st].AtVec(i)), math.Sqrt(P.At(i, i)+lam[st].At(i, i))))
			require.InDeltaf(t, nu[st].AtVec(i), got.Nu[st*K+i], 0.06*scale, "nu[%d][%d]", st, i)
			for j := 0; j < K; j++ {
				want := lam[st].At(i, j)
				scale := math.Max(1, math.Max(lam[st].At(i, i), lam[st].At(j, j)))
				require.InDeltaf(t, want, L[i*K+j], 0.06*scale, "Lambda[%d][%d][%d]", st, i, j)
			}
		}
	}
	require.Greater(t, res.ChangeRate, 0.5)
}

// TestK1MatchesGeneric: with K = 1 the sweep's scalar inner loop
// (steps1.go) is the K-dimensional algebra's: the same model, proposals
// and random streams give the same trajectories, evidence estimates and
// recorded transition moments, up to rounding, with a shared transition
// sd and with one per particle.
func TestK1MatchesGeneric(t *testing.T) {
	y := []float64{0.8, -0.4, 1.3, 0.2, -1.1, 0.5, 2.1}
	T := len(y)
	base := func() *lgvec {
		return &lgvec{vlayout: vlayout{T: T, K: 1}, y: y, F: []float64{0.7}, Lq: []float64{0.6},
			m0: []float64{0}, L0: []float64{1}, H: []float64{1}, r: 0.5}
	}
	hetero := base()
	hetero.scale = func(_ int, prev []float64) float64 { return 0.3 * math.Abs(prev[0]) }
	rng := rand.New(rand.NewPCG(5, 6))
	for _, m := range []*lgvec{base(), hetero} {
		tw, err := NewTwisted(m)
		require.NoError(t, err)
		ar, err := NewARProposal(m)
		require.NoError(t, err)
		for i := 0; i < T; i++ {
			tw.Nu[i], tw.LogDiag[i] = rng.NormFloat64(), rng.NormFloat64()
			ar.A[i], ar.B[i], ar.LogDiag[i] = rng.NormFloat64(), rng.NormFloat64(), 0.3*rng.NormFloat64()
		}
		for _, q := range []Family{tw, ar} {
			q2 := q.Clone()
			fast, err := NewCSMC(ssProb(m), q, 6)
			require.NoError(t, err)
			slow, err := NewCSMC(ssProb(m), q2, 6)
			require.NoError(t, err)
			switch p := slow.p.(type) {
			case *twistedSteps:
				p.generic = true
			case *arSteps:
				p.generic = true
			}
			r1, r2 := rand.New(rand.NewPCG(1, 1)), rand.New(rand.NewPCG(1, 1))
			for it := 0; it < 300; it++ {
				cond := it > 0
				require.Equal(t, fast.Sweep(r1, cond), slow.Sweep(r2, cond))
				require.InDeltaSlice(t, slow.Reference(), fast.Reference(), 1e-9, "%s: sweep %d", q.Name(), it)
				require.InDelta(t, slow.LogZ, fast.LogZ, 1e-9, "%s: sweep %d", q.Name(), it)
				require.InDelta(t, slow.MeanESS, fast.MeanESS, 1e-9)
				require.Equal(t, slow.Changed, fast.Changed)
				if tw, ok := q.(*Twisted); ok {
					require.InDeltaSlice(t, q2.(*Twisted).path, tw.path, 1e-12)
				}
			}
		}
	}
}

// TestTwistedSharedMatchesPerParticle: computing the proposal's factors
// once per step when every particle has the same transition covariance
// gives the same sweeps, to the bit, as computing them per particle, with
// K = 2 and with the scalar inner loop (K = 1).
func TestTwistedSharedMatchesPerParticle(t *testing.T) {
	k1 := &lgvec{vlayout: vlayout{T: 7, K: 1}, y: []float64{0.8, -0.4, 1.3, 0.2, -1.1, 0.5, 2.1},
		F: []float64{0.7}, Lq: []float64{0.6}, m0: []float64{0}, L0: []float64{1}, H: []float64{1}, r: 0.5}
	for _, m := range []*lgvec{newLLT(lltY, true), k1} {
		tw, err := NewTwisted(m)
		require.NoError(t, err)
		randomTwist(tw, rand.New(rand.NewPCG(2, 2)))
		fast, err := NewCSMC(ssProb(m), tw, 6)
		require.NoError(t, err)
		tw2 := tw.Clone().(*Twisted)
		slow, err := NewCSMC(ssProb(m), tw2, 6)
		require.NoError(t, err)
		slow.p.(*twistedSteps).perParticle = true
		r1, r2 := rand.New(rand.NewPCG(1, 1)), rand.New(rand.NewPCG(1, 1))
		g1, g2 := make([]float64, tw.NumLambda()), make([]float64, tw.NumLambda())
		for it := 0; it < 200; it++ {
			cond := it > 0
			require.Equal(t, fast.Sweep(r1, cond), slow.Sweep(r2, cond))
			require.Equal(t, fast.Reference(), slow.Reference(), "K = %d, sweep %d", m.K, it)
			require.Equal(t, math.Float64bits(fast.LogZ), math.Float64bits(slow.LogZ), "K = %d, sweep %d", m.K, it)
			require.Equal(t, tw.path, tw2.path)
		}
		tw.AddScore(1, fast.Reference(), g1)
		tw2.AddScore(1, slow.Reference(), g2)
		require.Equal(t, g1, g2)
	}
}

// logNormal is log N(x; mu, C) by gonum, for the reference log q.
func logNormal(x, mu []float64, C *mat.SymDense) float64 {
	var ch mat.Cholesky
	if !ch.Factorize(C) {
		panic("not PD")
	}
	d := mat.NewVecDense(len(x), nil)
	for i := range x {
		d.SetVec(i, x[i]-mu[i])
	}
	var s mat.VecDense
	_ = ch.SolveVecTo(&s, d)
	return -0.5*mat.Dot(d, &s) - 0.5*ch.LogDet() - 0.5*float64(len(x))*ln2Pi
}

// refLogQTwisted is log q(z) of the vector twisted proposal computed
// directly: at each step the model's transition at the previous state,
// Lambda_t from the documented parameterisation, and the Gaussian
// N(P^-1 (S^-1 m + nu), P^-1), P = S^-1 + Lambda, by gonum.
func refLogQTwisted(m *lgvec, tw *Twisted, z []float64) float64 {
	T, K := m.T, m.K
	lp := 0.0
	prev := make([]float64, K)
	for t := 0; t < T; t++ {
		x := make([]float64, K)
		for k := range x {
			x[k] = z[m.Index(t, k)]
		}
		mean, chol := make([]float64, K), make([]float64, K*K)
		m.Transition(t, prev, mean, chol)
		Lt := mat.NewTriDense(K, mat.Lower, chol)
		var S, Si mat.Dense
		S.Mul(Lt, Lt.T())
		_ = Si.Inverse(&S)
		// Lambda = U D U', U unit lower triangular
		U := mat.NewTriDense(K, mat.Lower, nil)
		D := mat.NewDiagDense(K, nil)
		o := t * K * (K - 1) / 2
		for i := 0; i < K; i++ {
			for j := 0; j < i; j++ {
				U.SetTri(i, j, tw.Off[o])
				o++
			}
			U.SetTri(i, i, 1)
			D.SetDiag(i, math.Exp(tw.LogDiag[t*K+i]))
		}
		var lam, P, Pi mat.Dense
		lam.Mul(U, D)
		lam.Mul(&lam, U.T())
		P.Add(&Si, &lam)
		_ = Pi.Inverse(&P)
		var h, mu mat.VecDense
		h.MulVec(&Si, mat.NewVecDense(K, mean))
		h.AddVec(&h, mat.NewVecDense(K, tw.Nu[t*K:(t+1)*K]))
		mu.MulVec(&Pi, &h)
		C := mat.NewSymDense(K, nil)
		for i := 0; i < K; i++ {
			for j := i; j < K; j++ {
				C.SetSym(i, j, 0.5*(Pi.At(i, j)+Pi.At(j, i)))
			}
		}
		lp += logNormal(x, mu.RawVector().Data, C)
		copy(prev, x)
	}
	return lp
}

// refLogQAR is log q(z) of the vector per-step proposal, by gonum.
func refLogQAR(l vlayout, p *ARProposal, z []float64) float64 {
	T, K := l.T, l.K
	lp := 0.0
	prev := make([]float64, K)
	for t := 0; t < T; t++ {
		x := make([]float64, K)
		for k := range x {
			x[k] = z[l.Index(t, k)]
		}
		mean := mat.NewVecDense(K, append([]float64(nil), p.A[t*K:(t+1)*K]...))
		if t > 0 {
			var bx mat.VecDense
			bx.MulVec(mat.NewDense(K, K, append([]float64(nil), p.B[t*K*K:(t+1)*K*K]...)), mat.NewVecDense(K, prev))
			mean.AddVec(mean, &bx)
		}
		L := mat.NewTriDense(K, mat.Lower, nil)
		o := t * K * (K - 1) / 2
		for i := 0; i < K; i++ {
			for j := 0; j < i; j++ {
				L.SetTri(i, j, p.Off[o])
				o++
			}
			L.SetTri(i, i, math.Exp(p.LogDiag[t*K+i]))
		}
		var S mat.Dense
		S.Mul(L, L.T())
		lp += logNormal(x, mean.RawVector().Data, mat.NewSymDense(K, S.RawMatrix().Data))
		copy(prev, x)
	}
	return lp
}

// TestVecScores: AddScore of both proposals equals central finite
// differences of log q computed directly (gonum) in every parameter, at a
// retained trajectory of a K = 3 and a K = 1 model whose transition
// covariance depends on the previous state (so the factor recorded along
// the trajectory is each particle's own).
func TestVecScores(t *testing.T) {
	scale := func(_ int, prev []float64) float64 { return 0.3 * math.Abs(prev[0]) }
	y := []float64{0.5, -0.2, 1.1, 0.7}
	for _, m := range []*lgvec{{vlayout: vlayout{T: 4, K: 3, colMajor: true}, y: y,
		F:  []float64{0.9, 0.2, 0, -0.1, 0.8, 0.3, 0, 0.1, 0.7},
		Lq: []float64{0.5, 0, 0, 0.1, 0.4, 0, -0.2, 0.1, 0.6},
		m0: []float64{0, 0.5, -0.5}, L0: []float64{1, 0, 0, 0.2, 0.9, 0, 0.1, -0.3, 0.8},
		H: []float64{1, 0.5, -0.5}, r: 0.7, scale: scale,
	}, {vlayout: vlayout{T: 4, K: 1}, y: y, F: []float64{0.9}, Lq: []float64{0.5}, m0: []float64{0.2}, L0: []float64{1},
		H: []float64{1}, r: 0.7, scale: scale}} { // K = 1: the scalar scores (steps1.go)
		vecScores(t, m)
	}
}

func vecScores(t *testing.T, m *lgvec) {
	rng := rand.New(rand.NewPCG(4, 4))
	tw, err := NewTwisted(m)
	require.NoError(t, err)
	randomTwist(tw, rng)
	c, err := NewCSMC(ssProb(m), tw, 8)
	require.NoError(t, err)
	c.Sweep(rng, false)
	for i := 0; i < 20; i++ {
		c.Sweep(rng, true)
	}
	require.False(t, c.p.(*twistedSteps).shared[1])
	z := append([]float64(nil), c.Reference()...)
	fd := func(q Family, logq func() float64) {
		lam := make([]float64, q.NumLambda())
		q.Lambda(lam)
		score := make([]float64, len(lam))
		q.AddScore(1, z, score)
		const h = 1e-6
		for i := range lam {
			lp := append([]float64(nil), lam...)
			lp[i] += h
			q.SetLambda(lp)
			fp := logq()
			lp[i] -= 2 * h
			q.SetLambda(lp)
			fm := logq()
			require.InDeltaf(t, (fp-fm)/(2*h), score[i], 1e-6, "%s: component %d", q.Name(), i)
		}
		q.SetLambda(lam)
	}
	fd(tw, func() float64 { return refLogQTwisted(m, tw, z) })

	ar, err := NewARProposal(m)
	require.NoError(t, err)
	lam := make([]float64, ar.NumLambda())
	for i := range lam {
		lam[i] = 0.4 * rng.NormFloat64()
	}
	ar.SetLambda(lam)
	fd(ar, func() float64 { return refLogQAR(m.vlayout, ar, z) })
}

// TestVecProblemCapabilities: a vector state-space structure meets the
// needs of the csmc and smc kernels; the proposal is the vector twisted one
// for a Gaussian transition, the vector per-step one otherwise; the scalar
// proposals are not offered, and the messages are unchanged.
func TestVecProblemCapabilities(t *testing.T) {
	m := newLLT(lltY, true)
	p := ssProb(m)
	require.Equal(t, CapStateSpace|CapGaussianTransition|CapTransitionDensity, p.Has())
	for _, name := range []string{"csmc", "smc"} {
		spec, ok := LookupKernel(name)
		require.True(t, ok)
		require.NoError(t, spec.Check(p, KernelOptions{}))
		q, err := NewProposal(p)
		require.NoError(t, err)
		require.IsType(t, &Twisted{}, q)
		k, release, err := NewKernel(spec, p, q, 10, KernelOptions{})
		require.NoError(t, err)
		release()
		require.Equal(t, name, k.Name())
		require.NoError(t, k.Init(rand.New(rand.NewPCG(1, 1))))
		_, err = k.Step(rand.New(rand.NewPCG(1, 2)))
		require.NoError(t, err)
		require.Len(t, k.Retained(), 10)
	}
	spec, err := ChooseKernel("msc", p, KernelOptions{})
	require.NoError(t, err)
	require.Equal(t, "csmc", spec.Name)

	mp := ssProb(newMixLLT(mixY))
	require.Equal(t, CapStateSpace|CapTransitionDensity, mp.Has())
	q, err := NewProposal(mp)
	require.NoError(t, err)
	require.IsType(t, &ARProposal{}, q)
	_, err = NewCSMC(mp, mustTwisted(t, m), 5)
	require.ErrorContains(t, err, "needs a state-space structure with a Gaussian transition")

	// the scalar model is unaffected
	sp := ssProb(&lgssm{x: []float64{0.8, -0.4, 1.3}, phi: 0.7, q: 0.6, r: 0.5, s0: 1})
	q, err = NewProposal(sp)
	require.NoError(t, err)
	require.IsType(t, &Twisted{}, q)

	// a layout that is not one-to-one
	_, err = NewTwisted(badLayout{})
	require.ErrorContains(t, err, "not one-to-one")
}

type badLayout struct{}

func (badLayout) Len() int           { return 3 }
func (badLayout) StateDim() int      { return 2 }
func (badLayout) Index(t, k int) int { return t }

func mustTwisted(t *testing.T, l Layout) *Twisted {
	tw, err := NewTwisted(l)
	require.NoError(t, err)
	return tw
}

// TestVecStepNoAllocs: an MSC iteration's kernel step (a conditional sweep)
// and score at the retained trajectory allocate nothing, for both vector
// proposals (the models' own evaluations aside: lgvec's TransitionLogDensity
// allocates, so the per-step proposal runs on a model that does not).
func TestVecStepNoAllocs(t *testing.T) {
	llt := newLLT(lltY, true)
	tw, err := NewTwisted(llt)
	require.NoError(t, err)
	ar, err := NewARProposal(llt)
	require.NoError(t, err)
	for _, c := range []struct {
		p *Problem
		q Family
	}{{ssProb(llt), tw}, {ssProb(noAllocGeneral{llt}), ar}} {
		k, err := NewSMCKernel(c.p, c.q, 10, true)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(1, 1))
		require.NoError(t, k.Init(rng))
		grad := make([]float64, c.q.NumLambda())
		allocs := testing.AllocsPerRun(100, func() {
			_, _ = k.Step(rng)
			c.q.AddScore(1, k.Retained(), grad)
		})
		require.Zero(t, allocs, c.q.Name())
	}
}

// noAllocGeneral is lgvec's diagonal-noise transition density evaluated
// without allocating (Lq diagonal).
type noAllocGeneral struct{ *lgvec }

func (m noAllocGeneral) TransitionLogDensity(t int, prev, cur, out []float64) {
	for i := range out {
		x := cur[2*i : 2*i+2]
		if t == 0 {
			out[i] = normLogPdf(x[0], m.m0[0], 1) + normLogPdf(x[1], m.m0[1], 1)
			continue
		}
		p := prev[2*i : 2*i+2]
		out[i] = normLogPdf(x[0], p[0]+p[1], m.Lq[0]) + normLogPdf(x[1], p[1], m.Lq[3])
	}
}

// BenchmarkVecCSMCSweep: one CSMC sweep of the vector twisted proposal on a
// local linear trend, K = 2, T = 2000, N = 10 particles.
func BenchmarkVecCSMCSweep(b *testing.B) {
	const T, N = 2000, 10
	rng := rand.New(rand.NewPCG(1, 1))
	y := make([]float64, T)
	lv, sl := 0.0, 0.0
	for t := range y {
		sl += 0.05 * rng.NormFloat64()
		lv += sl + 0.3*rng.NormFloat64()
		y[t] = lv + 0.5*rng.NormFloat64()
	}
	m := newLLT(y, true)
	tw, err := NewTwisted(m)
	if err != nil {
		b.Fatal(err)
	}
	c, err := NewCSMC(ssProb(m), tw, N)
	if err != nil {
		b.Fatal(err)
	}
	c.Sweep(rng, false)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c.Sweep(rng, true)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(T*N), "ns/particle-step")
}

// LambdaMatrix writes Lambda_t (K x K, row-major) into dst.
func (tw *Twisted) LambdaMatrix(t int, dst []float64) {
	R := make([]float64, tw.K*tw.K)
	tw.factorR(t, R)
	smallmat.LowerLT(R, dst, tw.K)
}

// BenchmarkK1Sweep: one conditional sweep of a scalar AR(1) state (T =
// 2000, N = 10) through the K = 1 inner loop and through the
// K-dimensional algebra (the twisted proposal).
func BenchmarkK1Sweep(b *testing.B) {
	const T, N = 2000, 10
	rng := rand.New(rand.NewPCG(1, 1))
	y := make([]float64, T)
	for t := range y {
		y[t] = rng.NormFloat64()
	}
	m := &lgvec{vlayout: vlayout{T: T, K: 1}, y: y, F: []float64{0.9}, Lq: []float64{0.5}, m0: []float64{0}, L0: []float64{1}, H: []float64{1}, r: 0.7}
	for _, generic := range []bool{false, true} {
		b.Run(map[bool]string{false: "scalar", true: "generic"}[generic], func(b *testing.B) {
			tw, err := NewTwisted(m)
			require.NoError(b, err)
			c, err := NewCSMC(ssProb(m), tw, N)
			require.NoError(b, err)
			c.p.(*twistedSteps).generic = generic
			c.Sweep(rng, false)
			b.ReportAllocs()
			for b.Loop() {
				c.Sweep(rng, true)
			}
		})
	}
}
