package msc

import (
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/internal/smallmat"
)

// Twisted is the paper's twisted Gaussian proposal for a state-space model
// with K-dimensional states (K = 1: a scalar state) and a Gaussian
// transition N(m_t, S_t):
//
//	q(x_t | x_{t-1}) ∝ N(x_t; m_t(x_{t-1}), S_t(x_{t-1})) psi_t(x_t),
//	psi_t(x) = exp(-x' Lambda_t x / 2 + nu_t' x),
//
// a Gaussian with precision P_t = S_t^-1 + Lambda_t and mean
// P_t^-1 (S_t^-1 m_t + nu_t). Lambda_t = U_t D_t U_t' (its LDL'
// decomposition) with D_t = diag(exp(LogDiag_t)) and U_t unit lower
// triangular, its entries below the diagonal Off_t (row by row: U_10,
// U_20, U_21, ...). This maps all of R^(K(K+1)/2) one to one onto the
// positive-definite matrices; with Off = 0 Lambda_t is the diagonal
// exp(LogDiag_t), and for K = 1 Lambda_t = exp(LogDiag_t).
// (A Cholesky factor with a log diagonal, the other choice, lets MSC's
// Adam steps drive a diagonal entry to 0 while an off-diagonal entry has
// the wrong sign, a trap that LDL' avoids: the off-diagonal's gradient is
// not dominated there by the diagonal below it.) A singular optimum (a
// direction the data after step t say nothing about) is approached as a
// LogDiag goes to -Inf.
//
// Nu, LogDiag and Off are indexed by step: Nu[t*K+k], LogDiag[t*K+k],
// Off[t*K(K-1)/2 + k(k-1)/2 + l] for k > l.
type Twisted struct {
	stepParams
	Nu, LogDiag, Off []float64 // views of lambda

	path []float64 // T x (K + K*K): the transition mean and factor along the retained trajectory
	work *twistWork
}

// NewTwisted returns the twisted proposal for the model's layout, started
// at Lambda_t = 0.01 I, nu_t = 0 (q close to the bootstrap proposal).
func NewTwisted(l Layout) (*Twisted, error) {
	p, b, err := newStepParams(l, []string{"nu", "log_lambda_diag", "lambda_unit_factor_offdiag"},
		func(K int) []int { return []int{K, K, K * (K - 1) / 2} },
		"lambda", "Lambda_t = U_t D_t U_t', D_t = diag(exp(log_lambda_diag[t])), U_t unit lower triangular with lambda_unit_factor_offdiag[t] below the diagonal, row by row")
	if err != nil {
		return nil, err
	}
	tw := &Twisted{stepParams: p}
	tw.views(b)
	for i := range tw.LogDiag {
		tw.LogDiag[i] = math.Log(1e-2)
	}
	return tw, nil
}

func (tw *Twisted) views(b [][]float64) {
	tw.Nu, tw.LogDiag, tw.Off = b[0], b[1], b[2]
	tw.path = make([]float64, tw.T*(tw.K+tw.K*tw.K))
	tw.work = newTwistWork(tw.K)
}

// factorR writes R_t = U_t D_t^(1/2), the lower Cholesky factor of
// Lambda_t, into R (K x K).
func (tw *Twisted) factorR(t int, R []float64) {
	K := tw.K
	off := tw.Off[t*K*(K-1)/2:]
	ld := tw.LogDiag[t*K : (t+1)*K]
	for i := 0; i < K; i++ {
		R[i*K+i] = math.Exp(0.5 * ld[i])
	}
	o := 0
	for i := 0; i < K; i++ {
		for j := 0; j < i; j++ {
			R[i*K+j] = off[o] * R[j*K+j]
			o++
		}
		for j := i + 1; j < K; j++ {
			R[i*K+j] = 0
		}
	}
}

// twistWork is scratch for the proposal's algebra at one step.
type twistWork struct {
	K                         int
	R, lam, linv, sinv, p, ci []float64 // K x K
	g, gr                     []float64 // K x K
	mu, h, u, x               []float64 // K
}

func newTwistWork(K int) *twistWork {
	m := func() []float64 { return make([]float64, K*K) }
	v := func() []float64 { return make([]float64, K) }
	return &twistWork{K: K, R: m(), lam: m(), linv: m(), sinv: m(), p: m(), ci: m(), g: m(), gr: m(),
		mu: v(), h: v(), u: v(), x: v()}
}

