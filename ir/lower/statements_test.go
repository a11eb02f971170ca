package lower

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// sameLogJoint checks that two models give the same log joint at random
// points (the same latents in the same order).
func sameLogJoint(t *testing.T, a, b *Compiled, offset float64) {
	t.Helper()
	require.Equal(t, a.Dim(), b.Dim())
	rng := rand.New(rand.NewPCG(3, 3))
	z := make([]float64, a.Dim())
	la, lb := make([]float64, 1), make([]float64, 1)
	for range 20 {
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		a.LogJoint(z, la)
		b.LogJoint(z, lb)
		require.False(t, math.IsNaN(la[0]))
		require.InDelta(t, la[0]+offset, lb[0], 1e-9*(1+math.Abs(la[0])))
	}
}

const arCSV = "y\n0.3\n-0.1\n0.8\n1.2\n0.4\n-0.6\n0.2\n"

// TestStatementsEquivalent: each new construct gives exactly the log joint
// of a model written without it.
func TestStatementsEquivalent(t *testing.T) {
	for _, c := range []struct {
		name, a, b string
		offset     float64 // log b - log a
	}{
		{"target += normal_lpdf equals ~",
			"data { y: vector[N] }\nlatent { mu: real; s: real<lower=0> }\nmodel { mu ~ normal(0, 1); s ~ normal(0, 2); y ~ normal(mu, s) }",
			"data { y: vector[N] }\nlatent { mu: real; s: real<lower=0> }\nmodel { target += normal_lpdf(mu | 0, 1); target += normal_lpdf(s | 0, 2); target += normal_lpdf(y | mu, s) }", 0},
		{"a reassigned accumulator equals the sum written out",
			"data { y: vector[N] }\nlatent { b: vector[2] }\nmodel {\n b ~ normal(0, 1)\n for t in 3..N { y[t] ~ normal(b[1] * y[t-1] + b[2] * y[t-2], 1) }\n}",
			"data { y: vector[N] }\nlatent { b: vector[2] }\nmodel {\n b ~ normal(0, 1)\n for t in 3..N {\n  acc: real = 0\n  for k in 1..2 { acc = acc + b[k] * y[t-k] }\n  y[t] ~ normal(acc, 1)\n }\n}", 0},
		{"a local vector filled element by element equals the vector expression",
			"data { y: vector[N] }\nlatent { m: real }\nmodel { m ~ normal(0, 1); y ~ normal(m + 2 * y, 1) }",
			"data { y: vector[N] }\nlatent { m: real }\nmodel {\n m ~ normal(0, 1)\n mu: vector[N]\n for n in 1..N { mu[n] = m + 2 * y[n] }\n y ~ normal(mu, 1)\n}", 0},
		{"if on data picks a branch at compile time",
			"data { y: vector[N] }\nlatent { m: real }\nmodel { m ~ normal(0, 1); for n in 1..N { y[n] ~ normal(m, 1) } }",
			"data { y: vector[N] }\nlatent { m: real }\nmodel {\n m ~ normal(0, 1)\n for n in 1..N {\n  if y[n] > 0 && n != 100 { y[n] ~ normal(m, 1) } else if y[n] <= 0 || n == 100 { target += normal_lpdf(y[n] | m, 1) } else { target += 1000 }\n }\n}", 0},
		{"transformed data and a data expression on the left of ~",
			"data { y: vector[N] }\nlatent { m: real }\nmodel { m ~ normal(0, 1); y ~ normal(m, 1) }",
			"data {\n y: vector[N]\n y2 = 2 * y\n}\nlatent { m: real }\nmodel { m ~ normal(0, 1); y2 / 2 ~ normal(m, 1) }", 0},
		{".* and ./ are elementwise",
			"data { y: vector[N] }\nlatent { m: real }\nmodel { m ~ normal(0, 1); y ~ normal(m * y, 1) }",
			"data { y: vector[N] }\nlatent { m: real }\nmodel { m ~ normal(0, 1); y ~ normal((m * y) .* y ./ y, 1) }", 0},
		{"a comparison of latents is 0 or 1",
			"latent { m: real }\nmodel { m ~ normal(0, 1) }",
			"latent { m: real }\nmodel { m ~ normal(0, 1); target += (m > 100) * 5 + !(m < 100) - (m == m) }", -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			sameLogJoint(t, compile(t, c.a, arCSV), compile(t, c.b, arCSV), c.offset)
		})
	}
}

