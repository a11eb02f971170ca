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
// not Gaussian: q(z_t | z_{t-1}) = N(A_t + B_t z_{t-1}, exp(LogS_t)^2),
// without twisting (psi = 1).
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

// arSteps evaluates the per-step proposal: the incremental weight is
// p(z_t | z_{t-1}) / q(z_t | z_{t-1}) times g_{t-1}.
type arSteps struct {
	ssm                GeneralStateSpace
	p                  *ARProposal
	zp                 []float64 // the particles of step t-1
	prev, rrep, lt, lq []float64 // N
}

func newARSteps(ssm GeneralStateSpace, p *ARProposal, n int) *arSteps {
	ssm.ReserveParticles(n)
	mk := func() []float64 { return make([]float64, n) }
	return &arSteps{ssm: ssm, p: p, prev: mk(), rrep: mk(), lt: mk(), lq: mk()}
}

func (s *arSteps) obs(t int, cur, out []float64) { s.ssm.ObsLogDensity(t, cur, out) }
func (s *arSteps) prepare(_ int, prev []float64) { s.zp = prev }
func (s *arSteps) logPsi(int, float64) float64   { return 0 }
func (s *arSteps) retain(int, int)               {}

func (s *arSteps) ancestorLogDensity(t int, r float64, out []float64) {
	for j := range s.rrep {
		s.rrep[j] = r
	}
	s.ssm.TransitionLogDensity(t, s.zp, s.rrep, out)
}

func (s *arSteps) propose(rng *rand.Rand, t int, anc []int32, z, inc []float64, start int) {
	sd := math.Exp(s.p.LogS[t])
	for i := range z {
		if t > 0 {
			s.prev[i] = s.zp[anc[i]]
		}
		m := s.p.mean(t, s.prev[i])
		if i >= start {
			z[i] = m + sd*rng.NormFloat64()
		}
		d := (z[i] - m) / sd
		s.lq[i] = -0.5*d*d - math.Log(sd) - 0.5*ln2Pi
	}
	s.ssm.TransitionLogDensity(t, s.prev, z, s.lt)
	for i := range inc {
		inc[i] = s.lt[i] - s.lq[i]
	}
}