// covFactor computes what the twisted proposal of one step needs of a
// transition covariance S = L L': L^-1 into linv, S^-1 into sinv, and the
// inverse of the Cholesky factor of the precision P = S^-1 + lam into cinv
// (p is scratch), with log det L and log det chol(P); ok is false when P
// is not numerically positive definite.
func covFactor(L, lam, linv, sinv, p, cinv []float64, K int) (logDetL, logDetC float64, ok bool) {
	logDetL = smallmat.InvLower(L, linv, K)
	smallmat.LowerTL(linv, sinv, K)
	for i := range p {
		p[i] = sinv[i] + lam[i]
	}
	if !smallmat.CholLower(p, K) {
		return logDetL, math.NaN(), false
	}
	logDetC = smallmat.InvLower(p, cinv, K)
	return logDetL, logDetC, true
}

// twistApply writes the proposal mean mu = P^-1 (S^-1 m + nu) for the
// transition mean m and returns log Z, the log normaliser of
// N(x; m, S) psi(x):
//
//	log Z = -log det L - log det chol(P) + h' P^-1 h / 2 - m' S^-1 m / 2,  h = S^-1 m + nu.
//
// h and u are scratch (K).
func twistApply(m, nu, linv, sinv, cinv []float64, logDetL, logDetC float64, mu, h, u []float64, K int) float64 {
	smallmat.SymMulVec(sinv, m, h, K)
	for i := range h {
		h[i] += nu[i]
	}
	smallmat.LowerMulVec(cinv, h, u, K) // u = C^-1 h, |u|^2 = h' P^-1 h
	smallmat.LowerTMulVec(cinv, u, mu, K)
	uu := smallmat.Dot(u, u)
	smallmat.LowerMulVec(linv, m, u, K) // L^-1 m
	return -logDetL - logDetC + 0.5*uu - 0.5*smallmat.Dot(u, u)
}

// logPsi is log psi_t(x) with R the factor of Lambda_t (u scratch).
func (tw *Twisted) logPsi(t int, R, x, u []float64) float64 {
	K := tw.K
	smallmat.LowerTMulVec(R, x, u, K)
	return -0.5*smallmat.Dot(u, u) + smallmat.Dot(tw.Nu[t*K:(t+1)*K], x)
}

// ---- the steps of a sweep ---------------------------------------------------

// twistedSteps evaluates the twisted proposal in a sweep: the weight of
// x_{t-1} is g_{t-1}(x_{t-1}) Z_t(x_{t-1}) / psi_{t-1}(x_{t-1}), the
// look-ahead factor being the proposal's normaliser (see CSMC). prepare
// computes once per previous particle j the proposal's mean and log Z_t,
// log psi_{t-1}(x^j), and the inverses of the factors of S_t and of P_t;
// when every particle has the same transition covariance (one that depends
// on params alone) the factors are computed once per step (stride 0), with
// the same values, to the bit, as per particle.
//
// A scalar state (K = 1) has its own inner loop (steps1.go): the former
// scalar sweep's arithmetic, bit for bit, at 1.5 ms a sweep against 2.5 ms
// through the K x K algebra (BenchmarkK1Sweep, T = 2000, N = 10).
type twistedSteps struct {
	ssm      GaussianStateSpace
	tw       *Twisted
	N, K, KK int

	tm     []float64 // T x N x K transition means of the previous particles
	tc     []float64 // T x N x KK their factors (the first KK only when shared)
	shared []bool    // T: one factor for every particle
	tcs    []float64 // N x KK: the factors as Transition writes them

	t          int
	R, Rprev   []float64 // factors of Lambda_t and Lambda_{t-1}
	stride     int       // KK, or 0 when the factors are shared
	linv, cinv []float64 // N x KK (stride)
	logDetL    []float64 // N (stride / KK)
	qmu        []float64 // N x K proposal means
	qlz        []float64 // N log Z_t
	psiPrev    []float64 // N log psi_{t-1}(x^j_{t-1})
	w          *twistWork
	qsp        []float64 // K = 1: N square roots of the proposal's precision
	lam        float64   // K = 1: Lambda_t

	perParticle bool // compute the factors per particle even when they are shared (a test's reference)
	generic     bool // use the K-dimensional algebra at K = 1 too (a test's reference)
}

func newTwistedSteps(ssm GaussianStateSpace, tw *Twisted, n int) *twistedSteps {
	T, K := tw.T, tw.K
	KK := K * K
	ssm.ReserveParticles(n)
	return &twistedSteps{ssm: ssm, tw: tw, N: n, K: K, KK: KK,
		tm: make([]float64, T*n*K), tc: make([]float64, T*n*KK), shared: make([]bool, T), tcs: make([]float64, n*KK),
		t: -1, R: make([]float64, KK), Rprev: make([]float64, KK),
		linv: make([]float64, n*KK), cinv: make([]float64, n*KK), logDetL: make([]float64, n),
		qmu: make([]float64, n*K), qlz: make([]float64, n), psiPrev: make([]float64, n), w: newTwistWork(K),
		qsp: make([]float64, n)}
}

