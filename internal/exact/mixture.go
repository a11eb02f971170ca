package exact

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// The mixture of case 4: MixN points from 0.5 N(-2, 1) + 0.5 N(2, 1). The
// models know the weights (0.5) and the sd (1) as data; only the two means
// are latent, with a normal(0, 5) prior each.
const (
	MixN      = 200
	MixSeed   = 20260204
	MixMu1    = -2.0
	MixMu2    = 2.0
	mixPrior  = 5.0
	mixWindow = 1.5 // the grid's half-width around the mode (>= 12 posterior sd)
)

// MixUnorderedModel has an unordered mu: the posterior has two mirror
// modes (label switching) of equal mass; first_low is the indicator of
// the labelling mu[1] < mu[2], whose probability is 1/2.
const MixUnorderedModel = `// Two-component normal mixture, weights 0.5 and sd 1 known, means unordered (internal/exact, case 4):
// label switching makes two mirror modes of equal mass. Data: mix.csv; exact: mix_unordered_exact.csv.
data {
  y: vector[N]
}
latent {
  mu: vector[2]
}
model {
  mu ~ normal(0, 5)
  for n in 1..N {
    target += log_mix(0.5, normal_lpdf(y[n] | mu[1], 1), normal_lpdf(y[n] | mu[2], 1))
  }
}
derived {
  first_low = mu[1] < mu[2]
}
`

// MixOrderedModel is the same mixture with ordered means: one mode.
const MixOrderedModel = `// Two-component normal mixture, weights 0.5 and sd 1 known, means ordered (internal/exact, case 4).
// Data: mix.csv; exact: mix_ordered_exact.csv.
data {
  y: vector[N]
}
latent {
  mu: ordered[2]
}
model {
  mu ~ normal(0, 5)
  for n in 1..N {
    target += log_mix(0.5, normal_lpdf(y[n] | mu[1], 1), normal_lpdf(y[n] | mu[2], 1))
  }
}
`

// SimulateMix draws case 4's data: each point from component 1 or 2 with
// probability 1/2, then N(MixMu1 or MixMu2, 1) (PCG seeded with MixSeed),
// rounded to 3 decimals.
func SimulateMix() []float64 {
	rng := rand.New(rand.NewPCG(MixSeed, 4))
	y := make([]float64, MixN)
	for i := range y {
		m := MixMu1
		if rng.Float64() < 0.5 {
			m = MixMu2
		}
		y[i] = math.Round((m+rng.NormFloat64())*1000) / 1000
	}
	return y
}

// mixCSV is the data file: one column y.
func mixCSV(y []float64) string {
	var b strings.Builder
	b.WriteString("y\n")
	for _, v := range y {
		b.WriteString(strconv.FormatFloat(v, 'f', -1, 64) + "\n")
	}
	return b.String()
}

// Mix is the exact posterior of case 4.
type Mix struct {
	// Ordered is mu[1] and mu[2] of the ordered model; Unordered mu[1] and
	// mu[2] of the unordered one (each an equal mixture of the ordered
	// marginals) and first_low.
	Ordered, Unordered []Summary
	// Mode is the ordered posterior's mode (mu1 < mu2).
	Mode [2]float64
	// Edge is the largest log density on the grid's border minus the
	// largest inside; Diagonal the largest log density on mu1 = mu2 (where
	// the unordered model's two copies meet) minus the maximum.
	Edge, Diagonal float64
}

// mixLogLik is the log-likelihood of the means (m1, m2).
func mixLogLik(y []float64, m1, m2 float64) float64 {
	s := 0.0
	for _, v := range y {
		a, b := -0.5*(v-m1)*(v-m1), -0.5*(v-m2)*(v-m2)
		if a < b {
			a, b = b, a
		}
		s += a + math.Log1p(math.Exp(b-a))
	}
	return s + float64(len(y))*(math.Log(0.5)-0.5*math.Log(2*math.Pi))
}

