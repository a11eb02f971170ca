package msc

import "fmt"

// VectorLayout says where the states of a state-space model with a
// K-dimensional state per time step lie in the problem's latent vector z.
type VectorLayout interface {
	// Len is the number of time steps T.
	Len() int
	// StateDim is the dimension K >= 1 of the state at each step.
	StateDim() int
	// Index is the position in z of component k of the state at step t
	// (0-based). The model decides the layout: K latent vectors of length
	// T give k*T + t, a matrix[T, K] stored row by row t*K + k. Every
	// position of z is the index of exactly one (t, k).
	Index(t, k int) int
}

// VectorStateSpace is a state-space model with a K-dimensional state x_t
// per time step and a conditionally Gaussian transition,
//
//	x_1 ~ N(m_1, S_1),  x_t | x_{t-1} ~ N(m_t(x_{t-1}), S_t(x_{t-1})),
//	y_t | x_t ~ g_t(y_t | x_t),
//
// the K-dimensional StateSpace. Particles are passed as n x K arrays, row i
// the state of particle i. Time steps are 0-based.
type VectorStateSpace interface {
	VectorLayout
	// ReserveParticles prepares evaluations over n particles.
	ReserveParticles(n int)
	// Transition writes, for each particle i, the mean (row i of mean,
	// n x K) and the lower Cholesky factor of the covariance (chol,
	// n x K x K, each K x K row-major; the upper triangle is not read) of
	// x_t given x_{t-1} = prev[i*K:(i+1)*K]. At t = 0 prev is ignored and
	// the initial distribution is returned. The diagonal of each factor
	// must be positive.
	Transition(t int, prev []float64, mean, chol []float64)
	// ObsLogDensity writes log g_t(y_t | x_t = cur[i*K:(i+1)*K]) for each
	// particle (cur is n x K).
	ObsLogDensity(t int, cur []float64, out []float64)
}

// GeneralVectorStateSpace is a state-space model with a K-dimensional
// state per time step whose transition density can be evaluated but need
// not be Gaussian: the K-dimensional GeneralStateSpace.
type GeneralVectorStateSpace interface {
	VectorLayout
	ReserveParticles(n int)
	ObsLogDensity(t int, cur []float64, out []float64)
	// TransitionLogDensity writes log p(x_t = cur_i | x_{t-1} = prev_i)
	// for each particle i (rows of the n x K arrays cur and prev; at t = 0
	// the initial density, prev ignored).
	TransitionLogDensity(t int, prev, cur, out []float64)
}

// layoutIndex returns Index(t, k) at t*K + k, after checking that the
// layout is a one-to-one map onto [0, T*K).
func layoutIndex(l VectorLayout) ([]int, error) {
	T, K := l.Len(), l.StateDim()
	if T < 1 || K < 1 {
		return nil, fmt.Errorf("a vector state-space structure needs T >= 1 steps and K >= 1 components, not %d x %d", T, K)
	}
	idx := make([]int, T*K)
	seen := make([]bool, T*K)
	for t := 0; t < T; t++ {
		for k := 0; k < K; k++ {
			j := l.Index(t, k)
			if j < 0 || j >= T*K || seen[j] {
				return nil, fmt.Errorf("the vector state-space layout is not one-to-one onto %d latents (Index(%d, %d) = %d)", T*K, t, k, j)
			}
			seen[j] = true
			idx[t*K+k] = j
		}
	}
	return idx, nil
}