// scalar reports whether the sweep takes the K = 1 inner loop.
func (s *twistedSteps) scalar() bool { return s.K == 1 && !s.generic }

func (s *twistedSteps) obs(t int, cur, out []float64) { s.ssm.ObsLogDensity(t, cur, out) }

func (s *twistedSteps) prepare(t int, prev []float64) {
	if s.scalar() {
		s.prepare1(t, prev)
		return
	}
	N, K, KK, tw, w := s.N, s.K, s.KK, s.tw, s.w
	tm := s.tm[t*N*K : (t+1)*N*K]
	s.ssm.Transition(t, prev, tm, s.tcs)
	s.t = t
	s.R, s.Rprev = s.Rprev, s.R
	tw.factorR(t, s.R)
	smallmat.LowerLT(s.R, w.lam, K)
	m := N
	if t == 0 {
		m = 1 // every particle has the initial distribution
	} else {
		// s.Rprev is R_{t-1}, computed by the previous prepare
		for j := 0; j < m; j++ {
			s.psiPrev[j] = tw.logPsi(t-1, s.Rprev, prev[j*K:(j+1)*K], w.u)
		}
	}
	nu := tw.Nu[t*K : (t+1)*K]
	tcs := s.tcs[:m*KK]
	shared := !s.perParticle && sameFactors(tcs, K)
	s.shared[t] = shared
	nf := m
	s.stride = KK
	if shared {
		s.stride, nf = 0, 1
	}
	copy(s.tc[t*N*KK:], tcs[:nf*KK])
	var ld, lc float64
	var ok bool
	for j := 0; j < m; j++ {
		f := j * s.stride
		linv, cinv := s.linv[f:f+KK], s.cinv[f:f+KK]
		if j == 0 || !shared {
			ld, lc, ok = covFactor(tcs[f:f+KK], w.lam, linv, w.sinv, w.p, cinv, K)
			s.logDetL[j] = ld
		}
		s.qlz[j] = s.logZ(ok, tm[j*K:(j+1)*K], nu, linv, w.sinv, cinv, ld, lc, s.qmu[j*K:(j+1)*K])
	}
}

func (s *twistedSteps) logZ(ok bool, m, nu, linv, sinv, cinv []float64, ld, lc float64, mu []float64) float64 {
	if !ok {
		copy(mu, m)
		return math.NaN()
	}
	return twistApply(m, nu, linv, sinv, cinv, ld, lc, mu, s.w.h, s.w.u, s.K)
}

// sameFactors reports whether the n lower-triangular K x K factors in f
// (n x K*K) are equal.
func sameFactors(f []float64, K int) bool {
	KK := K * K
	f0 := f[:KK]
	for j := KK; j < len(f); j += KK {
		fj := f[j : j+KK]
		for i := 0; i < K; i++ {
			for l := 0; l <= i; l++ {
				if fj[i*K+l] != f0[i*K+l] {
					return false
				}
			}
		}
	}
	return true
}

func (s *twistedSteps) ancestorLogDensity(t int, r []float64, out []float64) {
	if s.scalar() {
		s.ancestorLogDensity1(t, r[0], out)
		return
	}
	K, KK, N := s.K, s.KK, s.N
	tm := s.tm[t*N*K : (t+1)*N*K]
	d, u := s.w.h, s.w.u
	for j := range out {
		mj := tm[j*K : (j+1)*K]
		for k := range d {
			d[k] = r[k] - mj[k]
		}
		f := j
		if s.stride == 0 {
			f = 0
		}
		smallmat.LowerMulVec(s.linv[f*KK:(f+1)*KK], d, u, K)
		out[j] = -0.5*smallmat.Dot(u, u) - s.logDetL[f] - s.qlz[j]
	}
}

func (s *twistedSteps) lookahead(_ int, logw []float64) {
	for j := range logw {
		logw[j] += s.qlz[j] - s.psiPrev[j]
	}
}

func (s *twistedSteps) propose(rng *rand.Rand, t int, anc []int32, z, logw []float64, start int) {
	if s.scalar() {
		s.propose1(rng, t, anc, z, logw, start)
		return
	}
	K, KK := s.K, s.KK
	eps := s.w.x
	for i := range logw {
		a := 0
		if t > 0 {
			a = int(anc[i])
		}
		if i >= start {
			for k := range eps {
				eps[k] = rng.NormFloat64()
			}
			x := z[i*K : (i+1)*K]
			o := a * s.stride
			smallmat.LowerTMulVec(s.cinv[o:o+KK], eps, x, K) // C^-T eps has covariance P^-1
			for k, m := range s.qmu[a*K : (a+1)*K] {
				x[k] += m
			}
		}
	}
	s.startWeights(t, logw)
}

