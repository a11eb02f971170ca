package exact

import (
	"math"
	"testing"
)

// TestIntegrate checks the adaptive rule on densities with known
// normalisers, moments and CDFs, among them peaks far narrower than the
// interval that only the breaks let the first partition see.
func TestIntegrate(t *testing.T) {
	for _, c := range []struct {
		name     string
		d        Density
		logZ     float64
		mean, sd float64
		cdfAt    float64
		cdf      float64
	}{
		{"standard normal", Density{LogPDF: func(x float64) float64 { return -x * x / 2 }, Lo: -40, Hi: 40},
			0.5 * math.Log(2*math.Pi), 0, 1, 1, 0.5 * math.Erfc(-1/math.Sqrt2)},
		{"narrow normal off centre, with a break", Density{LogPDF: func(x float64) float64 { return logNormal(x, 7.3, 1e-3) + 3 }, Lo: -50, Hi: 50, Breaks: []float64{7.3}},
			3, 7.3, 1e-3, 7.301, 0.5 * math.Erfc(-1/math.Sqrt2)},
		{"exponential on (0, 60)", Density{LogPDF: func(x float64) float64 { return -2 * x }, Lo: 0, Hi: 60},
			math.Log(0.5 * (1 - math.Exp(-120))), 0.5, 0.5, 1, 1 - math.Exp(-2)},
		{"two normals of masses 1/4 and 3/4", Density{LogPDF: func(x float64) float64 {
			return math.Log(0.25*math.Exp(logNormal(x, -3, 0.2)) + 0.75*math.Exp(logNormal(x, 4, 0.5)))
		}, Lo: -20, Hi: 20},
			0, 0.25*-3 + 0.75*4, math.Sqrt(0.25*(9+0.04) + 0.75*(16+0.25) - 2.25*2.25), 0, 0.25},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, err := c.d.Integrate(0)
			if err != nil {
				t.Fatal(err)
			}
			s := in.Rule.Summary("x")
			for _, chk := range []struct {
				what      string
				got, want float64
			}{
				{"log Z", in.LogZ, c.logZ},
				{"mean", s.Mean, c.mean},
				{"sd", s.SD, c.sd},
				{"sum of weights", in.Rule.Mean(func(float64) float64 { return 1 }), 1},
				{"CDF", in.Rule.CDF(c.cdfAt), c.cdf},
				{"CDF at its quantile", in.Rule.CDF(s.Q95), 0.95},
			} {
				if math.Abs(chk.got-chk.want) > 1e-10*max(1, math.Abs(chk.want)) {
					t.Errorf("%s = %.15g, want %.15g", chk.what, chk.got, chk.want)
				}
			}
		})
	}
}

// TestQuantileInAGap: a quantile where the CDF is flat (between modes of
// equal mass) is NaN; one inside a mode is not.
func TestQuantileInAGap(t *testing.T) {
	d := Density{LogPDF: func(x float64) float64 {
		return math.Log(math.Exp(logNormal(x, -5, 0.1)) + math.Exp(logNormal(x, 5, 0.1)))
	}, Lo: -10, Hi: 10}
	in, err := d.Integrate(0)
	if err != nil {
		t.Fatal(err)
	}
	s := in.Rule.Summary("x")
	if !math.IsNaN(s.Q50) {
		t.Errorf("median in the gap = %g, want NaN", s.Q50)
	}
	if want := 5 + 0.1*1.2815515655446004; math.Abs(s.Q95-want) > 1e-9 {
		// P(x <= q) = 0.95 is the 90% point of the upper mode
		t.Errorf("q95 = %.12g, want %.12g", s.Q95, want)
	}
}

// TestNormalMixture checks a one-component mixture against the normal's
// quantiles and a two-component one against its moments and CDF.
func TestNormalMixture(t *testing.T) {
	one := NormalMixture{W: []float64{1}, M: []float64{2}, S: []float64{3}}.Summary("x")
	for _, c := range []struct{ got, want float64 }{
		{one.Mean, 2}, {one.SD, 3}, {one.Q05, 2 - 3*z95}, {one.Q50, 2}, {one.Q95, 2 + 3*z95},
	} {
		if math.Abs(c.got-c.want) > 1e-10 {
			t.Errorf("one component: %v, want %v", c.got, c.want)
		}
	}
	m := NormalMixture{W: []float64{0.3, 0.7}, M: []float64{-1, 2}, S: []float64{0.5, 1}}
	s := m.Summary("x")
	mean := 0.3*-1 + 0.7*2
	sd := math.Sqrt(0.3*(0.25+1) + 0.7*(1+4) - mean*mean)
	if math.Abs(s.Mean-mean) > 1e-12 || math.Abs(s.SD-sd) > 1e-12 {
		t.Errorf("mean, sd = %v, %v; want %v, %v", s.Mean, s.SD, mean, sd)
	}
	for _, q := range []struct{ p, x float64 }{{0.05, s.Q05}, {0.5, s.Q50}, {0.95, s.Q95}} {
		if got := m.CDF(q.x); math.Abs(got-q.p) > 1e-11 {
			t.Errorf("CDF(q%02.0f) = %.14f", 100*q.p, got)
		}
	}
}
