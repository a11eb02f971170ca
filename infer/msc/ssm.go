package msc

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// ---- the twisted Gaussian proposal as a Family ----------------------------

func (tw *Twisted) Name() string   { return "twisted-gaussian" }
func (tw *Twisted) Dim() int       { return len(tw.Nu) }
func (tw *Twisted) NumLambda() int { return 2 * len(tw.Nu) }
func (tw *Twisted) NumStats() int  { return 2 * len(tw.Nu) }

// Lambda writes Nu then LogLambda.
func (tw *Twisted) Lambda(dst []float64) {
	copy(dst, tw.Nu)
	copy(dst[len(tw.Nu):], tw.LogLambda)
}

// SetLambda is the inverse of Lambda.
func (tw *Twisted) SetLambda(src []float64) {
	copy(tw.Nu, src)
	copy(tw.LogLambda, src[len(tw.Nu):])
}

// Stats are the parameters themselves (the iterates are averaged in lambda).
func (tw *Twisted) Stats(dst []float64) { tw.Lambda(dst) }

// SetStats sets lambda.
func (tw *Twisted) SetStats(src []float64) error { tw.SetLambda(src); return nil }

// Clone copies the proposal.
func (tw *Twisted) Clone() Family {
	return &Twisted{Nu: slices.Clone(tw.Nu), LogLambda: slices.Clone(tw.LogLambda), path: make([]float64, 2*len(tw.Nu))}
}

// AddScore adds w grad log q(z) with respect to (Nu, LogLambda) for the
// trajectory z, using the transition moments recorded along it by the last
// CSMC sweep. With P = 1/s^2 + Lambda and mu = (m/s^2 + Nu)/P,
// d log q/d Nu = z - mu and d log q/d Lambda = (1/P + mu^2 - z^2)/2.
func (tw *Twisted) AddScore(w float64, z, grad []float64) {
	T := len(tw.Nu)
	for t := 0; t < T; t++ {
		mu, prec, _ := tw.twist(t, tw.path[2*t], tw.path[2*t+1])
		grad[t] += w * (z[t] - mu)
		grad[T+t] += w * math.Exp(tw.LogLambda[t]) * 0.5 * (1/prec + mu*mu - z[t]*z[t])
	}
}

type twistedJSON struct {
	Nu        []float64 `json:"nu"`
	LogLambda []float64 `json:"log_lambda"`
}

