package lower

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDiamonds: posteriordb's diamonds model, written line by line with
// statements in the data block, compiles on its unchanged data.json; the
// transformed data equal the column means and the centred columns computed
// here in Go, and the log joint equals the density written out.
func TestDiamonds(t *testing.T) {
	const dir = "../../examples/posteriordb/diamonds-diamonds/"
	c := compileFile(t, dir+"model.msc", dir+"data.json", func(s string) string {
		return strings.Replace(s, "derived {", "derived {\n  mx = means_X\n  xc7 = Xc[7]\n  xc9 = Xc[:, 24]", 1)
	})
	b, err := os.ReadFile(dir + "data.json")
	require.NoError(t, err)
	var d struct {
		N, K int
		Y    []float64
		X    [][]float64
	}
	require.NoError(t, json.Unmarshal(b, &d))
	require.Equal(t, 5000, len(d.X))
	kc := d.K - 1
	means := make([]float64, kc)
	for j := range means {
		for i := range d.X {
			means[j] += d.X[i][j+1]
		}
		means[j] /= float64(len(d.X))
	}
	z := make([]float64, c.Dim())
	for i := range z {
		z[i] = 0.01 * float64(i%7-3)
	}
	x := make([]float64, c.Model.XDim)
	c.Constrain(z, x)
	at := func(name string) []float64 {
		for _, v := range c.Model.Latents {
			if v.Name == name {
				return x[v.XOffset : v.XOffset+v.Type.Len()]
			}
		}
		t.Fatalf("no latent %s", name)
		return nil
	}
	for j, m := range means {
		require.InDelta(t, m, at("mx")[j], 1e-12*(1+math.Abs(m)))
		require.InDelta(t, d.X[6][j+1]-m, at("xc7")[j], 1e-12*(1+math.Abs(m)))
	}
	for i := range d.X {
		require.InDelta(t, d.X[i][24]-means[23], at("xc9")[i], 1e-12*(1+math.Abs(means[23])))
	}
	// the log joint, written out (sigma = exp(u) with its log-Jacobian u)
	bv, icpt, u := z[:kc], z[kc], z[kc+1]
	sigma := math.Exp(u)
	studentT := func(y, nu, mu, s float64) float64 {
		lg1, _ := math.Lgamma((nu + 1) / 2)
		lg2, _ := math.Lgamma(nu / 2)
		r := (y - mu) / s
		return lg1 - lg2 - 0.5*math.Log(nu*math.Pi) - math.Log(s) - (nu+1)/2*math.Log1p(r*r/nu)
	}
	want := studentT(icpt, 3, 8, 10) + studentT(sigma, 3, 0, 10) - math.Log(0.5) + u
	for _, bj := range bv {
		want += logNormal(bj, 0, 1)
	}
	for i := range d.X {
		mu := icpt
		for j := range kc {
			mu += (d.X[i][j+1] - means[j]) * bv[j]
		}
		want += logNormal(d.Y[i], mu, sigma)
	}
	got := make([]float64, 1)
	c.LogJoint(z, got)
	require.InDelta(t, want, got[0], 1e-8*math.Abs(want))
}

