package lower

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// decayCSV: five observation times and values.
const decayCSV = "ts,y\n0.5,2.1\n1,1.6\n2,0.9\n4,0.35\n6,0.12\n"

// TestODELogJointClosedForm: exponential decay y' = -k y solved by each
// form of the call gives the log joint of its closed form y0 exp(-k t).
func TestODELogJointClosedForm(t *testing.T) {
	head := "functions {\n decay(t: real, y: vector, k: real) -> vector {\n  return -k * y\n }\n" +
		" decay_old(t: real, y: vector, theta: vector, x_r: vector, x_i: vector) -> vector {\n  return -theta[1] * x_r[1] * y\n }\n}\n" +
		"data {\n ts: vector[N]\n y: vector[N]\n one = rep_vector(1, 1)\n}\nlatent {\n k: real<lower=0>\n y0: vector[1]\n}\nmodel {\n"
	calls := []string{
		"ode_rk45(decay, y0, 0, ts, k)",
		"ode_bdf(decay, y0, 0, ts, k)",
		"ode_rk45_tol(decay, y0, 0, ts, 1e-10, 1e-10, 100000, k)",
		"ode_bdf_tol(decay, y0, 0, ts, 1e-10, 1e-10, 100000, k)",
		"integrate_ode_rk45(decay_old, y0, 0.0, ts, rep_vector(k, 1), one, one)",
		"integrate_ode_bdf(decay_old, y0, 0.0, ts, rep_vector(k, 1), one, one, 1e-10, 1e-10, 100000)",
	}
	ts := []float64{0.5, 1, 2, 4, 6}
	ys := []float64{2.1, 1.6, 0.9, 0.35, 0.12}
	for _, call := range calls {
		src := head + " z: matrix[N, 1] = " + call + "\n y ~ normal(z[:, 1], 0.2)\n}\n"
		c := compile(t, src, decayCSV)
		for _, u := range [][]float64{{math.Log(0.5), 2.5}, {math.Log(1.2), 3}} {
			k, y0 := math.Exp(u[0]), u[1]
			want := u[0] // the log-Jacobian of k = exp(u)
			for n, tt := range ts {
				want += logNormal(ys[n], y0*math.Exp(-k*tt), 0.2)
			}
			var got [1]float64
			c.LogJoint(u, got[:])
			tol := 1e-3
			if strings.Contains(call, "bdf(") {
				tol = 0.05 // order 2 at the default tolerances
			}
			require.InDelta(t, want, got[0], tol, call)
		}
	}
}

// TestODEGradient: the gradient of a Lotka-Volterra log joint through the
// ODE node (latent initial state and parameters) against central
// differences of the log joint, for both solvers.
func TestODEGradient(t *testing.T) {
	for _, solver := range []string{"ode_rk45_tol", "ode_bdf_tol"} {
		src := `functions {
  dz_dt(t: real, z: vector, theta: vector, scale: real) -> vector {
    u: real = z[1]
    v: real = z[2]
    return scale * append_row((theta[1] - theta[2] * v) * u, (-theta[3] + theta[4] * u) * v)
  }
}
data {
  ts: vector[N]
  y: vector[N]
}
latent {
  theta: vector[4]
  z0: vector[2]
}
model {
  theta ~ normal(0, 1)
  z0 ~ normal(0, 1)
  z: matrix[N, 2] = ` + solver + `(dz_dt, exp(z0), 0, ts, 1e-10, 1e-10, 1000000, theta, 1.5)
  y ~ normal(z[:, 1] + z[:, 2], 0.5)
}
`
		c := compile(t, src, "ts,y\n0.5,2\n1,2.5\n1.5,1.9\n3,2.2\n")
		u := []float64{0.5, 0.3, 0.6, 0.2, 0.1, -0.2}
		g := make([]float64, len(u))
		c.GradLogJoint(u, g)
		f := func() float64 {
			var o [1]float64
			c.LogJoint(u, o[:])
			return o[0]
		}
		for i := range u {
			old := u[i]
			u[i] = old + 1e-5
			fp := f()
			u[i] = old - 1e-5
			fm := f()
			u[i] = old
			fd := (fp - fm) / 2e-5
			require.InDelta(t, fd, g[i], 1e-4*(1+math.Abs(fd)), "%s: d/du[%d]", solver, i)
		}
	}
}