// TestStatementErrors: the messages of misuse name the construct.
func TestStatementErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"latent { m: vector[2] }\nmodel { m ~ normal(0, 1); if m > 0 { target += 1 } }", "must be a scalar"},
		{"latent { m: real }\nmodel { m ~ normal(0, 1); v: vector[2]; v = m }", "assign it a value of that shape"},
		{"param { p: real = 0 }\nlatent { m: real }\nmodel { m ~ normal(0, 1); p ~ normal(0, 1) }", "must be a latent or data variable"},
		{"latent { m: real }\nmodel { m ~ normal(0, 1); target += normal_lpdf(m | 0) }", "takes 2 parameters"},
		{"latent { m: real }\nmodel { m ~ normal(0, 1); target += exp(m | 1) }", "only a log density"},
	} {
		got := buildErr(t, c.src, "")
		require.True(t, strings.Contains(got, c.want), "%q does not contain %q", got, c.want)
	}
}

// TestNaryFunctions: log_mix, pow and fmax through the language equal
// their closed forms.
func TestNaryFunctions(t *testing.T) {
	a := compile(t, "latent { m: real }\nmodel { m ~ normal(0, 1); target += log(0.3 * exp(normal_lpdf(m | 1, 2)) + 0.7 * exp(normal_lpdf(m | -1, 1))) + m^3 + (m > 0.5) * m + (m <= 0.5) * 0.5 }", "")
	b := compile(t, "latent { m: real }\nmodel { m ~ normal(0, 1); target += log_mix(0.3, normal_lpdf(m | 1, 2), normal_lpdf(m | -1, 1)) + pow(m, 3) + fmax(m, 0.5) }", "")
	sameLogJoint(t, a, b, 0)
}

// TestUserFunctions: a user function is inlined: the same log joint as the
// code written out; it sees only its parameters; recursion is reported.
func TestUserFunctions(t *testing.T) {
	a := compile(t, "data { y: vector[N] }\nlatent { m: real; s: real<lower=0> }\nmodel { m ~ normal(0, 1); s ~ normal(0, 1); for n in 1..N { y[n] ~ normal(m + 0.5 * y[n], s) } }", arCSV)
	b := compile(t, "functions {\n  mean_of(m: real, x: real) -> real {\n    c: real = 0.5\n    return m + c * x\n  }\n  ll(v: real, mu: real, s: real) -> real { return normal_lpdf(v | mu, s) }\n}\ndata { y: vector[N] }\nlatent { m: real; s: real<lower=0> }\nmodel { m ~ normal(0, 1); s ~ normal(0, 1); for n in 1..N { target += ll(y[n], mean_of(m, y[n]), s) } }", arCSV)
	sameLogJoint(t, a, b, 0)
	for _, c := range []struct{ src, want string }{
		{"functions { f(x: real) -> real { return f(x) } }\nlatent { m: real }\nmodel { m ~ normal(f(1), 1) }", "recursive functions are not supported"},
		{"functions { f(x: real) -> real { return x + m } }\nlatent { m: real }\nmodel { m ~ normal(f(1), 1) }", "unknown name \"m\""},
		{"functions { f(x: int) -> real { return x } }\nlatent { m: real }\nmodel { m ~ normal(f(1.5), 1) }", "must be int"},
		{"functions { f(x: real) -> real { y: real = x } }\nlatent { m: real }\nmodel { m ~ normal(f(1), 1) }", "must end with return"},
		{"latent { m: real }\nmodel { m ~ normal(0, 1); return m }", "return belongs"},
	} {
		got := buildErr(t, c.src, "")
		require.True(t, strings.Contains(got, c.want), "%q does not contain %q", got, c.want)
	}
}

