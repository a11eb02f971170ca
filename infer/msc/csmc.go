package msc

import (
	"math"
	"math/rand/v2"
)

// StateSpace is a state-space model with one scalar latent state per time
// step and a conditionally Gaussian transition,
//
//	z_1 ~ N(m_1, s_1^2),  z_t | z_{t-1} ~ N(m_t(z_{t-1}), s_t(z_{t-1})^2),
//	x_t | z_t ~ g_t(x_t | z_t),
//
// as detected by package ir. Time steps are 0-based here.
type StateSpace interface {
	// Len is the number of time steps T.
	Len() int
	// ReserveParticles prepares evaluations over n particles.
	ReserveParticles(n int)
	// Transition writes the mean and sd of p(z_t | z_{t-1} = prev[i]) for
	// each particle i (len(mean) particles). At t = 0 prev is ignored and the
	// initial distribution is returned.
	Transition(t int, prev []float64, mean, sd []float64)
	// ObsLogDensity writes log g_t(x_t | z_t = cur[i]) for each particle.
	ObsLogDensity(t int, cur []float64, out []float64)
}

// Twisted is the paper's twisted Gaussian proposal for state-space models:
//
//	q(z_t | z_{t-1}) ∝ p(z_t | z_{t-1}) psi_t(z_t),  psi_t(z) = exp(-Lambda_t z^2 / 2 + Nu_t z),
//
// with Lambda_t = exp(LogLambda_t) > 0.
type Twisted struct {
	Nu, LogLambda []float64
	// path holds the transition (mean, sd) along the retained trajectory
	// of the last CSMC sweep, for AddScore.
	path []float64
}

// NewTwisted returns the twisted family for T steps, started at psi close to
// 1 (q close to the model's transition, the bootstrap proposal).
func NewTwisted(T int) *Twisted {
	tw := &Twisted{Nu: make([]float64, T), LogLambda: make([]float64, T), path: make([]float64, 2*T)}
	for t := range tw.LogLambda {
		tw.LogLambda[t] = math.Log(1e-2)
	}
	return tw
}

// twist returns the proposal's mean mu and precision P, and log Z, the log
// normaliser of p(z_t | z_{t-1}) psi_t(z_t), for transition mean m and sd s.
func (tw *Twisted) twist(t int, m, s float64) (mu, prec, logZ float64) {
	lam := math.Exp(tw.LogLambda[t])
	is2 := 1 / (s * s)
	prec = is2 + lam
	h := m*is2 + tw.Nu[t]
	mu = h / prec
	logZ = -0.5*math.Log(s*s*prec) + 0.5*h*h/prec - 0.5*m*m*is2
	return
}

func (tw *Twisted) logPsi(t int, z float64) float64 {
	return -0.5*math.Exp(tw.LogLambda[t])*z*z + tw.Nu[t]*z
}

// CSMC is the conditional sequential Monte Carlo kernel with ancestor
// sampling (Lindsten, Jordan & Schön 2014) with twisted proposals, exactly
// as in the paper's supplement: the retained trajectory is particle 0, the
// other particles are resampled multinomially by their normalised weights,
// particle 0's ancestor is drawn with weights W_{t-1}^j times the ratio of
// twisted targets, all weights stay in log space, and a final draw picks the
// new retained trajectory. With Conditional = false the same sweep is a
// plain twisted particle filter (the SMC baseline and the evidence
// estimator).
type CSMC struct {
	ssm  StateSpace
	tw   *Twisted // the proposal of the kernel's sweeps
	N, T int

	z    []float64 // T x N particle values
	anc  []int32   // T x N ancestor indices (into step t-1)
	mean []float64 // T x N transition mean used by each particle
	sd   []float64 // T x N transition sd used by each particle
	logw []float64 // N log weights of the current step
	wn   []float64 // N normalised weights
	gPrv []float64 // N observation log densities at t-1
	gCur []float64
	prev []float64 // N
	tm   []float64 // N transition means for all previous particles
	ts   []float64 // N transition sds
	aw   []float64 // N ancestor-sampling log weights
	us   []float64 // N+1 scratch for sorted uniforms
	ref  []float64 // T retained trajectory
	path []float64 // 2T transition (mean, sd) along the retained trajectory

	// Per sweep diagnostics.
	LogZ     float64 // log of the unbiased estimate of p(x_{1:T}) (meaningful for unconditional sweeps)
	MeanESS  float64 // mean over t of the ESS of the normalised weights
	Changed  bool    // the retained trajectory changed
	FracDiff float64 // fraction of time steps whose retained value changed
}

