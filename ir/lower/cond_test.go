package lower

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConditionalOperator: c ? a : b. A condition known when the model is
// compiled (a loop variable, data, a size) takes one branch, so the branch
// not taken may index out of range and adds no dependency (a state-space
// model written with it is still one); a condition on a latent gives the
// value and the gradient of the branch taken; an int branch beside a real
// one is real; the branches must have one type.
func TestConditionalOperator(t *testing.T) {
	const csv = "x\n0.3\n-0.2\n1.1\n0.7\n"
	a := compile(t, "data { x: vector[T] }\nlatent { z: vector[T] }\nmodel {\n for t in 1..T { z[t] ~ normal(t > 1 ? 0.9 * z[t - 1] : 0, t == 1 ? 2 : 1) }\n for t in 1..T { x[t] ~ normal(z[t], 0.5) }\n}", csv)
	b := compile(t, "data { x: vector[T] }\nlatent { z: vector[T] }\nmodel {\n z[1] ~ normal(0, 2)\n for t in 2..T { z[t] ~ normal(0.9 * z[t - 1], 1) }\n for t in 1..T { x[t] ~ normal(z[t], 0.5) }\n}", csv)
	sameLogJoint(t, a, b, 0)
	require.True(t, StructureOf(a).StateSpace, StructureOf(a).Reason)

	// on a latent: the branch taken, value and gradient (and a branch that
	// is -Inf or NaN where it is not taken does not spoil either)
	c := compile(t, "latent { m: real }\nmodel { m ~ normal(0, 1)\n target += m > 0 ? log(m) + 2 * m : -m * m }", "")
	rng := rand.New(rand.NewPCG(1, 1))
	z, grad := make([]float64, 1), make([]float64, 1)
	for range 20 {
		m := 2 * rng.NormFloat64()
		z[0] = m
		lp := c.GradLogJoint(z, grad)
		want, dwant := -m*m, -2*m
		if m > 0 {
			want, dwant = math.Log(m)+2*m, 1/m+2
		}
		want += -0.5*m*m - 0.5*math.Log(2*math.Pi)
		dwant -= m
		require.InDelta(t, want, lp, 1e-12, "m = %g", m)
		require.InDelta(t, dwant, grad[0], 1e-12, "m = %g", m)
	}

	// folded when the condition is data; an int and a real branch make a real
	d := compile(t, "data { N: int = 3 }\nlatent { m: real }\nmodel { m ~ normal(N > 2 ? 1 : 0.5, N < 2 ? 9 : 2) }", "")
	e := compile(t, "latent { m: real }\nmodel { m ~ normal(1, 2) }", "")
	sameLogJoint(t, d, e, 0)

	// right-associative: c ? a : d ? b : e is c ? a : (d ? b : e)
	f := compile(t, "latent { m: real }\nmodel { m ~ normal(0, 1)\n for k in 1..3 { target += k == 1 ? m : k == 2 ? 2 * m : 3 * m } }", "")
	g := compile(t, "latent { m: real }\nmodel { m ~ normal(0, 1)\n target += 6 * m }", "")
	sameLogJoint(t, f, g, 0)

	require.Contains(t, buildErr(t, "latent { v: vector[2] }\nmodel { v ~ normal(0, 1)\n target += sum(v[1] > 0 ? v : 1) }", ""), "the branches of ?: have different types, vector[2] and int")
	require.Contains(t, buildErr(t, "latent { v: vector[2] }\nmodel { v ~ normal(v > 0 ? 1 : 0, 1) }", ""), "the condition of ?: is a scalar")
}

// TestConditionalFormat: ?: prints as written, with the parentheses its
// precedence needs.
func TestConditionalFormat(t *testing.T) {
	for _, src := range []string{"a > 0 ? a : -a", "(a > 0 ? a : b) + 1", "a > 0 ? 1 : a < 0 ? -1 : 0"} {
		c := compile(t, "data { b: real = 2 }\nlatent { a: real }\nmodel { a ~ normal(0, 1)\n target += "+src+" }", "")
		require.Equal(t, "target += "+src, c.Factors[len(c.Factors)-1].Text)
	}
}

// TestScopeBlocks: { ... } is a block of statements whose declarations are
// local to it (Stan's local scope): the statements run in place, a name
// declared inside is unknown after it and may be declared again.
func TestScopeBlocks(t *testing.T) {
	a := compile(t, "latent { m: real }\nmodel {\n m ~ normal(0, 1)\n {\n  s: real = 2 * m\n  target += -s * s\n }\n { s: real = m; target += s } target += 1\n}", "")
	b := compile(t, "latent { m: real }\nmodel {\n m ~ normal(0, 1)\n target += -4 * m * m + m + 1\n}", "")
	sameLogJoint(t, a, b, 0)
	require.Contains(t, buildErr(t, "latent { m: real }\nmodel {\n m ~ normal(0, 1)\n { s: real = m }\n target += s\n}", ""), `unknown name "s"`)
	// in a loop body, a function and derived quantities
	c := compile(t, "functions { f(x: real) -> real { y: real = 0\n { z: real = 2 * x; y = z }\n return y } }\nlatent { m: real }\nmodel {\n for k in 1..2 { { u: real = f(m); target += -u * u / 8 } }\n}\nderived { w = m }", "")
	d := compile(t, "latent { m: real }\nmodel {\n target += -m * m\n}\nderived { w = m }", "")
	sameLogJoint(t, c, d, 0)
	// a declaration ended by ";" inside a loop body or a scope (was refused)
	e := compile(t, "latent { m: real }\nmodel { for k in 1..2 { s: real = m; target += -s * s / 2 } }", "")
	sameLogJoint(t, e, d, 0)
}
