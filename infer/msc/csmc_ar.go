package msc

import (
	"math"
	"math/rand/v2"
)

// GeneralStateSpace is a state-space model whose transition density can be
// evaluated but is not conditionally Gaussian (package ir detects it).
type GeneralStateSpace interface {
	Len() int
	ReserveParticles(n int)
	ObsLogDensity(t int, cur, out []float64)
	// TransitionLogDensity writes log p(z_t = cur[i] | z_{t-1} = prev[i])
	// (at t = 0 the initial density; prev is ignored).
	TransitionLogDensity(t int, prev, cur, out []float64)
}

// ARProposal is the per-step Gaussian proposal used when the transition is
// not Gaussian: q(z_t | z_{t-1}) = N(A_t + B_t z_{t-1}, exp(LogS_t)^2).
type ARProposal struct {
	A, B, LogS []float64
}

// NewARProposal starts at N(0, 1) at every step.
func NewARProposal(T int) *ARProposal {
	return &ARProposal{A: make([]float64, T), B: make([]float64, T), LogS: make([]float64, T)}
}

func (p *ARProposal) mean(t int, prev float64) float64 {
	if t == 0 {
		return p.A[0]
	}
	return p.A[t] + p.B[t]*prev
}

// CSMCAR is conditional SMC with ancestor sampling for a general
// transition density and the ARProposal (no twisting): the weights are
// p(z_t | z_{t-1}) g_{t-1}(z_{t-1}) / q(z_t | z_{t-1}), with g_T(z_T) added
// at the last step (the observations enter one step late, as in the
// paper's weights with psi = 1), and particle 0's ancestor is drawn with
// weights W_{t-1}^j p(r_t | z^j_{t-1}) g_{t-1}(z^j_{t-1}).
type CSMCAR struct {
	ssm  GeneralStateSpace
	p    *ARProposal // the proposal of the kernel's sweeps
	N, T int

	z, mean         []float64 // T x N
	anc             []int32   // T x N
	logw, wn        []float64
	gPrv, gCur      []float64
	lt, lq, aw      []float64
	prev, cur, rrep []float64
	us              []float64
	ref             []float64

	LogZ     float64
	MeanESS  float64
	Changed  bool
	FracDiff float64
}

// NewCSMCAR prepares the kernel with n particles.
func NewCSMCAR(ssm GeneralStateSpace, n int) *CSMCAR {
	T := ssm.Len()
	ssm.ReserveParticles(n)
	mk := func() []float64 { return make([]float64, n) }
	return &CSMCAR{ssm: ssm, N: n, T: T,
		z: make([]float64, T*n), mean: make([]float64, T*n), anc: make([]int32, T*n),
		logw: mk(), wn: mk(), gPrv: mk(), gCur: mk(), lt: mk(), lq: mk(), aw: mk(),
		prev: mk(), cur: mk(), rrep: mk(), us: make([]float64, n+1), ref: make([]float64, T)}
}

// Reference is the retained trajectory.
func (k *CSMCAR) Reference() []float64 { return k.ref }

func normLogPdf(x, m, s float64) float64 {
	d := (x - m) / s
	return -0.5*d*d - math.Log(s) - lnSqrt2PiMSC
}

const lnSqrt2PiMSC = 0.91893853320467274178

// Sweep runs one (conditional) sweep with proposal p.
func (k *CSMCAR) Sweep(rng *rand.Rand, p *ARProposal, conditional bool) bool {
	N, T := k.N, k.T
	start := 0
	if conditional {
		start = 1
	}
	k.LogZ, k.MeanESS = 0, 0
	ok := true
	for t := 0; t < T; t++ {
		zt, at, mt := k.z[t*N:(t+1)*N], k.anc[t*N:(t+1)*N], k.mean[t*N:(t+1)*N]
		s := math.Exp(p.LogS[t])
		if t > 0 {
			zp := k.z[(t-1)*N : t*N]
			multinomial(rng, k.wn, at[start:], k.us)
			if conditional {
				for j := range k.rrep {
					k.rrep[j] = k.ref[t]
				}
				k.ssm.TransitionLogDensity(t, zp, k.rrep, k.lt)
				for j := 0; j < N; j++ {
					k.aw[j] = k.logw[j] + k.lt[j] + k.gPrv[j]
				}
				if _, _, good := normalise(k.aw, k.aw); good {
					at[0] = int32(categorical(rng, k.aw))
				} else {
					at[0], ok = 0, false
				}
			}
			for i := 0; i < N; i++ {
				k.prev[i] = zp[at[i]]
			}
		}
		for i := 0; i < N; i++ {
			m := p.mean(t, k.prev[i])
			mt[i] = m
			if i < start {
				zt[i] = k.ref[t]
			} else {
				zt[i] = m + s*rng.NormFloat64()
			}
			k.lq[i] = normLogPdf(zt[i], m, s)
		}
		k.ssm.TransitionLogDensity(t, k.prev, zt, k.lt)
		for i := 0; i < N; i++ {
			lw := k.lt[i] - k.lq[i]
			if t > 0 {
				lw += k.gPrv[at[i]]
			}
			k.logw[i] = lw
		}
		k.ssm.ObsLogDensity(t, zt, k.gCur)
		if t == T-1 {
			for i := 0; i < N; i++ {
				k.logw[i] += k.gCur[i]
			}
		}
		logMean, ess, good := normaliseStep(k.logw, k.wn)
		ok = ok && good
		k.LogZ += logMean
		k.MeanESS += ess / float64(T)
		k.gPrv, k.gCur = k.gCur, k.gPrv
	}
	if !ok && conditional {
		k.Changed, k.FracDiff = false, 0
		return false
	}
	k.Changed, k.FracDiff = traceBack(k.z, k.anc, N, categorical(rng, k.wn), k.ref, nil)
	return ok
}
