package lower

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/stdlib"
)

// cloneCases are models whose tapes hold each kind of op that keeps
// state: the family ops' scratch (every model), the RandOps of _rng and
// the ODE op with its own tape (lotka_volterra), the forward-algorithm
// op (hmm_example), hmm_marginal, gp_exp_quad_cov with cholesky and
// multi_normal's scratch (gp_regr), print and integer division per draw.
var cloneCases = []struct {
	name, model, data string
	ops               []string // ops the tape must hold, so that the case tests them
}{
	{"regression", "../../examples/logistic.msc", "../../examples/data/pima.csv", nil},
	{"ODE and _rng", "../../examples/posteriordb/hudson_lynx_hare-lotka_volterra/model.msc", "../../examples/posteriordb/hudson_lynx_hare-lotka_volterra/data.json", []string{"integrate_ode_rk45", "lognormal_rng"}},
	{"HMM forward", "../../examples/posteriordb/bball_drive_event_1-hmm_drive_1/model.msc", "../../examples/posteriordb/bball_drive_event_1-hmm_drive_1/data.json", []string{"hmm_forward"}},
	{"hmm_marginal", "", hmmExampleData, []string{"hmm_marginal"}},
	{"GP", "../../examples/posteriordb/gp_pois_regr-gp_regr/model.msc", "../../examples/posteriordb/gp_pois_regr-gp_regr/data.json", nil},
	{"print, integer division and normal_rng", "", "", []string{"print", "/", "normal_rng"}},
	{"state space", "../../examples/stochastic_volatility.msc", "../../examples/data/dem2gbp_monthly.csv", nil},
	{"state space with statics (view)", "../../examples/stochastic_volatility_bayes.msc", "../../examples/data/dem2gbp_monthly.csv", nil},
	{"vector state (view)", "", "forms", nil},
}

// vecStateModel is a state of two vectors (TestVectorStateForms).
const vecStateModel = formsData + "latent { level: vector[T]; slope: vector[T] }\nmodel {\n" +
	" level[1] ~ normal(0, 10)\n slope[1] ~ normal(0, 1)\n for t in 2..T {\n  level[t] ~ normal(level[t - 1] + slope[t - 1], 0.3)\n  slope[t] ~ normal(slope[t - 1], 0.05)\n }\n" +
	" for t in 1..T { y[t] ~ normal(level[t], 1) }\n}\n"

const cloneMsgModel = `latent { a: real; b: real }
model {
  a ~ normal(0, 1)
  k: int = 1
  if a > 0 { k = 2 }
  b ~ normal(7 / k, 1)
  if a > 5 { print("far: ", a) }
}
derived { c: real = normal_rng(a, 1) }
`

// cloneCase compiles case i (its inline sources written to a file).
func cloneCase(t *testing.T, i int) *Compiled {
	c := cloneCases[i]
	model := c.model
	if model == "" {
		src := cloneMsgModel
		if c.name == "hmm_marginal" {
			src = hmmHead + hmmMarginalBody
		}
		model = filepath.Join(t.TempDir(), "m.msc")
		require.NoError(t, os.WriteFile(model, []byte(src), 0o644))
	}
	var comp *Compiled
	if c.data == "forms" {
		comp = compile(t, vecStateModel, formsCSV(10))
	} else if c.data == "" {
		src, err := os.ReadFile(model)
		require.NoError(t, err)
		comp = compile(t, string(src), "")
	} else {
		comp = compileFile(t, model, c.data, nil)
	}
	names := map[string]bool{}
	for n := range comp.g.NumNodes() {
		if op, ok := comp.g.OpOf(autodiff.Node(n)); ok {
			names[op.Name()] = true
		}
	}
	for _, name := range c.ops {
		require.Truef(t, names[name], "the tape has no %s op", name)
	}
	if strings.HasPrefix(c.name, "state space") || strings.HasPrefix(c.name, "vector state") {
		ss := StateSpaceOf(comp)
		kinds := []bool{ss != nil, StaticStateSpaceOf(comp) != nil, ss != nil && ss.StateDim() > 1}
		want := []bool{!strings.Contains(c.name, "statics"), strings.Contains(c.name, "statics"), strings.HasPrefix(c.name, "vector")}
		require.Equal(t, want, kinds, "state space, statics, a state of several components")
	}
	return comp
}

