package lower

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// compileJSON compiles src bound to the JSON data js.
func compileJSON(t *testing.T, src, js string) *Compiled {
	t.Helper()
	m, err := buildJSON(t, src, js)
	require.NoError(t, err)
	c, err := Compile(m, CompileOptions{})
	require.NoError(t, err)
	return c
}

const lvJSON = `{"N": 3, "ts": [1, 2, 3], "y_init": [30, 4], "y": [[47.2, 6.1], [70.2, 9.8], [77.4, 35.2]], "g": [2, 1, 2], "x": [[1, 2, 3], [4, 5, 6]]}`

const lvData = "data {\n N: int<lower=0>\n ts: array[N] real\n y_init: array[2] real\n y: array[N, 2] real<lower=0>\n}\n"

// TestArraysEquivalent: each array construct gives exactly the log joint
// of the model written with vectors, matrices and elements.
func TestArraysEquivalent(t *testing.T) {
	for _, c := range []struct {
		name, a, b string
		offset     float64 // log b - log a
	}{
		{"array[4] real<lower=0> is vector<lower=0>[4]; multi-indexing on the left of ~",
			"latent { theta: vector<lower=0>[4] }\nmodel { theta[1] ~ normal(1, 0.5); theta[3] ~ normal(1, 0.5); theta[2] ~ normal(0.05, 0.05); theta[4] ~ normal(0.05, 0.05) }",
			"latent { theta: array[4] real<lower=0> }\nmodel { theta[{1, 3}] ~ normal(1, 0.5); theta[{2, 4}] ~ normal(0.05, 0.05) }", 0},
		{"an int array indexes several elements",
			"data { g: array[3] int }\nlatent { a: vector[2] }\nmodel { a[2] ~ normal(0, 1); a[1] ~ normal(0, 1); a[2] ~ normal(0, 1) }",
			"data { g: array[3] int }\nlatent { a: array[2] real }\nmodel { a[g] ~ normal(0, 1) }", 0},
		{"a 1-D data array is a vector to distributions and elementwise functions",
			lvData + "latent { s: real<lower=0>; z: array[2] real<lower=0> }\nmodel { s ~ lognormal(-1, 1); z ~ lognormal(log(10), 1); for k in 1..2 { y_init[k] ~ lognormal(log(z[k]), s) } }",
			lvData + "latent { s: real<lower=0>; z: array[2] real<lower=0> }\nmodel { s ~ lognormal(-1, 1); z ~ lognormal(log(10), 1); log(y_init) ~ normal(log(z), s); target += -sum(log(y_init)) }", 0},
		{"a[:, k] is column k of a 2-D array, with k a loop variable or a literal",
			lvData + "latent { mu: array[2] real }\nmodel { mu ~ normal(0, 10); for k in 1..2 { for n in 1..N { y[n, k] ~ normal(mu[k], 20) } } }",
			lvData + "latent { mu: array[2] real }\nmodel { mu ~ normal(0, 10); for k in 1..2 { y[:, k] ~ normal(mu[k], 20) }\n y[:, 1] ~ normal(0, 1) }",
			-0.5*(47.2*47.2+70.2*70.2+77.4*77.4) - 3*0.5*math.Log(2*math.Pi)},
		{"a[:, k] of a latent 2-D array on the left of ~",
			"latent { m: array[3, 2] real }\nmodel { for k in 1..2 { for n in 1..3 { m[n, k] ~ normal(k, 1) } } }",
			"latent { m: array[3, 2] real }\nmodel { for k in 1..2 { m[:, k] ~ normal(k, 1) } }", 0},
		{"a[g] of a 2-D array or an array of vectors is the rows g",
			"data { x: array[2] vector[3] }\nlatent { m: array[3, 2] real; v: array[2] vector[3] }\nmodel { m[1] ~ normal(0, 1); m[2] ~ normal(2, 1); m[3] ~ normal(3, 1); v[1] ~ normal(0, 1); v[2] ~ normal(1, 1)\n target += m[3, 2] * x[2, 1] + sum(v[2]) }",
			"data { x: array[2] vector[3] }\nlatent { m: array[3, 2] real; v: array[2] vector[3] }\nmodel { target += normal_lpdf(m[{3, 1, 2}][2] | 0, 1) + normal_lpdf(m[{3, 1, 2}][3] | 2, 1) + normal_lpdf(m[{3, 1, 2}][1] | 3, 1) + normal_lpdf(v[{2, 1}][2] | 0, 1) + normal_lpdf(v[{2, 1}][1] | 1, 1)\n target += m[{1, 3}][2, 2] * x[{2, 2, 1}][1, 1] + sum(to_matrix(v[{1, 2}])[2]) }", 0},
		{"a[n] of a 2-D array is a row; a[n] of an array of vectors is a vector",
			"data { x: matrix[2, 3] }\nlatent { mu: vector[3] }\nmodel { mu ~ normal(0, 1); x[1] ~ normal(mu, 1); x[2] ~ normal(mu, 2) }",
			"data { x: array[2] vector[3] }\nlatent { mu: vector[3] }\nmodel { mu ~ normal(0, 1); x[1] ~ normal(mu, 1); to_array_1d(x)[4:6] ~ normal(mu, 2) }", 0},
		{"a function of arrays returning an array literal",
			"latent { th: array[4] real }\nmodel { th ~ normal(0, 1)\n target += normal_lpdf((th[1] - th[2] * 6.1) * 47.2 | 1, 100) + normal_lpdf((-th[3] + th[4] * 47.2) * 6.1 | 2, 100) }",
			"functions {\n dz(t: real, z: array[] real, theta: array[] real, x_i: array[] int) -> array[] real {\n  u: real = z[1]\n  v: real = z[2]\n  du: real = (theta[1] - theta[2] * v) * u\n  dv: real = (-theta[3] + theta[4] * u) * v\n  return {du, dv}\n }\n}\n" +
				lvData + "latent { th: array[4] real }\nmodel { th ~ normal(0, 1)\n d: array[2] real = dz(0, y[1], th, {1})\n target += normal_lpdf(d | {1.0, 2.0}, 100) }", 0},
		{"a local 2-D array filled element by element, and its rows",
			lvData + "latent { a: real }\nmodel { a ~ normal(0, 1); for n in 1..N { y[n, 1] ~ normal(a * ts[n], 10); y[n, 2] ~ normal(2 * a, 10) } }",
			lvData + "latent { a: real }\nmodel { a ~ normal(0, 1)\n z: array[N, 2] real\n for n in 1..N { z[n, 1] = a * ts[n]; z[n, 2] = 2 * a }\n for n in 1..N { y[n] ~ normal(z[n], 10) } }", 0},
		{"sizes and rep_array, to_vector, to_matrix, to_array_1d",
			lvData + "latent { a: real }\nmodel { a ~ normal(0, 1) }",
			lvData + "latent { a: real }\nmodel { a ~ normal(0, 1)\n target += size(y) + dims(y)[2] + num_elements(y) + sum(rep_array(0.5, 3)) + sum(rep_array(1, 2, 2)) + sum(to_vector(y_init)) - sum(to_matrix(y)) + sum(to_array_1d(y)) + size(dims(y)) + sum(to_array_1d({{1.0, 2.0}, {3.0, 5.0}})) * {{1.0, 2.0}, {3.0, 5.0}}[2, 1] }",
			3 + 2 + 6 + 1.5 + 4 + 34 + 2 + 33},
		{"array[2] simplex[3] is two simplex[3]",
			"latent { p1: simplex[3]; p2: simplex[3] }\nmodel { p1 ~ dirichlet(to_vector({1.0, 2.0, 3.0})); p2 ~ dirichlet(to_vector({4.0, 1.0, 1.0})); target += 2 * p1[2] + p2[3] }",
			"latent { p: array[2] simplex[3] }\nmodel { p[1] ~ dirichlet(to_vector({1.0, 2.0, 3.0})); p[2] ~ dirichlet(to_vector({4.0, 1.0, 1.0})); target += 2 * p[1, 2] + p[2][3] }", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			sameLogJoint(t, compileJSON(t, c.a, lvJSON), compileJSON(t, c.b, lvJSON), c.offset)
		})
	}
}

