package adam

import "math"

// State is the state of the optimiser for one parameter vector.
type State struct {
	M, V []float64
	T    int
}

// New returns a fresh state for n parameters.
func New(n int) *State { return &State{M: make([]float64, n), V: make([]float64, n)} }

// clip bounds a gradient component so that its square (the second
// moment) cannot overflow; Adam's step is invariant to the gradient's
// scale, so the step direction is unchanged.
const clip = 1e150

// Step takes one ascent step along g and reports whether x moved. A NaN
// gradient component leaves its coordinate where it is.
func (a *State) Step(x, g []float64, lr float64) bool {
	const b1, b2, eps = 0.9, 0.999, 1e-8
	a.T++
	c1 := 1 - math.Pow(b1, float64(a.T))
	c2 := 1 - math.Pow(b2, float64(a.T))
	moved := false
	for i := range x {
		gi := g[i]
		if math.IsNaN(gi) {
			continue
		}
		gi = math.Max(-clip, math.Min(clip, gi))
		a.M[i] = b1*a.M[i] + (1-b1)*gi
		a.V[i] = b2*a.V[i] + (1-b2)*gi*gi
		step := lr * (a.M[i] / c1) / (math.Sqrt(a.V[i]/c2) + eps)
		if step != 0 {
			moved = true
		}
		x[i] += step
	}
	return moved
}
