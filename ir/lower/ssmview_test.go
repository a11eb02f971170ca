package lower

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// formsCSV is a data set for the state-space forms: a real and a count
// series and two covariates.
func formsCSV(T int) string {
	rng := rand.New(rand.NewPCG(4, 4))
	var b strings.Builder
	b.WriteString("y,k,b,c\n")
	for range T {
		fmt.Fprintf(&b, "%.4f,%d,%.4f,%.4f\n", rng.NormFloat64(), rng.IntN(6), 0.5+rng.Float64(), rng.NormFloat64())
	}
	return b.String()
}

const formsData = "data { y: vector[T]; k: int[T]; b: vector[T]; c: vector[T] }\n"

// TestStateSpaceForms: structure detection recognises the state-space
// models as Stan users write them, one model per form, with the static
// latents beside the state; the view's step-by-step log densities add up
// to the model's own log joint (differences over the trajectory at fixed
// statics, so that the statics' log-Jacobians cancel).
func TestStateSpaceForms(t *testing.T) {
	const T = 12
	csv := formsCSV(T)
	statics := "latent { phi: real<lower=-1, upper=1>; s: real<lower=0>; x: vector[T] }\n"
	prior := " phi ~ uniform(-1, 1)\n s ~ normal(0, 1)\n"
	for _, c := range []struct {
		name, latent, model string
		statics             string // "" for a model whose latents are the state alone
		gaussian            bool
	}{
		{"vectorised observation", statics, prior + " x[1] ~ normal(0, 1)\n for t in 2..T { x[t] ~ normal(phi * x[t - 1], s) }\n y ~ normal(x, 1)", "phi, s", true},
		{"vectorised transition", statics, prior + " x[1] ~ normal(0, s / sqrt(1 - phi^2))\n x[2:T] ~ normal(phi * x[1:(T - 1)], s)\n for t in 1..T { y[t] ~ normal(x[t], 1) }", "phi, s", true},
		{"both vectorised", statics, prior + " x[1] ~ normal(0, 1)\n x[2:T] ~ normal(phi * x[1:(T - 1)], s)\n y ~ normal(x, s)", "phi, s", true},
		{"poisson_log observation", statics, prior + " x[1] ~ normal(0, 1)\n x[2:T] ~ normal(phi * x[1:(T - 1)], s)\n k ~ poisson_log(x)", "phi, s", true},
		{"affine observation", statics, prior + " x[1] ~ normal(0, 1)\n x[2:T] ~ normal(phi * x[1:(T - 1)], s)\n y ~ normal(x .* b + c, s)", "phi, s", true},
		{"shifted observation", statics, prior + " x[1] ~ normal(0, 1)\n x[2:T] ~ normal(phi * x[1:(T - 1)], s)\n y[2:T] ~ normal(exp(x[1:(T - 1)] / 2), s)", "phi, s", true},
		{"student_t transition", statics, prior + " x[1] ~ normal(0, 1)\n x[2:T] ~ student_t(5, phi * x[1:(T - 1)], s)\n y ~ normal(x, 1)", "phi, s", false},
		{"conditional in a loop", statics, prior + " for t in 1..T { x[t] ~ normal(t > 1 ? phi * x[t - 1] : 0, t > 1 ? s : 1) }\n y ~ normal(x, 1)", "phi, s", true},
		{"no statics, vectorised", "param { phi: real = 0.5 }\nlatent { x: vector[T] }\n", " x[1] ~ normal(0, 1)\n x[2:T] ~ normal(phi * x[1:(T - 1)], 1)\n y ~ normal(x, 1)", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compile(t, formsData+c.latent+"model {\n"+c.model+"\n}\n", csv)
			st := StructureOf(m)
			require.True(t, st.StateSpace, st.Reason)
			require.Equal(t, c.gaussian, st.GaussianTransition)
			require.Equal(t, "x", st.Latent.Name)
			require.Equal(t, c.statics, varNames(st.Statics))
			var ss *StateSpace
			var set func([]float64)
			var pos []int
			if c.statics == "" {
				ss = StateSpaceOf(m)
				require.NotNil(t, ss)
			} else {
				require.Nil(t, StateSpaceOf(m), "with statics the latents are not the trajectory alone")
				sv := StaticStateSpaceOf(m)
				ss, set, pos = sv.StateSpace(), sv.SetStatics, sv.Statics()
			}
			rng := rand.New(rand.NewPCG(7, 7))
			d := m.Dim()
			z1, z2 := make([]float64, d), make([]float64, d)
			for trial := 0; trial < 5; trial++ {
				for i := range z1 {
					z1[i] = rng.NormFloat64()
					z2[i] = z1[i]
				}
				for t := 0; t < T; t++ { // another trajectory, the same statics
					z2[d-T+t] = rng.NormFloat64()
				}
				var l1, l2 [1]float64
				m.LogJoint(z1, l1[:])
				m.LogJoint(z2, l2[:])
				if set != nil {
					theta := make([]float64, len(pos))
					for i, p := range pos {
						theta[i] = z1[p]
					}
					set(theta)
				}
				view := func(z []float64) float64 {
					x := z[d-T:]
					s, out := 0.0, []float64{0}
					ss.ReserveParticles(1)
					for t := 0; t < T; t++ {
						prev := []float64{0}
						if t > 0 {
							prev[0] = x[t-1]
						}
						ss.TransitionLogDensity(t, prev, x[t:t+1], out)
						s += out[0]
						ss.ObsLogDensity(t, x[t:t+1], out)
						s += out[0]
					}
					return s
				}
				require.InDelta(t, l1[0]-l2[0], view(z1)-view(z2), 1e-9)
			}
		})
	}
}

