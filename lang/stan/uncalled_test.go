package stan_test

import (
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/stretchr/testify/require"
)

// TestUncalledFunctions: the body of a user function that nothing calls is
// checked with arguments of its declared types (as stanc checks every
// function): a mistake in it is an error at its line, saying so, and a
// correct one, sizing locals by its int arguments, drawing with _rng, or
// assuming sizes of its arguments (which the check makes up), is
// accepted.
func TestUncalledFunctions(t *testing.T) {
	cases := []struct{ name, file, src, msg string }{
		{"unknown function", "t.stan", `functions {
  real f(vector v, int n) {
    vector[n] w = v * 2;
    return no_such_function(w);
  }
}
parameters { real y; }
model { y ~ normal(0, 1); }`, `t.stan:4:12: unknown function "no_such_function"; in f, checked with arguments of its declared types (it is never called)`},
		{"result of the wrong type", "t.stan", `functions {
  real f(vector v) {
    return v + 1;
  }
}
parameters { real y; }
model { y ~ normal(0, 1); }`, "t.stan:3:12: f returns vector, declared real; in f, checked with arguments of its declared types (it is never called)"},
		{"unknown name in .msc", "t.msc", `functions {
  f(v: vector, k: int) -> real {
    w: vector[k] = v + 1
    return sum(w) + q
  }
}
latent { y: real }
model { y ~ normal(0, 1) }`, `t.msc:4:21: unknown name "q"`},
		{"correct functions", "t.stan", `functions {
  vector f(vector v, int n) {
    vector[n] w = head(v, n);
    return w + 1;
  }
  real g(matrix M, array[] real a, array[] int k) {
    return sum(M * to_vector(a)) + k[1];
  }
  vector h_rng(real mu) {
    return rep_vector(normal_rng(mu, 1), 2);
  }
  real fixed(matrix m, vector v) {
    matrix[2, 3] a = m;
    return sum(a) + v[5] + sum(v - rep_vector(1, 4));
  }
  real lp_lpdf(real x, real mu) {
    return normal_lpdf(x | mu, 1);
  }
}
parameters { real y; }
model { y ~ normal(0, 1); }`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := infer.LoadSource(c.file, []byte(c.src), "")
			if c.msg == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), c.msg)
		})
	}
}