// TestDataStatementsEquivalent: each construct gives exactly the log joint
// of a model written without it.
func TestDataStatementsEquivalent(t *testing.T) {
	const csv = "y,g\n0.3,1\n-0.1,4\n0.8,2\n1.2,4\n0.4,3\n-0.6,4\n0.2,1\n"
	for _, c := range []struct {
		name, a, b string
	}{
		{"a loop in the data block fills a data vector",
			"data { y: vector[N]; g: int[N] }\nlatent { m: real }\nmodel { m ~ normal(0, 1); y ~ normal(m * (g == 4), 1) }",
			"data {\n y: vector[N]\n g: int[N]\n ind: vector[N]\n for n in 1..N { ind[n] = g[n] == 4 }\n}\nlatent { m: real }\nmodel { m ~ normal(0, 1); y ~ normal(m * ind, 1) }"},
		{"data statements: if, scope, locals, compound assignment, a value for a vector",
			"data { y: vector[N] }\nlatent { m: real }\nmodel { m ~ normal(0, 1); y ~ normal(m + 2 * y - 1, 1) }",
			"data {\n y: vector[N]\n z: vector[N] = y\n for n in 1..N {\n  { t: real = 2 * y[n]; if n > 0 { z[n] = t } else { z[n] = 0 } }\n  z[n] -= 1\n }\n}\nlatent { m: real }\nmodel { m ~ normal(0, 1); y ~ normal(m + z, 1) }"},
		{"a data scalar computed from a vector",
			"data { y: vector[N] }\nlatent { m: real }\nmodel { m ~ normal(mean(y), 1) }",
			"data {\n y: vector[N]\n s: real = 0\n for n in 1..N { s += y[n] }\n s /= N\n}\nlatent { m: real }\nmodel { m ~ normal(s, 1) }"},
		{"a computed int array indexes, a computed count bounds a loop",
			"data { y: vector[N] }\nlatent { a: vector[2] }\nmodel { a ~ normal(0, 1); y[1:2] ~ normal(a[1], 1); y[3:N] ~ normal(a[2], 1); target += 4 }",
			"data {\n y: vector[N]\n g: int[N]\n c: int = 0\n for n in 1..N {\n  g[n] = n > 2 ? 2 : 1\n  if n > 3 { c += 1 }\n }\n}\nlatent { a: vector[2] }\nmodel { a ~ normal(0, 1); y ~ normal(a[g], 1); for i in 1..c { target += i > 0 } }"},
		{"a scope and compound assignment in a function body",
			"latent { m: real }\nmodel { m ~ normal(4, 1) }",
			"functions {\n f(x: real) -> real {\n  y: real = x\n  { z: real = 1; y += z }\n  y *= 2\n  return y\n }\n}\nlatent { m: real }\nmodel { m ~ normal(f(1), 1) }"},
		{"compound assignment equals the assignment written out",
			"data { y: vector[N] }\nlatent { b: vector[2] }\nmodel {\n b ~ normal(0, 1)\n for t in 3..N {\n  acc: real = 1\n  for k in 1..2 { acc = (acc + b[k] * y[t-k]) * 2 - 1 }\n  acc = acc / 3\n  y[t] ~ normal(acc, 1)\n }\n}",
			"data { y: vector[N] }\nlatent { b: vector[2] }\nmodel {\n b ~ normal(0, 1)\n for t in 3..N {\n  acc: real = 1\n  for k in 1..2 { acc += b[k] * y[t-k]; acc *= 2; acc -= 1 }\n  acc /= 3\n  y[t] ~ normal(acc, 1)\n }\n}"},
		{"~ on a local of latents is the density's term",
			"data { y: vector[N] }\nlatent { mu: real; s: real<lower=0> }\nmodel { mu ~ normal(0, 1); s ~ normal(0, 1); y ~ normal(mu, s) }",
			"data { y: vector[N] }\nlatent { mu: real; s: real<lower=0> }\nmodel { mu ~ normal(0, 1); s ~ normal(0, 1); err: vector[N] = y - mu; err ~ normal(0, s) }"},
		{"~ on an expression of latents",
			"latent { a: real; b: real }\nmodel { a ~ normal(0, 1); target += normal_lpdf(a + 2 * b | 1, 2) }",
			"latent { a: real; b: real }\nmodel { a ~ normal(0, 1); a + 2 * b ~ normal(1, 2) }"},
		{"a local int is a size",
			"data { y: vector[N] }\nlatent { m: real }\nmodel { m ~ normal(0, 1); y ~ normal(m * y, 1) }",
			"data { y: vector[N] }\nlatent { m: real }\nmodel {\n m ~ normal(0, 1)\n NB: int = rows(y)\n v: vector[NB] = m * y\n y ~ normal(v, 1)\n}"},
		{"rows, columns, col and row indexed by a loop variable",
			"latent { a: matrix[2, 3] }\nmodel { for i in 1..2 { for j in 1..3 { a[i, j] ~ normal(0, j) } } }",
			"latent { a: matrix[2, 3] }\nmodel {\n for j in 1..3 { target += normal_lpdf(a[:, j] | 0, j) / 2; target += normal_lpdf(col(a, j) | 0, j) / 2 }\n}"},
		{"row and slice rows indexed by a loop variable",
			"latent { a: matrix[2, 3] }\nmodel { for i in 1..2 { for j in 1..3 { a[i, j] ~ normal(i, 1) } } }",
			"latent { a: matrix[2, 3] }\nmodel { for i in 1..2 { a[i, :] ~ normal(i, 0.5 * 2); target += 0 * sum(row(a, i)) } }"},
		{"column and row assignment",
			"data { y: vector[N] }\nlatent { b: vector[2] }\nmodel { b ~ normal(0, 1); y ~ normal(b[1] * y + b[2] * y .* y, 1) }",
			"data { y: vector[N] }\nlatent { b: vector[2] }\nmodel {\n b ~ normal(0, 1)\n M: matrix[N, 2]\n P: matrix[2, N]\n P[1, :] = y\n for n in 1..N { P[2, n] = y[n] * y[n] }\n for j in 1..2 { M[:, j] = P[j] * b[j] }\n y ~ normal(M[:, 1] + M[:, 2], 1)\n}"},
		{"block assignment and a scalar filling a slice",
			"data { y: vector[N] }\nlatent { m: real }\nmodel { m ~ normal(0, 1); y ~ normal(m, 1) }",
			"data { y: vector[N] }\nlatent { m: real }\nmodel {\n m ~ normal(0, 1)\n M: matrix[N, 2]\n M[1:3, :] = rep_matrix(m, 3, 2)\n M[4:N, 1:2] = rep_matrix(m, N - 3, 2)\n v: vector[N]\n v[:] = 0\n v[2:N] = M[2:N, 2]\n v[1] = m\n y ~ normal(v, 1)\n}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sameLogJoint(t, compile(t, c.a, csv), compile(t, c.b, csv), 0)
		})
	}
}