// TestNotStateSpaceNamesTheStatement: a model that looks like a state-space
// model but is not one gets a reason that names the statement breaking the
// structure and what would make it one.
func TestNotStateSpaceNamesTheStatement(t *testing.T) {
	const T = 12
	csv := formsCSV(T)
	latent := "latent { phi: real<lower=-1, upper=1>; s: real<lower=0>; x: vector[T] }\n"
	for _, c := range []struct{ model, want string }{
		{" x[1] ~ normal(0, 1)\n x[2:T] ~ normal(phi * x[1:(T - 1)], s)\n y ~ normal(cumulative_sum(x), s)",
			"the statement at m.msc:8:2 (y ~ normal(cumulative_sum(x), s)) reads x in a way that is not elementwise over t"},
		{" x[1] ~ normal(0, 1)\n x[2:T] ~ normal(phi * x[1:(T - 1)], s)\n y[3:T] ~ normal(x[3:T] - x[1:(T - 2)], s)",
			"depends on both"},
		{" x[1] ~ normal(0, 1)\n for t in 3..T { x[t] ~ normal(phi * x[t - 2], s) }\n x[2] ~ normal(0, 1)\n y ~ normal(x, 1)",
			"depends on x[1], not only on x[2]"},
		{" x ~ normal(0, 1)\n target += -0.5 * dot_self(x[2:T] - x[1:(T - 1)])\n y ~ normal(x, 1)", ""},
	} {
		m := compile(t, formsData+latent+"model {\n phi ~ uniform(-1, 1)\n s ~ normal(0, 1)\n"+c.model+"\n}\n", csv)
		st := StructureOf(m)
		require.False(t, st.StateSpace, c.model)
		require.Contains(t, st.Reason, c.want, c.model)
		if c.want != "" {
			require.True(t, st.Attempt, "the reason is worth reporting")
		}
	}
}

