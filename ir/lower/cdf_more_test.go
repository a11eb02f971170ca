package lower

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestMoreCDFCalls: NAME_lcdf and NAME_lccdf with a bar sum over a vector
// y (a real vector or an int array), NAME_cdf with a bar multiplies, and
// the bar-less forms apply elementwise: values against gonum's CDFs and
// the gradient against finite differences.
func TestMoreCDFCalls(t *testing.T) {
	c := compile(t, `data { y: int[N] }
latent { z: vector[3] }
model {
  target += student_t_lccdf(rep_vector(0.0, 2) | 3, 0, 10) + student_t_lcdf(z | 3, 0.5, 2)
  target += student_t_cdf(z | 3, 0, 1) + gamma_lccdf(2.5 | exp(z[1]), 1.5)
  target += poisson_lcdf(y | exp(z[2])) + sum(beta_cdf(rep_vector(0.3, 3), 2, exp(z)))
  target += neg_binomial_2_lccdf(3 | exp(z[3]), 2) + binomial_cdf(y[2] | 6, inv_logit(z[1]))
  target += skew_normal_lcdf(z | 0.2, 1.5, 1)
}
`, "y\n1\n4\n")
	// Student's t with 3 degrees of freedom has a closed-form CDF (gonum's
	// StudentsT.CDF has errors near 1e-11 around 0, too large for finite
	// differences)
	t3 := func(x float64) float64 {
		u := x / math.Sqrt(3)
		return 0.5 + (u/(1+u*u)+math.Atan(u))/math.Pi
	}
	val := func(z []float64) float64 {
		v := 2 * math.Log(0.5)
		prod := 1.0
		for _, x := range z {
			v += math.Log(t3((x - 0.5) / 2))
			prod *= t3(x)
			v += distuv.Beta{Alpha: 2, Beta: math.Exp(x)}.CDF(0.3)
			// the skew normal of shape 1 has CDF Phi(z)^2
			v += 2 * math.Log(distuv.UnitNormal.CDF((x-0.2)/1.5))
		}
		v += prod + math.Log(mathext.GammaIncRegComp(math.Exp(z[0]), 1.5*2.5))
		for _, k := range []float64{1, 4} {
			v += math.Log(distuv.Poisson{Lambda: math.Exp(z[1])}.CDF(k))
		}
		// P(Y > 3) for neg_binomial_2(mu, 2): I_(mu/(mu+2))(4, 2)
		mu := math.Exp(z[2])
		v += math.Log(mathext.RegIncBeta(4, 2, mu/(mu+2)))
		return v + distuv.Binomial{N: 6, P: 1 / (1 + math.Exp(-z[0]))}.CDF(4)
	}
	matchesDirect(t, c, val, [][]float64{{0.3, -1.2, 2.1}, {-2.5, 0.4, -0.7}, {1.1, 0, 0.9}})
}
