package lower

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLibraryNames: Stan's names for the functions of stdlib/funcs_extra.go
// compile, dot_product as dot, and give their values in a log joint.
func TestLibraryNames(t *testing.T) {
	c := compile(t, `latent { z: real<lower=0, upper=1> }
model {
  v = rep_vector(z, 3)
  target += -dot_product(v, v) + logit(z) + lchoose(5, 2) + log_diff_exp(2 * z, z) + erf(z) + step(z - 0.5)
}
`, "")
	z := 0.3
	u := math.Log(z / (1 - z)) // the unconstrained value of z in (0, 1)
	lp := make([]float64, 1)
	c.LogJoint([]float64{u}, lp)
	want := -3*z*z + math.Log(z/(1-z)) + math.Log(10) + math.Log(math.Exp(2*z)-math.Exp(z)) + math.Erf(z) + 0
	jac := math.Log(z * (1 - z)) // log |dz/du|
	require.InDelta(t, want+jac, lp[0], 1e-12)
}

// TestStanConstants: pi(), e() and the other functions of no arguments are
// numbers; log2 and log10 keep their one-argument forms.
func TestStanConstants(t *testing.T) {
	c := compile(t, "latent { z: real }\nmodel {\n  target += -z * z + pi() + e() + sqrt2() + log2() + log10() + machine_precision() + log2(8) + log10(100)\n}\n", "")
	lp := make([]float64, 1)
	c.LogJoint([]float64{0}, lp)
	require.InDelta(t, math.Pi+math.E+math.Sqrt2+math.Ln2+math.Ln10+0x1p-52+3+2, lp[0], 1e-14)
	c = compile(t, "latent { z: real }\nmodel {\n  target += -z * z\n  if z > positive_infinity() { target += negative_infinity() }\n}\n", "")
	c.LogJoint([]float64{0}, lp)
	require.Equal(t, 0.0, lp[0])
}

// TestVectorBuiltins: to_vector (a matrix column by column), append_row,
// col, row, block, min, max, prod, dot_self and min/max of two scalars, in
// a log joint: the value against a direct computation and the gradient
// against central finite differences.
func TestVectorBuiltins(t *testing.T) {
	c := compile(t, `latent { z: vector[3] }
model {
  M = diag_pre_multiply(z, rep_matrix(1.0, 3, 2))
  v = to_vector(M)
  a = append_row(z, z[2] * 2)
  target += v[2] + 3 * v[4] + col(M, 2)[3] + row(M, 3)[1] * 5 + to_vector(block(M, 2, 1, 2, 2))[3]
  target += min(z) + 2 * max(z) + prod(z) + dot_self(z) / 7 + a[4] + min(z[1], z[3]) + max(z[1], 1.5)
}
`, "")
	val := func(z []float64) float64 {
		M := [3][2]float64{{z[0], z[0]}, {z[1], z[1]}, {z[2], z[2]}}
		v := []float64{M[0][0], M[1][0], M[2][0], M[0][1], M[1][1], M[2][1]} // column-major
		blockCM := []float64{M[1][0], M[2][0], M[1][1], M[2][1]}             // to_vector of block: column by column
		mn, mx := math.Min(z[0], math.Min(z[1], z[2])), math.Max(z[0], math.Max(z[1], z[2]))
		return v[1] + 3*v[3] + M[2][1] + 5*M[2][0] + blockCM[2] +
			mn + 2*mx + z[0]*z[1]*z[2] + (z[0]*z[0]+z[1]*z[1]+z[2]*z[2])/7 + 2*z[1] + math.Min(z[0], z[2]) + math.Max(z[0], 1.5)
	}
	matchesDirect(t, c, val, [][]float64{{0.3, -1.2, 2.1}, {2.5, 0.4, -0.7}, {1.1, 0, 0.9}})
}

// TestLogCDFCalls: NAME_lcdf(y | params) with a bar sums over a vector y,
// as Stan's does (a censored likelihood), and the bar-less elementwise
// form of this language keeps its vector.
func TestLogCDFCalls(t *testing.T) {
	c := compile(t, "latent { z: real<lower=0> }\nmodel {\n  target += exponential_lccdf(rep_vector(2.0, 3) | z) + sum(weibull_lcdf(rep_vector(1.5, 2), 2, z)) + std_normal_lcdf(rep_vector(0.5, 2))\n}\n", "")
	lp := make([]float64, 1)
	z := 1.3
	c.LogJoint([]float64{math.Log(z)}, lp)
	phi := 0.5 * math.Erfc(-0.5/math.Sqrt2)
	want := -3*2*z + 2*math.Log(1-math.Exp(-math.Pow(1.5/z, 2))) + 2*math.Log(phi) + math.Log(z)
	require.InDelta(t, want, lp[0], 1e-12)
}