// TestVectorStateForms: a state of several components, as two latent
// vectors (loops, or a vectorised observation) or as a matrix[T, 2] row by
// row, is a state-space model whose step-by-step log densities add up to
// the model's log joint.
func TestVectorStateForms(t *testing.T) {
	const T = 10
	csv := formsCSV(T)
	vecs := "latent { level: vector[T]; slope: vector[T] }\n"
	trans := " level[1] ~ normal(0, 10)\n slope[1] ~ normal(0, 1)\n for t in 2..T {\n  level[t] ~ normal(level[t - 1] + slope[t - 1], 0.3)\n  slope[t] ~ normal(slope[t - 1], 0.05)\n }\n"
	for _, c := range []struct {
		name, latent, model string
		gaussian            bool
	}{
		{"two vectors, loops", vecs, trans + " for t in 1..T { y[t] ~ normal(level[t], 1) }", true},
		{"two vectors, vectorised observation", vecs, trans + " y ~ normal(level + 0.5 * slope, 1)", true},
		{"a component drawn given the other's past", "latent { u: vector[T]; w: vector[T] }\n",
			" u[1] ~ normal(0, 1)\n w[1] ~ normal(0, 1)\n for t in 2..T {\n  u[t] ~ normal(0.5 * u[t - 1], 1)\n  w[t] ~ student_t(4, u[t - 1], 1)\n }\n k ~ poisson_log(w)", false},
		{"a matrix row by row", "latent { x: matrix[T, 2] }\n",
			" x[1, 1] ~ normal(0, 10)\n x[1, 2] ~ normal(0, 1)\n for t in 2..T {\n  x[t, 1] ~ normal(x[t - 1, 1] + x[t - 1, 2], 0.3)\n  x[t, 2] ~ normal(x[t - 1, 2], 0.05)\n }\n for t in 1..T { y[t] ~ normal(x[t, 1], 1) }", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compile(t, formsData+c.latent+"model {\n"+c.model+"\n}\n", csv)
			st := StructureOf(m)
			require.True(t, st.StateSpace, st.Reason)
			require.Equal(t, c.gaussian, st.GaussianTransition)
			v := StateSpaceOf(m)
			require.NotNil(t, v)
			require.Nil(t, StaticStateSpaceOf(m))
			require.Equal(t, T, v.Len())
			require.Equal(t, 2, v.StateDim())
			require.Equal(t, c.gaussian, v.GaussianTransition())
			K, d := v.StateDim(), m.Dim()
			rng := rand.New(rand.NewPCG(8, 8))
			z := make([]float64, d)
			for trial := 0; trial < 4; trial++ {
				for i := range z {
					z[i] = rng.NormFloat64()
				}
				var want [1]float64
				m.LogJoint(z, want[:])
				v.ReserveParticles(1)
				got, out := 0.0, []float64{0}
				prev, cur := make([]float64, K), make([]float64, K)
				for s := 0; s < T; s++ {
					for k := range K {
						cur[k] = z[v.Index(s, k)]
					}
					v.TransitionLogDensity(s, prev, cur, out)
					got += out[0]
					v.ObsLogDensity(s, cur, out)
					got += out[0]
					copy(prev, cur)
				}
				require.InDelta(t, want[0], got, 1e-9)
				if c.gaussian { // the transition's moments give its density
					mean, chol := make([]float64, K), make([]float64, K*K)
					lp := 0.0
					for s := 0; s < T; s++ {
						if s > 0 {
							for k := range K {
								prev[k] = z[v.Index(s-1, k)]
							}
						}
						v.Transition(s, prev, mean, chol)
						for k := range K {
							sd := chol[k*K+k]
							r := (z[v.Index(s, k)] - mean[k]) / sd
							lp += -0.5*r*r - math.Log(sd) - 0.5*math.Log(2*math.Pi)
						}
						v.ObsLogDensity(s, []float64{z[v.Index(s, 0)], z[v.Index(s, 1)]}, out)
						lp += out[0]
					}
					require.InDelta(t, want[0], lp, 1e-9)
				}
			}
		})
	}
	// what is not one
	for _, c := range []struct{ latent, model, want string }{
		{vecs, trans + " y[2:T] ~ normal(level[2:T] - level[1:(T - 1)], 1)", "depends on the state at steps"},
		{"latent { u: vector[T]; w: vector[T] }\n", " u[1] ~ normal(0, 1)\n w[1] ~ normal(0, 1)\n for t in 2..T {\n  u[t] ~ normal(u[t - 1], 1)\n  w[t] ~ normal(u[t], 1)\n }\n y ~ normal(w, 1)", "not only on the state at step"},
	} {
		m := compile(t, formsData+c.latent+"model {\n"+c.model+"\n}\n", csv)
		st := StructureOf(m)
		require.False(t, st.StateSpace, c.model)
		require.Contains(t, st.Reason, c.want, c.model)
	}
}

