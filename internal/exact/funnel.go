package exact

import (
	"fmt"
	"math"
)

// FunnelModel is Neal's funnel in 10 dimensions (examples/funnel.msc):
// v ~ N(0, 3^2), and the 9 x[i] are independent N(0, exp(v)) given v.
const FunnelModel = `// Neal's funnel in 10 dimensions, no data (internal/exact, case 3).
// Exact: v ~ N(0, 3^2); each x[i] is a scale mixture of normals with sd exp(9/4) = 9.4877; see funnel_exact.csv.
latent {
  v: real
  x: vector[9]
}
model {
  v ~ normal(0, 3)
  x ~ normal(0, exp(v / 2))
}
`

// FunnelDim is the number of x's in FunnelModel.
const FunnelDim = 9

// z95 is the standard normal's 95% quantile.
const z95 = 1.6448536269514722

// Funnel is the exact posterior of FunnelModel: v in closed form, and each
// x[i] (all alike) as the mixture over v of N(0, exp(v)) by quadrature of
// v's normal density on +-15 sd. x[i]'s mean and median are 0 and its sd
// exp(9/4) (E exp(v) = exp(9/2)); its quantiles come from the mixture's
// CDF.
func Funnel() ([]Summary, error) {
	d := Density{LogPDF: func(v float64) float64 { return logNormal(v, 0, 3) }, Lo: -45, Hi: 45, Breaks: []float64{0}}
	in, err := d.Integrate(0)
	if err != nil {
		return nil, err
	}
	mix := NormalMixture{W: in.Rule.W, M: make([]float64, len(in.Rule.X)), S: make([]float64, len(in.Rule.X))}
	for i, v := range in.Rule.X {
		mix.S[i] = math.Exp(v / 2)
	}
	x := mix.Summary("")
	x.Mean, x.Q50 = 0, 0 // exactly, by symmetry (the quadrature gives 1e-12)
	out := []Summary{{Name: "v", Mean: 0, SD: 3, Q05: -3 * z95, Q50: 0, Q95: 3 * z95}}
	for i := 1; i <= FunnelDim; i++ {
		x.Name = fmt.Sprintf("x[%d]", i)
		out = append(out, x)
	}
	return out, nil
}
