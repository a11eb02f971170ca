package simulate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mscppl/mscppl/internal/irtest"
	"github.com/mscppl/mscppl/ir/lower"
	"github.com/mscppl/mscppl/lang"
	"github.com/stretchr/testify/require"
)

func simulator(t *testing.T, src, csv string) (*Simulator, error) {
	t.Helper()
	f, m := irtest.ParseBuild(t, src, csv)
	return NewSimulator(m, f)
}

// meanVar are the mean and the variance (divided by n) of xs.
func meanVar(xs []float64) (float64, float64) {
	m, v := 0.0, 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, v / float64(len(xs))
}

// TestSimulatorEightSchools: the data are drawn given the latents drawn
// with them, though the model's likelihood comes before the priors of mu
// and tau: the standardised residuals (y - theta_trans tau - mu)/sigma are
// N(0, 1), and the latents follow their priors. The tolerances are 4
// standard errors of n draws.
func TestSimulatorEightSchools(t *testing.T) {
	const src = `data {
  y: vector[J]
  sigma: vector[J]
}
latent {
  mu: real
  tau: real<lower=0>
  theta_trans: vector[J]
}
model {
  theta_trans ~ normal(0, 1)
  theta = theta_trans * tau + mu
  y ~ normal(theta, sigma)
  mu ~ normal(0, 5)
  tau ~ cauchy(0, 5)
}
`
	csv := "y,sigma\n28,15\n8,10\n-3,16\n7,11\n-1,9\n1,11\n18,10\n12,18\n"
	sigma := []float64{15, 10, 16, 11, 9, 11, 10, 18}
	s, err := simulator(t, src, csv)
	require.NoError(t, err)
	require.Len(t, s.Data, 1)
	require.Equal(t, "y", s.Data[0].Name)
	const n = 4000
	rng := rand.New(rand.NewPCG(7, 1))
	x := make([]float64, 10)
	data := make([][]float64, 1)
	var resid, mu, tt []float64
	below5 := 0
	for range n {
		require.NoError(t, s.Draw(rng, x, data))
		require.Len(t, data[0], 8)
		for j := range 8 {
			resid = append(resid, (data[0][j]-x[2+j]*x[1]-x[0])/sigma[j])
			tt = append(tt, x[2+j])
		}
		mu = append(mu, x[0])
		if x[1] < 5 {
			below5++
		}
	}
	m, v := meanVar(resid)
	se := 1 / math.Sqrt(float64(len(resid)))
	require.InDelta(t, 0, m, 4*se, "residual mean")
	require.InDelta(t, 1, v, 4*math.Sqrt(2)*se, "residual variance")
	m, v = meanVar(tt)
	require.InDelta(t, 0, m, 4*se, "theta_trans mean")
	require.InDelta(t, 1, v, 4*math.Sqrt(2)*se, "theta_trans variance")
	m, v = meanVar(mu)
	require.InDelta(t, 0, m, 4*5/math.Sqrt(n), "mu mean")
	require.InDelta(t, 25, v, 4*25*math.Sqrt(2.0/n), "mu variance")
	// tau ~ half-Cauchy(0, 5): its median is 5
	require.InDelta(t, 0.5, float64(below5)/n, 4*math.Sqrt(0.25/n), "P(tau < 5)")
}