// NewCSMC prepares a kernel with n particles (n >= 2).
func NewCSMC(ssm StateSpace, n int) *CSMC {
	T := ssm.Len()
	ssm.ReserveParticles(n)
	return &CSMC{
		ssm: ssm, N: n, T: T,
		z: make([]float64, T*n), anc: make([]int32, T*n),
		mean: make([]float64, T*n), sd: make([]float64, T*n),
		logw: make([]float64, n), wn: make([]float64, n),
		gPrv: make([]float64, n), gCur: make([]float64, n),
		prev: make([]float64, n), tm: make([]float64, n), ts: make([]float64, n),
		aw: make([]float64, n), us: make([]float64, n+1),
		ref: make([]float64, T), path: make([]float64, 2*T),
	}
}

// Reference returns the retained trajectory (a view).
func (k *CSMC) Reference() []float64 { return k.ref }

// SetReference sets the retained trajectory.
func (k *CSMC) SetReference(r []float64) { copy(k.ref, r) }

// normalise turns log weights into normalised weights and returns
// log(mean weight) and the ESS. ok is false if every weight is -Inf or a
// weight is NaN.
func normalise(logw, wn []float64) (logMean, ess float64, ok bool) {
	mx := math.Inf(-1)
	for _, lw := range logw {
		if math.IsNaN(lw) {
			return math.NaN(), 0, false
		}
		if lw > mx {
			mx = lw
		}
	}
	if math.IsInf(mx, -1) {
		return math.Inf(-1), 0, false
	}
	sum := 0.0
	for i, lw := range logw {
		w := math.Exp(lw - mx)
		wn[i] = w
		sum += w
	}
	sq := 0.0
	for i := range wn {
		wn[i] /= sum
		sq += wn[i] * wn[i]
	}
	return mx + math.Log(sum/float64(len(logw))), 1 / sq, true
}

// normaliseStep normalises the log weights of one SMC step; if they
// degenerated (all -Inf or NaN) it sets uniform weights, so that the sweep
// can end, and reports false (the caller then keeps the retained
// trajectory).
func normaliseStep(logw, wn []float64) (logMean, ess float64, ok bool) {
	logMean, ess, ok = normalise(logw, wn)
	if !ok {
		for i := range wn {
			wn[i] = 1 / float64(len(wn))
		}
		ess = 0
	}
	return logMean, ess, ok
}

// categorical draws an index with probabilities w (normalised).
func categorical(rng *rand.Rand, w []float64) int {
	u := rng.Float64()
	c := 0.0
	for i, p := range w {
		c += p
		if u < c {
			return i
		}
	}
	return len(w) - 1
}

// multinomial fills out with independent draws from the categorical
// distribution w, in O(len(w) + len(out)) time: sorted uniforms from
// normalised cumulative exponential spacings, merged with the cumulative
// weights. scratch needs len(out)+1 slots.
func multinomial(rng *rand.Rand, w []float64, out []int32, scratch []float64) {
	n := len(out)
	if n == 0 {
		return
	}
	u := scratch[:n+1]
	s := 0.0
	for i := range u {
		s += rng.ExpFloat64()
		u[i] = s
	}
	total := u[n]
	j, c := 0, w[0]
	for i := 0; i < n; i++ {
		x := u[i] / total
		for x >= c && j < len(w)-1 {
			j++
			c += w[j]
		}
		out[i] = int32(j)
	}
	// the draws are sorted; the kernel does not care about their order,
	// since particles are exchangeable
}

