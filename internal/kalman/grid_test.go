package kalman

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// A grid on a smooth posterior, 18 or more sds wide, at 0.1-0.15 sd per
// cell: the means, sds, state moments and evidence agree with the closed
// forms to rounding (the midpoint rule converges geometrically on such
// integrands); the quantiles, which interpolate the CDF linearly within a
// cell, to O(h^2), well below 0.003 sd.
const (
	gridTol     = 1e-6 // relative to the posterior sd (means, sds)
	quantileTol = 3e-3 // relative to the posterior sd
)

// quadratic returns A and b with log p(y | theta) = c - theta' A theta / 2
// + b' theta, from the dense log-likelihood (exactly quadratic when theta
// is the initial mean) at theta = 0, +-e_i and e_i + e_j.
func quadratic(model func(theta []float64) Model, y [][]float64, p int) (*mat.SymDense, []float64) {
	ll := func(th ...float64) float64 {
		l, _, _ := dense(model(th), y)
		return l
	}
	e := func(i int, v float64) []float64 {
		th := make([]float64, p)
		th[i] = v
		return th
	}
	l0 := ll(make([]float64, p)...)
	a := mat.NewSymDense(p, nil)
	b := make([]float64, p)
	for i := range p {
		lp, lm := ll(e(i, 1)...), ll(e(i, -1)...)
		b[i] = (lp - lm) / 2
		a.SetSym(i, i, -(lp + lm - 2*l0))
		for j := range i {
			th := e(i, 1)
			th[j] = 1
			a.SetSym(i, j, -(ll(th...) - lp - ll(e(j, 1)...) + l0))
		}
	}
	return a, b
}

// TestGridConjugateMean checks one- and two-parameter grids against the
// conjugate normal posterior of the initial state's mean: with
// x_1 ~ N(theta, P0) and theta ~ N(0, diag(tau^2)), y is Gaussian with
// mean linear in theta and a covariance free of theta, so theta | y is
// Gaussian (A and b from the dense algebra), and x | y is the smoother's
// answer for x_1 ~ N(0, P0 + diag(tau^2)), computed densely.
func TestGridConjugateMean(t *testing.T) {
	tau := []float64{2, 1.5}
	cases := []struct {
		name  string
		model func(theta []float64) Model
		T     int
	}{
		{"1-D: local level", func(th []float64) Model {
			return ScalarModel(th[0], 1, 1, 0.3, 1, 1)
		}, 30},
		{"2-D: two random walks, two observations", func(th []float64) Model {
			return Model{
				M0: mat.NewVecDense(2, []float64{th[0], th[1]}),
				P0: sym(2, 1, 0.2, 0.2, 0.5),
				F:  mat.NewDense(2, 2, []float64{1, 0, 0, 0.9}),
				Q:  sym(2, 0.2, 0, 0, 0.1),
				H:  mat.NewDense(2, 2, []float64{1, 0, 0.5, 1}),
				R:  sym(2, 1, 0.3, 0.3, 0.8),
			}
		}, 12},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := 1
			if k, _ := c.model([]float64{0, 0}).Dims(); k == 2 {
				p = 2
			}
			y := simulate(c.model([]float64{1.2, -0.7}[:p]), c.T, 3, [][2]int{{2, 0}})
			// Exact posterior of theta.
			a, b := quadratic(func(th []float64) Model { return c.model(th) }, y, p)
			prec := mat.NewSymDense(p, nil)
			prec.CopySym(a)
			for i := range p {
				prec.SetSym(i, i, prec.At(i, i)+1/(tau[i]*tau[i]))
			}
			var ch mat.Cholesky
			if !ch.Factorize(prec) {
				t.Fatal("posterior precision not positive definite")
			}
			var cov mat.SymDense
			if err := ch.InverseTo(&cov); err != nil {
				t.Fatal(err)
			}
			var mean mat.VecDense
			mean.MulVec(&cov, mat.NewVecDense(p, b))
			// Exact states and evidence: theta folded into P0.
			zero := []float64{0, 0}[:p]
			mz := c.model(zero)
			p0 := mat.NewSymDense(mz.P0.SymmetricDim(), nil)
			p0.CopySym(mz.P0)
			for i := range p {
				p0.SetSym(i, i, p0.At(i, i)+tau[i]*tau[i])
			}
			mz.P0 = p0
			llz, xm, xc := dense(mz, y)

			var axes []Axis
			for i := range p {
				sd := math.Sqrt(cov.At(i, i))
				axes = append(axes, Axis{Name: []string{"a", "b"}[i], Lo: mean.AtVec(i) - 9*sd, Hi: mean.AtVec(i) + 9*sd, N: 160 - 40*p})
			}
			g := Grid{
				Axes:  axes,
				Model: func(th []float64) (Model, error) { return c.model(th), nil },
				LogPrior: func(th []float64) float64 {
					lp := 0.0
					for i, v := range th {
						lp += -0.5*log2Pi - math.Log(tau[i]) - 0.5*v*v/(tau[i]*tau[i])
					}
					return lp
				},
			}
			post, err := g.Posterior(y)
			if err != nil {
				t.Fatal(err)
			}
			for i, ps := range post.Params {
				m, sd := mean.AtVec(i), math.Sqrt(cov.At(i, i))
				if math.Abs(ps.Mean-m) > gridTol*sd || math.Abs(ps.SD-sd) > gridTol*sd {
					t.Errorf("%s: mean %.9g sd %.9g, exact %.9g %.9g", ps.Name, ps.Mean, ps.SD, m, sd)
				}
				for k, q := range post.Probs {
					want := distuv.Normal{Mu: m, Sigma: sd}.Quantile(q)
					if math.Abs(ps.Quantiles[k]-want) > quantileTol*sd {
						t.Errorf("%s: %g quantile %.6g, exact %.6g", ps.Name, q, ps.Quantiles[k], want)
					}
				}
				if ps.EdgeLo > 1e-15 || ps.EdgeHi > 1e-15 {
					t.Errorf("%s: edge masses %g, %g", ps.Name, ps.EdgeLo, ps.EdgeHi)
				}
			}
			if math.Abs(post.LogEvidence-llz) > 1e-8 {
				t.Errorf("log evidence %.10g, exact %.10g", post.LogEvidence, llz)
			}
			for tt := range c.T {
				for i := range len(xm[tt]) {
					sd := math.Sqrt(xc[tt][i][i])
					if math.Abs(post.StateMean[tt][i]-xm[tt][i]) > gridTol*sd || math.Abs(post.StateSD[tt][i]-sd) > gridTol*sd {
						t.Errorf("x_%d[%d]: mean %.9g sd %.9g, exact %.9g %.9g", tt+1, i, post.StateMean[tt][i], post.StateSD[tt][i], xm[tt][i], sd)
					}
				}
			}
		})
	}
}

