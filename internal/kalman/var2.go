package kalman

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// seedVAR2 seeds case (e)'s simulation (PCG, stream 1).
const seedVAR2 = 20260105

// var2F is case (e)'s transition matrix (eigenvalues 0.7 +- 0.2i, stable).
var var2F = [4]float64{0.8, 0.3, -0.1, 0.6}

// VAR2Model is case (e) in mscppl: the state as a matrix[T, 2] whose row t
// is x_t.
const VAR2Model = `// Two-dimensional VAR(1) state with both sds latent (internal/kalman.VAR2):
// exact posterior by a 150 x 150 grid over (sq, sr) with the Kalman filter
// and smoother. Only the first component is observed.
data { y: vector[T] }
latent {
  sq: real<lower=0>
  sr: real<lower=0>
  x: matrix[T, 2]
}
model {
  sq ~ normal(0, 1)
  sr ~ normal(0, 1)
  x[1, 1] ~ normal(0, 3)
  x[1, 2] ~ normal(0, 3)
  for t in 2..T {
    x[t, 1] ~ normal(0.8 * x[t-1, 1] + 0.3 * x[t-1, 2], sq)
    x[t, 2] ~ normal(-0.1 * x[t-1, 1] + 0.6 * x[t-1, 2], sq)
  }
  y ~ normal(col(x, 1), sr)
}
`

// VAR2 is case (e), issue 33's two-dimensional VAR(1) state with Bayesian
// statics: sq, sr ~ half-normal(0, 1), x_1 ~ N(0, 9 I), x_t ~ N(F x_{t-1},
// sq^2 I) with F = [0.8 0.3; -0.1 0.6], y_t ~ N(x_t[1], sr^2), T = 150,
// simulated with sq = 0.5, sr = 0.7. The exact posterior is a 150 x 150
// midpoint grid over sq in [0, 1.6] and sr in [0, 1.8] (natural scales).
// Its states are named as mscppl names a matrix's elements, x[t,k]
// (StateSummary.Col). Its grid takes seconds (the matrix path), so it is
// not among Cases, and its files are checked by the long tier.
func VAR2() (*Case, error) { return var2(150, false) }

func var2(n int, noStates bool) (*Case, error) {
	const T = 150
	sq, sr := 0.5, 0.7
	rng := rand.New(rand.NewPCG(seedVAR2, 1))
	truth := map[string]float64{"sq": sq, "sr": sr}
	y := make([]float64, T)
	x := [2]float64{3 * rng.NormFloat64(), 3 * rng.NormFloat64()}
	for t := range T {
		if t > 0 {
			x = [2]float64{var2F[0]*x[0] + var2F[1]*x[1] + sq*rng.NormFloat64(), var2F[2]*x[0] + var2F[3]*x[1] + sq*rng.NormFloat64()}
		}
		truth[fmt.Sprintf("x[%d,1]", t+1)] = x[0]
		truth[fmt.Sprintf("x[%d,2]", t+1)] = x[1]
		y[t] = x[0] + sr*rng.NormFloat64()
	}
	g := &Grid{
		Axes: []Axis{{Name: "sq", Lo: 0, Hi: 1.6, N: n}, {Name: "sr", Lo: 0, Hi: 1.8, N: n}},
		Model: func(th []float64) (Model, error) {
			q, r := th[0]*th[0], th[1]*th[1]
			return Model{
				M0: mat.NewVecDense(2, nil),
				P0: mat.NewSymDense(2, []float64{9, 0, 0, 9}),
				F:  mat.NewDense(2, 2, var2F[:]),
				Q:  mat.NewSymDense(2, []float64{q, 0, 0, q}),
				H:  mat.NewDense(1, 2, []float64{1, 0}),
				R:  mat.NewSymDense(1, []float64{r}),
			}, nil
		},
		// Two half-normal(0, 1), up to constants.
		LogPrior: func(th []float64) float64 { return -0.5 * (th[0]*th[0] + th[1]*th[1]) },
		NoStates: noStates,
	}
	c := &Case{Name: "var2", Model: VAR2Model, Y: y, Truth: truth, Grid: g,
		Resolution: "the grid at 75 x 75 moves no mean, sd or quantile by more than 2e-3 posterior sd, so the error at 150 is about 5e-4 (TestVAR2Case)"}
	if err := c.solveGrid([]string{"x", "x"}); err != nil {
		return nil, err
	}
	for k := range c.States {
		c.States[k].Col = k + 1
	}
	return c, nil
}