// TestODEFailure: a solve that fails (y' = y^2 blows up before the last
// time) gives a log density of -Inf (not NaN) for that draw and a note with the
// call's position; a draw where it does not fail is finite.
func TestODEFailure(t *testing.T) {
	src := "functions {\n sq(t: real, y: vector, a: real) -> vector {\n  return a * y .* y\n }\n}\n" +
		"data {\n ts: vector[N]\n}\nlatent {\n a: real\n}\nmodel {\n a ~ normal(0, 1)\n z: matrix[N, 1] = ode_rk45(sq, rep_vector(1, 1), 0, ts, a)\n target += -sum(z)\n}\n"
	c := compile(t, src, "ts\n0.5\n2\n")
	var o [2]float64
	c.LogJoint([]float64{-1, 2}, o[:]) // a = 2: blows up at t = 0.5
	require.False(t, math.IsInf(o[0], 0) || math.IsNaN(o[0]), "a = -1: %g", o[0])
	require.True(t, math.IsInf(o[1], -1), "a = 2: %g", o[1])
	g := make([]float64, 1)
	c.GradLogJoint([]float64{2}, g)
	notes := SolverNotes(c)
	require.Len(t, notes, 1)
	require.Contains(t, notes[0], "m.msc:14:20: ode_rk45 failed on 2 of 3 solves, each rejecting its draw (log density -Inf); the first: at t = 0.5")
}

// TestODEDone: once the channel of SetDone is closed, a solve stops at
// its next step: the draw's log density is -Inf, Interrupted reports it,
// and it is not counted as a failure in the notes; a copy made after
// SetDone inherits the channel; SetDone(nil) restores the solves (the
// closed form -sum(exp(-k ts))).
func TestODEDone(t *testing.T) {
	src := "functions {\n decay(t: real, y: vector, k: real) -> vector {\n  return -k * y\n }\n}\n" +
		"data {\n ts: vector[N]\n}\nlatent {\n k: real\n}\nmodel {\n" +
		" z: matrix[N, 1] = ode_rk45(decay, rep_vector(1, 1), 0, ts, k)\n target += -sum(z)\n}\n"
	c := compile(t, src, "ts\n1\n2\n")
	want := -math.Exp(-1) - math.Exp(-2)
	done := make(chan struct{})
	SetDone(c, done)
	cp, ok := c.Clone()
	require.True(t, ok)
	close(done)
	for _, m := range []*Compiled{c, cp} {
		var o [1]float64
		m.LogJoint([]float64{1}, o[:])
		require.True(t, math.IsInf(o[0], -1), "log joint %g after done", o[0])
		require.True(t, Interrupted(m))
		require.Empty(t, SolverNotes(m), "an interrupted solve is no failure")
		SetDone(m, nil)
		require.False(t, Interrupted(m), "the next run starts afresh")
		m.LogJoint([]float64{1}, o[:])
		require.InDelta(t, want, o[0], 1e-6)
	}
}

// TestODEProjection: a call is projected by the size of its right-hand
// side's work and, for the stiff method, by its Jacobians and LU: a
// matrix-vector product of 300 states refused with the stiff method
// (measured: 23 ms a step, 2.3 s at 100 steps) and admitted with rk45
// (0.1 ms a step); 30 states admitted with either. The projection counted
// nodes alone before and admitted them all.
func TestODEProjection(t *testing.T) {
	for _, c := range []struct {
		fn      string
		K       int
		refused bool
	}{{"ode_bdf", 300, true}, {"ode_rk45", 300, false}, {"ode_bdf", 30, false}, {"ode_rk45", 30, false}} {
		src := fmt.Sprintf("functions {\n lin(t: real, y: vector, k: real, A: matrix) -> vector {\n  return k * (A * y) - y\n }\n}\n"+
			"data {\n ts: vector[N]\n}\nlatent {\n k: real\n}\nmodel {\n z: matrix[N, %d] = %s(lin, rep_vector(1, %d), 0, ts, k, rep_matrix(0.01, %d, %d))\n target += -sum(z)\n}\n", c.K, c.fn, c.K, c.K, c.K)
		if !c.refused {
			compile(t, src, "ts\n1\n2\n")
			continue
		}
		msg := buildErr(t, src, "ts\n1\n2\n")
		require.Contains(t, msg, fmt.Sprintf("m.msc:13:22: %s would take about", c.fn))
		require.Contains(t, msg, fmt.Sprintf("s per evaluation of the log density (projected at 100 steps of the stiff method on %d states", c.K))
	}
}

