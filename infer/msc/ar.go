package msc

import (
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/internal/smallmat"
)

// ARProposal is the per-step Gaussian proposal for a state-space model with
// K-dimensional states (K = 1: a scalar state) whose transition is not
// Gaussian, without twisting (psi = 1):
//
//	q(x_t | x_{t-1}) = N(A_t + B_t x_{t-1}, L_t L_t'),  q(x_1) = N(A_1, L_1 L_1'),
//
// with B_t a full K x K matrix and L_t lower triangular with diagonal
// exp(LogDiag_t) and entries Off_t below it (row by row), so that for
// K = 1 q(x_t | x_{t-1}) = N(A_t + B_t x_{t-1}, exp(LogDiag_t)^2). Indexed by step:
// A[t*K+k], B[t*K*K + k*K + l] (row k, column l), LogDiag[t*K+k],
// Off[t*K(K-1)/2 + k(k-1)/2 + l] for k > l. B_1 is not used.
type ARProposal struct {
	stepParams
	A, B, LogDiag, Off []float64 // views of lambda

	wk *arWork
}

type arWork struct {
	L, linv                  []float64 // K x K
	prev, mean, r, u, v, eps []float64 // K
}

func newARWork(K int) *arWork {
	m := func() []float64 { return make([]float64, K*K) }
	v := func() []float64 { return make([]float64, K) }
	return &arWork{L: m(), linv: m(), prev: v(), mean: v(), r: v(), u: v(), v: v(), eps: v()}
}

// NewARProposal returns the per-step proposal for the model's layout,
// started at N(0, I) at every step.
func NewARProposal(l Layout) (*ARProposal, error) {
	p, b, err := newStepParams(l, []string{"a", "b", "log_s_diag", "s_factor_offdiag"},
		func(K int) []int { return []int{K, K * K, K, K * (K - 1) / 2} })
	if err != nil {
		return nil, err
	}
	q := &ARProposal{stepParams: p}
	q.views(b)
	return q, nil
}

func (p *ARProposal) views(b [][]float64) {
	p.A, p.B, p.LogDiag, p.Off = b[0], b[1], b[2], b[3]
	p.wk = newARWork(p.K)
}

// factor writes L_t into L and its inverse into linv, returning log det L_t.
func (p *ARProposal) factor(t int, L, linv []float64) float64 {
	K := p.K
	off := p.Off[t*K*(K-1)/2:]
	o := 0
	for i := 0; i < K; i++ {
		for j := 0; j < i; j++ {
			L[i*K+j] = off[o]
			o++
		}
		L[i*K+i] = math.Exp(p.LogDiag[t*K+i])
		for j := i + 1; j < K; j++ {
			L[i*K+j] = 0
		}
	}
	return smallmat.InvLower(L, linv, K)
}

// meanAt writes A_t + B_t prev (A_1 at t = 0) into dst.
func (p *ARProposal) meanAt(t int, prev, dst []float64) {
	K := p.K
	copy(dst, p.A[t*K:(t+1)*K])
	if t == 0 {
		return
	}
	B := p.B[t*K*K : (t+1)*K*K]
	for k := range dst {
		dst[k] += smallmat.Dot(B[k*K:(k+1)*K], prev)
	}
}

// arSteps evaluates the per-step proposal in a sweep: the weight of x_t is
// p(x_t | x_{t-1}) g_t(x_t) / q(x_t | x_{t-1}) (no look-ahead factor, psi = 1).
type arSteps struct {
	ssm     GeneralStateSpace
	p       *ARProposal
	N, K    int
	zp      []float64 // the N x K particles of step t-1
	prev    []float64 // N x K: each particle's previous state
	rrep    []float64 // N x K: the retained state repeated
	lt, lq  []float64 // N
	logDetL float64
	wk      *arWork
	generic bool // use the K-dimensional algebra at K = 1 too (a test's reference)
}

func newARSteps(ssm GeneralStateSpace, p *ARProposal, n int) *arSteps {
	ssm.ReserveParticles(n)
	K := p.K
	return &arSteps{ssm: ssm, p: p, N: n, K: K, prev: make([]float64, n*K), rrep: make([]float64, n*K),
		lt: make([]float64, n), lq: make([]float64, n), wk: newARWork(K)}
}

func (s *arSteps) obs(t int, cur, out []float64)   { s.ssm.ObsLogDensity(t, cur, out) }
func (s *arSteps) final(int, []float64, []float64) {}
func (s *arSteps) lookahead(int, []float64)        {}
func (s *arSteps) retain(int, int)                 {}