// TestArrayLatentsExact: the log joint of constrained array latents is
// the closed form with the Jacobians: array[3] real<lower=0> with
// exponential(2) priors, at random unconstrained points.
func TestArrayLatentsExact(t *testing.T) {
	c := compileJSON(t, "latent { theta: array[3] real<lower=0> }\nmodel { theta ~ exponential(2) }", "{}")
	require.Equal(t, []string{"theta[1]", "theta[2]", "theta[3]"}, c.Model.LatentNames())
	rng := rand.New(rand.NewPCG(1, 2))
	z, out := make([]float64, 3), make([]float64, 1)
	for range 10 {
		want := 0.0
		for i := range z {
			z[i] = rng.NormFloat64()
			want += math.Log(2) - 2*math.Exp(z[i]) + z[i]
		}
		c.LogJoint(z, out)
		require.InDelta(t, want, out[0], 1e-12)
	}
	p := compileJSON(t, "latent { p: array[2] simplex[3] }\nmodel { p[1] ~ dirichlet(rep_vector(1, 3)); p[2] ~ dirichlet(rep_vector(1, 3)) }", "{}")
	require.Equal(t, []string{"p[1,1]", "p[1,2]", "p[1,3]", "p[2,1]", "p[2,2]", "p[2,3]"}, p.Model.LatentNames())
	require.Equal(t, 4, p.Dim())
	x := make([]float64, 6)
	p.Constrain([]float64{0.3, -1, 2, 0.5}, x)
	require.InDelta(t, 1, x[0]+x[1]+x[2], 1e-12)
	require.InDelta(t, 1, x[3]+x[4]+x[5], 1e-12)
}