// TestOrderedLogisticModel: y ~ ordered_logistic(eta, c) with ordered
// cutpoints adds the log probability of y's category.
func TestOrderedLogisticModel(t *testing.T) {
	c := compile(t, "data { y: int[N] }\nlatent { eta: real; c: ordered[2] }\nmodel {\n  for n in 1..N { y[n] ~ ordered_logistic(eta, c) }\n}\n", "y\n1\n3\n2\n")
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	// ordered[2] from (u1, u2): c1 = u1, c2 = u1 + exp(u2)
	eta, u1, u2 := 0.4, -0.5, 0.2
	c1, c2 := u1, u1+math.Exp(u2)
	lp := make([]float64, 1)
	c.LogJoint([]float64{eta, u1, u2}, lp)
	want := math.Log(1-sig(eta-c1)) + math.Log(sig(eta-c2)) + math.Log(sig(eta-c1)-sig(eta-c2)) + u2 // + log |Jacobian|
	require.InDelta(t, want, lp[0], 1e-12)
}

// TestMatrixReductions: rows_dot_product, columns_dot_product,
// rows_dot_self, columns_dot_self, size, int_step, and mean, sd, min, max
// over a matrix's elements: values against a direct computation and the
// gradient against central finite differences.
func TestMatrixReductions(t *testing.T) {
	c := compile(t, `latent { z: vector[3] }
model {
  M = diag_pre_multiply(z, rep_matrix(1.0, 3, 2)) + rep_matrix(z[3], 3, 2)
  target += rows_dot_product(M, M)[2] + 2 * columns_dot_product(M, rep_matrix(1.0, 3, 2))[2] + rows_dot_self(M)[3] / 3
  target += columns_dot_self(M)[1] / 5 + size(M) + int_step(z[1]) + mean(M) + sd(M) + min(M) + 2 * max(M)
}
`, "")
	val := func(z []float64) float64 {
		var M [3][2]float64
		var all []float64
		for i := range 3 {
			for j := range 2 {
				M[i][j] = z[i] + z[2]
				all = append(all, M[i][j])
			}
		}
		mean, mn, mx := 0.0, math.Inf(1), math.Inf(-1)
		for _, v := range all {
			mean += v / 6
			mn, mx = math.Min(mn, v), math.Max(mx, v)
		}
		ss := 0.0
		for _, v := range all {
			ss += (v - mean) * (v - mean)
		}
		step := 0.0
		if z[0] > 0 {
			step = 1
		}
		colSelf1 := M[0][0]*M[0][0] + M[1][0]*M[1][0] + M[2][0]*M[2][0]
		return M[1][0]*M[1][0] + M[1][1]*M[1][1] + 2*(M[0][1]+M[1][1]+M[2][1]) + (M[2][0]*M[2][0]+M[2][1]*M[2][1])/3 +
			colSelf1/5 + 6 + step + mean + math.Sqrt(ss/5) + mn + 2*mx
	}
	matchesDirect(t, c, val, [][]float64{{0.3, -1.2, 2.1}, {-0.5, 0.4, 0.7}})
}

// matchesDirect requires c's log joint at each point to equal val's, and its
// gradient to match central finite differences of val.
func matchesDirect(t *testing.T, c *Compiled, val func([]float64) float64, points [][]float64) {
	t.Helper()
	for _, z := range points {
		lp := make([]float64, 1)
		c.LogJoint(z, lp)
		require.InDelta(t, val(z), lp[0], 1e-12, "%v", z)
		g := make([]float64, len(z))
		c.GradLogJoint(z, g)
		for i := range z {
			zp, zm := append([]float64(nil), z...), append([]float64(nil), z...)
			zp[i] += 1e-6
			zm[i] -= 1e-6
			require.InDelta(t, (val(zp)-val(zm))/2e-6, g[i], 1e-5, "d/dz%d at %v", i+1, z)
		}
	}
}
