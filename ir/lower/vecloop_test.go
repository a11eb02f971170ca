package lower

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/ir/check"
	"github.com/mscppl/mscppl/ir/dataset"
	"github.com/mscppl/mscppl/lang"
)

// compileBoth compiles src on data (CSV text, or a JSON file's path)
// twice: loops vectorised and unrolled.
func compileBoth(t *testing.T, src, data string) (vec, unrolled *Compiled) {
	t.Helper()
	comp := func(opt CompileOptions) *Compiled {
		if !strings.HasSuffix(data, ".json") {
			return compileWith(t, src, data, opt)
		}
		f, err := lang.Parse("m.msc", []byte(src))
		require.NoError(t, err)
		b, err := os.ReadFile(data)
		require.NoError(t, err)
		jd, err := dataset.ParseJSON(data, b)
		require.NoError(t, err)
		m, err := check.BuildJSON(f, jd)
		require.NoError(t, err)
		c, err := Compile(m, opt)
		require.NoError(t, err)
		return c
	}
	return comp(CompileOptions{}), comp(CompileOptions{UnrollLoops: true})
}

// TestVectorLoops: a loop compiled once over its range gives the log joint
// and the gradient of the unrolled loop, on far fewer nodes; loops the
// lowering must not touch (a statement that does not depend on the loop
// variable, a latent indexed by it) keep their meaning.
func TestVectorLoops(t *testing.T) {
	mix, err := os.ReadFile("../../examples/posteriordb/low_dim_gauss_mix-low_dim_gauss_mix/model.msc")
	require.NoError(t, err)
	const xy = "x,y\n0.5,1.2\n-1.1,-0.3\n2.0,2.9\n0.1,0.0\n-0.4,-1.1\n1.5,1.1\n"
	xy24 := "x,y\n" + strings.Repeat(xy[4:], 4) // 24 rows
	for _, c := range []struct {
		name, src, data string
		fewer           bool // the vectorised graph is smaller
	}{
		{"regression by ~", "data { x: vector[N]; y: vector[N] }\nlatent { a: real; b: real; s: real<lower=0> }\nmodel {\n a ~ normal(0, 1); b ~ normal(0, 1); s ~ normal(0, 1)\n for n in 1..N { y[n] ~ normal(a + b * x[n], s) }\n}", xy, true},
		{"target += with functions and the index as a number", "data { x: vector[N]; y: vector[N] }\nlatent { a: real; s: real<lower=0> }\nmodel {\n a ~ normal(0, 1); s ~ normal(0, 1)\n for n in 2..N { target += normal_lpdf(y[n] | a * exp(x[n] / n), s) - square(x[n]) * log1p(s) + (y[n] > a) }\n}", xy, true},
		{"log_mix of densities", string(mix), "../../examples/posteriordb/low_dim_gauss_mix-low_dim_gauss_mix/data.json", true},
		{"a latent gathered by a data index", "data { g: int[N]; y: vector[N] }\nlatent { mu: real; tau: real<lower=0>; a: vector[3] }\nmodel {\n a ~ normal(0, 1); tau ~ normal(0, 1)\n for n in 1..N { y[n] ~ normal(mu + tau * a[g[n]], 1) }\n}", "g,y\n1,0.5\n3,-0.2\n2,1.1\n3,0.3\n1,-1.0\n2,0.7\n", true},
		{"locals defined before the loop, gathered and whole", "data { g: int[N]; y: vector[N] }\nlatent { mu: real; tau: real<lower=0>; a_raw: vector[3] }\nmodel {\n a_raw ~ normal(0, 1); tau ~ normal(0, 1)\n a = mu + tau * a_raw\n s = 1 + tau\n for n in 1..N { y[n] ~ normal(a[g[n]] + a[2], s) }\n}", "g,y\n1,0.5\n3,-0.2\n2,1.1\n3,0.3\n1,-1.0\n2,0.7\n", true},
		{"transformed data indexed by the loop variable", "data { x: vector[N]; y: vector[N]\n x2 = x .* x + 1 }\nlatent { a: real; b: real }\nmodel {\n a ~ normal(0, 1); b ~ normal(0, 1)\n for n in 1..N { y[n] ~ normal(a + b * x2[n], 1) }\n}", xy, true},
		{"a local assigned element by element, then used whole", "data { x: vector[N]; y: vector[N] }\nlatent { a: real; b: real; s: real<lower=0> }\nmodel {\n a ~ normal(0, 1); b ~ normal(0, 1); s ~ normal(0, 1)\n mu: vector[N]\n for n in 1..N { mu[n] = a + b * x[n] }\n y ~ normal(mu, s)\n}", xy24, true},
		{"a local assigned and read in the same loop, and a scalar assigned to every element", "data { x: vector[N]; y: vector[N] }\nlatent { a: real; b: real; s: real<lower=0> }\nmodel {\n a ~ normal(0, 1); b ~ normal(0, 1); s ~ normal(0, 1)\n mu: vector[N]\n c: vector[N]\n for n in 1..N { mu[n] = a + b * x[n]; c[n] = s; y[n] ~ normal(mu[n], c[n]) }\n target += -sum(c) / 100\n}", xy24, true},
		{"a local over part of its length, or reading itself, is unrolled", "data { x: vector[N]; y: vector[N] }\nlatent { a: real }\nmodel {\n a ~ normal(0, 1)\n mu: vector[N]\n mu[1] = a\n for n in 2..N { mu[n] = a * x[n] }\n nu = x\n for n in 1..N { nu[n] = nu[n] * a }\n y ~ normal(mu + nu, 1)\n}", xy, false},
		{"scalars of the body, declared and assigned again", "data { x: vector[N]; y: vector[N] }\nlatent { a: real; b: real; s: real<lower=0> }\nmodel {\n a ~ normal(0, 1); b ~ normal(0, 1); s ~ normal(0, 1)\n for n in 1..N {\n  eta = a + b * x[n]\n  eta = eta * 0.5 + x[n]\n  t: real\n  t = exp(eta / 4)\n  y[n] ~ normal(eta, s * t)\n }\n}", xy24, true},
		{"a scalar of the body with one value for all n", "data { y: vector[N] }\nlatent { a: real }\nmodel {\n a ~ normal(0, 1)\n for n in 1..N { c = a * 2\n target += c + y[n] }\n}", xy24, true},
		{"a statement that reads only such a scalar is unrolled", "data { y: vector[N] }\nlatent { a: real }\nmodel {\n a ~ normal(0, 1)\n for n in 1..N { c = a * 2\n target += c / 10 }\n}", xy, false},
		{"an inner loop with known bounds (an AR(2) on data written as Stan's arK)", "data { y: vector[N] }\nlatent { a: real; b: vector[2]; s: real<lower=0> }\nmodel {\n a ~ normal(0, 1); b ~ normal(0, 1); s ~ normal(0, 1)\n for t in 3..N {\n  mu: real\n  mu = a\n  for k in 1..2 { mu = mu + b[k] * y[t - k] }\n  y[t] ~ normal(mu, s)\n }\n}", xy24, true},
		{"an inner loop whose bounds depend on n is unrolled", "data { y: vector[N] }\nlatent { a: real; b: real; s: real<lower=0> }\nmodel {\n a ~ normal(0, 1); b ~ normal(0, 1); s ~ normal(0, 1)\n for t in 2..N {\n  mu = a\n  for k in 1..(t - 1) { mu = mu + b * y[t - k] / t }\n  y[t] ~ normal(mu, s)\n }\n}", xy, false},
		{"data shifted by a constant (an autoregression on data)", "data { x: vector[N]; y: vector[N] }\nlatent { a: real; b: real; s: real<lower=0> }\nmodel {\n a ~ normal(0, 1); b ~ normal(0, 1); s ~ normal(0, 1)\n for t in 3..N { y[t] ~ normal(a + b * y[t - 1] + y[t - 2] / 4 + x[1 + t - 2], s) }\n for t in 1..(N - 1) { target += normal_lpdf(x[t + 1] | b * x[t], 1) }\n}", xy24, true},
		{"rows of a data matrix times a latent vector (x[n] * beta)", "data { X: matrix[N, K] from \"x*\"; y: vector[N] }\nlatent { b: vector[K]; s: real<lower=0> }\nmodel {\n b ~ normal(0, 1); s ~ normal(0, 1)\n for n in 2..N { y[n] ~ normal(X[n] * b + dot(X[n], b) / 2 + X[n] * (2 * b), s) }\n}", "x1,x2,y\n" + strings.Repeat("0.5,1,1.2\n-1.1,0.3,-0.3\n2.0,-1,2.9\n0.1,0,0.0\n", 6), true},
		{"integer division, remainder and comparisons of the loop variable and the data", "data { x: vector[N]; y: vector[N] }\nlatent { a: real; s: real<lower=0> }\nmodel {\n a ~ normal(0, 1); s ~ normal(0, 1)\n for n in 1..N { y[n] ~ normal(a * (n / 4) + (n % 3) - (n %/% 5) + (x[n] >= 0.5) + (y[n] == y[n]) + (a < x[n]), s) }\n}", xy24, true},
		{"a statement without the loop variable is repeated", "data { y: vector[N] }\nlatent { s: real<lower=0> }\nmodel {\n s ~ normal(0, 1)\n for n in 1..N { target += log(s) }\n}", "y\n1\n2\n3\n", false},
		{"a latent indexed by the loop variable", "data { y: vector[N] }\nlatent { z: vector[N] }\nmodel {\n for n in 1..N { z[n] ~ normal(0, 1); y[n] ~ normal(z[n], 1) }\n}", "y\n1\n2\n3\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, u := compileBoth(t, c.src, c.data)
			if c.fewer {
				require.Less(t, v.g.NumNodes(), u.g.NumNodes()/2, "vectorised")
			} else {
				require.Equal(t, v.g.NumNodes(), u.g.NumNodes(), "unrolled as before")
			}
			// the loop's terms depend on the same latents either way (the
			// structure detection reads these)
			loopDeps := func(c *Compiled) map[int]bool {
				out := map[int]bool{}
				for _, f := range c.Factors {
					if f.Loops != "" {
						for _, d := range f.deps {
							out[d] = true
						}
					}
				}
				return out
			}
			require.Equal(t, loopDeps(u), loopDeps(v), "latents the loop's terms depend on")
			sameDensity(t, v, u, rand.New(rand.NewPCG(8, 9)), 10, 1, 1e-10, 1e-9)
		})
	}
}