// TestMultivariate: a multivariate normal with a diagonal covariance, as
// multi_normal, multi_normal_cholesky of its Cholesky factor, and a
// dirichlet with unit weights, equal the univariate terms written out.
func TestMultivariate(t *testing.T) {
	a := compile(t, "latent { z: vector[3]; s: real<lower=0> }\nmodel { s ~ normal(0, 1); z ~ normal(1, s) }", "")
	b := compile(t, "latent { z: vector[3]; s: real<lower=0> }\nmodel {\n s ~ normal(0, 1)\n S: matrix[3, 3] = diag_matrix(rep_vector(s * s, 3))\n z ~ multi_normal(rep_vector(1, 3), S)\n}", "")
	c := compile(t, "latent { z: vector[3]; s: real<lower=0> }\nmodel {\n s ~ normal(0, 1)\n L: matrix[3, 3] = cholesky_decompose(diag_matrix(rep_vector(s * s, 3)) + gp_exp_quad_cov(z, 0, 1))\n target += multi_normal_cholesky_lpdf(z | rep_vector(1, 3), L)\n}", "")
	sameLogJoint(t, a, b, 0)
	sameLogJoint(t, a, c, 0)
	d := compile(t, "latent { p: simplex[3] }\nmodel { }", "")
	e := compile(t, "latent { p: simplex[3] }\nmodel { p ~ dirichlet(rep_vector(1, 3)) }", "")
	sameLogJoint(t, d, e, math.Log(2)) // Dirichlet(1, 1, 1) is uniform with density 2
}

// TestBuiltins: the composed library functions equal their definitions.
func TestBuiltins(t *testing.T) {
	a := compile(t, "latent { v: vector[4] }\nmodel { v ~ normal(0, 1)\n target += sum(v) / 4 + sqrt(sum((v - sum(v) / 4) .* (v - sum(v) / 4)) / 3) + v[2] + v[3] + v[1] + (v[1] + v[2]) + log_sum_exp(v) * 0 + v[4] - log_sum_exp(v) + 8 + 2 * v[1] * 3 }", "")
	b := compile(t, "latent { v: vector[4] }\nmodel { v ~ normal(0, 1)\n target += mean(v) + sd(v) + sum(segment(v, 2, 2)) + sum(head(v, 1)) + cumulative_sum(v)[2] + log_softmax(v)[4] + num_elements(rep_matrix(1, 2, 4)) + diag_pre_multiply(v, rep_matrix(3, 4, 2))[1, 2] * 2 + sum(softmax(v)) - 1 + rows(v) - 4 }", "")
	sameLogJoint(t, a, b, 0)
}

// TestNormalIDGLM: normal_id_glm is the normal regression written out.
func TestNormalIDGLM(t *testing.T) {
	const csv = "y,x1,x2\n1,0.5,2\n0.3,-1,1\n2,1.5,0\n"
	a := compile(t, "data { y: vector[N]; X: matrix[N, 2] from \"x*\" }\nlatent { a: real; b: vector[2] }\nmodel { a ~ normal(0, 1); b ~ normal(0, 1); y ~ normal(a + X * b, 2) }", csv)
	b := compile(t, "data { y: vector[N]; X: matrix[N, 2] from \"x*\" }\nlatent { a: real; b: vector[2] }\nmodel { a ~ normal(0, 1); b ~ normal(0, 1); y ~ normal_id_glm(X, a, b, 2) }", csv)
	c := compile(t, "data { y: vector[N]; X: matrix[N, 2] from \"x*\" }\nlatent { a: real; b: vector[2] }\nmodel { a ~ normal(0, 1); b ~ normal(0, 1); target += normal_id_glm_lpdf(y | X, a, b, 2) }", csv)
	sameLogJoint(t, a, b, 0)
	sameLogJoint(t, a, c, 0)
}

// TestIndexArray: a[g] with an integer array equals the loop over a[g[n]].
func TestIndexArray(t *testing.T) {
	const csv = "y,g\n1,2\n0.3,1\n2,2\n-1,3\n"
	a := compile(t, "data { y: vector[N]; g: int<lower=1, upper=3>[N] }\nlatent { a: vector[3] }\nmodel { a ~ normal(0, 1); for n in 1..N { y[n] ~ normal(a[g[n]], 1) } }", csv)
	b := compile(t, "data { y: vector[N]; g: int<lower=1, upper=3>[N] }\nlatent { a: vector[3] }\nmodel { a ~ normal(0, 1); y ~ normal(a[g], 1) }", csv)
	sameLogJoint(t, a, b, 0)
}