// TestDataStatementErrors: misuse is reported at its place.
func TestDataStatementErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"data {\n y: vector[N]\n z: vector[N]\n for n in 2..N { z[n] = y[n] }\n w = sum(z)\n}\nlatent { m: real }\nmodel { m ~ normal(w, 1) }",
			"m.msc:5:10: element z[1] of local z is used before it is assigned"},
		{"data {\n y: vector[N]\n y ~ normal(0, 1)\n}\nlatent { m: real }\nmodel { m ~ normal(0, 1) }",
			"m.msc:3:2: the data block computes data once, before inference; ~ and target += belong in the model block"},
		{"data {\n y: vector[N]\n for n in 1..N { target += y[n] }\n}\nlatent { m: real }\nmodel { m ~ normal(0, 1) }",
			"belong in the model block"},
		{"data {\n y: vector[N]\n z: vector<lower=0>[N]\n z = y\n}\nlatent { m: real }\nmodel { m ~ normal(0, 1) }",
			"m.msc:3:5: z is computed in the data block; bounds on computed data are not supported yet"},
		{"latent { m: real }\nmodel { m ~ normal(0, 1); q += 1 }", "unknown name \"q\""},
		{"latent { m: real }\nmodel {\n m ~ normal(0, 1)\n k: int = 2\n v: vector[k] = m\n k += 1\n}",
			"m.msc:6:2: k is used as a size or an index known before inference at 5:12, so it cannot be assigned again"},
		{"latent { m: real }\nmodel {\n m ~ normal(0, 1)\n k: int = 2\n k += 1\n v: vector[k] = m\n}", "must be a constant"},
		{"latent { m: real }\nmodel { m ~ normal(0, 1); M: matrix[2, 3]; M[:, 1] = rep_vector(1, 3) }", "M[...] is vector[2], and the value is vector[3]"},
		{"latent { a: matrix[2, 2] }\nmodel { for j in 1..3 { a[:, j] ~ normal(0, 1) } }", "index 3 is out of range: a has 2 columns"},
		{"param { p: real = 0 }\nlatent { m: real }\nmodel { m ~ normal(0, 1); p ~ normal(0, 1) }", "must be a latent or data variable"},
	} {
		got := buildErr(t, c.src, "y\n1\n2\n3\n")
		require.True(t, strings.Contains(got, c.want), "%q does not contain %q", got, c.want)
	}
}

// TestJacobianNote: a ~ on a non-linear transform of a latent is noted,
// one on a linear function or a local is not.
func TestJacobianNote(t *testing.T) {
	for _, c := range []struct {
		src  string
		note string
	}{
		{"latent { s: real<lower=0> }\nmodel { log(s) ~ normal(0, 1) }", "m.msc:2:9: the left of ~ (log(s)) is a non-linear transform of a latent"},
		{"latent { a: real; b: real }\nmodel { a * b ~ normal(0, 1); b ~ normal(0, 1) }", "non-linear transform"},
		{"latent { a: real; b: real }\nmodel { 2 * a - b / 3 ~ normal(0, 1); b ~ normal(0, 1) }", ""},
		{"data { y: vector[N] }\nlatent { a: real }\nmodel { e: vector[N] = y - a; e ~ normal(0, 1) }", ""},
	} {
		c1 := compile(t, c.src, "y\n1\n2\n")
		if c.note == "" {
			require.Empty(t, c1.Model.Notes, c.src)
			continue
		}
		require.Len(t, c1.Model.Notes, 1)
		require.Contains(t, c1.Model.Notes[0], c.note)
	}
}