// Sweep runs one CSMC sweep (or a plain particle filter when conditional is
// false) with proposal tw and draws a new retained trajectory. It returns
// false if the weights degenerated at some step (all -Inf or NaN); the
// retained trajectory is then kept.
func (k *CSMC) Sweep(rng *rand.Rand, tw *Twisted, conditional bool) bool {
	N, T := k.N, k.T
	start := 0
	if conditional {
		start = 1
	}
	k.LogZ, k.MeanESS = 0, 0
	ok := true
	for t := 0; t < T; t++ {
		zt := k.z[t*N : (t+1)*N]
		at := k.anc[t*N : (t+1)*N]
		mt := k.mean[t*N : (t+1)*N]
		st := k.sd[t*N : (t+1)*N]
		if t == 0 {
			k.ssm.Transition(0, k.prev, k.tm, k.ts)
			for i := 0; i < N; i++ {
				at[i] = 0
				mt[i], st[i] = k.tm[i], k.ts[i]
			}
		} else {
			zp := k.z[(t-1)*N : t*N]
			k.ssm.Transition(t, zp, k.tm, k.ts)
			multinomial(rng, k.wn, at[start:], k.us)
			if conditional {
				// Ancestor sampling: W_{t-1}^j times the ratio of twisted
				// targets gamma_T(z^j_{1:t-1}, r_{t:T}) / gamma_{t-1}(z^j_{1:t-1})
				// = p(r_t | z^j_{t-1}) g_{t-1}(z^j_{t-1}) / psi_{t-1}(z^j_{t-1}).
				r := k.ref[t]
				for j := 0; j < N; j++ {
					d := (r - k.tm[j]) / k.ts[j]
					k.aw[j] = k.logw[j] - 0.5*d*d - math.Log(k.ts[j]) + k.gPrv[j] - tw.logPsi(t-1, zp[j])
				}
				if _, _, good := normalise(k.aw, k.aw); good {
					at[0] = int32(categorical(rng, k.aw))
				} else {
					at[0] = 0
					ok = false
				}
			}
			for i := 0; i < N; i++ {
				mt[i], st[i] = k.tm[at[i]], k.ts[at[i]]
			}
		}
		last := t == T-1
		for i := 0; i < N; i++ {
			mu, prec, logZ := tw.twist(t, mt[i], st[i])
			if i < start {
				zt[i] = k.ref[t]
			} else {
				zt[i] = mu + rng.NormFloat64()/math.Sqrt(prec)
			}
			lw := logZ
			if t > 0 {
				a := at[i]
				lw += k.gPrv[a] - tw.logPsi(t-1, k.z[(t-1)*N+int(a)])
			}
			k.logw[i] = lw
		}
		k.ssm.ObsLogDensity(t, zt, k.gCur)
		if last {
			for i := 0; i < N; i++ {
				k.logw[i] += k.gCur[i] - tw.logPsi(t, zt[i])
			}
		}
		logMean, ess, good := normaliseStep(k.logw, k.wn)
		ok = ok && good
		k.LogZ += logMean
		k.MeanESS += ess / float64(T)
		k.gPrv, k.gCur = k.gCur, k.gPrv
	}
	if !ok {
		k.Changed, k.FracDiff = false, 0
		if conditional {
			return false
		}
	}
	k.Changed, k.FracDiff = traceBack(k.z, k.anc, N, categorical(rng, k.wn), k.ref, func(t, j int) {
		k.path[2*t], k.path[2*t+1] = k.mean[t*N+j], k.sd[t*N+j]
	})
	return ok
}

// traceBack makes particle j of the last step, followed back through its
// ancestors, the new retained trajectory ref, calling visit(t, index) on
// the way when visit is not nil. It reports whether the trajectory changed
// and the fraction of time steps whose value changed.
func traceBack(z []float64, anc []int32, N, j int, ref []float64, visit func(t, j int)) (bool, float64) {
	diff := 0
	for t := len(ref) - 1; t >= 0; t-- {
		v := z[t*N+j]
		if v != ref[t] {
			diff++
		}
		ref[t] = v
		if visit != nil {
			visit(t, j)
		}
		j = int(anc[t*N+j])
	}
	return diff > 0, float64(diff) / float64(len(ref))
}