// TestGridInverseGammaVariance checks the log-scale axis and its Jacobian:
// y_t iid N(0, v) (H = 0, so the states are unrelated to y) with
// v ~ inverse-gamma(a, b) has v | y ~ inverse-gamma(a + T/2, b + S/2), S
// the sum of squares, and p(y) in closed form.
func TestGridInverseGammaVariance(t *testing.T) {
	ys := []float64{0.3, -1.2, 2.1, 0.4, -0.8, 1.5, -0.2, 0.9, -1.7, 0.05, 1.1, -0.6, 0.7, -2.4, 0.35, 1.8, -0.15, 0.6, -1.05, 0.25}
	a, b := 3.0, 2.0
	S := 0.0
	for _, v := range ys {
		S += v * v
	}
	T := float64(len(ys))
	a1, b1 := a+T/2, b+S/2
	mean := b1 / (a1 - 1)
	sd := mean / math.Sqrt(a1-2)
	lga, _ := math.Lgamma(a)
	lga1, _ := math.Lgamma(a1)
	logEv := -T/2*log2Pi + a*math.Log(b) - lga + lga1 - a1*math.Log(b1)
	mode := math.Log(b1 / a1)
	g := Grid{
		Axes:  []Axis{{Name: "v", Lo: mode - 3, Hi: mode + 3, N: 120, Transform: Log}},
		Model: func(th []float64) (Model, error) { return ScalarModel(0, 1, 0, 1, 0, th[0]), nil },
		LogPrior: func(th []float64) float64 {
			v := th[0]
			return a*math.Log(b) - lga - (a+1)*math.Log(v) - b/v
		},
	}
	post, err := g.Posterior(Scalar(ys))
	if err != nil {
		t.Fatal(err)
	}
	ps := post.Params[0]
	if math.Abs(ps.Mean-mean) > gridTol*sd || math.Abs(ps.SD-sd) > gridTol*sd {
		t.Errorf("v: mean %.9g sd %.9g, exact %.9g %.9g", ps.Mean, ps.SD, mean, sd)
	}
	for k, q := range post.Probs {
		want := 1 / distuv.Gamma{Alpha: a1, Beta: b1}.Quantile(1-q)
		if math.Abs(ps.Quantiles[k]-want) > quantileTol*sd {
			t.Errorf("v: %g quantile %.6g, exact %.6g", q, ps.Quantiles[k], want)
		}
	}
	if math.Abs(post.LogEvidence-logEv) > 1e-8 {
		t.Errorf("log evidence %.10g, exact %.10g", post.LogEvidence, logEv)
	}
	for tt := range ys {
		if math.Abs(post.StateMean[tt][0]) > 1e-12 || math.Abs(post.StateSD[tt][0]-1) > 1e-12 {
			t.Errorf("x_%d: mean %g sd %g, want the prior's 0 and 1", tt+1, post.StateMean[tt][0], post.StateSD[tt][0])
		}
	}
}

