package stdlib

import (
	"math"
	"testing"

	"github.com/mscppl/mscppl/stdlib/special"
	"github.com/stretchr/testify/require"
)

// TestSkewNormalCDF: skew_normal_lcdf and _lccdf against the closed forms
// alpha = 0 (Phi(z)), alpha = 1 (Phi(z)^2) and alpha = -1 (1 - Phi(-z)^2),
// and against mpmath (50 digits; the script below) far into both tails,
// with y = xi + omega z for xi = 0.7, omega = 1.3; the derivatives in
// y, xi, omega and alpha against finite differences.
//
//	from mpmath import mp, quad, npdf, ncdf, log, log1p, inf
//	mp.dps = 50
//	# (-inf, z] (sign -1) or [z, inf) (sign +1), in u = |t - z|, scaled by
//	# the density at z (quad stops on an absolute error); w = 1/max(1, the
//	# log density's slope at z), breakpoints w*(0.03, 0.1, ..., 300)
//	f0 * quad(lambda u: 2*npdf(z+sign*u)*ncdf(a*(z+sign*u))/f0, [0, w*0.03, ..., inf])
//	# log F, log(1 - F) = (log F, log1p(-F)) if F < G else (log1p(-G), log G)
func TestSkewNormalCDF(t *testing.T) {
	fam := families["skew_normal"]
	near := func(want, got float64, msg string, args ...any) {
		t.Helper()
		tol := 1e-12 * math.Abs(want)
		if want == 0 {
			tol = 1e-100 // log(1 - tiny), below mpmath's 40 digits
		}
		require.InDeltaf(t, want, got, tol, msg, args...)
	}
	for _, z := range []float64{-30, -5, -1.2, -0.01, -1e-9, 0, 1e-13, 0.0667, 0.7, 3, 30} {
		for _, c := range []struct{ al, lcdf, lccdf float64 }{
			{0, special.LogPhi(z), special.LogPhi(-z)},
			{1, 2 * special.LogPhi(z), special.Log1mExp(2 * special.LogPhi(z))},
			{-1, special.Log1mExp(2 * special.LogPhi(-z)), 2 * special.LogPhi(-z)},
		} {
			a := []float64{z, 0, 1, c.al}
			near(c.lcdf, fam.LogCDF.Eval(a), "skew_normal_lcdf%v", a)
			near(c.lccdf, fam.LogCCDF.Eval(a), "skew_normal_lccdf%v", a)
		}
	}
	// z, alpha, log F, log(1 - F)
	ref := [][4]float64{
		{-3.0, 4.0, -84.08103020990213, -3.048404170420537e-37},
		{0.5, 4.0, -0.95620251943520018, -0.48507613667425801},
		{2.0, -3.0, -5.0891259751922508e-12, -26.00391501422083},
		{-1.0, 0.29999999999999999, -2.2710959014713422, -0.10892131682474665},
		{1.5, 20.0, -0.1434252068611771, -2.0127972202639445},
		{-0.050000000000000003, 20.0, -5.7094799691231658, -0.0033199004609931903},
		{-6.0, 0.5, -26.887217318225619, -2.1039232113524948e-12},
		{6.0, -0.5, -2.1039232113524948e-12, -26.887217318225619},
		{-12.0, 2.0, -368.42161847166603, -9.9202835085103383e-161},
		{4.0, 2.0, -6.3344489886078084e-5, -9.6669543059673456},
		{0.20000000000000001, 1000.0, -1.8418781765876035, -0.17259234212164999},
		{-0.001, 1000.0, -9.6186687920963312, -6.647826185442853e-5},
		{3.0, -7.0, -1.9292506333144686e-102, -234.20654783076736},
		{-25.0, -0.5, -315.94626082746031, -6.1133934127651218e-138},
		{9.0, 0.29999999999999999, -2.2500551349164783e-19, -42.938162046563444},
		// near z = 0, where the integrands' singularity comes close
		{1.0000000000000001e-5, 3.0, -2.278669642607543, -0.10805344034928765},
		{-0.001, -2.0, -0.16014865631489055, -1.9106586999236069},
		{0.02, 0.5, -1.0204671610419975, -0.44695376793626823},
		{-0.20000000000000001, -40.0, -0.17259234212164999, -1.8418781765876035},
		// large |alpha| (log(1 - F) below 1e-300 written as 0)
		{0.3, -1000, 0, -45019.505084446155},
		{0.05, -50, -3.1931333541363646e-5, -10.351938753206466},
		{-0.3, 1000, -45019.505084446155, 0},
		{1, -30, -2.6296562915948476e-201, -461.8527505417604},
		{0.01, -1e6, 0, -50000033.38097122},
	}
	for _, c := range ref {
		a := []float64{0.7 + 1.3*c[0], 0.7, 1.3, c[1]}
		near(c[2], fam.LogCDF.Eval(a), "skew_normal_lcdf%v", a)
		near(c[3], fam.LogCCDF.Eval(a), "skew_normal_lccdf%v", a)
		for _, f := range []*NaryFunc{fam.LogCDF, fam.LogCCDF, fam.CDF} {
			fdArgs(t, f, append([]float64(nil), a...), []int{0, 1, 2, 3}, 1e-6)
		}
	}
}
