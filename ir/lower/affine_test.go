package lower

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAffinePredictor: a regression's linear predictor alpha + X * beta
// (or X * beta + alpha) is one Affine node, with the log joint and the
// gradient, bit for bit, of the predictor summed from a local product
// (alpha + eta with eta = X * beta, an Add of a MatVec), in batches of one
// and more, and one node fewer on the tape.
func TestAffinePredictor(t *testing.T) {
	const n, k = 50, 3
	rng := rand.New(rand.NewPCG(31, 32))
	var xs, ys []string
	for i := 0; i < n; i++ {
		row := make([]string, k)
		for j := range row {
			row[j] = fmt.Sprint(rng.NormFloat64())
		}
		xs = append(xs, "["+strings.Join(row, ", ")+"]")
		ys = append(ys, fmt.Sprint(rng.IntN(2)))
	}
	js := fmt.Sprintf(`{"N": %d, "K": %d, "X": [%s], "y": [%s]}`, n, k, strings.Join(xs, ", "), strings.Join(ys, ", "))
	model := func(lik string) string {
		return "data {\n N: int\n K: int\n X: matrix[N, K]\n y: array[N] int<lower=0, upper=1>\n}\n" +
			"latent {\n alpha: real\n beta: vector[K]\n}\n" +
			"model {\n alpha ~ normal(0, 2.5)\n beta ~ normal(0, 2.5)\n" + lik + "\n}\n"
	}
	ref := compileJSON(t, model(" eta: vector[N] = X * beta\n y ~ bernoulli_logit(alpha + eta)"), js)
	const batch = 7
	d := ref.Dim()
	z := make([]float64, batch*d)
	for i := range z {
		z[i] = 2 * rng.NormFloat64()
	}
	want := make([]float64, batch)
	ref.LogJoint(z, want)
	wantGrad := make([]float64, d)
	wantLp := ref.GradLogJoint(z[:d], wantGrad)
	for _, lik := range []string{" y ~ bernoulli_logit(alpha + X * beta)", " y ~ bernoulli_logit(X * beta + alpha)"} {
		c := compileJSON(t, model(lik), js)
		require.Less(t, c.Graph().NumNodes(), ref.Graph().NumNodes(), "%s: no fewer nodes than the sum of a product", lik)
		got := make([]float64, batch)
		c.LogJoint(z, got)
		one := make([]float64, 1)
		for b := range want {
			require.Equal(t, math.Float64bits(want[b]), math.Float64bits(got[b]), "%s: log joint %d: %v, want %v", lik, b, got[b], want[b])
			c.LogJoint(z[b*d:(b+1)*d], one)
			lj := make([]float64, 1)
			ref.LogJoint(z[b*d:(b+1)*d], lj)
			require.Equal(t, math.Float64bits(lj[0]), math.Float64bits(one[0]), "%s: log joint %d alone", lik, b)
		}
		grad := make([]float64, d)
		lp := c.GradLogJoint(z[:d], grad)
		require.Equal(t, wantLp, lp, lik)
		for j := range grad {
			require.Equal(t, math.Float64bits(wantGrad[j]), math.Float64bits(grad[j]), "%s: gradient %d: %v, want %v", lik, j, grad[j], wantGrad[j])
		}
	}
}