// TestArrayGradients: the gradients through array literals, columns of
// 2-D arrays and stacked simplexes against central differences.
func TestArrayGradients(t *testing.T) {
	for _, src := range []string{
		lvData + "latent { th: array[4] real<lower=0> }\nmodel { th ~ normal(1, 1)\n w: array[2] real = {th[1] * th[2], exp(th[3])}\n target += normal_lpdf(w | {1.0, th[4]}, 2) }",
		lvData + "latent { m: array[2, 3] real }\nmodel { m[1] ~ normal(0, 1); m[2] ~ normal(1, 2); for k in 1..3 { target += -square(sum(m[:, k]) - k) } }",
		"latent { p: array[3] simplex[3]; q: array[2] vector[2] }\nmodel { for k in 1..3 { p[k] ~ dirichlet(to_vector({2, 3, 4})) }\n q[1] ~ normal(0, 1); q[2] ~ normal(p[1, 2], 1)\n target += log(p[2, 1]) * q[1, 2] }",
	} {
		c := compileJSON(t, src, lvJSON)
		rng := rand.New(rand.NewPCG(4, 5))
		z := make([]float64, c.Dim())
		for i := range z {
			z[i] = 0.5 * rng.NormFloat64()
		}
		grad := make([]float64, c.Dim())
		c.GradLogJoint(z, grad)
		out := make([]float64, 1)
		for i := range z {
			const h = 1e-5
			old := z[i]
			z[i] = old + h
			c.LogJoint(z, out)
			up := out[0]
			z[i] = old - h
			c.LogJoint(z, out)
			z[i] = old
			num := (up - out[0]) / (2 * h)
			require.InDelta(t, num, grad[i], 1e-5*math.Max(1, math.Abs(num)), "%s: d/dz[%d]", src, i)
		}
	}
}