// ExactMix computes the posterior of the ordered mixture on an n x n
// midpoint grid over the mode +- 1.5 in each mean (the mode by EM for the
// posterior mode from the two halves' means). The marginal density of each
// mean at the grid's nodes (a midpoint sum over the other mean, whose error
// decays exponentially in 1/h for a smooth density negligible at the
// border) is interpolated by cubics in its log, and that one-dimensional
// density is integrated by adaptive quadrature for the moments and the
// quantiles. The unordered model's posterior is the ordered one and its
// mirror image with equal mass (exactly, up to the mass near mu1 = mu2,
// which Diagonal bounds), so each of its mu[i] is the equal mixture of the
// ordered mu[1] and mu[2].
func ExactMix(y []float64, n int) (*Mix, error) {
	m1, m2 := mixMode(y)
	out := &Mix{Mode: [2]float64{m1, m2}}
	lo1, lo2 := m1-mixWindow, m2-mixWindow
	h := 2 * mixWindow / float64(n)
	if lo1+2*mixWindow >= lo2 {
		return nil, errors.New("exact: the mixture's windows overlap (the modes are too close)")
	}
	lp := make([]float64, n*n)
	top, border := math.Inf(-1), math.Inf(-1)
	for i := range n {
		a := lo1 + (float64(i)+0.5)*h
		for k := range n {
			b := lo2 + (float64(k)+0.5)*h
			v := logNormal(a, 0, mixPrior) + logNormal(b, 0, mixPrior) + mixLogLik(y, a, b)
			lp[i*n+k] = v
			top = max(top, v)
			if i == 0 || k == 0 || i == n-1 || k == n-1 {
				border = max(border, v)
			}
		}
	}
	out.Edge = border - top
	if out.Edge > -40 {
		return nil, fmt.Errorf("exact: the mixture's grid border is only %.1f below the maximum", out.Edge)
	}
	diag := math.Inf(-1)
	for i := range 4 * n {
		x := m1 + (m2-m1)*float64(i)/float64(4*n-1)
		diag = max(diag, 2*logNormal(x, 0, mixPrior)+mixLogLik(y, x, x))
	}
	out.Diagonal = diag - top
	f1, f2 := make([]float64, n), make([]float64, n)
	for i := range n {
		for k := range n {
			w := math.Exp(lp[i*n+k] - top)
			f1[i] += w
			f2[k] += w
		}
	}
	log1, log2 := make([]float64, n), make([]float64, n)
	for i := range n {
		log1[i], log2[i] = math.Log(f1[i]), math.Log(f2[i])
	}
	d1 := cubicLog(lo1+h/2, h, log1)
	d2 := cubicLog(lo2+h/2, h, log2)
	in1, err1 := Density{LogPDF: d1, Lo: lo1 + h/2, Hi: lo1 + 2*mixWindow - h/2, Breaks: []float64{m1}}.Integrate(0)
	in2, err2 := Density{LogPDF: d2, Lo: lo2 + h/2, Hi: lo2 + 2*mixWindow - h/2, Breaks: []float64{m2}}.Integrate(0)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	out.Ordered = []Summary{in1.Rule.Summary("mu[1]"), in2.Rule.Summary("mu[2]")}
	// The unordered mu[i]: half of each, with the log normalisers of the
	// two interpolated marginals (equal up to the interpolation's error)
	// taken out.
	z1, z2 := in1.LogZ, in2.LogZ
	both := func(x float64) float64 {
		a, b := d1(x)-z1, d2(x)-z2
		if a < b {
			a, b = b, a
		}
		if math.IsInf(a, -1) {
			return a
		}
		return a + math.Log1p(math.Exp(b-a))
	}
	inU, err := Density{LogPDF: both, Lo: lo1 + h/2, Hi: lo2 + 2*mixWindow - h/2, Breaks: []float64{m1, m2, lo1 + 2*mixWindow, lo2}}.Integrate(0)
	if err != nil {
		return nil, err
	}
	u := inU.Rule.Summary("")
	u1, u2 := u, u
	u1.Name, u2.Name = "mu[1]", "mu[2]"
	out.Unordered = []Summary{u1, u2, Indicator("first_low", 0.5)}
	return out, nil
}

// mixMode finds the ordered posterior's mode by EM (the E step's
// responsibilities, then the M step's normal-prior-weighted means) from
// the means of the negative and the non-negative points.
func mixMode(y []float64) (m1, m2 float64) {
	var s1, s2, n1, n2 float64
	for _, v := range y {
		if v < 0 {
			s1, n1 = s1+v, n1+1
		} else {
			s2, n2 = s2+v, n2+1
		}
	}
	m1, m2 = s1/n1, s2/n2
	p := 1 / (mixPrior * mixPrior)
	for range 2000 {
		var r1, r2, t1, t2 float64
		for _, v := range y {
			a, b := -0.5*(v-m1)*(v-m1), -0.5*(v-m2)*(v-m2)
			w := 1 / (1 + math.Exp(b-a))
			r1, t1 = r1+w, t1+w*v
			r2, t2 = r2+1-w, t2+(1-w)*v
		}
		n1, n2 := t1/(r1+p), t2/(r2+p)
		if math.Abs(n1-m1)+math.Abs(n2-m2) < 1e-14 {
			return n1, n2
		}
		m1, m2 = n1, n2
	}
	return m1, m2
}

// cubicLog interpolates the values v at the nodes x0 + i h by the cubic
// through the four nearest nodes (the end cubics at the ends); outside the
// nodes it is -Inf.
func cubicLog(x0, h float64, v []float64) func(float64) float64 {
	n := len(v)
	return func(x float64) float64 {
		t := (x - x0) / h
		if t < 0 || t > float64(n-1) {
			return math.Inf(-1)
		}
		i := int(t) - 1 // nodes i..i+3 around t
		i = max(0, min(i, n-4))
		s := t - float64(i)
		// Lagrange on nodes 0, 1, 2, 3 at s
		l0 := -(s - 1) * (s - 2) * (s - 3) / 6
		l1 := s * (s - 2) * (s - 3) / 2
		l2 := -s * (s - 1) * (s - 3) / 2
		l3 := s * (s - 1) * (s - 2) / 6
		return l0*v[i] + l1*v[i+1] + l2*v[i+2] + l3*v[i+3]
	}
}
