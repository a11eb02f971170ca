package lower

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/stdlib"
	"github.com/stretchr/testify/require"
)

// goodArg is a valid argument of each parameter domain, and badArgs
// arguments outside it (as source text).
var (
	goodArg = map[stdlib.Domain]string{stdlib.RealLine: "0.3", stdlib.Positive: "1.7", stdlib.NonNegative: "1.2",
		stdlib.Unit: "0.35", stdlib.Binary: "1", stdlib.NonNegInt: "3"}
	badArgs = map[stdlib.Domain][]string{stdlib.Positive: {"-1", "0"}, stdlib.NonNegative: {"-0.5"},
		stdlib.Unit: {"1.5", "-0.1"}, stdlib.Binary: {"2"}, stdlib.NonNegInt: {"2.5", "-1"}}
)

// TestRNGArgumentsValidated: every NAME_rng of the registry, given an
// argument outside its parameter's domain (the rule y ~ NAME(...) applies),
// is an error at that argument's position: at compile time for a constant,
// at the draw (RNGError) for one that depends on a latent; with valid
// arguments the same draw reports nothing. A NaN argument is a value
// already missing (a derived ODE solve that failed, counted in its own
// note): its draw is NaN and nothing is reported.
func TestRNGArgumentsValidated(t *testing.T) {
	good, bad := goodArg, badArgs
	checked := 0
	for _, n := range stdlib.FamilyNames() {
		f, _ := stdlib.Lookup(n)
		if !f.Scalar() || len(f.Params) == 0 {
			continue
		}
		args := make([]string, len(f.Params))
		for i, p := range f.Params {
			args[i] = good[p.Domain]
		}
		if n == "uniform" {
			args = []string{"0", "2"}
		}
		src := func(a []string) string {
			return "latent { z: real }\nmodel { z ~ normal(0, 1) }\nderived {\n  w = " + n + "_rng(" + strings.Join(a, ", ") + ")\n}\n"
		}
		c := compile(t, src(withArg(args, 0, "z * 0 + "+args[0])), "")
		x := make([]float64, c.Model.XDim)
		c.Constrain([]float64{0.2}, x)
		require.NoError(t, RNGError(c), n)
		require.False(t, math.IsNaN(x[len(x)-1]), n)
		nan := compile(t, src(withArg(args, 0, "z * 0 + not_a_number()")), "")
		nan.Constrain([]float64{0.2}, x)
		require.NoError(t, RNGError(nan), "%s with a NaN argument", n)
		require.True(t, math.IsNaN(x[len(x)-1]), "%s with a NaN argument draws NaN", n)
		for i, p := range f.Params {
			for _, b := range bad[p.Domain] {
				// the column of argument i in "  w = NAME_rng(a1, a2, ...)"
				col := 3 + len("w = "+n+"_rng(") + len(strings.Join(args[:i], ", "))
				if i > 0 {
					col += len(", ")
				}
				where := fmt.Sprintf("m.msc:4:%d: %s_rng: argument %d (%s) must be", col, n, i+1, p.Name)
				require.Contains(t, buildErr(t, src(withArg(args, i, b)), ""), where, "%s with %s = %s", n, p.Name, b)
				c := compile(t, src(withArg(args, i, "z * 0 + "+b)), "")
				c.Constrain([]float64{0.2}, x)
				err := RNGError(c)
				require.Error(t, err, "%s with %s = z * 0 + %s", n, p.Name, b)
				require.Contains(t, err.Error(), where, n)
				require.Contains(t, err.Error(), "at a posterior draw", n)
				checked++
			}
		}
		for _, l := range f.Less { // uniform_rng(0, 0 - 1)
			i, j := l[0], l[1]
			col := 3 + len("w = "+n+"_rng(") + len(strings.Join(args[:j], ", ")) + len(", ")
			where := fmt.Sprintf("m.msc:4:%d: %s_rng: argument %d (%s) must be greater than %s", col, n, j+1, f.Params[j].Name, f.Params[i].Name)
			require.Contains(t, buildErr(t, src(withArg(args, j, args[i]+" - 1")), ""), where, n)
			c := compile(t, src(withArg(args, j, "z * 0 + "+args[i]+" - 1")), "")
			c.Constrain([]float64{0.2}, x)
			err := RNGError(c)
			require.Error(t, err, n)
			require.Contains(t, err.Error(), where, n)
			checked++
		}
	}
	require.Greater(t, checked, 30)
}