// startWeights writes a step's weights before g_t: log Z_1 at t = 0, 0
// after (p psi_t / q = Z_t, which the look-ahead factor divides out).
func (s *twistedSteps) startWeights(t int, logw []float64) {
	w := 0.0
	if t == 0 {
		w = s.qlz[0]
	}
	for i := range logw {
		logw[i] = w
	}
}

func (s *twistedSteps) final(t int, cur, logw []float64) {
	if s.scalar() {
		s.final1(t, cur, logw)
		return
	}
	K := s.K
	for i := range logw {
		logw[i] -= s.tw.logPsi(t, s.R, cur[i*K:(i+1)*K], s.w.u)
	}
}

func (s *twistedSteps) retain(t, a int) {
	K, KK, N := s.K, s.KK, s.N
	if s.scalar() {
		s.tw.path[2*t], s.tw.path[2*t+1] = s.tm[t*N+a], s.tc[t*N+a]
		return
	}
	p := s.tw.path[t*(K+KK) : (t+1)*(K+KK)]
	copy(p[:K], s.tm[(t*N+a)*K:(t*N+a+1)*K])
	if s.shared[t] {
		a = 0
	}
	copy(p[K:], s.tc[t*N*KK+a*KK:t*N*KK+(a+1)*KK])
}

// ---- the twisted proposal as a Family --------------------------------

func (tw *Twisted) Name() string { return "twisted-gaussian" }

// Clone copies the proposal.
func (tw *Twisted) Clone() Family {
	c := &Twisted{}
	var b [][]float64
	c.stepParams, b = tw.clone()
	c.views(b)
	return c
}

// AddScore adds w grad log q(z) with respect to (Nu, LogDiag, Off) for the
// trajectory z (in the problem's layout), using the transition moments
// recorded along it by the last sweep. With P = S^-1 + Lambda and
// mu = P^-1 (S^-1 m + nu), d log q/d nu = x - mu and d log q = tr(G dLambda)
// with G = (P^-1 + mu mu' - x x')/2, so that through Lambda = R R' with
// R = U D^(1/2), d log q/d R = 2 G R: d/d U_kl = 2 (G R)_kl exp(LogDiag_l/2)
// below the diagonal and d/d LogDiag_l = sum_{k >= l} (G R)_kl R_kl.
func (tw *Twisted) AddScore(w float64, z, grad []float64) {
	if tw.K == 1 {
		tw.addScore1(w, z, grad)
		return
	}
	T, K := tw.T, tw.K
	KK := K * K
	wk := tw.work
	gNu, gDiag, gOff := grad[:T*K], grad[T*K:2*T*K], grad[2*T*K:]
	for t := 0; t < T; t++ {
		x := wk.x
		for k := range x {
			x[k] = z[tw.idx[t*K+k]]
		}
		p := tw.path[t*(K+KK) : (t+1)*(K+KK)]
		tw.factorR(t, wk.R)
		smallmat.LowerLT(wk.R, wk.lam, K)
		ld, lc, ok := covFactor(p[K:], wk.lam, wk.linv, wk.sinv, wk.p, wk.ci, K)
		if !ok {
			continue
		}
		twistApply(p[:K], tw.Nu[t*K:(t+1)*K], wk.linv, wk.sinv, wk.ci, ld, lc, wk.mu, wk.h, wk.u, K)
		smallmat.LowerTL(wk.ci, wk.g, K) // P^-1 = C^-T C^-1
		for i := 0; i < K; i++ {
			gNu[t*K+i] += w * (x[i] - wk.mu[i])
			for j := 0; j < K; j++ {
				wk.g[i*K+j] = 0.5 * (wk.g[i*K+j] + wk.mu[i]*wk.mu[j] - x[i]*x[j])
			}
		}
		// G R (R lower)
		for i := 0; i < K; i++ {
			for j := 0; j < K; j++ {
				s := 0.0
				for l := j; l < K; l++ {
					s += wk.g[i*K+l] * wk.R[l*K+j]
				}
				wk.gr[i*K+j] = s
			}
		}
		o := t * K * (K - 1) / 2
		for i := 0; i < K; i++ {
			for j := 0; j <= i; j++ {
				g := wk.gr[i*K+j]
				gDiag[t*K+j] += w * g * wk.R[i*K+j]
				if j < i {
					gOff[o] += w * 2 * g * wk.R[j*K+j]
					o++
				}
			}
		}
	}
}

func init() {
	RegisterFamily(FamilySpec{
		Name: "twisted-gaussian", Help: "the twisted Gaussian proposal of a state-space model with a Gaussian transition (the paper's, with K-dimensional states)",
		Proposal: true, Needs: CapGaussianTransition, Priority: 1, Start: "the bootstrap proposal",
		NewFor: func(p *Problem) (Family, error) { return NewTwisted(p.StateSpace) },
	})
}
