package stan_test

import (
	"math"
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/stretchr/testify/require"
)

// TestWhileBreakContinue: while loops on data, break and continue give
// Stan's log density (computed here by hand), and the loops whose course
// would depend on the parameters are refused at the construct.
func TestWhileBreakContinue(t *testing.T) {
	logN := func(y, mu, s float64) float64 {
		z := (y - mu) / s
		return -0.5*z*z - math.Log(s) - 0.5*math.Log(2*math.Pi)
	}
	// transformed data: the while loop stops at n = 4 (s = 1 + 2 + 3 + 4);
	// the model's for loop skips i = 2 and ends at i = 4; the while loop
	// adds -0.5 - 1
	src := `transformed data {
  array[5] real y = {1, 2, 3, 4, 5};
  int n = 0;
  real s = 0;
  while (s < 10) {
    n += 1;
    s += n;
  }
}
parameters { real mu; }
model {
  int k = 0;
  mu ~ normal(0, 10);
  for (i in 1:5) {
    if (i == 2) continue;
    if (i > 3) break;
    y[i] ~ normal(mu + n, 1);
  }
  while (1) {
    k += 1;
    if (k > 2) break;
    target += -0.5 * k;
  }
}`
	m, err := infer.LoadSource("t.stan", []byte(src), "")
	require.NoError(t, err)
	out := make([]float64, 1)
	for _, mu := range []float64{-1.5, 0.2, 2} {
		m.Comp.LogJoint([]float64{mu}, out)
		want := logN(mu, 0, 10) + logN(1, mu+4, 1) + logN(3, mu+4, 1) - 1.5
		require.InDelta(t, want, out[0], 1e-12, "at mu = %g", mu)
	}

	refused := []struct{ name, src, msg string }{
		{"while on a parameter", `parameters { real mu; }
model {
  real s = 0;
  mu ~ normal(0, 1);
  while (s < mu) {
    s += 1;
  }
}`, "t.stan:5:10: the condition of while depends on the latents"},
		{"break under an if on a parameter", `parameters { real mu; }
model {
  mu ~ normal(0, 1);
  for (i in 1:3) {
    if (mu > 0) break;
  }
}`, "t.stan:5:17: break under an if whose condition (at 5:5) depends on the latents is not supported"},
		{"continue outside a loop", `parameters { real mu; }
model {
  mu ~ normal(0, 1);
  continue;
}`, "t.stan:4:3: continue is not inside a loop"},
		{"a while loop that never ends", `parameters { real mu; }
model {
  mu ~ normal(0, 1);
  while (1) {
  }
}`, "t.stan:4:3: the while loop has run 100000 times and its condition still holds"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			_, err := infer.LoadSource("t.stan", []byte(c.src), "")
			require.Error(t, err)
			require.Contains(t, err.Error(), c.msg)
		})
	}
}

// TestEarlyReturns: a function returning a scalar from inside its ifs (a
// return before the end, as Stan allows) gives the value of the path
// taken, on data and on parameters.
func TestEarlyReturns(t *testing.T) {
	src := `functions {
  real f(real x) {
    if (x > 0) return x;
    return -x;
  }
  real g(real x) {
    if (x > 1) {
      return 1;
    } else if (x < -1) {
      return -1;
    } else {
      real y = x * x;
      return y;
    }
  }
  int h(int n) {
    if (n > 2) return 2;
    return n;
  }
}
transformed data { int k = h(5); }
parameters { real mu; }
model {
  mu ~ normal(f(mu) + g(mu) + k, 1);
}`
	m, err := infer.LoadSource("t.stan", []byte(src), "")
	require.NoError(t, err)
	out := make([]float64, 1)
	for _, c := range []struct{ mu, mean float64 }{{0.5, 0.5 + 0.25 + 2}, {-2, 2 - 1 + 2}, {1.5, 1.5 + 1 + 2}} {
		m.Comp.LogJoint([]float64{c.mu}, out)
		z := c.mu - c.mean
		require.InDelta(t, -0.5*z*z-0.5*math.Log(2*math.Pi), out[0], 1e-12, "at mu = %g", c.mu)
	}
}