// evalAt evaluates c's log joint (a batch of 3 rows and one row), its
// gradient, the params' gradient and the constrained draw (with the
// derived quantities and their _rng draws, seeded by seed) at the rows of
// z, and returns every value's bits.
func evalAt(c *Compiled, z [][]float64, seed uint64) []uint64 {
	var out []uint64
	add := func(xs ...float64) {
		for _, x := range xs {
			out = append(out, math.Float64bits(x))
		}
	}
	d := c.Dim()
	c.Reserve(3)
	c.SeedRNG(seed)
	batch := make([]float64, 0, 3*d)
	for _, r := range z[:3] {
		batch = append(batch, r...)
	}
	lj := make([]float64, 3)
	c.LogJoint(batch, lj)
	add(lj...)
	grad, pgrad := make([]float64, d), make([]float64, c.NumParams())
	x := make([]float64, c.Model.XDim)
	for _, r := range z {
		c.LogJoint(r, lj[:1])
		add(lj[0], c.GradLogJoint(r, grad))
		add(grad...)
		if c.NumParams() > 0 {
			add(c.GradParams(r, pgrad))
			add(pgrad...)
		}
		c.Constrain(r, x)
		add(x...)
	}
	switch { // a state-space model's steps, over two particles
	case StateSpaceOf(c) != nil:
		v := StateSpaceOf(c)
		add(stepsAt(v, v.StateDim(), z)...)
	case StaticStateSpaceOf(c) != nil:
		sv := StaticStateSpaceOf(c)
		sv.SetStatics(z[0][:len(sv.Statics())])
		add(stepsAt(sv.StateSpace(), 1, z)...)
	}
	return out
}

// stepsAt evaluates each step's transition and observation log densities
// of two particles of k components, the values taken from the rows z.
func stepsAt(s interface {
	Len() int
	ReserveParticles(n int)
	TransitionLogDensity(t int, prev, cur, out []float64)
	ObsLogDensity(t int, cur, out []float64)
}, k int, z [][]float64) []float64 {
	s.ReserveParticles(2)
	prev, cur, lp := make([]float64, 2*k), make([]float64, 2*k), make([]float64, 2)
	var out []float64
	for t := range s.Len() {
		for i := range cur {
			r := z[i%len(z)]
			cur[i] = r[(t*k+i)%len(r)]
		}
		s.TransitionLogDensity(t, prev, cur, lp)
		out = append(out, lp...)
		s.ObsLogDensity(t, cur, lp)
		out = append(out, lp...)
		copy(prev, cur)
	}
	return out
}

// randomRows are n rows of N(0, 0.5^2) values of length d.
func randomRows(rng *rand.Rand, n, d int) [][]float64 {
	z := make([][]float64, n)
	for i := range z {
		z[i] = make([]float64, d)
		for j := range z[i] {
			z[i][j] = 0.5 * rng.NormFloat64()
		}
	}
	return z
}

// TestCloneSameBits: a clone evaluates the log joint, the gradients and
// the constrained draws (_rng draws included) to the bit as a new compile
// of the model does, whatever the original evaluated before; and the
// original goes on as before after the clone is used.
func TestCloneSameBits(t *testing.T) {
	for i, tc := range cloneCases {
		t.Run(tc.name, func(t *testing.T) {
			c := cloneCase(t, i)
			rng := rand.New(rand.NewPCG(1, uint64(i)))
			z := randomRows(rng, 4, c.Dim())
			want := evalAt(cloneCase(t, i), z, 9) // a new compile
			evalAt(c, randomRows(rng, 4, c.Dim()), 5)
			k, ok := c.Clone()
			require.True(t, ok)
			mine := graphsOf(c)
			for _, g := range graphsOf(k) {
				require.NotContains(t, mine, g, "the clone evaluates on a graph of the original")
			}
			require.Equal(t, want, evalAt(k, z, 9), "the clone")
			require.Equal(t, want, evalAt(c, z, 9), "the original after its clone")
			require.NoError(t, RNGError(k))
			// the ops that reject draws (ODE solves, hmm_marginal) are the
			// copy's own, of the original's kinds (an hmm_marginal copied
			// without its checks would be plain stdlib)
			require.Len(t, k.Rejecters, len(c.Rejecters))
			for j, r := range k.Rejecters {
				require.NotSame(t, c.Rejecters[j], r)
				require.Equal(t, c.Rejecters[j].Op, r.Op)
			}
			for nd := range k.g.NumNodes() {
				if op, ok := k.g.OpOf(autodiff.Node(nd)); ok {
					if _, plain := op.(*stdlib.HMMMarginal); plain {
						t.Fatalf("hmm_marginal copied without its checks of Gamma and rho")
					}
				}
			}
			if UsesRNG(c) { // the streams are apart: drawn in turn, they agree
				x, y := make([]float64, c.Model.XDim), make([]float64, c.Model.XDim)
				c.SeedRNG(4)
				k.SeedRNG(4)
				for _, r := range z {
					c.Constrain(r, x)
					k.Constrain(r, y)
					require.Equal(t, x, y)
				}
			}
		})
	}
}