// TestSlices: ranges of vectors and blocks of matrices equal their elements.
func TestSlices(t *testing.T) {
	const csv = "y,x1,x2,x3\n1,0.5,2,1\n0.3,-1,1,0\n2,1.5,0,-2\n"
	a := compile(t, "data { X: matrix[N, 3] from \"x*\" }\nlatent { v: vector[4] }\nmodel { v ~ normal(0, 1)\n target += v[2] + v[3] + v[1] + v[2] + v[3] + v[4] + X[1, 2] * v[1] + X[2, 2] * v[2] + X[3, 2] * v[3] + X[2, 1] + X[2, 2] + X[2, 3] + X[2, 3] + X[3, 3] }", csv)
	b := compile(t, "data { X: matrix[N, 3] from \"x*\" }\nlatent { v: vector[4] }\nmodel { v ~ normal(0, 1)\n target += sum(v[2:3]) + sum(v[:1]) + sum(v[2:]) + dot(X[:, 2], v[1:3]) + sum(X[2, :]) + sum(X[2:3, 3]) }", csv)
	sameLogJoint(t, a, b, 0)
	c := compile(t, "data { X: matrix[N, 3] from \"x*\" }\nlatent { v: vector[2] }\nmodel { v ~ normal(0, 1)\n target += dot(X[2:3, 2:3] * v, v) }", csv)
	d := compile(t, "data { X: matrix[N, 3] from \"x*\" }\nlatent { v: vector[2] }\nmodel { v ~ normal(0, 1)\n target += v[1] * (X[2, 2] * v[1] + X[2, 3] * v[2]) + v[2] * (X[3, 2] * v[1] + X[3, 3] * v[2]) }", csv)
	sameLogJoint(t, c, d, 0)
}

// TestTransposeAndProducts: v' * w is the dot product, (A B) v and A' v
// equal their elements.
func TestTransposeAndProducts(t *testing.T) {
	const csv = "x1,x2\n1,2\n3,-1\n"
	a := compile(t, "data { A: matrix[N, 2] from \"x*\" }\nlatent { v: vector[2] }\nmodel { v ~ normal(0, 1)\n target += v' * v + sum((A * A) * v) + sum(A' * v) + sum(v' * A) }", csv)
	b := compile(t, "data { A: matrix[N, 2] from \"x*\" }\nlatent { v: vector[2] }\nmodel { v ~ normal(0, 1)\n target += dot(v, v) + (7 * v[1] + 0 * v[2]) + (0 * v[1] + 7 * v[2]) + (1 + 2) * v[1] + (3 - 1) * v[2] + (1 + 2) * v[1] + (3 - 1) * v[2] }", csv)
	sameLogJoint(t, a, b, 0)
}

// TestPiecewiseIf: an if on a latent value adds each branch's terms where
// that branch is taken and gives locals the value of the branch taken,
// and a branch that is -Inf where it is not taken does not spoil the sum.
func TestPiecewiseIf(t *testing.T) {
	a := compile(t, "latent { m: real }\nmodel { m ~ normal(0, 1)\n target += (m > 0) * normal_lpdf(m | 1, 1) + (m <= 0) * (normal_lpdf(m | -1, 2) + 3 * m) }", "")
	b := compile(t, "latent { m: real }\nmodel { m ~ normal(0, 1)\n k: real = 0\n if m > 0 { target += normal_lpdf(m | 1, 1) } else { target += normal_lpdf(m | -1, 2); k = 3 * m }\n target += k\n if m > 100 { target += log(m - 100) } }", "")
	sameLogJoint(t, a, b, 0)
	rng := rand.New(rand.NewPCG(1, 1))
	z, grad := make([]float64, 1), make([]float64, 1)
	for range 10 {
		z[0] = rng.NormFloat64()
		b.GradLogJoint(z, grad)
		require.False(t, math.IsNaN(grad[0]))
	}
}

// TestVectorBounds: a latent vector bounded elementwise by a data vector
// equals the scalar latents bounded one by one.
func TestVectorBounds(t *testing.T) {
	const csv = "lo\n-1\n2\n"
	a := compile(t, "data { lo: vector[N] }\nlatent { a: real<lower=-1>; b: real<lower=2> }\nmodel { a ~ normal(0, 1); b ~ normal(0, 1) }", csv)
	b := compile(t, "data { lo: vector[N] }\nlatent { v: vector<lower=lo>[N] }\nmodel { v ~ normal(0, 1) }", csv)
	sameLogJoint(t, a, b, 0)
}

