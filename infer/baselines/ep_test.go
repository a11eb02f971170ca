package baselines

import (
	"math"
	"testing"

	"github.com/mscppl/mscppl/stdlib/special"
	"github.com/stretchr/testify/require"
)

// quadMoments integrates N(w; m0, v0) prod_i Phi(yt_i (x_i w + c_i)) on a
// fine grid and returns the posterior mean and variance (1-d).
func quadMoments(x, c, y []float64, m0, v0 float64) (mean, vr float64) {
	const lo, hi, n = -12.0, 12.0, 200001
	h := (hi - lo) / (n - 1)
	var z, s1, s2 float64
	for k := 0; k < n; k++ {
		w := lo + float64(k)*h
		lp := -0.5 * (w - m0) * (w - m0) / v0
		for i := range x {
			f := x[i]*w + c[i]
			if y[i] == 0 {
				f = -f
			}
			lp += special.LogPhi(f)
		}
		p := math.Exp(lp)
		z += p
		s1 += p * w
		s2 += p * w * w
	}
	mean = s1 / z
	return mean, s2/z - mean*mean
}

// TestEPOneSiteIsExact: with a single observation, EP's moment matching
// is exact.
func TestEPOneSiteIsExact(t *testing.T) {
	x, c, y := []float64{1.7}, []float64{-0.4}, []float64{1}
	res, err := EPProbit(x, 1, 1, c, y, []float64{0.3}, []float64{2}, EPSettings{})
	require.NoError(t, err)
	require.True(t, res.Converged)
	m, v := quadMoments(x, c, y, 0.3, 2)
	require.InDelta(t, m, res.Mean[0], 1e-7)
	require.InDelta(t, v, res.Cov[0], 1e-7)
}

// TestEPSeveralSites: with several observations EP is an approximation:
// on this small, strongly informative design its mean is within 1% of a
// posterior sd and its variance 4.5% low (the same with and without
// offsets), so the variance is checked to 6%. TestEPFixedPoint checks that
// the answer is EP's own fixed point.
func TestEPSeveralSites(t *testing.T) {
	x := []float64{1.2, -0.7, 2.5, 0.3, -1.8, 0.9}
	c := []float64{0, 0.2, -0.5, 0, 0.1, 0}
	y := []float64{1, 0, 1, 1, 0, 0}
	res, err := EPProbit(x, 6, 1, c, y, []float64{0}, []float64{1}, EPSettings{})
	require.NoError(t, err)
	m, v := quadMoments(x, c, y, 0, 1)
	require.InDelta(t, m, res.Mean[0], 0.01*math.Sqrt(v))
	require.InDelta(t, v, res.Cov[0], 0.06*v)
}

func TestEPRejectsNonBinary(t *testing.T) {
	_, err := EPProbit([]float64{1}, 1, 1, nil, []float64{2}, []float64{0}, []float64{1}, EPSettings{})
	require.ErrorContains(t, err, "0/1")
}

func TestPredictProbit(t *testing.T) {
	p := PredictProbit([]float64{1, 2}, 1, 2, nil, []float64{0.5, -0.1}, []float64{1, 0, 0, 0.25})
	// mean 0.5 - 0.2 = 0.3, var 1 + 1*1 + 4*0.25 = 3
	require.InDelta(t, special.Phi(0.3/math.Sqrt(3)), p[0], 1e-12)
}

// TestEPFixedPoint: at convergence every site's tilted distribution
// (cavity times the exact likelihood term, integrated by quadrature) has
// the same mean and variance as the EP posterior's projection: the
// defining property of EP, checked independently of its update formulas.
func TestEPFixedPoint(t *testing.T) {
	x := []float64{1.2, -0.7, 2.5, 0.3, -1.8, 0.9}
	y := []float64{1, 0, 1, 1, 0, 0}
	res, err := EPProbit(x, 6, 1, nil, y, []float64{0}, []float64{1}, EPSettings{Tol: 1e-12, MaxIter: 1000})
	require.NoError(t, err)
	mu, s2 := res.Mean[0], res.Cov[0]
	// recover each site from one leave-one-out pass: the cavity of site i
	// is the EP posterior divided by site i; EP's fixed point makes the
	// tilted moments equal to (mu, s2). Sites are Gaussian in w here (1-d,
	// x_i w): tau_i, nu_i solve the moment match, and they must add up to
	// the posterior's natural parameters.
	tauSum, nuSum := 1.0, 0.0 // prior N(0, 1)
	for i := range x {
		// the site that moment-matches: find tau_i, nu_i with
		// cavity = posterior / site, tilted(cavity) = posterior.
		// Solve by fixed-point iteration on the site in f = x_i w.
		tau, nu := 0.0, 0.0
		for k := 0; k < 40; k++ {
			fs, fm := x[i]*x[i]*s2, x[i]*mu
			tc := 1/fs - tau
			nc := fm/fs - nu
			m, v := quadMoments([]float64{1}, []float64{0}, []float64{y[i]}, nc/tc, 1/tc)
			tau, nu = 1/v-tc, m/v-nc
		}
		tauSum += tau * x[i] * x[i]
		nuSum += nu * x[i]
	}
	require.InDelta(t, 1/s2, tauSum, 1e-4/s2)
	require.InDelta(t, mu/s2, nuSum, 1e-4/s2)
}