func (s *arSteps) prepare(t int, prev []float64) {
	s.zp = prev
	s.logDetL = s.p.factor(t, s.wk.L, s.wk.linv)
}

func (s *arSteps) ancestorLogDensity(t int, r []float64, out []float64) {
	K := s.K
	for j := range out {
		copy(s.rrep[j*K:(j+1)*K], r)
	}
	s.ssm.TransitionLogDensity(t, s.zp, s.rrep, out)
}

func (s *arSteps) propose(rng *rand.Rand, t int, anc []int32, z, inc []float64, start int) {
	if s.K == 1 && !s.generic {
		s.propose1(rng, t, anc, z, inc, start)
		return
	}
	K, wk := s.K, s.wk
	c := s.logDetL + 0.5*float64(K)*ln2Pi
	for i := range inc {
		pv := s.prev[i*K : (i+1)*K]
		if t > 0 {
			a := int(anc[i])
			copy(pv, s.zp[a*K:(a+1)*K])
		}
		s.p.meanAt(t, pv, wk.mean)
		x := z[i*K : (i+1)*K]
		if i >= start {
			for k := range wk.eps {
				wk.eps[k] = rng.NormFloat64()
			}
			smallmat.LowerMulVec(wk.L, wk.eps, x, K)
			for k, m := range wk.mean {
				x[k] += m
			}
		}
		for k := range wk.r {
			wk.r[k] = x[k] - wk.mean[k]
		}
		smallmat.LowerMulVec(wk.linv, wk.r, wk.u, K)
		s.lq[i] = -0.5*smallmat.Dot(wk.u, wk.u) - c
	}
	s.ssm.TransitionLogDensity(t, s.prev, z, s.lt)
	for i := range inc {
		inc[i] = s.lt[i] - s.lq[i]
	}
}

// ---- the per-step proposal as a Family -------------------------------

func (p *ARProposal) Name() string { return "per-step-gaussian" }

// Clone copies the proposal.
func (p *ARProposal) Clone() Family {
	c := &ARProposal{}
	var b [][]float64
	c.stepParams, b = p.clone()
	c.views(b)
	return c
}

// AddScore adds w grad log q(z) with respect to (A, B, LogDiag, Off) for
// the trajectory z (in the problem's layout). With r = x_t - A_t - B_t x_{t-1},
// u = L^-1 r and v = L^-T u: d/dA = v, d/dB = v x_{t-1}', d/dL_kl = v_k u_l
// below the diagonal and d/dLogDiag_k = v_k u_k L_kk - 1.
func (p *ARProposal) AddScore(w float64, z, grad []float64) {
	if p.K == 1 {
		p.addScore1(w, z, grad)
		return
	}
	T, K := p.T, p.K
	wk := p.wk
	gA := grad[:T*K]
	gB := grad[T*K : T*K+T*K*K]
	gD := grad[T*K+T*K*K : 2*T*K+T*K*K]
	gO := grad[2*T*K+T*K*K:]
	x := wk.eps
	for t := 0; t < T; t++ {
		for k := range x {
			x[k] = z[p.idx[t*K+k]]
		}
		p.factor(t, wk.L, wk.linv)
		p.meanAt(t, wk.prev, wk.mean)
		for k := range wk.r {
			wk.r[k] = x[k] - wk.mean[k]
		}
		smallmat.LowerMulVec(wk.linv, wk.r, wk.u, K)
		smallmat.LowerTMulVec(wk.linv, wk.u, wk.v, K)
		o := t * K * (K - 1) / 2
		for k := 0; k < K; k++ {
			gA[t*K+k] += w * wk.v[k]
			if t > 0 {
				for l := 0; l < K; l++ {
					gB[t*K*K+k*K+l] += w * wk.v[k] * wk.prev[l]
				}
			}
			for l := 0; l < k; l++ {
				gO[o] += w * wk.v[k] * wk.u[l]
				o++
			}
			gD[t*K+k] += w * (wk.v[k]*wk.u[k]*wk.L[k*K+k] - 1)
		}
		copy(wk.prev, x)
	}
}

func init() {
	RegisterFamily(FamilySpec{
		Name: "per-step-gaussian", Help: "a per-step Gaussian proposal N(a_t + B_t x[t-1], L_t L_t') for a state-space model with any transition",
		Proposal: true, Needs: CapTransitionDensity, Start: "N(0, I) proposals",
		NewFor: func(p *Problem) (Family, error) { return NewARProposal(p.StateSpace) },
	})
}
