package msc

import (
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

// identity reports whether idx maps every position to itself.
func identity(idx []int) bool {
	for i, j := range idx {
		if i != j {
			return false
		}
	}
	return true
}

// fitsLayout checks that a proposal built for T x K states in the layout
// idx fits the layout l.
func fitsLayout(who string, T, K int, idx []int, l Layout) error {
	if l.Len() != T || l.StateDim() != K {
		return fmt.Errorf("the %s has %d x %d states, the model %d x %d", who, T, K, l.Len(), l.StateDim())
	}
	want, err := layoutIndex(l)
	if err != nil {
		return err
	}
	if !slices.Equal(want, idx) {
		return fmt.Errorf("the %s was built for another layout of the states", who)
	}
	return nil
}
