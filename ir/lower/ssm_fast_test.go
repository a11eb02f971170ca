package lower

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/ir/check"
	"github.com/mscppl/mscppl/ir/dataset"
	"github.com/mscppl/mscppl/lang"
	"github.com/stretchr/testify/require"
)

const svSrc = `data { x: vector[T] }
param {
  sigma2: real<lower=0> = 0.05
  phi: real<lower=-1, upper=1> = 0.9
  mu: real = 0
  beta: real<lower=0> = 1
}
latent { z: vector[T] }
model {
  z[1] ~ normal(mu, sqrt(sigma2 / (1 - phi^2)))
  for t in 2..T {
    z[t] ~ normal(mu + phi * (z[t-1] - mu), sqrt(sigma2))
  }
  for t in 1..T {
    x[t] ~ normal(0, sqrt(beta * exp(z[t])))
  }
}
`

const lgSrc = `data { x: vector[T] }
param { phi: real<lower=-1, upper=1> = 0.3 }
latent { z: vector[T] }
model {
  z[1] ~ normal(0, 1)
  for t in 2..T {
    z[t] ~ normal(phi * z[t-1], 0.5)
  }
  for t in 1..T {
    x[t] ~ normal(z[t], 0.7)
  }
}
`

// svtSrc: a Student-t transition (no Gaussian moments), steps without
// observations and steps with two, a const term depending on a param,
// and functions of the state used twice.
const svtSrc = `data { x: vector[T]; y: vector[T] }
param {
  s: real<lower=0> = 0.3
  phi: real<lower=-1, upper=1> = 0.8
  mu: real = 0.1
  nu: real<lower=0> = 4
}
latent { z: vector[T] }
model {
  x[T] ~ normal(mu, 2)
  z[1] ~ normal(mu, s)
  for t in 2..T {
    z[t] ~ student_t(nu + 1, mu + phi * (z[t-1] - mu) / (1 + s) + 0.1 * exp(-z[t-1]^2), s)
  }
  for t in 1..T-3 {
    x[t] ~ normal(1 - z[t] / (1 + z[t]^2), sqrt(exp(z[t]) + 0.01))
  }
  for t in 1..T {
    target += normal_lpdf(z[t] | s, s) + log(2 + z[t]^2) / nu - 1 / (3 + z[t]^2) + fmax(z[t], -1) / 10
  }
  for k in 1..10 {
    y[4*k] ~ normal(log1p(z[4*k]^2), s)
  }
}
`

func compileCSV(t testing.TB, src string, cols map[string][]float64) *Compiled {
	t.Helper()
	var sb strings.Builder
	var names []string
	n := 0
	for name, v := range cols {
		names = append(names, name)
		n = len(v)
	}
	sb.WriteString(strings.Join(names, ",") + "\n")
	for i := 0; i < n; i++ {
		for k, name := range names {
			if k > 0 {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, "%.17g", cols[name][i])
		}
		sb.WriteString("\n")
	}
	return compile(t, src, sb.String())
}