// TestNoViewDetectsOnItsOwnCompile: a compile told not to try the view
// (as package simulate compiles) detects on its own compile alone: a
// state of one latent vector is still found, a model that is one only
// through its view is not, and models whose latents are no vector, or
// that have none, say why without failing.
func TestNoViewDetectsOnItsOwnCompile(t *testing.T) {
	const T = 12
	csv := formsCSV(T)
	for _, c := range []struct {
		name, latent, model string
		want                string // "" for a state-space model
	}{
		{"one vector", "latent { x: vector[T] }\n", " x[1] ~ normal(0, 1)\n for t in 2..T { x[t] ~ normal(0.5 * x[t - 1], 1) }\n for t in 1..T { y[t] ~ normal(x[t], 1) }", ""},
		{"statics beside the state", "latent { s: real<lower=0>; x: vector[T] }\n", " s ~ normal(0, 1)\n x[1] ~ normal(0, 1)\n x[2:T] ~ normal(0.5 * x[1:(T - 1)], s)\n y ~ normal(x, 1)", "exactly one latent vector z (this model has 2 latent variables: s, x)"},
		{"a scalar latent", "latent { mu: real }\n", " mu ~ normal(0, 1)\n y ~ normal(mu, 1)", "the latent mu is not a vector"},
		{"no latents", "param { mu: real = 0 }\n", " y ~ normal(mu, 1)", "this model has no latent variables"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileWith(t, formsData+c.latent+"model {\n"+c.model+"\n}\n", csv, CompileOptions{NoView: true})
			st := StructureOf(m)
			require.Equal(t, c.want == "", st.StateSpace, st.Reason)
			require.Contains(t, st.Reason, c.want)
			require.Equal(t, c.want == "", StateSpaceOf(m) != nil)
			require.Nil(t, StaticStateSpaceOf(m))
		})
	}
}

