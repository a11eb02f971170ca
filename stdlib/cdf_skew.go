package stdlib

import (
	"math"

	"github.com/mscppl/mscppl/stdlib/special"
)

// skew_normal_lcdf, _lccdf and _cdf of (y, xi, omega, alpha): with
// z = (y - xi)/omega, each of log F and log(1 - F) = log F(-z; -alpha) is
// special.LogSkewNormalCDF (Owen's T function as a sum of positive terms)
// while below log(1/2), else log(1 - exp(the other)). The derivatives are
// closed forms: dF/dz is the density and
// dF/dalpha = -exp(-(1 + alpha^2) z^2 / 2) / (pi (1 + alpha^2)).

// skewNormalCDF is skew_normal_lcdf (complement: _lccdf) of (y, xi,
// omega, alpha).
func skewNormalCDF(a, d []float64, complement bool) float64 {
	om, al := a[2], a[3]
	z := (a[0] - a[1]) / om
	if math.IsInf(z, 0) {
		if (z > 0) == complement {
			return negInf
		}
		return 0
	}
	// each side directly while it is below 1/2, else from the other side
	lo, hi := special.LogSkewNormalCDF(z, al), special.LogSkewNormalCDF(-z, -al)
	if complement {
		lo, hi = hi, lo
	}
	v := lo
	if lo > -math.Ln2 {
		v = special.Log1mExp(hi)
	}
	// dF/dz (the density) and dF/dalpha over the CDF (its complement)
	dz := math.Exp(math.Ln2 - 0.5*z*z - special.LnSqrt2Pi + special.LogPhi(al*z) - v)
	q := 1 + al*al
	da := -math.Exp(-0.5*q*z*z - math.Log(math.Pi*q) - v)
	if complement {
		dz, da = -dz, -da
	}
	d[0], d[1], d[2], d[3] = dz/om, -dz/om, -dz*z/om, da
	return v
}