// TestCloneConcurrent: the original and its clone evaluate at the same
// time from two goroutines (run with -race) and each gets the values of a
// model evaluated alone.
func TestCloneConcurrent(t *testing.T) {
	for i, tc := range cloneCases {
		t.Run(tc.name, func(t *testing.T) {
			c := cloneCase(t, i)
			z := randomRows(rand.New(rand.NewPCG(2, uint64(i))), 6, c.Dim())
			want := evalAt(cloneCase(t, i), z, 3)
			k, ok := c.Clone()
			require.True(t, ok)
			got := make([][]uint64, 2)
			var wg sync.WaitGroup
			for j, m := range []*Compiled{c, k} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 3 {
						got[j] = evalAt(m, z, 3)
					}
				}()
			}
			wg.Wait()
			require.Equal(t, want, got[0], "the original")
			require.Equal(t, want, got[1], "the clone")
		})
	}
}

// TestCloneErrorsApart: the errors a draw meets (an integer division by
// zero, a reject) are the model's that met them, not its clone's.
func TestCloneErrorsApart(t *testing.T) {
	c := compile(t, `latent { a: real }
model {
  a ~ normal(0, 1)
  k: int = 0
  if a > 0 { k = 1 }
  target += 0 * (3 / k)
}
`, "")
	k, ok := c.Clone()
	require.True(t, ok)
	out := make([]float64, 1)
	c.LogJoint([]float64{-1}, out) // k = 0: a division by zero
	require.Error(t, RNGError(c))
	require.NoError(t, RNGError(k))
	k2, ok := c.Clone()
	require.True(t, ok)
	require.NoError(t, RNGError(k2), "a clone starts without the original's errors")
}

// graphsOf lists the graphs that c and its state-space structures
// evaluate on.
func graphsOf(c *Compiled) []*autodiff.Graph {
	gs := []*autodiff.Graph{c.g}
	if c.ssm != nil {
		gs = append(gs, c.ssm.c.g)
	}
	if c.sv != nil {
		gs = append(gs, graphsOf(c.sv.view)...)
	}
	return gs
}

// exampleData is the data file of each model of examples/ (as
// cmd/mscppl's matrixData; "" for none).
var exampleData = map[string]string{
	"eight_schools_centered.msc": "eight_schools.csv", "eight_schools_noncentered.msc": "eight_schools.csv",
	"funnel.msc": "", "half_normal.msc": "", "skew_normal.msc": "",
	"logistic.msc": "pima.csv", "logistic_large.msc": "logistic_sim_500.json", "negbin.msc": "negbin.csv",
	"normal_mean.msc": "normal_mean.csv", "probit.msc": "ionosphere.csv", "probit_raw.msc": "ionosphere.csv",
	"probit_pima.msc": "pima.csv", "probit_pima_raw.msc": "pima.csv",
	"stochastic_volatility.msc": "dem2gbp_monthly.csv", "stochastic_volatility_paper.msc": "dem2gbp_monthly.csv",
	"stochastic_volatility_bayes.msc": "dem2gbp_monthly.csv", "stochastic_volatility_t.msc": "dem2gbp_monthly.csv",
}

// TestCloneEveryExample: every example model (examples/ with its data,
// and examples/posteriordb) is copied by Clone, not compiled again: every
// op on its tape has a Clone method.
func TestCloneEveryExample(t *testing.T) {
	models, err := filepath.Glob("../../examples/*.msc")
	require.NoError(t, err)
	require.Len(t, models, len(exampleData))
	pdb, err := filepath.Glob("../../examples/posteriordb/*/model.msc")
	require.NoError(t, err)
	for _, m := range append(models, pdb...) {
		t.Run(m, func(t *testing.T) {
			var c *Compiled
			data, ok := exampleData[filepath.Base(m)]
			switch {
			case !ok: // posteriordb
				c = compileFile(t, m, filepath.Join(filepath.Dir(m), "data.json"), nil)
			case data == "":
				src, err := os.ReadFile(m)
				require.NoError(t, err)
				c = compile(t, string(src), "")
			default:
				c = compileFile(t, m, "../../examples/data/"+data, nil)
			}
			_, ok = c.Clone()
			require.True(t, ok)
		})
	}
}