// sameDensity requires a and b to give the same log joint (not NaN) and
// gradient, within rel and relGrad relative to 1 + |value|, at draws
// points with N(0, scale^2) components.
func sameDensity(t *testing.T, a, b *Compiled, rng *rand.Rand, draws int, scale, rel, relGrad float64) {
	t.Helper()
	z := make([]float64, a.Dim())
	la, lb := make([]float64, 1), make([]float64, 1)
	ga, gb := make([]float64, a.Dim()), make([]float64, a.Dim())
	for range draws {
		for i := range z {
			z[i] = scale * rng.NormFloat64()
		}
		a.LogJoint(z, la)
		b.LogJoint(z, lb)
		require.False(t, math.IsNaN(la[0]))
		require.InDelta(t, lb[0], la[0], rel*(1+math.Abs(lb[0])))
		a.GradLogJoint(z, ga)
		b.GradLogJoint(z, gb)
		for i := range ga {
			require.InDelta(t, gb[i], ga[i], relGrad*(1+math.Abs(gb[i])))
		}
	}
}

// TestVectorLoopsPosteriordb: on every posteriordb model of the examples
// (and the examples' own models with data), the vectorised compilation
// gives the log joint and gradient of the unrolled one.
func TestVectorLoopsPosteriordb(t *testing.T) {
	dirs, err := filepath.Glob("../../examples/posteriordb/*/model*.msc")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, model := range dirs {
		t.Run(filepath.Base(filepath.Dir(model))+"/"+filepath.Base(model), func(t *testing.T) {
			src, err := os.ReadFile(model)
			require.NoError(t, err)
			v, u := compileBoth(t, string(src), filepath.Join(filepath.Dir(model), "data.json"))
			sameDensity(t, v, u, rand.New(rand.NewPCG(1, 2)), 5, 0.5, 1e-9, 1e-8)
			t.Logf("%d nodes vectorised, %d unrolled", v.g.NumNodes(), u.g.NumNodes())
		})
	}
}

