package lower

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTransformedErrors: what the resolver refuses in and around the
// transformed block, where.
func TestTransformedErrors(t *testing.T) {
	head := "data { N: int = 2 }\nlatent { z: vector[2] }\n"
	model := "model { z ~ normal(0, 1) }\n"
	for _, c := range []struct{ src, want string }{
		{"transformed { a: vector[2] = 2 * z }\nmodel {\n z ~ normal(0, 1)\n a = z\n}\n",
			"m.msc:6:2: cannot assign to a, a quantity of the transformed block (declared at 3:15): only that block assigns it"},
		{"transformed { a: vector[2] = 2 * z }\nmodel {\n z ~ normal(0, 1)\n a[1] = 3\n}\n",
			"m.msc:6:2: cannot assign to a, a quantity of the transformed block (declared at 3:15)"},
		{"transformed { a: real = z[1] }\n" + model + "derived { a += 1 }\n",
			"m.msc:5:11: cannot assign to a, a quantity of the transformed block (declared at 3:15)"},
		{"transformed {\n a: real\n b: real = a + 1\n a = z[1]\n}\n" + model,
			"m.msc:5:12: transformed a is used before it is defined"},
		{"transformed { a: real = z[1] }\nmodel {\n z ~ normal(0, 1)\n a: real = 2\n}\n",
			"m.msc:6:2: a is already declared as transformed at 3:15; pick another name"},
		{"transformed {\n b = 2 * a\n a = z[1]\n}\n" + model,
			"m.msc:4:10: a is used before it is defined (at 5:2)"},
		{"transformed {\n a: vector[2]\n a[1] = z[1]\n}\n" + model,
			"m.msc:4:2: element a[2] of local a is used before it is assigned"},
		{"transformed {\n a: real\n}\n" + model,
			"m.msc:4:2: transformed a is declared but never assigned in the transformed block"},
		{"transformed {\n a: real = z[1]\n a ~ normal(0, 1)\n}\n" + model,
			"m.msc:5:2: the transformed block computes quantities once per evaluation of the log density: it holds declarations and the statements that assign them, not ~ or target +="},
		{"transformed {\n target += z[1]\n}\n" + model,
			"m.msc:4:2: the transformed block computes quantities once per evaluation"},
		{"transformed { a = normal_rng(0, 1) }\n" + model,
			"m.msc:3:19: normal_rng draws at random: it belongs in the derived block"},
		{"transformed { p: simplex<lower=0>[2] = softmax(z) }\n" + model,
			"m.msc:3:18: simplex takes no bounds"},
		{"transformed { a: real<offset=1> = z[1] }\n" + model,
			"m.msc:3:23: an offset or multiplier applies to a latent (a Stan parameter); a transformed quantity takes bounds"},
		{"transformed { a: vector<lower=rep_vector(0, 3)>[2] = z }\n" + model,
			"m.msc:3:31: the lower bound of a is vector[3]; it must be a scalar or of the shape of a (vector[2])"},
		{"transformed { a: real<lower=1, upper=0> = z[1] }\n" + model,
			"m.msc:3:18: the lower bound 1 must be below the upper bound 0"},
		{"transformed { a: vector<lower=0>[N] = rep_vector(-1, N) }\n" + model,
			"m.msc:3:15: reject: a[1] is -1, below its lower bound 0"},
		{"transformed { z: real = 1 }\n" + model,
			"m.msc:3:15: z is already declared as latent at 2:10; pick another name"},
		{"transformed { f(x: real) -> real { return x } }\n" + model,
			"m.msc:3:15: functions are defined in the functions block"},
	} {
		msg := buildErr(t, head+c.src, "")
		require.Contains(t, msg, c.want, c.src)
	}
}