// TestArrayTypes: declared types print as Stan writes them, and the
// types of elements, rows and columns.
func TestArrayTypes(t *testing.T) {
	m, err := buildJSON(t, strings.Replace(lvData, "}", " g: array[3] int<lower=1>\n x: array[2] vector[3]\n}", 1)+"latent { p: array[2] simplex[3] }\nmodel { p[1] ~ dirichlet(x[1]) }", lvJSON)
	require.NoError(t, err)
	want := map[string]string{"ts": "array[3] real", "y": "array[3, 2] real", "g": "array[3] int", "x": "array[2] vector[3]", "p": "array[2] vector[3]", "y_init": "array[2] real"}
	for _, v := range m.Vars {
		if w, ok := want[v.Name]; ok {
			require.Equal(t, w, v.Type.String(), v.Name)
		}
	}
	require.Equal(t, []float64{47.2, 6.1, 70.2, 9.8, 77.4, 35.2}, m.Vars[3].Value)
}

// TestArrayErrors: messages for arrays used wrongly, and JSON data of the
// wrong shape, naming the field and the element.
func TestArrayErrors(t *testing.T) {
	for _, c := range []struct{ name, src, js, want string }{
		{"size mismatch", "data { N: int; ts: array[N] real }\n" + jsonTail, `{"N": 4, "ts": [1, 2, 3]}`, `the size N is 4, but field "ts"`},
		{"not an int", "data { g: array[3] int }\n" + jsonTail, `{"g": [1, 2.5, 3]}`, `non-integer value 2.5 at element [2]`},
		{"2-D given 1-D", "data { y: array[3, 2] real }\n" + jsonTail, `{"y": [1, 2, 3]}`, `data y is an array[3, 2] real, but field "y"`},
		{"a bound per element", "data { y: array[2] real<lower=0> }\n" + jsonTail, `{"y": [1, -2]}`, `element 2 is -2`},
		{"a bound per element of a 2-D array", "data { y: array[2, 2] real<lower=0> }\n" + jsonTail, `{"y": [[1, 2], [3, -4]]}`, `element [2, 2] is -4`},
		{"unsized declaration", "data { y: array[] real }\n" + jsonTail, `{"y": [1]}`, `gives the array's sizes`},
		{"3-D", "latent { a: array[2, 2, 2] real }\nmodel { a[1] ~ normal(0, 1) }", `{}`, `not supported yet`},
		{"array of matrices", "latent { a: array[2] matrix[2, 2] }\nmodel { a[1] ~ normal(0, 1) }", `{}`, `not supported yet`},
		{"function argument", "functions { f(z: array[] real) -> real { return z[1] } }\nlatent { a: vector[2] }\nmodel { target += f(a) }", `{}`, `must be array[] real, got vector[2]`},
		{"function result", "functions { f(z: real) -> array[] real { return z } }\nlatent { a: real }\nmodel { target += sum(f(a)) }", `{}`, `declared array[] real`},
		{"mixed literal", "latent { a: vector[2] }\nmodel { a ~ normal({1, a}, 1) }", `{}`, `all scalars or all vectors`},
		{"column out of range", "data { y: array[3, 2] real }\nlatent { a: real }\nmodel { for k in 1..3 { y[:, k] ~ normal(a, 1) } }", lvJSON, `index 3 is out of range`},
		{"multi-index out of range", "latent { a: array[2] real }\nmodel { a[{1, 3}] ~ normal(0, 1) }", `{}`, `out of range`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := buildJSON(t, c.src, c.js)
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

// TestLotkaVolterraWithoutODE: posteriordb's Lotka-Volterra model, all but
// the ODE solver, checks and compiles on its data.json unchanged.
func TestLotkaVolterraWithoutODE(t *testing.T) {
	js, err := os.ReadFile("testdata/lotka_volterra.json")
	require.NoError(t, err)
	src, err := os.ReadFile("testdata/lotka_volterra.msc")
	require.NoError(t, err)
	c := compileJSON(t, string(src), string(js))
	require.Equal(t, 8, c.Dim())
	out := make([]float64, 1)
	c.LogJoint(make([]float64, 8), out)
	require.False(t, math.IsNaN(out[0]) || math.IsInf(out[0], 0))
}