// MarshalJSON writes Nu and LogLambda.
func (tw *Twisted) MarshalJSON() ([]byte, error) {
	return json.Marshal(twistedJSON{tw.Nu, tw.LogLambda})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (tw *Twisted) UnmarshalJSON(b []byte) error {
	var v twistedJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if len(v.Nu) != len(tw.Nu) || len(v.LogLambda) != len(tw.Nu) {
		return fmt.Errorf("the twisted proposal has %d steps", len(tw.Nu))
	}
	copy(tw.Nu, v.Nu)
	copy(tw.LogLambda, v.LogLambda)
	return nil
}

// ---- the per-step Gaussian proposal as a Family ---------------------------

func (p *ARProposal) Name() string   { return "per-step-gaussian" }
func (p *ARProposal) Dim() int       { return len(p.A) }
func (p *ARProposal) NumLambda() int { return 3 * len(p.A) }
func (p *ARProposal) NumStats() int  { return 3 * len(p.A) }

// Lambda writes A, B, LogS.
func (p *ARProposal) Lambda(dst []float64) {
	T := len(p.A)
	copy(dst, p.A)
	copy(dst[T:], p.B)
	copy(dst[2*T:], p.LogS)
}

// SetLambda is the inverse of Lambda.
func (p *ARProposal) SetLambda(src []float64) {
	T := len(p.A)
	copy(p.A, src[:T])
	copy(p.B, src[T:2*T])
	copy(p.LogS, src[2*T:])
}

// Stats are the parameters themselves.
func (p *ARProposal) Stats(dst []float64) { p.Lambda(dst) }

// SetStats sets lambda.
func (p *ARProposal) SetStats(src []float64) error { p.SetLambda(src); return nil }

// Clone copies the proposal.
func (p *ARProposal) Clone() Family {
	return &ARProposal{A: slices.Clone(p.A), B: slices.Clone(p.B), LogS: slices.Clone(p.LogS)}
}

// AddScore adds w grad log q(z) with respect to (A, B, LogS).
func (p *ARProposal) AddScore(w float64, z, grad []float64) {
	T := len(p.A)
	prev := 0.0
	for t := 0; t < T; t++ {
		s := math.Exp(p.LogS[t])
		r := (z[t] - p.mean(t, prev)) / s
		grad[t] += w * r / s
		if t > 0 {
			grad[T+t] += w * r / s * prev
		}
		grad[2*T+t] += w * (r*r - 1)
		prev = z[t]
	}
}

type arJSON struct {
	A    []float64 `json:"a"`
	B    []float64 `json:"b"`
	LogS []float64 `json:"log_s"`
}

// MarshalJSON writes A, B and LogS.
func (p *ARProposal) MarshalJSON() ([]byte, error) { return json.Marshal(arJSON{p.A, p.B, p.LogS}) }

// UnmarshalJSON reads what MarshalJSON wrote.
func (p *ARProposal) UnmarshalJSON(b []byte) error {
	var v arJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	T := len(p.A)
	if len(v.A) != T || len(v.B) != T || len(v.LogS) != T {
		return fmt.Errorf("the per-step proposal has %d steps", T)
	}
	copy(p.A, v.A)
	copy(p.B, v.B)
	copy(p.LogS, v.LogS)
	return nil
}

// ---- CSMC as a Kernel -----------------------------------------------------

func init() {
	RegisterFamily(FamilySpec{
		Name: "twisted-gaussian", Help: "the twisted Gaussian proposal of a state-space model with a Gaussian transition (the paper's)",
		Proposal: true, Needs: CapGaussianTransition, Priority: 1, Start: "the bootstrap proposal",
		NewFor: func(p *Problem) (Family, error) { return NewTwisted(p.StateSpace.Len()), nil },
	})
	RegisterFamily(FamilySpec{
		Name: "per-step-gaussian", Help: "a per-step Gaussian proposal N(a_t + b_t z[t-1], s_t^2) for a state-space model with any transition",
		Proposal: true, Needs: CapStateSpace, Start: "N(0, 1) proposals",
		NewFor: func(p *Problem) (Family, error) { return NewARProposal(p.General.Len()), nil },
	})
	RegisterKernel(KernelSpec{
		Name: "csmc", Help: "conditional SMC with ancestor sampling, for state-space models (the paper's Algorithm 4)",
		Method: "msc", Priority: 1, Needs: CapAnyStateSpace, Markov: true, StateSpace: true,
		Optimizers: []Optimizer{Adam},
		New: func(p *Problem, q Family, n int, _ KernelOptions) (Kernel, error) {
			return NewSMCKernel(p, q, n, true)
		},
	})
	RegisterKernel(KernelSpec{
		Name: "smc", Help: "a particle filter whose final weights pick the trajectory",
		Method: "smc", MethodHelp: "particle-filter gradients (Gu, Ghahramani & Turner 2015), state-space models only",
		Needs: CapAnyStateSpace, StateSpace: true,
		Optimizers: []Optimizer{Adam},
		New: func(p *Problem, q Family, n int, _ KernelOptions) (Kernel, error) {
			return NewSMCKernel(p, q, n, false)
		},
	})
}

// SMCKernel is the conditional SMC kernel with ancestor sampling (MSC's
// kernel for state-space models) or, with Conditional false, a fresh
// particle filter whose final weights pick the trajectory (the SMC
// baseline of Gu, Ghahramani & Turner 2015, which is biased).
type SMCKernel struct {
	c           sweeper
	Conditional bool
	one         []float64
}

// NewSMCKernel returns the CSMC kernel (conditional) or the particle-filter
// baseline for a state-space model with n particles and proposal q, which
// must be the model's *Twisted (for a StateSpace) or *ARProposal (for a
// GeneralStateSpace), or for vector states its *VecTwisted (for a
// VectorStateSpace) or *VecAR (for a GeneralVectorStateSpace).
func NewSMCKernel(model *Problem, q Family, n int, conditional bool) (*SMCKernel, error) {
	c, err := newSweeper(model, q, n)
	if err != nil {
		return nil, err
	}
	return &SMCKernel{c: c, Conditional: conditional, one: []float64{1}}, nil
}

func (k *SMCKernel) Name() string {
	if k.Conditional {
		return "csmc"
	}
	return "smc"
}
func (k *SMCKernel) Markov() bool { return k.Conditional }

// Init runs one unconditional sweep to draw the first trajectory.
func (k *SMCKernel) Init(rng *rand.Rand) error { k.c.Sweep(rng, false); return nil }

// Step runs one sweep.
func (k *SMCKernel) Step(rng *rand.Rand) (StepInfo, error) {
	ok := k.c.Sweep(rng, k.Conditional)
	c := k.c.info()
	return StepInfo{Changed: c.changed, ESS: c.meanESS, FracDiff: c.fracDiff, Degenerate: !ok}, nil
}

// Weighted is the retained trajectory with weight 1.
func (k *SMCKernel) Weighted() ([]float64, []float64) { return k.c.Reference(), k.one }

// Retained is the retained trajectory.
func (k *SMCKernel) Retained() []float64 { return k.c.Reference() }

// Refresh does nothing: a sweep recomputes every weight.
func (k *SMCKernel) Refresh() {}

// LogEvidence estimates log p(x; theta) with reps independent particle
// filters of n particles each with proposal q (a *Twisted or an
// *ARProposal, or for vector states a *VecTwisted or a *VecAR), returning
// the log of the average of the unbiased estimates and its Monte Carlo
// standard error (delta method). Factors that depend on no latent state
// are not part of the filter: add them (ir's ConstLogDensity) to the
// result.
func LogEvidence(rng *rand.Rand, model *Problem, q Family, n, reps int) (logZ, se float64, err error) {
	c, err := newSweeper(model, q, n)
	if err != nil {
		return 0, 0, err
	}
	ls := make([]float64, reps)
	for r := range ls {
		c.Sweep(rng, false)
		ls[r] = c.info().logZ
	}
	logZ, se = LogMeanExpSE(ls)
	return logZ, se, nil
}

// LogMeanExpSE returns log of the mean of exp(x) and the standard error of
// that log (delta method).
func LogMeanExpSE(x []float64) (float64, float64) {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = math.Max(mx, v)
	}
	n := float64(len(x))
	m := 0.0
	for _, v := range x {
		m += math.Exp(v-mx) / n
	}
	s := 0.0
	for _, v := range x {
		d := math.Exp(v-mx) - m
		s += d * d
	}
	se := 0.0
	if len(x) > 1 {
		se = math.Sqrt(s/(n-1)/n) / m
	}
	return mx + math.Log(m), se
}