// TestTransformedBlock: the transformed block's quantities are computed
// once, before the model block, which reads them; they are reported by
// Constrain after the latents and before the derived quantities; a draw
// that violates a constraint has log density -Inf and is counted with a
// message naming the element and its value, the others have the model
// block's density.
func TestTransformedBlock(t *testing.T) {
	c := compile(t, `latent { mu: real; tau: real<lower=0>; eta: vector[2] }
transformed {
  theta: vector<lower=-3, upper=tau + 3>[2]
  for j in 1..2 { theta[j] = mu + tau * eta[j] }
  s: real = theta[1] + theta[2]
}
model {
  mu ~ normal(0, 1); tau ~ normal(0, 1); eta ~ normal(0, 1)
  2.5 ~ normal(s, 1)
}
derived { d = 2 * s }
`, "")
	type point struct {
		mu, logTau, eta1, eta2 float64
		note                   string // the first rejection's message, "" for none
	}
	lp := make([]float64, 1)
	x := make([]float64, c.Model.XDim)
	for _, p := range []point{
		{0.3, math.Log(0.5), -1, 2, ""},
		{-2.5, 0, -1, 1, "theta[1] is -3.5, below its lower bound -3"},
		{1, 0, 0.5, 3.5, "theta[2] is 4.5, above its upper bound 4"},
	} {
		tau := math.Exp(p.logTau)
		th := []float64{p.mu + tau*p.eta1, p.mu + tau*p.eta2}
		s := th[0] + th[1]
		want := logNormal(p.mu, 0, 1) + logNormal(tau, 0, 1) + p.logTau + logNormal(p.eta1, 0, 1) + logNormal(p.eta2, 0, 1) + logNormal(2.5, s, 1)
		if p.note != "" {
			want = math.Inf(-1)
		}
		z := []float64{p.mu, p.logTau, p.eta1, p.eta2}
		c.LogJoint(z, lp)
		require.InDelta(t, want, lp[0], 1e-9, "at %v", z)
		if p.note != "" {
			require.True(t, math.IsInf(lp[0], -1), "at %v: %g", z, lp[0])
			require.Equal(t, p.note, checkReason(t, c))
		}
		c.Constrain(z, x)
		// mu, tau, eta[1], eta[2], then theta[1], theta[2], s, then d
		require.InDeltaSlice(t, []float64{p.mu, tau, p.eta1, p.eta2, th[0], th[1], s, 2 * s}, x, 1e-12)
	}
	require.Len(t, RejectNotes(c), 1, "the check of theta is one statement")
	require.Contains(t, RejectNotes(c)[0], "m.msc:3:3: reject rejected 2 evaluations")
}

// TestTransformedChecks: the constraints of transformed quantities,
// checked as Stan checks them (boundaries allowed, NaN never, a simplex
// within 1e-8 of summing to 1), with the message of the first violation.
func TestTransformedChecks(t *testing.T) {
	for _, c := range []struct {
		decl string
		z    []float64 // the latent vector z, copied into the quantity a
		want string    // the message, "" when the value satisfies the constraint
	}{
		{"a: vector<lower=0>[3] = z", []float64{0, 1, 2}, ""},
		{"a: vector<lower=0>[3] = z", []float64{0, -1e-300, 2}, "a[2] is -1e-300, below its lower bound 0"},
		{"a: vector<lower=0>[3] = sqrt(z)", []float64{0, -1, 4}, "a[2] is nan, below its lower bound 0"},
		{"a: vector<upper=to_vector({1, 2, 3})>[3] = z", []float64{1, 2, 3}, ""},
		{"a: vector<upper=to_vector({1, 2, 3})>[3] = z", []float64{1, 2.5, 3}, "a[2] is 2.5, above its upper bound 2"},
		{"a: simplex[3] = z", []float64{0, 0.25, 0.75}, ""},
		{"a: simplex[3] = z", []float64{0.2, 0.3, 0.5 + 5e-9}, ""},
		{"a: simplex[3] = z", []float64{0.2, 0.3, 0.51}, "the elements of a sum to 1.01, not 1 (within 1e-08): a is not a valid simplex"},
		{"a: simplex[3] = z", []float64{-0.1, 0.3, 0.8}, "a[1] is -0.1, negative: a is not a valid simplex"},
		{"a: ordered[3] = z", []float64{-1, 0, 2}, ""},
		{"a: ordered[3] = z", []float64{-1, 2, 2}, "a[3] is 2, not above the element before it, 2: a is not a valid ordered vector"},
		{"a: positive_ordered[3] = z", []float64{0, 1, 2}, ""},
		{"a: positive_ordered[3] = z", []float64{-1, 1, 2}, "a[1] is -1, negative: a is not a valid positive_ordered vector"},
		{"a: array[1] simplex[3]\n a[1] = z", []float64{0.5, 0.25, 0.5}, "the elements of a[1] sum to 1.25, not 1 (within 1e-08): a[1] is not a valid simplex"},
		{"a: matrix<lower=0>[1, 3]\n for j in 1..3 { a[1, j] = z[j] }", []float64{1, 2, -3}, "a[1, 3] is -3, below its lower bound 0"},
	} {
		m := compile(t, "latent { z: vector[3] }\ntransformed {\n "+c.decl+"\n}\nmodel { z ~ normal(0, 1) }\n", "")
		requireRejects(t, m, c.z, c.decl, c.want, false)
	}
}

