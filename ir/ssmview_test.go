package ir

import (
	"fmt"
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
			st := m.Structure()
			require.True(t, st.StateSpace, st.Reason)
			require.Equal(t, c.gaussian, st.GaussianTransition)
			require.Equal(t, "x", st.Latent.Name)
			require.Equal(t, c.statics, staticNames(st.Statics))
			var ss *StateSpace
			var set func([]float64)
			var pos []int
			if c.statics == "" {
				ss = m.StateSpace()
				require.NotNil(t, ss)
			} else {
				require.Nil(t, m.StateSpace(), "with statics the latents are not the trajectory alone")
				sv := m.StaticStateSpace()
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
		st := m.Structure()
		require.False(t, st.StateSpace, c.model)
		require.Contains(t, st.Reason, c.want, c.model)
		if c.want != "" {
			require.True(t, st.Attempt, "the reason is worth reporting")
		}
	}
}
