package lower

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ssmTable is a CSV with columns x and w of length T, and the values of w.
func ssmTable(T int, seed uint64) (csv string, w []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var sb strings.Builder
	sb.WriteString("x,w\n")
	for t := 0; t < T; t++ {
		wt := math.Round((0.5+rng.NormFloat64())*1e6) / 1e6
		fmt.Fprintf(&sb, "%s,%s\n", f64(rng.NormFloat64()), f64(wt))
		w = append(w, wt)
	}
	return sb.String(), w
}

// TestStateSpaceDecomposition: at any z, the log joint of a state-space
// model is the sum over t of its transition and observation terms plus the
// terms that depend on no latent (ConstLogDensity), which depend on params.
func TestStateSpaceDecomposition(t *testing.T) {
	const T = 6
	gauss := "data {\n x: vector[T]\n w: vector[T]\n}\nparam {\n mu: real = 0.3\n s: real<lower=0> = 1.5\n}\nlatent { z: vector[T] }\nmodel {\n" +
		" w ~ normal(mu, s)\n" +
		" z[1] ~ normal(0, 1)\n for t in 2..T { z[t] ~ normal(0.8 * z[t-1] + mu, 0.5) }\n" +
		" w[2] ~ normal(mu, 1)\n" +
		" for t in 1..T { x[t] ~ normal(z[t], s) }\n}\n"
	heavy := strings.Replace(gauss, "z[t] ~ normal(0.8 * z[t-1] + mu, 0.5)", "z[t] ~ student_t(5, 0.8 * z[t-1] + mu, 0.5)", 1)
	for _, tc := range []struct {
		name, src string
		gauss     bool
	}{{"gaussian", gauss, true}, {"student_t", heavy, false}} {
		t.Run(tc.name, func(t *testing.T) {
			csv, w := ssmTable(T, 3)
			c := compile(t, tc.src, csv)
			st := StructureOf(c)
			require.True(t, st.StateSpace, st.Reason)
			require.Equal(t, tc.gauss, st.GaussianTransition)
			require.Equal(t, T, StateSpaceOf(c).Len())
			rng := rand.New(rand.NewPCG(5, 6))
			for trial := 0; trial < 5; trial++ {
				theta := []float64{rng.NormFloat64(), 0.5 * rng.NormFloat64()}
				c.SetParams(theta)
				z := make([]float64, T)
				for i := range z {
					z[i] = 2 * rng.NormFloat64()
				}
				var joint [1]float64
				c.LogJoint(z, joint[:])
				StateSpaceOf(c).ReserveParticles(1)
				sum := ConstLogDensity(c)
				out := make([]float64, 1)
				for t0 := 0; t0 < T; t0++ {
					prev := []float64{0}
					if t0 > 0 {
						prev[0] = z[t0-1]
					}
					StateSpaceOf(c).TransitionLogDensity(t0, prev, z[t0:t0+1], out)
					sum += out[0]
					StateSpaceOf(c).ObsLogDensity(t0, z[t0:t0+1], out)
					sum += out[0]
				}
				require.InDelta(t, joint[0], sum, 1e-9)
				// the constant part alone, in closed form
				mu, s := theta[0], math.Exp(theta[1])
				want := logNormal(w[1], mu, 1)
				for _, wt := range w {
					want += logNormal(wt, mu, s)
				}
				require.InDelta(t, want, ConstLogDensity(c), 1e-9)
			}
		})
	}
}

func TestConstLogDensityWithoutConstTerms(t *testing.T) {
	c := compile(t, "data { x: vector[T] }\nlatent { z: vector[T] }\nmodel {\n z[1] ~ normal(0, 1)\n for t in 2..T { z[t] ~ normal(z[t-1], 1) }\n for t in 1..T { x[t] ~ normal(z[t], 1) }\n}\n", "x\n1\n2\n")
	require.Zero(t, ConstLogDensity(c))
}

// TestSamplePriorImpossibleDraw: when no draw from the prior lies inside the
// latent's constraint, SamplePrior says so with a NaN rather than keeping a
// stale value.
func TestSamplePriorImpossibleDraw(t *testing.T) {
	c := compile(t, "latent {\n s: real<lower=0>\n w: real\n}\nmodel {\n s ~ normal(-1000, 1)\n w ~ normal(0, 1)\n}\n", "")
	require.NoError(t, PriorError(c))
	rng := rand.New(rand.NewPCG(1, 1))
	z := []float64{7, 7}
	c.SamplePrior(rng, z)
	require.True(t, math.IsNaN(z[0]), "z[0] = %g", z[0])
	require.False(t, math.IsNaN(z[1]))
	require.NotEqual(t, 7.0, z[1])
}

// svSource is the stochastic-volatility model of the examples.
const svSource = `data {
  x: vector[T]
}
param {
  sigma2: real<lower=0> = 0.05
  phi: real<lower=-1, upper=1> = 0.9
  mu: real = 0
  beta: real<lower=0> = 1
}
latent {
  z: vector[T]
}
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

func svTable(T int) string {
	rng := rand.New(rand.NewPCG(11, 12))
	var sb strings.Builder
	sb.WriteString("x\n")
	for t := 0; t < T; t++ {
		sb.WriteString(f64(0.5*rng.NormFloat64()) + "\n")
	}
	return sb.String()
}

// BenchmarkCompileSV measures parsing, checking and compiling the
// stochastic-volatility model (what `mscppl check` does): the cost must
// grow linearly in the length T of the series.
//
//	go test ./ir -run '^$' -bench CompileSV
func BenchmarkCompileSV(b *testing.B) {
	for _, T := range []int{2000, 16000} {
		b.Run(fmt.Sprintf("T=%d", T), func(b *testing.B) {
			csv := svTable(T)
			for b.Loop() {
				c := compile(b, svSource, csv)
				if !StructureOf(c).StateSpace {
					b.Fatal(StructureOf(c).Reason)
				}
			}
		})
	}
}