// TestCategoricalAndIntLocals: categorical(theta) is log theta[y], and a
// local integer array indexes like a data one.
func TestCategoricalAndIntLocals(t *testing.T) {
	a := compile(t, "latent { p: simplex[3] }\nmodel { target += log(p[2]) + log(p[3]) + log(p[2]) }", "")
	b := compile(t, "latent { p: simplex[3] }\nmodel {\n g: int[3]\n g[1] = 2\n g[2] = 3\n g[3] = g[1]\n for n in 1..3 { g[n] ~ categorical(p) }\n}", "")
	sameLogJoint(t, a, b, 0)
	got := buildErr(t, "latent { p: simplex[3] }\nmodel { g: int[2]; g[1] = 1.5 }", "")
	require.Contains(t, got, "holds integers")
}

// TestRowVectorProducts: the products of row_vectors (a latent
// row_vector q, the rows M[i] of a matrix, a transposed vector w') have
// Stan's values: row * vector the inner product, row * matrix a row,
// vector * row the outer product, matrix * row the matrix times the row's
// elements; written out element by element.
func TestRowVectorProducts(t *testing.T) {
	const js = `{"M": [[1, 2], [3, 4]], "A": [[1, 0], [0, 1], [1, 1]]}`
	const head = "data { M: matrix[2, 2]; A: matrix[3, 2] }\nlatent { w: vector[2]; q: row_vector[2] }\nmodel { w ~ normal(0, 1); q ~ normal(0, 1)\n"
	a := compileJSON(t, head+` target += q * w + sum(q * M) + sum(w * q) + M[2] * w + sum(A * M[1]) + sum(A * q) + w' * w
 target += sum((w * q) * w) + (M[1, :]')[2] + sum(q' .* w) + sum(M[1] + w) + sum(q * A') + (q * M)[2] * 10
 for i in 1..2 { target += M[i] * w + M[i, :] * q' }
}`, js)
	b := compileJSON(t, head+` target += q[1] * w[1] + q[2] * w[2] + 3 * q[1] + 7 * q[2] + (w[1] + w[2]) * (q[1] + q[2]) + 3 * w[1] + 4 * w[2] + 6 + 2 * q[1] + 2 * q[2] + w[1]^2 + w[2]^2
 target += (w[1] + w[2]) * (q[1] * w[1] + q[2] * w[2]) + 2 + q[1] * w[1] + q[2] * w[2] + 3 + w[1] + w[2] + (q[1] + q[2] + q[1] + q[2]) + (2 * q[1] + 4 * q[2]) * 10
 target += 4 * w[1] + 6 * w[2] + 4 * q[1] + 6 * q[2]
}`, js)
	sameLogJoint(t, a, b, 0)
}

// TestMatrixRowStates: a state stored in the rows of a matrix moves by
// A * x[t - 1], a matrix times a row_vector taken as the column of its
// elements (Stan refuses the product; mscppl keeps the meaning it had
// before rows were row_vectors): the log joint of the same model with an
// array of vectors, and still a state-space model.
func TestMatrixRowStates(t *testing.T) {
	const js = `{"T": 4, "y": [1, 2, 3, 4], "A": [[0.5, 0.1], [0, 0.5]], "S": [[1, 0.2], [0.2, 1]]}`
	const body = "model {\n x[1] ~ multi_normal(rep_vector(0, 2), S)\n for t in 2..T { x[t] ~ multi_normal(A * x[t - 1], S) }\n for t in 1..T { y[t] ~ normal(x[t, 1], 1) }\n}"
	const data = "data { T: int; y: vector[T]; A: matrix[2, 2]; S: matrix[2, 2] }\n"
	a := compileJSON(t, data+"latent { x: matrix[T, 2] }\n"+body, js)
	b := compileJSON(t, data+"latent { x: array[T] vector[2] }\n"+body, js)
	sameLogJoint(t, a, b, 0)
	st := StructureOf(a)
	require.True(t, st.StateSpace, st.Reason)
}
