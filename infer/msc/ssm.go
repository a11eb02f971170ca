package msc

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
)

// Layout says where the states of a state-space model with a K-dimensional
// state per time step lie in the problem's latent vector z. A scalar state
// is the state of dimension K = 1.
type Layout interface {
	// Len is the number of time steps T.
	Len() int
	// StateDim is the dimension K >= 1 of the state at each step.
	StateDim() int
	// Index is the position in z of component k of the state at step t
	// (0-based). The model decides the layout: K latent vectors of length
	// T give k*T + t, a matrix[T, K] stored row by row t*K + k, one vector
	// t. Every position of z is the index of exactly one (t, k).
	Index(t, k int) int
}

// StateSpace is a state-space model with a K-dimensional state x_t per
// time step (K = 1: a scalar state),
//
//	x_1 ~ p_1,  x_t | x_{t-1} ~ p_t(x_t | x_{t-1}),  y_t | x_t ~ g_t(y_t | x_t),
//
// as package ir detects it. Particles are passed as n x K arrays, row i the
// state of particle i. Time steps are 0-based. What the transition offers
// is said by the optional interfaces GaussianStateSpace (its moments, for
// the twisted proposal) and GeneralStateSpace (its density, for the
// per-step proposal); a model with a Gaussian transition usually offers
// both.
type StateSpace interface {
	Layout
	// ReserveParticles prepares evaluations over n particles.
	ReserveParticles(n int)
	// ObsLogDensity writes log g_t(y_t | x_t = cur[i*K:(i+1)*K]) for each
	// particle (cur is n x K).
	ObsLogDensity(t int, cur []float64, out []float64)
}

// GaussianStateSpace is a StateSpace with a conditionally Gaussian
// transition, x_1 ~ N(m_1, S_1), x_t | x_{t-1} ~ N(m_t(x_{t-1}), S_t(x_{t-1})).
type GaussianStateSpace interface {
	StateSpace
	// Transition writes, for each particle i, the mean (row i of mean,
	// n x K) and the lower Cholesky factor of the covariance (chol,
	// n x K x K, each K x K row-major; the upper triangle is not read; for
	// K = 1 the sd) of x_t given x_{t-1} = prev[i*K:(i+1)*K]. At t = 0 prev
	// is ignored and the initial distribution is returned. The diagonal of
	// each factor must be positive.
	Transition(t int, prev []float64, mean, chol []float64)
}

// GeneralStateSpace is a StateSpace whose transition density can be
// evaluated (it need not be Gaussian).
type GeneralStateSpace interface {
	StateSpace
	// TransitionLogDensity writes log p(x_t = cur_i | x_{t-1} = prev_i)
	// for each particle i (rows of the n x K arrays cur and prev; at t = 0
	// the initial density, prev ignored).
	TransitionLogDensity(t int, prev, cur, out []float64)
}

// layoutIndex returns Index(t, k) at t*K + k, after checking that the
// layout is a one-to-one map onto [0, T*K).
func layoutIndex(l Layout) ([]int, error) {
	T, K := l.Len(), l.StateDim()
	if T < 1 || K < 1 {
		return nil, fmt.Errorf("a state-space structure needs T >= 1 steps and K >= 1 components, not %d x %d", T, K)
	}
	idx := make([]int, T*K)
	seen := make([]bool, T*K)
	for t := 0; t < T; t++ {
		for k := 0; k < K; k++ {
			j := l.Index(t, k)
			if j < 0 || j >= T*K || seen[j] {
				return nil, fmt.Errorf("the state-space layout is not one-to-one onto %d latents (Index(%d, %d) = %d)", T*K, t, k, j)
			}
			seen[j] = true
			idx[t*K+k] = j
		}
	}
	return idx, nil
}

// stepParams are a state-space proposal's parameters: lambda, in named
// blocks of so many values per step, and the layout of the states it was
// built for. The proposals embed it for Family's Dim, NumLambda, Lambda,
// SetLambda, Stats and SetStats (lambda itself) and their JSON form.
type stepParams struct {
	T, K   int
	idx    []int // T x K: the position of (t, k) in the problem's latent vector
	lam    []float64
	names  []string
	widths []int    // values per step of each block
	note   []string // a key and a value the JSON form adds (what the blocks mean)
}

