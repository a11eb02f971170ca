package msc

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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
	T, K    int
	A, B    []float64
	LogDiag []float64
	Off     []float64

	idx []int // T x K: the position of (t, k) in the problem's latent vector
	wk  *arWork
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
	idx, err := layoutIndex(l)
	if err != nil {
		return nil, err
	}
	T, K := l.Len(), l.StateDim()
	return &ARProposal{T: T, K: K, A: make([]float64, T*K), B: make([]float64, T*K*K), LogDiag: make([]float64, T*K),
		Off: make([]float64, T*K*(K-1)/2), idx: idx, wk: newARWork(K)}, nil
}

func (p *ARProposal) fits(l Layout) error {
	return fitsLayout("per-step proposal", p.T, p.K, p.idx, l)
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
	return invLower(L, linv, K)
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
		dst[k] += dot(B[k*K:(k+1)*K], prev)
	}
}

// arSteps evaluates the per-step proposal in a sweep: the
// incremental weight is p(x_t | x_{t-1}) / q(x_t | x_{t-1}) times g_{t-1}.
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

func (s *arSteps) obs(t int, cur, out []float64) { s.ssm.ObsLogDensity(t, cur, out) }
func (s *arSteps) final(_ int, _, g, logw []float64) {
	for i := range logw {
		logw[i] += g[i]
	}
}
func (s *arSteps) retain(int, int) {}

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
			lowerMulVec(wk.L, wk.eps, x, K)
			for k, m := range wk.mean {
				x[k] += m
			}
		}
		for k := range wk.r {
			wk.r[k] = x[k] - wk.mean[k]
		}
		lowerMulVec(wk.linv, wk.r, wk.u, K)
		s.lq[i] = -0.5*dot(wk.u, wk.u) - c
	}
	s.ssm.TransitionLogDensity(t, s.prev, z, s.lt)
	for i := range inc {
		inc[i] = s.lt[i] - s.lq[i]
	}
}

// ---- the per-step proposal as a Family -------------------------------

func (p *ARProposal) Name() string   { return "per-step-gaussian" }
func (p *ARProposal) Dim() int       { return p.T * p.K }
func (p *ARProposal) NumLambda() int { return len(p.A) + len(p.B) + len(p.LogDiag) + len(p.Off) }
func (p *ARProposal) NumStats() int  { return p.NumLambda() }

// Lambda writes A, B, LogDiag, then Off.
func (p *ARProposal) Lambda(dst []float64) {
	n := copy(dst, p.A)
	n += copy(dst[n:], p.B)
	n += copy(dst[n:], p.LogDiag)
	copy(dst[n:], p.Off)
}

// SetLambda is the inverse of Lambda.
func (p *ARProposal) SetLambda(src []float64) {
	n := copy(p.A, src)
	n += copy(p.B, src[n:])
	n += copy(p.LogDiag, src[n:])
	copy(p.Off, src[n:])
}

// Stats are the parameters themselves.
func (p *ARProposal) Stats(dst []float64) { p.Lambda(dst) }

// SetStats sets lambda.
func (p *ARProposal) SetStats(src []float64) error { p.SetLambda(src); return nil }

// Clone copies the proposal (the layout is shared: it is never written).
func (p *ARProposal) Clone() Family {
	return &ARProposal{T: p.T, K: p.K, A: slices.Clone(p.A), B: slices.Clone(p.B), LogDiag: slices.Clone(p.LogDiag),
		Off: slices.Clone(p.Off), idx: p.idx, wk: newARWork(p.K)}
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
		lowerMulVec(wk.linv, wk.r, wk.u, K)
		lowerTMulVec(wk.linv, wk.u, wk.v, K)
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

type arJSON struct {
	K       int         `json:"state_dim"`
	A       [][]float64 `json:"a"`
	B       [][]float64 `json:"b"`
	LogDiag [][]float64 `json:"log_s_diag"`
	Off     [][]float64 `json:"s_factor_offdiag"`
}

// MarshalJSON writes the parameters step by step (B_t row-major).
func (p *ARProposal) MarshalJSON() ([]byte, error) {
	T, K := p.T, p.K
	return json.Marshal(arJSON{K: K, A: rows(p.A, T, K), B: rows(p.B, T, K*K), LogDiag: rows(p.LogDiag, T, K),
		Off: rows(p.Off, T, K*(K-1)/2)})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (p *ARProposal) UnmarshalJSON(b []byte) error {
	var v arJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	T, K := p.T, p.K
	if v.K != K {
		return fmt.Errorf("the per-step proposal has %d-dimensional states, not %d", K, v.K)
	}
	q := &ARProposal{A: make([]float64, len(p.A)), B: make([]float64, len(p.B)), LogDiag: make([]float64, len(p.LogDiag)), Off: make([]float64, len(p.Off))}
	for _, f := range []struct {
		name string
		r    [][]float64
		x    []float64
		n    int
	}{{"a", v.A, q.A, K}, {"b", v.B, q.B, K * K}, {"log_s_diag", v.LogDiag, q.LogDiag, K}, {"s_factor_offdiag", v.Off, q.Off, K * (K - 1) / 2}} {
		if err := unrows(f.name, f.r, f.x, T, f.n); err != nil {
			return err
		}
	}
	copy(p.A, q.A)
	copy(p.B, q.B)
	copy(p.LogDiag, q.LogDiag)
	copy(p.Off, q.Off)
	return nil
}

func init() {
	RegisterFamily(FamilySpec{
		Name: "per-step-gaussian", Help: "a per-step Gaussian proposal N(a_t + B_t x[t-1], L_t L_t') for a state-space model with any transition",
		Proposal: true, Needs: CapTransitionDensity, Start: "N(0, I) proposals",
		NewFor: func(p *Problem) (Family, error) { return NewARProposal(p.StateSpace) },
	})
}
