package exact

import (
	"fmt"
	"math"
)

// logNormal is log N(x; m, s^2).
func logNormal(x, m, s float64) float64 {
	z := (x - m) / s
	return -0.5*z*z - math.Log(s) - 0.5*math.Log(2*math.Pi)
}

// BimodalModel is case 1: theta^2 is observed with noise, so the posterior
// has two modes of equal mass at theta = +-5 (sd about 0.05 each, 200 sd
// apart).
const BimodalModel = `// Two separated modes of equal mass at theta = +-5 (internal/exact, case 1).
// Exact: theta mean 0, sd 5.0, P(theta > 0) = 0.5 (pos); see bimodal_exact.csv.
data {
  y: real = 25
}
latent {
  theta: real
}
model {
  theta ~ normal(0, 10)
  y ~ normal(theta^2, 0.5)
}
derived {
  pos = theta > 0
}
`

// TrimodalModel is the three-mode case: y = theta^3 - 4 theta + noise
// with y = 1, whose three real roots (-1.861, -0.254, 2.115) are modes of
// unequal mass. The indicators left, mid and right split the line at the
// cubic's turning points +-2/sqrt(3) (to 4 decimals), between the modes.
const TrimodalModel = `// Three separated modes of unequal mass near theta = -1.861, -0.254, 2.115 (internal/exact).
// Exact: see trimodal_exact.csv (left, mid, right are the modes' masses).
data {
  y: real = 1
}
latent {
  theta: real
}
model {
  theta ~ normal(0, 10)
  y ~ normal(theta^3 - 4 * theta, 0.5)
}
derived {
  left = theta < -1.1547
  mid = theta >= -1.1547 && theta <= 1.1547
  right = theta > 1.1547
}
`

// trimodalCut is where TrimodalModel's indicators split the line.
const trimodalCut = 1.1547

// OneD is the exact posterior of a one-dimensional model by adaptive
// quadrature.
type OneD struct {
	*Integrated
	Theta Summary
	// Modes are the posterior's local maxima; Masses the posterior mass
	// between consecutive cuts (one per mode).
	Modes, Masses []float64
}

// Bimodal computes case 1's posterior: theta ~ N(0, 10^2), y ~ N(theta^2,
// 0.5^2), y = 25. The log joint's derivative -t/100 + 2t (y - t^2)/0.5^2
// vanishes at t^2 = y - 0.5^2/200: the modes are at +-4.999875.
func Bimodal() (*OneD, error) {
	const y, s = 25.0, 0.5
	lj := func(t float64) float64 { return logNormal(t, 0, 10) + logNormal(y, t*t, s) }
	// The modes solve d/dt log joint = -t/100 + 2t (y - t^2)/s^2 = 0.
	m := math.Sqrt(y - s*s/200)
	return oneD(lj, -12, 12, []float64{-m, m}, []float64{0})
}

// Trimodal computes the three-mode case's posterior: theta ~ N(0, 10^2),
// y ~ N(theta^3 - 4 theta, 0.5^2), y = 1.
func Trimodal() (*OneD, error) {
	const y, s = 1.0, 0.5
	f := func(t float64) float64 { return t*t*t - 4*t }
	lj := func(t float64) float64 { return logNormal(t, 0, 10) + logNormal(y, f(t), s) }
	// The roots of f(t) = y, one on each monotone piece of f, are within
	// 1e-4 of the modes (the prior moves them slightly); the breaks need
	// only be near.
	r := 2 / math.Sqrt(3)
	g := func(t float64) float64 { return f(t) - y }
	modes := []float64{
		bisect(g, -4, -r, 1e-14),
		bisect(func(t float64) float64 { return -g(t) }, -r, r, 1e-14),
		bisect(g, r, 4, 1e-14),
	}
	return oneD(lj, -6, 6, modes, []float64{-trimodalCut, trimodalCut})
}

// oneD integrates the log joint lj over [lo, hi] with the modes as breaks
// and summarises it; cuts split the line into the modes' regions.
func oneD(lj func(float64) float64, lo, hi float64, modes, cuts []float64) (*OneD, error) {
	d := Density{LogPDF: lj, Lo: lo, Hi: hi, Breaks: append(append([]float64{}, modes...), cuts...)}
	in, err := d.Integrate(0)
	if err != nil {
		return nil, err
	}
	if in.EdgeLog > -50 {
		return nil, fmt.Errorf("exact: the density at the interval's ends is only %.1f below its maximum", in.EdgeLog)
	}
	o := &OneD{Integrated: in, Theta: in.Rule.Summary("theta")}
	// Each mode: the maximum of lj by golden-section search around the
	// break.
	for _, m := range modes {
		o.Modes = append(o.Modes, argmax(lj, m-0.01, m+0.01))
	}
	edges := append(append([]float64{math.Inf(-1)}, cuts...), math.Inf(1))
	for i := 0; i+1 < len(edges); i++ {
		o.Masses = append(o.Masses, in.Rule.Prob(edges[i], edges[i+1]))
	}
	return o, nil
}

// argmax maximises a unimodal f on [a, b] by golden-section search.
func argmax(f func(float64) float64, a, b float64) float64 {
	g := (math.Sqrt(5) - 1) / 2
	c, d := b-g*(b-a), a+g*(b-a)
	for b-a > 1e-12 {
		if f(c) > f(d) {
			b, d = d, c
			c = b - g*(b-a)
		} else {
			a, c = c, d
			d = a + g*(b-a)
		}
	}
	return (a + b) / 2
}