func randomSeries(rng *rand.Rand, T int) []float64 {
	x := make([]float64, T)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// closeTo checks |a - b| <= tol * max(1, |b|).
func closeTo(t *testing.T, want, got, tol float64, msg string, args ...any) {
	t.Helper()
	if math.IsNaN(want) && math.IsNaN(got) || want == got {
		return
	}
	if math.Abs(want-got) > tol*math.Max(1, math.Abs(want)) {
		t.Fatalf("%s: want %.17g, got %.17g", fmt.Sprintf(msg, args...), want, got)
	}
}

// checkFastPath compares the step templates with the generic graph path:
// the per-step log densities and moments over particles (bit for bit: a
// sweep consumes the same random numbers and gives the same results), and
// GradParams along trajectories (to 1e-12), at several params.
func checkFastPath(t *testing.T, c *Compiled, maxTemplates int, exact bool) {
	t.Helper()
	require.True(t, StructureOf(c).StateSpace, StructureOf(c).String())
	f := c.ssm.fastSteps()
	require.NotNil(t, f, "the fast path was not built")
	require.LessOrEqual(t, len(f.tpls), maxTemplates)
	require.Equal(t, exact, f.grad.Exact, "exact gradient order")
	const N = 7
	StateSpaceOf(c).ReserveParticles(N)
	T := StateSpaceOf(c).Len()
	rng := rand.New(rand.NewPCG(3, 4))
	gauss := StructureOf(c).GaussianTransition
	prev, cur := make([]float64, N), make([]float64, N)
	a1, b1, a2, b2 := make([]float64, N), make([]float64, N), make([]float64, N), make([]float64, N)
	np := c.NumParams()
	theta0 := append([]float64(nil), c.Params()...)
	for round := 0; round < 4; round++ {
		theta := append([]float64(nil), theta0...)
		for i := range theta {
			if round > 0 {
				theta[i] += 0.3 * rng.NormFloat64()
			}
		}
		if round == 2 {
			copy(c.Params(), theta) // through the view, not SetParams
		} else {
			c.SetParams(theta)
		}
		for tt := 0; tt < T; tt++ {
			for i := range prev {
				prev[i], cur[i] = rng.NormFloat64(), rng.NormFloat64()
			}
			if gauss {
				c.ssm.fast = nil
				StateSpaceOf(c).Transition(tt, prev, a1, b1)
				c.ssm.fast = f
				StateSpaceOf(c).Transition(tt, prev, a2, b2)
				require.Equal(t, a1, a2, "transition mean at t = %d", tt)
				require.Equal(t, b1, b2, "transition sd at t = %d", tt)
			}
			c.ssm.fast = nil
			StateSpaceOf(c).ObsLogDensity(tt, cur, a1)
			StateSpaceOf(c).TransitionLogDensity(tt, prev, cur, b1)
			c.ssm.fast = f
			StateSpaceOf(c).ObsLogDensity(tt, cur, a2)
			StateSpaceOf(c).TransitionLogDensity(tt, prev, cur, b2)
			require.Equal(t, a1, a2, "observation log density at t = %d", tt)
			require.Equal(t, b1, b2, "transition log density at t = %d", tt)
		}
		z := make([]float64, T)
		g1, g2 := make([]float64, np), make([]float64, np)
		for rep := 0; rep < 3; rep++ {
			for i := range z {
				z[i] = 0.5 + rng.NormFloat64()
			}
			c.ssm.fast = nil
			l1 := c.GradParams(z, g1)
			c.ssm.fast = f
			l2 := c.GradParams(z, g2)
			closeTo(t, l1, l2, 1e-12, "log joint")
			for i := range g1 {
				closeTo(t, g1[i], g2[i], 1e-12, "d/dtheta[%d] (round %d)", i, round)
			}
			if f.grad.Exact { // added in the same order: the same to the bit
				require.Equal(t, g1, g2, "the gradient (round %d)", round)
			}
			// the latent gradient from the steps' input adjoints
			lg := make([]float64, T)
			for i, tp := range f.tpls {
				for s := 0; s < 2; s++ {
					for k, tt := range f.steps[i] {
						if tt-1+s >= 0 {
							lg[tt-1+s] += tp.InputGrad(s)[k]
						}
					}
				}
			}
			want := make([]float64, T)
			c.GradLogJoint(z, want)
			for i := range want {
				closeTo(t, want[i], lg[i], 1e-12, "d/dz[%d] (round %d)", i, round)
			}
			// the log joint of the generic path, for the value
			var lj [1]float64
			c.LogJoint(z, lj[:])
			closeTo(t, lj[0], l2, 1e-12, "log joint vs LogJoint")
		}
	}
	c.SetParams(theta0)
}

func TestStepTemplatesMatchGraphSV(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	c := compileCSV(t, svSrc, map[string][]float64{"x": randomSeries(rng, 60)})
	checkFastPath(t, c, 2, true)
}

func TestStepTemplatesMatchGraphLinearGaussian(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := compileCSV(t, lgSrc, map[string][]float64{"x": randomSeries(rng, 40)})
	checkFastPath(t, c, 2, true)
}

func TestStepTemplatesMatchGraphGeneral(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 3))
	c := compileCSV(t, svtSrc, map[string][]float64{"x": randomSeries(rng, 41), "y": randomSeries(rng, 41)})
	require.False(t, StructureOf(c).GaussianTransition)
	checkFastPath(t, c, 8, true)
}

// TestStepTemplatesMatchGraphSVData: the example's model on its data.
func TestStepTemplatesMatchGraphSVData(t *testing.T) {
	src, err := os.ReadFile("../../examples/stochastic_volatility_paper.msc")
	require.NoError(t, err)
	data, err := os.Open("../../examples/data/dem2gbp.csv")
	if err != nil {
		t.Skip("no data")
	}
	defer data.Close()
	file, err := lang.Parse("sv.msc", src)
	require.NoError(t, err)
	table, err := dataset.Read("dem2gbp.csv", data)
	require.NoError(t, err)
	m, err := check.Build(file, table)
	require.NoError(t, err)
	c, err := Compile(m, CompileOptions{})
	require.NoError(t, err)
	require.Equal(t, 1974, StateSpaceOf(c).Len())
	checkFastPath(t, c, 2, true)
}