// TestGridPriorOnly checks the atanh and log axes on a 2-D grid without
// data: phi ~ uniform(-1, 1) (mean 0, sd 1/sqrt(3), quantiles -0.9, 0,
// 0.9) and s ~ half-normal(0, 1) (mean sqrt(2/pi), sd sqrt(1 - 2/pi),
// quantiles Phi^-1((1 + p)/2)).
func TestGridPriorOnly(t *testing.T) {
	g := Grid{
		Axes: []Axis{
			{Name: "phi", Lo: -13, Hi: 13, N: 260, Transform: Atanh},
			{Name: "s", Lo: -30, Hi: 2.5, N: 260, Transform: Log},
		},
		Model: func(th []float64) (Model, error) { return ScalarModel(0, 1, th[0], th[1]*th[1], 1, 1), nil },
		LogPrior: func(th []float64) float64 {
			return -0.5 * th[1] * th[1]
		},
	}
	post, err := g.Posterior(nil)
	if err != nil {
		t.Fatal(err)
	}
	std := distuv.Normal{Mu: 0, Sigma: 1}
	want := []struct{ mean, sd float64 }{{0, 1 / math.Sqrt(3)}, {math.Sqrt(2 / math.Pi), math.Sqrt(1 - 2/math.Pi)}}
	for i, ps := range post.Params {
		// The tails beyond the grid: 2 exp(-26) of phi's mass, and
		// about exp(-30) of s's (the mass of s below exp(-30)).
		if math.Abs(ps.Mean-want[i].mean) > 1e-6 || math.Abs(ps.SD-want[i].sd) > 1e-6 {
			t.Errorf("%s: mean %.9g sd %.9g, exact %.9g %.9g", ps.Name, ps.Mean, ps.SD, want[i].mean, want[i].sd)
		}
		for k, q := range post.Probs {
			w := 2*q - 1
			if i == 1 {
				w = std.Quantile((1 + q) / 2)
			}
			if math.Abs(ps.Quantiles[k]-w) > 2e-3 {
				t.Errorf("%s: %g quantile %.6g, exact %.6g", ps.Name, q, ps.Quantiles[k], w)
			}
		}
	}
}

func TestGridErrors(t *testing.T) {
	model := func(th []float64) (Model, error) { return ScalarModel(th[0], 1, 1, 1, 1, 1), nil }
	prior := func([]float64) float64 { return 0 }
	ax := Axis{Name: "a", Lo: -1, Hi: 1, N: 10}
	cases := []struct {
		name string
		g    Grid
	}{
		{"no axes", Grid{Model: model, LogPrior: prior}},
		{"three axes", Grid{Axes: []Axis{ax, ax, ax}, Model: model, LogPrior: prior}},
		{"no model", Grid{Axes: []Axis{ax}, LogPrior: prior}},
		{"empty axis", Grid{Axes: []Axis{{Name: "a", Lo: 1, Hi: 1, N: 10}}, Model: model, LogPrior: prior}},
		{"zero prior everywhere", Grid{Axes: []Axis{ax}, Model: model, LogPrior: func([]float64) float64 { return math.Inf(-1) }}},
	}
	for _, c := range cases {
		if _, err := c.g.Posterior(Scalar([]float64{1, 2})); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// Log is the transform theta = exp(u), for a positive parameter on the
// log scale.
func Log(u float64) (float64, float64) { return math.Exp(u), u }

// Atanh is the transform theta = tanh(u), for a parameter in (-1, 1) on
// the atanh scale.
func Atanh(u float64) (float64, float64) {
	a := math.Abs(u)
	// log(1 - tanh(u)^2) = 2 (log 2 - |u| - log1p(exp(-2|u|))).
	return math.Tanh(u), 2 * (math.Ln2 - a - math.Log1p(math.Exp(-2*a)))
}