// TestVectorStateWithStatics: a state of K = 2 components (a matrix[T, 2],
// two vectors, an array[T] vector[2] drawn element by element or a row at
// a time by multi_normal or multi_normal_cholesky, with a covariance that
// is not diagonal) with static latents beside it is a state-space model
// given them: the structure names the two components and the statics;
// the view's step-by-step log densities at the statics set add up to the
// model's log joint (differences over the trajectory at fixed statics),
// and so do the transition's moments (its mean and Cholesky factor).
func TestVectorStateWithStatics(t *testing.T) {
	const T = 9
	csv := formsCSV(T)
	data := "data { y: vector[T]; k: int[T]; b: vector[T]; c: vector[T]\n S: matrix[2, 2] = diag_matrix(rep_vector(1, 2))\n S[1, 2] = 0.5\n S[2, 1] = 0.5\n L: matrix[2, 2] = cholesky_decompose(S) }\n"
	statics := "sq: real<lower=0>; sr: real<lower=0>; "
	prior := " sq ~ normal(0, 1)\n sr ~ normal(0, 1)\n"
	rows := " x[1, 1] ~ normal(0, 3)\n x[1, 2] ~ normal(0, 3)\n for t in 2..T {\n  x[t, 1] ~ normal(0.8 * x[t - 1, 1] + 0.3 * x[t - 1, 2], sq)\n  x[t, 2] ~ normal(-0.1 * x[t - 1, 1] + 0.6 * x[t - 1, 2], sq)\n }\n"
	obsRows := " for t in 1..T { y[t] ~ normal(x[t, 1], sr) }"
	for _, c := range []struct {
		name, latent, model, state string
	}{
		{"matrix", "x: matrix[T, 2]", rows + " y ~ normal(col(x, 1), sr)", "(x) over t = 1..9, a 2-dimensional state with the static latents sq, sr, Gaussian transition"},
		{"two vectors", "u: vector[T]; w: vector[T]", " u[1] ~ normal(0, 3)\n w[1] ~ normal(0, 3)\n for t in 2..T {\n  u[t] ~ normal(0.8 * u[t - 1] + 0.3 * w[t - 1], sq)\n  w[t] ~ normal(-0.1 * u[t - 1] + 0.6 * w[t - 1], sq)\n }\n y ~ normal(u, sr)", "(u, w) over t = 1..9, a 2-dimensional state with the static latents sq, sr, Gaussian transition"},
		{"array of vectors", "x: array[T] vector[2]", rows + obsRows, "(x) over t = 1..9, a 2-dimensional state with the static latents sq, sr"},
		{"multi_normal", "x: array[T] vector[2]", " x[1] ~ multi_normal(rep_vector(0, 2), 9 * S)\n for t in 2..T { x[t] ~ multi_normal(0.7 * x[t - 1] + sr, sq^2 * S) }\n" + obsRows, "(x) over t = 1..9, a 2-dimensional state with the static latents sq, sr"},
		{"multi_normal_cholesky", "x: array[T] vector[2]", " x[1] ~ multi_normal_cholesky(0, 3 * L)\n for t in 2..T { x[t] ~ multi_normal_cholesky(0.7 * x[t - 1], sq * L) }\n" + obsRows, "(x) over t = 1..9, a 2-dimensional state with the static latents sq, sr"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compile(t, data+"latent { "+statics+c.latent+" }\nmodel {\n"+prior+c.model+"\n}\n", csv)
			st := StructureOf(m)
			require.True(t, st.StateSpace, st.Reason)
			require.Equal(t, 2, st.StateDim())
			require.Equal(t, "sq, sr", varNames(st.Statics))
			require.Contains(t, st.String(), c.state)
			require.Nil(t, StateSpaceOf(m))
			sv := StaticStateSpaceOf(m)
			require.NotNil(t, sv)
			ss := sv.StateSpace()
			require.Equal(t, T, ss.Len())
			require.Equal(t, 2, ss.StateDim())
			require.True(t, ss.GaussianTransition())
			require.Equal(t, []int{0, 1}, sv.Statics())
			states := sv.States()
			require.Len(t, states, 2*T)
			K, d := 2, m.Dim()
			rng := rand.New(rand.NewPCG(9, 9))
			z1, z2 := make([]float64, d), make([]float64, d)
			// the view's log density of z's trajectory: by the transition's
			// density, or (moments) by its mean and Cholesky factor
			view := func(z []float64, moments bool) float64 {
				sv.SetStatics(z[:2])
				ss.ReserveParticles(1)
				s, out := 0.0, []float64{0}
				prev, cur := make([]float64, K), make([]float64, K)
				mean, chol := make([]float64, K), make([]float64, K*K)
				for t := range T {
					for k := range K {
						cur[k] = z[states[t*K+k]]
					}
					if moments {
						ss.Transition(t, prev, mean, chol)
						e0 := (cur[0] - mean[0]) / chol[0]
						e1 := (cur[1] - mean[1] - chol[2]*e0) / chol[3]
						s += -0.5*(e0*e0+e1*e1) - math.Log(chol[0]*chol[3]) - math.Log(2*math.Pi)
					} else {
						ss.TransitionLogDensity(t, prev, cur, out)
						s += out[0]
					}
					ss.ObsLogDensity(t, cur, out)
					s += out[0]
					copy(prev, cur)
				}
				return s
			}
			for range 4 {
				for i := range z1 {
					z1[i] = rng.NormFloat64()
					z2[i] = z1[i]
				}
				for _, p := range states { // another trajectory, the same statics
					z2[p] = rng.NormFloat64()
				}
				var l1, l2 [1]float64
				m.LogJoint(z1, l1[:])
				m.LogJoint(z2, l2[:])
				require.InDelta(t, l1[0]-l2[0], view(z1, false)-view(z2, false), 1e-9)
				require.InDelta(t, l1[0]-l2[0], view(z1, true)-view(z2, true), 1e-9)
			}
		})
	}
	// a multivariate normal row whose mean reads the row itself is not a transition
	mn := data + "latent { " + statics + "x: array[T] vector[2] }\nmodel {\n" + prior +
		" x[1] ~ multi_normal(rep_vector(0, 2), S)\n for t in 2..T { x[t] ~ multi_normal(0.5 * x[t - 1] + 0.1 * x[t], sq^2 * S) }\n" + obsRows + "\n}\n"
	st := StructureOf(compile(t, mn, csv))
	require.False(t, st.StateSpace)
	require.Contains(t, st.Reason, "the distribution of x[2, 1] (statement at m.msc:")
}