// TestSamplePriorAutoregression: a vectorised AR(1) prior statement,
// whose arguments are the elements it draws, draws each element given the
// one before: the lag-1 correlation is phi, the innovations have sd s.
func TestSamplePriorAutoregression(t *testing.T) {
	const src = `latent { z: vector[50] }
model {
  z[1] ~ normal(0, 1)
  z[2:50] ~ normal(0.8 * z[1:49], 0.6)
}
`
	c := compile(t, src, "")
	require.NoError(t, lower.PriorError(c))
	rng := rand.New(rand.NewPCG(3, 3))
	z := make([]float64, 50)
	var innov, lag0, lag1 []float64
	for range 400 {
		c.SamplePrior(rng, z)
		for k := 1; k < 50; k++ {
			innov = append(innov, z[k]-0.8*z[k-1])
			lag0, lag1 = append(lag0, z[k-1]), append(lag1, z[k])
		}
	}
	m, v := meanVar(innov)
	se := 0.6 / math.Sqrt(float64(len(innov)))
	require.InDelta(t, 0, m, 4*se)
	require.InDelta(t, 0.36, v, 4*0.36*math.Sqrt(2/float64(len(innov))))
	// the stationary variance is 0.36/(1-0.64) = 1, so the lag-1
	// covariance is 0.8
	cov := 0.0
	for i := range lag0 {
		cov += lag0[i] * lag1[i]
	}
	require.InDelta(t, 0.8, cov/float64(len(lag0)), 0.1)
}

// TestSamplePriorOrder: a prior statement whose arguments are latents
// drawn by a later statement is drawn after it.
func TestSamplePriorOrder(t *testing.T) {
	c := compile(t, "latent {\n theta: real\n mu: real\n}\nmodel {\n theta ~ normal(mu, 0.1)\n mu ~ normal(10, 0.1)\n}\n", "")
	rng := rand.New(rand.NewPCG(1, 2))
	z := make([]float64, 2)
	sum := 0.0
	for range 100 {
		c.SamplePrior(rng, z)
		sum += z[0]
	}
	require.InDelta(t, 10, sum/100, 0.1)
}

// TestSimulatorConditions: the elements of observed data that no ~
// statement draws (an autoregression's first value) keep their values,
// and the others are drawn given them.
func TestSimulatorConditions(t *testing.T) {
	const src = `data { x: vector[N] }
latent { z: real }
model {
  z ~ normal(0, 1)
  for n in 2..N {
    x[n] ~ normal(x[n - 1] + z, 0.001)
  }
}
`
	s, err := simulator(t, src, "x\n100\n0\n0\n")
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 1))
	x, data := make([]float64, 1), make([][]float64, 1)
	for range 20 {
		require.NoError(t, s.Draw(rng, x, data))
		require.Equal(t, 100.0, data[0][0])
		require.InDelta(t, 100+x[0], data[0][1], 0.01)
		require.InDelta(t, 100+2*x[0], data[0][2], 0.01)
	}
}

// TestSimulatorErrors: the data sbc cannot draw are reported at the
// statement or declaration.
func TestSimulatorErrors(t *testing.T) {
	csv := "x\n1\n2\n3\n"
	for _, tc := range []struct {
		name, src, want string
	}{
		{"target", "data { x: vector[N] }\nlatent { z: real }\nmodel {\n z ~ normal(0, 1)\n target += normal_lpdf(x | z, 1)\n}\n",
			`^m.msc:5:2: sbc cannot draw the data x: this statement \(.*\) adds its density to the target`},
		{"twice", "data { x: vector[N] }\nlatent { z: real }\nmodel {\n z ~ normal(0, 1)\n x ~ normal(z, 1)\n x[2] ~ normal(z, 2)\n}\n",
			`^m.msc:1:8: sbc cannot draw the data x\[2\]: it is on the left of ~ 2 times`},
		{"standardized", "data { x: vector[N] from \"x\" standardized }\nlatent { z: real }\nmodel {\n z ~ normal(0, 1)\n x ~ normal(z, 1)\n}\n",
			`^m.msc:1:8: sbc cannot draw the data x: it is declared standardized`},
		{"improper", "data { x: vector[N] }\nlatent { z: real }\nmodel {\n x ~ normal(z, 1)\n}\n",
			`^m.msc:2:10: sbc draws the latents from their prior, and cannot: latent z has no prior statement`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := simulator(t, tc.src, csv)
			require.Error(t, err)
			var list lang.ErrorList
			require.ErrorAs(t, err, &list)
			require.Regexp(t, tc.want, list[0].Pos.String()+": "+list[0].Msg)
		})
	}
}