// TestTransformedCholesky: a transformed cholesky_factor_corr is checked
// lower triangular, with a positive diagonal and rows of length 1.
func TestTransformedCholesky(t *testing.T) {
	m := compile(t, "latent { z: vector[4] }\ntransformed {\n L: cholesky_factor_corr[2]\n L[1, 1] = z[1]; L[1, 2] = z[2]; L[2, 1] = z[3]; L[2, 2] = z[4]\n}\nmodel { z ~ normal(0, 1) }\n", "")
	lp := make([]float64, 1)
	for _, c := range []struct {
		l    []float64 // L by rows
		want string
	}{
		{[]float64{1, 0, 0.6, 0.8}, ""},
		{[]float64{1, 0.1, 0.6, 0.8}, "L[1, 2] is 0.1, above the diagonal: L is not a valid cholesky_factor_corr matrix (lower triangular)"},
		{[]float64{1, 0, 0.8, -0.6}, "L[2, 2] is -0.6, on the diagonal: L is not a valid cholesky_factor_corr matrix (positive diagonal)"},
		{[]float64{1, 0, 0, 2}, "row 2 of L has length 2, not 1 (within 1e-08): L is not a valid cholesky_factor_corr matrix"},
	} {
		m.LogJoint(c.l, lp)
		if c.want == "" {
			require.False(t, math.IsInf(lp[0], -1), "at %v", c.l)
			continue
		}
		require.True(t, math.IsInf(lp[0], -1), "at %v", c.l)
		require.Equal(t, c.want, checkReason(t, m))
	}
}

// checkReason is the message of the reject statement of c that rejected
// row 0 at the last evaluation, from its op's inputs.
func checkReason(t *testing.T, c *Compiled) string {
	t.Helper()
	for _, f := range c.Factors {
		op, _ := c.g.OpOf(f.Node)
		if o, ok := op.(*messageOp); ok && math.IsInf(c.g.Value(f.Node, 0)[0], -1) {
			var in [][]float64
			for _, a := range c.g.ArgsOf(f.Node) {
				in = append(in, c.g.Value(a, 0))
			}
			return o.Reason(in)
		}
	}
	t.Fatal("no reject statement rejected row 0")
	return ""
}

// TestConstrainJoint: after LogJoint over a batch, ConstrainJoint reports
// what Constrain reports row by row, reading the transformed quantity's
// ODE solve from the log joint's evaluation (no solve of its own), and
// evaluating the derived quantities (d) row by row; with NAME_rng draws,
// the draws are Constrain's, row by row, from the same seed.
func TestConstrainJoint(t *testing.T) {
	src := "functions {\n decay(t: real, y: vector, k: real) -> vector {\n  return -k * y\n }\n}\n" +
		"data {\n ts: vector[N]\n}\nlatent {\n k: real<lower=0>\n}\n" +
		"transformed {\n y: matrix[N, 1] = ode_rk45(decay, rep_vector(2, 1), 0, ts, k)\n}\n" +
		"model {\n k ~ lognormal(0, 1)\n}\nderived {\n d = 3 * y[2, 1]\n}\n"
	c := compile(t, src, "ts\n0.5\n1.5\n")
	require.Len(t, c.Rejecters, 1, "one ODE op")
	ode := c.Rejecters[0]
	u := []float64{-0.5, 0, 0.7}
	lp := make([]float64, 3)
	c.LogJoint(u, lp)
	require.Equal(t, int64(3), ode.Evals.Load(), "a solve per row of the log joint")
	xd := c.Model.XDim
	require.Equal(t, 4, xd, "k, y[1,1], y[2,1], d")
	x := make([]float64, 3*xd)
	require.True(t, ConstrainJoint(c, u, x, 3))
	require.Equal(t, int64(3), ode.Evals.Load(), "no solve of its own")
	for r, ur := range u {
		k := math.Exp(ur)
		want := []float64{k, 2 * math.Exp(-k*0.5), 2 * math.Exp(-k*1.5), 6 * math.Exp(-k*1.5)}
		require.InDeltaSlice(t, want, x[r*xd:(r+1)*xd], 1e-5, "row %d", r)
		one := make([]float64, xd)
		c.Constrain([]float64{ur}, one)
		require.Equal(t, one, x[r*xd:(r+1)*xd], "row %d: as Constrain", r)
	}
	require.Equal(t, int64(6), ode.Evals.Load(), "Constrain solves")

	src = "latent { z: real }\nmodel { z ~ normal(0, 1) }\nderived {\n w = normal_rng(z, 1)\n v = normal_rng(-z, 1)\n}\n"
	a, b := compile(t, src, ""), compile(t, src, "")
	a.SeedRNG(7)
	b.SeedRNG(7)
	a.LogJoint(u, lp)
	xa, xb := make([]float64, 9), make([]float64, 9)
	require.True(t, ConstrainJoint(a, u, xa, 3))
	for r := range 3 {
		b.Constrain(u[r:r+1], xb[3*r:3*r+3])
	}
	require.Equal(t, xb, xa, "the draws of Constrain, row by row")
	require.False(t, ConstrainJoint(a, make([]float64, 5), make([]float64, 15), 5), "more rows than LogJoint's")
}