// TestODEErrors: misuse is reported at its position.
func TestODEErrors(t *testing.T) {
	head := "functions {\n f(t: real, y: vector, k: real) -> vector {\n  return -k * y\n }\n g(t: real, y: vector) -> real {\n  return 1\n }\n" +
		" lp(t: real, y: vector, k: real) -> vector {\n  target += k\n  return -k * y\n }\n lp2(t: real, y: vector, k: real) -> vector {\n  return lp(t, y, k)\n }\n" +
		" tl(t: real, y: vector, k: real) -> vector {\n  k ~ normal(0, 1)\n  return -k * y\n }\n}\n" +
		"data {\n ts: vector[N]\n}\nlatent {\n k: real\n y0: vector[2]\n}\nmodel {\n"
	for _, c := range []struct{ expr, want string }{
		{"ode_rk45(h, y0, 0, ts, k)", "the first argument of ode_rk45 must name a function of the functions block"},
		{"ode_rk45(k, y0, 0, ts, k)", "must name a function"},
		{"ode_rk45(f, y0, 0, ts)", "ode_rk45 passes 2 arguments to f (t, y and 0 more), which takes 3"},
		{"ode_rk45(f, y0, 0, ts, y0)", "parameter 3 of f (k) must take argument, vector[2]"},
		{"ode_rk45(g, y0, 0, ts)", "as the right-hand side of ode_rk45 it must return the derivative of the state, a vector[2]"},
		{"ode_rk45(f, k, 0, ts, k)", "the initial state y0 of ode_rk45 must be a vector, got real"},
		{"ode_rk45(f, y0, 0, k, k)", "the output times ts of ode_rk45 must be a vector"},
		{"ode_rk45(f, y0, k, ts, k)", "the times t0 and ts of ode_rk45 must be known before inference"},
		{"ode_rk45_tol(f, y0, 0, ts, k, 1e-6, 100, k)", "the relative tolerance of ode_rk45_tol must be a positive number known before inference"},
		{"ode_rk45_tol(f, y0, 0, ts, 1e-6, 1e-6, 1.5, k)", "the maximum number of steps of ode_rk45_tol must be a positive integer"},
		{"ode_rk45(f, y0)", "ode_rk45 takes (f, y0, t0, ts, ...), got 2 arguments"},
		{"integrate_ode_rk45(f, y0, 0, ts, k)", "integrate_ode_rk45 takes (f, y0, t0, ts, theta, x_r, x_i[, rtol, atol, max_steps])"},
		{"ode_adams(f, y0, 0, ts, k)", "ode_adams is not supported yet"},
		// the arguments every solve would refuse, before the first
		{"ode_rk45_tol(f, y0, 0, ts, 1e-30, 1e-6, 100, k)", "m.msc:28:47: the relative tolerance of ode_rk45_tol must be within [1e-16, 1], got 1e-30"},
		{"ode_bdf_tol(f, y0, 0, ts, 2, 1e-6, 100, k)", "within [1e-16, 1], got 2"},
		{"ode_rk45_tol(f, y0, 0, ts, 1e-6, 1e-6, 0, k)", "the maximum number of steps of ode_rk45_tol must be a positive integer"},
		{"ode_rk45(f, y0, 1, ts, k)", "m.msc:28:20: ode_rk45 cannot be solved: the output times must be finite, after t0 and in increasing order: the first output time (1) is not after t0 (1)"},
		{"ode_bdf(f, y0, 0, 3 - ts, k)", "output time 2 (1) is before output time 1 (2)"},
		// statements that the right-hand side would drop
		{"ode_rk45(lp, y0, 0, ts, k)", "m.msc:9:3: target += inside the right-hand side lp of ode_rk45 at 28:20 would be dropped"},
		{"ode_rk45(lp2, y0, 0, ts, k)", "m.msc:9:3: target += inside a function called by the right-hand side lp2 of ode_rk45 at 28:20 would be dropped"},
		{"ode_rk45(tl, y0, 0, ts, k)", "~ inside the right-hand side tl of ode_rk45"},
	} {
		msg := buildErr(t, head+" z: matrix[N, 2] = "+c.expr+"\n target += sum(z)\n}\n", "ts\n1\n2\n")
		require.Contains(t, msg, c.want, c.expr)
	}
}

// TestODEAllocatesNothing: evaluating an ODE model's log joint and its
// gradient allocates nothing (the solver and f's tape keep their buffers).
func TestODEAllocatesNothing(t *testing.T) {
	src := "functions {\n decay(t: real, y: vector, k: real) -> vector {\n  return -k * y\n }\n}\n" +
		"data {\n ts: vector[N]\n y: vector[N]\n}\nlatent {\n k: real<lower=0>\n y0: vector[1]\n}\nmodel {\n" +
		" z: matrix[N, 1] = ode_bdf(decay, y0, 0, ts, k)\n y ~ normal(z[:, 1], 0.2)\n}\n"
	c := compile(t, src, decayCSV)
	u, g := []float64{0.1, 2}, make([]float64, 2)
	var o [1]float64
	c.LogJoint(u, o[:])
	c.GradLogJoint(u, g)
	n := testing.AllocsPerRun(5, func() {
		c.LogJoint(u, o[:])
		c.GradLogJoint(u, g)
	})
	require.Zero(t, n)
}