// newStepParams returns the parameters for layout l, zero, and the views
// of their blocks.
func newStepParams(l Layout, names []string, widths func(K int) []int, note ...string) (stepParams, [][]float64, error) {
	idx, err := layoutIndex(l)
	if err != nil {
		return stepParams{}, nil, err
	}
	p := stepParams{T: l.Len(), K: l.StateDim(), idx: idx, names: names, widths: widths(l.StateDim()), note: note}
	n := 0
	for _, w := range p.widths {
		n += p.T * w
	}
	p.lam = make([]float64, n)
	return p, p.blocks(), nil
}

// blocks are the views of lambda's blocks.
func (p *stepParams) blocks() [][]float64 {
	out := make([][]float64, len(p.widths))
	n := 0
	for i, w := range p.widths {
		out[i] = p.lam[n : n+p.T*w : n+p.T*w]
		n += p.T * w
	}
	return out
}

// clone copies the parameters (the layout is shared: it is never written)
// and returns the views of the copy's blocks.
func (p *stepParams) clone() (stepParams, [][]float64) {
	c := *p
	c.lam = slices.Clone(p.lam)
	return c, c.blocks()
}

func (p *stepParams) Dim() int                     { return p.T * p.K }
func (p *stepParams) NumLambda() int               { return len(p.lam) }
func (p *stepParams) NumStats() int                { return len(p.lam) }
func (p *stepParams) Lambda(dst []float64)         { copy(dst, p.lam) }
func (p *stepParams) SetLambda(src []float64)      { copy(p.lam, src) }
func (p *stepParams) Stats(dst []float64)          { copy(dst, p.lam) }
func (p *stepParams) SetStats(src []float64) error { copy(p.lam, src); return nil }

// fits checks that the proposal (who) was built for layout l.
func (p *stepParams) fits(who string, l Layout) error {
	if l.Len() != p.T || l.StateDim() != p.K {
		return fmt.Errorf("the %s has %d x %d states, the model %d x %d", who, p.T, p.K, l.Len(), l.StateDim())
	}
	want, err := layoutIndex(l)
	if err != nil {
		return err
	}
	if !slices.Equal(want, p.idx) {
		return fmt.Errorf("the %s was built for another layout of the states", who)
	}
	return nil
}

// MarshalJSON writes the state dimension and each block step by step, a
// row of its values per step.
func (p *stepParams) MarshalJSON() ([]byte, error) {
	b := fmt.Appendf(nil, `{"state_dim":%d`, p.K)
	for i, x := range p.blocks() {
		rows := make([][]float64, p.T)
		for t := range rows {
			rows[t] = x[t*p.widths[i] : (t+1)*p.widths[i]]
		}
		r, err := json.Marshal(rows)
		if err != nil {
			return nil, err
		}
		b = append(fmt.Appendf(b, ",%q:", p.names[i]), r...)
	}
	for i := 0; i+1 < len(p.note); i += 2 {
		b = fmt.Appendf(b, ",%q:%q", p.note[i], p.note[i+1])
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads what MarshalJSON wrote, all blocks or none.
func (p *stepParams) UnmarshalJSON(b []byte) error {
	var v map[string]json.RawMessage
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	var K int
	if err := json.Unmarshal(v["state_dim"], &K); err != nil || K != p.K {
		return fmt.Errorf("the proposal has %d-dimensional states, the file's state_dim %s", p.K, cmp.Or(string(v["state_dim"]), "is missing (an older mscppl's form: fit again)"))
	}
	lam := make([]float64, len(p.lam))
	n := 0
	for i, name := range p.names {
		w := p.widths[i]
		var rows [][]float64
		if err := json.Unmarshal(v[name], &rows); err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		if len(rows) != p.T {
			return fmt.Errorf("%s has %d steps, not %d", name, len(rows), p.T)
		}
		for t, r := range rows {
			if len(r) != w {
				return fmt.Errorf("%s[%d] has %d values, not %d", name, t, len(r), w)
			}
			n += copy(lam[n:], r)
		}
	}
	copy(p.lam, lam)
	return nil
}