// TestConstrainedLocals: a local declared with a constraint is checked
// after its declaration's value and each assignment of it as a whole, at
// that statement, and at the end of the statements that declare it when
// its elements are assigned one by one; a violation rejects the draw
// (model block) or stops the run (derived), with the element and value.
func TestConstrainedLocals(t *testing.T) {
	for _, c := range []struct {
		body string    // statements of the model block, after z ~ normal(0, 1)
		z    []float64 // the latents
		want string    // the first rejection, "" for none
	}{
		{"p: simplex[2] = softmax(z)", []float64{0.3, -1}, ""},
		{"s: real<lower=0> = z[1]", []float64{0.5, 1}, ""},
		{"s: real<lower=0> = z[1]", []float64{-0.5, 1}, "m.msc:4:2: reject rejected 1 evaluation (each counted with log density -Inf): s is -0.5, below its lower bound 0"},
		{"s: real<lower=0> = 1\n s = z[2]", []float64{0.5, -2}, "m.msc:5:2: reject rejected 1 evaluation (each counted with log density -Inf): s is -2, below its lower bound 0"},
		{"o: ordered[2]\n o[1] = z[1]\n o[2] = z[2]", []float64{1, 0.5}, "m.msc:4:2: reject rejected 1 evaluation (each counted with log density -Inf): o[2] is 0.5, not above the element before it, 1: o is not a valid ordered vector"},
		{"o: ordered[2]\n o[1] = z[1]\n o[2] = z[2]", []float64{0.5, 1}, ""},
		{"for k in 1..2 {\n  w: real<upper=0.75> = z[k]\n }", []float64{0.5, 1}, "m.msc:5:3: reject rejected 1 evaluation (each counted with log density -Inf): w is 1, above its upper bound 0.75"},
		{"q: array[2] simplex[2]\n q[1] = softmax(z)\n q[2] = z", []float64{0.25, 0.5}, "m.msc:4:2: reject rejected 1 evaluation (each counted with log density -Inf): the elements of q[2] sum to 0.75, not 1 (within 1e-08): q[2] is not a valid simplex"},
	} {
		m := compile(t, "latent { z: vector[2] }\nmodel {\n z ~ normal(0, 1)\n "+c.body+"\n}\n", "")
		requireRejects(t, m, c.z, c.body, c.want, true)
	}
	d := compile(t, "latent { z: real }\nmodel { z ~ normal(0, 1) }\nderived {\n s: real<lower=0> = z\n}\n", "")
	x := make([]float64, d.Model.XDim)
	d.Constrain([]float64{0.5}, x)
	require.NoError(t, RNGError(d))
	d.Constrain([]float64{-0.25}, x)
	require.EqualError(t, RNGError(d), "m.msc:4:2: reject: s is -0.25, below its lower bound 0 (at a posterior draw)")
}

// requireRejects evaluates m's log joint at z: with want empty, a finite
// value and no rejection; otherwise -Inf and a rejection note that is want
// (whole) or contains it.
func requireRejects(t *testing.T, m *Compiled, z []float64, label, want string, whole bool) {
	t.Helper()
	lp := make([]float64, 1)
	m.LogJoint(z, lp)
	if want == "" {
		require.False(t, math.IsInf(lp[0], -1), "%s at %v", label, z)
		require.Empty(t, RejectNotes(m), label)
		return
	}
	require.True(t, math.IsInf(lp[0], -1), "%s at %v: %g", label, z, lp[0])
	if whole {
		require.Equal(t, []string{want}, RejectNotes(m), label)
		return
	}
	require.Contains(t, RejectNotes(m)[0], want, label)
}
