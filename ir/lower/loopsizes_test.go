package lower

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSizedLoops: a local sized by a loop variable (Stan's vector[i]
// inside for i) gives exactly the log joint of the loop written out, and
// the bounds of such a loop must be known.
func TestSizedLoops(t *testing.T) {
	for _, c := range []struct{ name, a, b string }{
		{"vector[i] in a loop over i",
			"latent { mu: vector[3] }\nmodel { mu ~ normal(0, 1)\n target += -(mu[1]) - (mu[1] + mu[2]) - (mu[1] + mu[2] + mu[3]) }",
			"latent { mu: vector[3] }\nmodel { mu ~ normal(0, 1)\n for i in 1..3 {\n  v: vector[i] = mu[1:i]\n  target += -sum(v)\n }\n}"},
		{"an inner loop whose bound is the outer variable, an array[j] and a matrix[i, j]",
			"latent { a: real }\nmodel { a ~ normal(0, 1)\n target += 16 * a }",
			"data { N: int = 2 }\nlatent { a: real }\nmodel { a ~ normal(0, 1)\n for i in 1..N {\n  for j in 1..i {\n   w: array[j] real\n   M: matrix[i, j] = rep_matrix(a, i, j)\n   for k in 1..j { w[k] = k * a }\n   target += sum(w) * i + sum(M)\n  }\n }\n}"},
	} {
		sameLogJoint(t, compile(t, c.a, ""), compile(t, c.b, ""), 0)
	}
	err := compileErr(t, "latent { mu: real }\nmodel { mu ~ normal(0, 1)\n for i in 1..20000 {\n  v: vector[i] = rep_vector(mu, i)\n }\n}\n")
	require.ErrorContains(t, err, "m.msc:3:2: the loop over i declares a local sized by i, and runs 20000 times")
}