// TestGatherForms: a[g] (an integer data vector as the index, one gather
// node) and the unrolled loop over a[g[n]] (one index node per n) are the
// same log density and gradient.
func TestGatherForms(t *testing.T) {
	const data = "g,y\n1,0.5\n3,-0.2\n2,1.1\n3,0.3\n1,-1.0\n2,0.7\n"
	head := "data { g: int[N]; y: vector[N] }\nlatent { mu: real; tau: real<lower=0>; a: vector[3] }\nmodel {\n a ~ normal(0, 1); tau ~ normal(0, 1)\n"
	whole := compile(t, head+" y ~ normal(mu + tau * a[g], 1)\n}", data)
	// the loop unrolled: a[g[n]] as N index nodes
	loop := compileWith(t, head+" for n in 1..N { y[n] ~ normal(mu + tau * a[g[n]], 1) }\n}", data, CompileOptions{UnrollLoops: true})
	sameDensity(t, whole, loop, rand.New(rand.NewPCG(3, 4)), 10, 1, 1e-12, 1e-12)
	gw := make([]float64, whole.Dim())
	whole.GradLogJoint([]float64{0.1, -0.4, 0.3, 0.7, -1.2}, gw)
	require.NotZero(t, gw[2], "a[1] gets a gradient through the gather")
}