// TestCDFArgumentsValidated: in derived quantities, every NAME_lcdf,
// NAME_lccdf and NAME_cdf of the registry given a NaN value or a parameter
// outside its domain (or below the one it must exceed) is an error at that
// argument's position, as in Stan's generated quantities: at compile time
// for constants, at the draw (RNGError) for one that depends on a latent;
// with valid arguments the same draw reports nothing.
func TestCDFArgumentsValidated(t *testing.T) {
	good, bad := goodArg, badArgs
	checked := 0
	for _, n := range stdlib.FamilyNames() {
		f, _ := stdlib.Lookup(n)
		if f.LogCDF == nil {
			continue
		}
		args := []string{"1"}
		for _, p := range f.Params {
			args = append(args, good[p.Domain])
		}
		if n == "uniform" {
			args = []string{"1", "0", "2"}
		}
		for _, kind := range []string{"_lcdf", "_lccdf", "_cdf"} {
			call := n + kind
			src := func(a []string) string {
				given := ""
				if len(a) > 1 {
					given = " | " + strings.Join(a[1:], ", ")
				}
				return "latent { z: real }\nmodel { z ~ normal(0, 1) }\nderived {\n  w = " + call + "(" + a[0] + given + ")\n}\n"
			}
			// the column of argument i in "  w = NAME_lcdf(y | a1, a2, ...)"
			col := func(i int) int {
				c := 3 + len("w = "+call+"(")
				if i > 0 {
					c += len(args[0]) + len(" | ") + len(strings.Join(args[1:i], ", "))
				}
				if i > 1 {
					c += len(", ")
				}
				return c
			}
			c := compile(t, src(withArg(args, 0, "z * 0 + "+args[0])), "")
			x := make([]float64, c.Model.XDim)
			c.Constrain([]float64{0.2}, x)
			require.NoError(t, RNGError(c), call)
			try := func(i int, b, want string) {
				where := fmt.Sprintf("m.msc:4:%d: %s: argument %d (%s) must be %s", col(i), call, i+1, want, "")
				require.Contains(t, buildErr(t, src(withArg(args, i, b)), ""), where, "%s with argument %d = %s", call, i+1, b)
				c := compile(t, src(withArg(args, i, "z * 0 + "+b)), "")
				c.Constrain([]float64{0.2}, x)
				err := RNGError(c)
				require.Error(t, err, "%s with argument %d = z * 0 + %s", call, i+1, b)
				require.Contains(t, err.Error(), where, call)
				require.Contains(t, err.Error(), "at a posterior draw", call)
				checked++
			}
			try(0, "not_a_number()", "y")
			for i, p := range f.Params {
				for _, b := range bad[p.Domain] {
					try(i+1, b, p.Name)
				}
			}
			for _, l := range f.Less {
				try(l[1]+1, args[l[0]+1]+" - 1", f.Params[l[1]].Name)
			}
		}
	}
	require.Greater(t, checked, 100)
	// every element of a constant vector is checked, not only the first
	src := "latent { z: real }\nmodel { z ~ normal(0, 1) }\nderived {\n  w = normal_lcdf(rep_vector(1, 3) | 0, append_row(rep_vector(1, 2), rep_vector(-1, 1)))\n}\n"
	require.Contains(t, buildErr(t, src, ""), "m.msc:4:41: normal_lcdf: argument 3 (sd) must be positive, got -1")
}

func withArg(args []string, i int, a string) []string {
	out := append([]string(nil), args...)
	out[i] = a
	return out
}

// TestZeroLength: sizes of 0 work as in Stan: an empty data vector, an
// empty latent vector, a matrix[0, K] (JSON []), array[0], rep_vector(x, 0),
// a loop 1..N with N = 0 (it runs zero times) add nothing to the log joint;
// indexing an empty vector is a positioned error.
func TestZeroLength(t *testing.T) {
	const src = `data { N: int
  K: int
  y: vector[N]
  X: matrix[N, K]
  g: array[N] int }
latent { mu: real
  z: vector[N]
  M: matrix[N, K] }
model { mu ~ normal(0, 1)
  z ~ normal(0, 1)
  y ~ normal(mu, 1)
  to_vector(M) ~ normal(0, 1)
  target += sum(y) + sum(z) + sum(rep_vector(1, 0)) + sum(X * rep_vector(1, K))
  for i in 1..N { y[i] ~ normal(mu + z[i], 1) }
  target += normal_lpdf(y | mu, 1)
}
`
	c := compileJSON(t, src, `{"N": 0, "K": 2, "y": [], "X": [], "g": []}`)
	require.Equal(t, 1, c.Dim())
	out := make([]float64, 1)
	c.LogJoint([]float64{0.7}, out)
	require.InDelta(t, logNormal(0.7, 0, 1), out[0], 1e-12)

	_, err := buildJSON(t, "data { N: int\n  y: vector[N] }\nlatent { mu: real }\nmodel { mu ~ normal(0, 1)\n  y[1] ~ normal(mu, 1) }\n", `{"N": 0, "y": []}`)
	require.Error(t, err)
	require.Contains(t, err.Error(), "m.msc:5:5: index 1 is out of range: y has 0 elements")
	require.Contains(t, buildErr(t, "latent { z: vector[3] }\nmodel { z ~ normal(0, 1)\n for i in 3..1 { z[i] ~ normal(0, 1) } }\n", ""), "never runs")
	c = compile(t, "latent { z: vector[3] }\nmodel { z ~ normal(0, 1)\n for i in 2..1 { z[i] ~ normal(5, 1) } }\n", "")
	c.LogJoint([]float64{0, 0, 0}, out)
	require.InDelta(t, 3*logNormal(0, 0, 1), out[0], 1e-12)
}
