package lang

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStanForms: Stan's declarations and loops anywhere an item may stand
// are reported with the same declaration in the language's form; the
// language's own items that start with a type name are not.
func TestStanForms(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"data { int<lower=0> N; }\nmodel { }", `1:8: "int<lower=0> N" is Stan's form of a declaration; write N: int<lower=0>`},
		{"data { N: int\n vector<lower=0, upper=1>[N] p }\nmodel { }", `2:2: "vector<lower=0, upper=1>[N] p" is Stan's form of a declaration; write p: vector<lower=0, upper=1>[N]`},
		{"data { array[N] real<lower=-1> y; }\nmodel { }", `write y: array[N] real<lower=-1>`},
		{"data { array[N, K] real y; }\nmodel { }", `write y: array[N, K] real`},
		{"model {\n for t in 1..3 {\n  real u = t * 2;\n }\n}", `3:3: "real u = t * 2" is Stan's form of a declaration; write u: real = t * 2`},
		{"model { { matrix[2, 2] M; } }", `write M: matrix[2, 2]`},
		{"model { if x > 0 { int k; } }", `write k: int`},
		{"model { x ~ normal(0, 1) }\nderived { simplex[3] s; }", `write s: simplex[3]`},
		{"model { x ~ normal(0, 1) }\nderived {\n array[N] int<lower=1, upper=K> z_star;\n}", `3:2: "array[N] int<lower=1, upper=K> z_star" is Stan's form of a declaration; write z_star: array[N] int`},
		{"model {\n vector<lower=0>[3] v = rep_vector(1, 3);\n}", `write v: vector[3] = rep_vector(1, 3)`},
		{"model { for (i in 2:(N - 1)) { } }", `"for (i in 2:(N - 1))" is Stan's form of a loop; write for i in 2..(N - 1) { ... }`},
		{"latent { corr_matrix[3] R; }\nmodel { }", `Stan's corr_matrix is not supported yet`},
		{"latent { array[2] vector[3] v; }\nmodel { }", `write v: array[2] vector[3]`},
		{"latent { array[2] matrix[3, 3] v; }\nmodel { }", `arrays of matrix are not supported yet`},
		{"data { N: int\n real y[N];\n}\nmodel { }", `2:2: "real y[N]" is Stan's form of a declaration; write y: array[N] real (Stan's old array syntax real y[N] is array[N] real y since Stan 2.33)`},
		{"data { N: int\n vector<lower=0>[3] b[N, 2];\n}\nmodel { }", `write b: array[N, 2] vector<lower=0>[3]`},
		{"model {\n int z[3] = {1, 2, 3};\n}", `write z: array[3] int = {1, 2, 3}`},
		// an earlier error comes first
		{"data { N: int = }\n real x;\nmodel { }", `1:17: unexpected "}"; expected an expression`},
	} {
		_, err := Parse("m.msc", []byte(c.src))
		require.Error(t, err, c.src)
		require.Contains(t, err.Error(), c.want, c.src)
	}
	for _, src := range []string{
		"data { N: int; real_x: vector[N] }\nmodel { }",
		"model { for i in 1..3 { } }",
		"model { if (a > b) { x ~ normal(0, 1) } }",
		"model {\n vector_sum = 1\n int_v = 2 }",
		"functions { f(x: real) -> real { return x } }\nmodel { }",
	} {
		_, err := Parse("m.msc", []byte(src))
		require.NoError(t, err, src)
	}
}