// TestODESensitivityFailure: when the solve with sensitivities needs more
// steps than allowed but the solve of the states alone does not (decay at
// k = 1 to t = 10 takes 23 steps alone and 25 with sensitivities), the
// log joint is finite and the gradient NaN, not silently 0.
func TestODESensitivityFailure(t *testing.T) {
	src := "functions {\n decay(t: real, y: vector, k: real) -> vector {\n  return -k * y\n }\n}\n" +
		"data {\n ts: vector[N]\n}\nlatent {\n k: real\n}\nmodel {\n" +
		" z: matrix[N, 1] = ode_rk45_tol(decay, rep_vector(1, 1), 0, ts, 1e-6, 1e-6, 23, k)\n target += -sum(z)\n}\n"
	c := compile(t, src, "ts\n10\n")
	var o [1]float64
	c.LogJoint([]float64{1}, o[:])
	require.InDelta(t, -math.Exp(-10), o[0], 1e-6)
	g := make([]float64, 1)
	c.GradLogJoint([]float64{1}, g)
	require.True(t, math.IsNaN(g[0]), "gradient %g", g[0])
	require.Len(t, SolverNotes(c), 1)
}

// TestODEDerivedFailure: a solve of the derived block that fails (y' = a
// y^2 blows up before t = 2 when a = 2) leaves that draw's derived values
// NaN, never the initial state, and is counted in a note saying so; a
// draw where it succeeds gets the closed form 1 / (1 - a t).
func TestODEDerivedFailure(t *testing.T) {
	src := "functions {\n sq(t: real, y: vector, a: real) -> vector {\n  return a * y .* y\n }\n}\n" +
		"data {\n ts: vector[N]\n}\nlatent {\n a: real\n}\nmodel {\n a ~ normal(0, 1)\n}\n" +
		"derived {\n z: matrix[N, 1] = ode_rk45(sq, rep_vector(1, 1), 0, ts, a)\n}\n"
	c := compile(t, src, "ts\n0.25\n2\n")
	names := c.Model.LatentNames()
	x := make([]float64, c.Model.XDim)
	c.Constrain([]float64{-1}, x)
	for n, tt := range []float64{0.25, 2} {
		i := slices.Index(names, fmt.Sprintf("z[%d,1]", n+1))
		require.GreaterOrEqual(t, i, 0, "%v", names)
		require.InDelta(t, 1/(1+tt), x[i], 1e-5, "a = -1, t = %g", tt)
	}
	c.Constrain([]float64{2}, x)
	for _, name := range []string{"z[1,1]", "z[2,1]"} {
		require.True(t, math.IsNaN(x[slices.Index(names, name)]), "a = 2: %s = %g", name, x[slices.Index(names, name)])
	}
	notes := SolverNotes(c)
	require.Len(t, notes, 1)
	require.Contains(t, notes[0], "m.msc:16:20: ode_rk45 failed on 1 of 2 solves, each leaving its draw's derived values NaN; the first: at t = 0.5")
}

// TestHeavyLoopProjection: a loop of ODE solves or hmm_marginal calls is
// projected after its first iterations (as the graph's size is) and
// refused at the loop with the projected time per evaluation, naming the
// call; the same loop a hundred times shorter compiles.
func TestHeavyLoopProjection(t *testing.T) {
	const fn = "functions {\n decay(t: real, y: vector, k: real) -> vector {\n  return -k * y\n }\n}\n"
	for _, c := range []struct{ head, body, want string }{
		{fn, "  z: matrix[N, 1] = ode_rk45(decay, rep_vector(1, 1), 0, ts, k)\n  target += z[1, 1]\n",
			"m.msc:14:2: the loop over i in 1..%d calls ode_rk45 (at 15:21) %d times: projected about"},
		{"", "  target += hmm_marginal(rep_matrix(-k, 100, 100), rep_matrix(0.01, 100, 100), rep_vector(0.01, 100))\n",
			"m.msc:9:2: the loop over i in 1..%d calls hmm_marginal (at 10:13) %d times: projected about"},
	} {
		src := func(n int) string {
			return c.head + "data {\n ts: vector[N]\n}\nlatent {\n k: real<lower=0>\n}\nmodel {\n k ~ normal(1, 1)\n for i in 1.." + fmt.Sprint(n) + " {\n" + c.body + " }\n}\n"
		}
		msg := buildErr(t, src(100000), "ts\n1\n2\n")
		require.Contains(t, msg, fmt.Sprintf(c.want, 100000, 100000))
		require.Contains(t, msg, "s per evaluation of the log density")
		compile(t, src(100), "ts\n1\n2\n")
	}
}