// sharedSrc: a local of z[t-1] read by two steps (the transition of step
// t and the observation of step t - 1), target += terms of z[t] and of
// params alone.
const sharedSrc = `data { x: vector[T] }
param { b: real<lower=0> = 0.5; phi: real = 0.7 }
latent { z: vector[T] }
model {
  z[1] ~ normal(0, 1)
  for t in 2..T {
    w: real = b * exp(z[t-1] / 2)
    z[t] ~ normal(phi * z[t-1], 0.2 + 0.1 * w)
    x[t-1] ~ normal(0, w)
  }
  x[T] ~ normal(0, b * exp(z[T] / 2))
  for t in 1..T { target += -0.01 * z[t]^2 }
  target += normal_lpdf(x[1] | phi, b)
}
`

func TestStepTemplatesMatchGraphSharedLocal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 4))
	c := compileCSV(t, sharedSrc, map[string][]float64{"x": randomSeries(rng, 30)})
	// w is one node of two steps: the gradient takes its two adjoints
	// apart, so it is close, not the same to the bit
	checkFastPath(t, c, 3, false)
}

// vecObsSrc: two observations per step as one vector statement (the step
// reads a row of data), and a scale param of a vector observation.
const vecObsSrc = `data { X: matrix[T, 2] from "x*" }
param { phi: real = 0.5; r: real<lower=0> = 0.8 }
latent { z: vector[T] }
model {
  z[1] ~ normal(0, 1)
  for t in 2..T { z[t] ~ normal(phi * z[t-1], 1) }
  for t in 1..T { X[t] ~ normal(z[t], r) }
}
`

func TestStepTemplatesMatchGraphVectorObservation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 5))
	c := compileCSV(t, vecObsSrc, map[string][]float64{"x1": randomSeries(rng, 25), "x2": randomSeries(rng, 25)})
	// the normal density sums the two terms' adjoints of r before they
	// reach r's: close, not the same to the bit
	checkFastPath(t, c, 2, false)
}

// TestStepTemplatesFallBack: a step that computes a vector from the
// state has no template; the generic path serves the model.
func TestStepTemplatesFallBack(t *testing.T) {
	src := `data { X: matrix[T, 2] from "x*" }
latent { z: vector[T] }
model {
  c: vector[2]
  c[1] = 1
  c[2] = 2
  z[1] ~ normal(0, 1)
  for t in 2..T { z[t] ~ normal(0.5 * z[t-1], 1) }
  for t in 1..T { X[t] ~ normal(z[t] * c, 1) }
}
`
	rng := rand.New(rand.NewPCG(1, 6))
	c := compileCSV(t, src, map[string][]float64{"x1": randomSeries(rng, 10), "x2": randomSeries(rng, 10)})
	require.True(t, StructureOf(c).StateSpace)
	require.Nil(t, c.ssm.fastSteps())
	out := make([]float64, 3)
	StateSpaceOf(c).ReserveParticles(3)
	StateSpaceOf(c).ObsLogDensity(4, []float64{0.1, 0.2, 0.3}, out)
	x := c.Model.Data[0].Value
	for i, z := range []float64{0.1, 0.2, 0.3} {
		closeTo(t, logNormal(x[8], z, 1)+logNormal(x[9], 2*z, 1), out[i], 1e-12, "obs")
	}
}

// TestStepTemplatesMatchGraphRandomWalk: the transition mean is the
// previous state itself (an output that is an input of the step).
func TestStepTemplatesMatchGraphRandomWalk(t *testing.T) {
	src := `data { x: vector[T] }
param { s: real<lower=0> = 0.4 }
latent { z: vector[T] }
model {
  z[1] ~ normal(0, 1)
  for t in 2..T { z[t] ~ normal(z[t-1], s) }
  for t in 1..T { x[t] ~ normal(z[t], 1) }
}
`
	rng := rand.New(rand.NewPCG(1, 7))
	c := compileCSV(t, src, map[string][]float64{"x": randomSeries(rng, 20)})
	checkFastPath(t, c, 2, true)
}

// TestStepTemplatesMatchGraphComparisons: comparisons of the state in the
// steps (cmpOp, evaluated a batch at a time by the templates) give the
// generic path's values.
func TestStepTemplatesMatchGraphComparisons(t *testing.T) {
	src := `data { x: vector[T] }
param { b: real<lower=0> = 0.5; phi: real = 0.7 }
latent { z: vector[T] }
model {
  z[1] ~ normal(0, 1)
  for t in 2..T {
    z[t] ~ normal(phi * z[t-1] + 0.1 * (z[t-1] >= 0) - 0.1 * (z[t-1] < x[t]), 0.3)
  }
  for t in 1..T { x[t] ~ normal(z[t], b) }
}
`
	rng := rand.New(rand.NewPCG(1, 5))
	c := compileCSV(t, src, map[string][]float64{"x": randomSeries(rng, 30)})
	checkFastPath(t, c, 3, true)
}
