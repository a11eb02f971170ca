package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFilterMatchesQuadrature checks the bootstrap filter on T = 2, where
// p(y_1, y_2) and E[x_t | y] are integrals over (x_1, x_2) done by the
// midpoint rule: the average log-likelihood estimate with many particles
// (its bias is O(1/N)) and the smoothing means from the ancestral lineages.
// The large first return of the second case makes the filter resample.
func TestFilterMatchesQuadrature(t *testing.T) {
	for _, y := range [][]float64{{0.7, -0.2}, {2.5, 0.1}} {
		checkQuadrature(t, y)
	}
}

func checkQuadrature(t *testing.T, y []float64) {
	phi, sigma, mu := 0.9, 0.5, -1.0
	// Quadrature on mu +- 8 stationary sds.
	sd1 := sigma / math.Sqrt(1-phi*phi)
	const n = 800
	lo, hi := mu-8*sd1, mu+8*sd1
	h := (hi - lo) / n
	norm := func(v, m, s float64) float64 {
		return math.Exp(-0.5*(v-m)*(v-m)/(s*s)) / (s * math.Sqrt(2*math.Pi))
	}
	var z, e1, e2 float64
	for i := range n {
		x1 := lo + (float64(i)+0.5)*h
		p1 := norm(x1, mu, sd1) * norm(y[0], 0, math.Exp(x1/2))
		for j := range n {
			x2 := lo + (float64(j)+0.5)*h
			p := p1 * norm(x2, mu+phi*(x1-mu), sigma) * norm(y[1], 0, math.Exp(x2/2)) * h * h
			z += p
			e1 += p * x1
			e2 += p * x2
		}
	}
	e1 /= z
	e2 /= z
	f := newFilter(y, 20000, rand.New(rand.NewPCG(1, 2)), true)
	m1 := make([]float64, 2)
	m2 := make([]float64, 2)
	var ll, a1, a2 float64
	const reps = 20
	for range reps {
		ll += f.logLik(phi, sigma, mu) / reps
		f.moments(m1, m2)
		a1 += m1[0] / reps
		a2 += m1[1] / reps
	}
	// The estimator's sd with 20000 particles is about 0.005 here, and its
	// mean over 20 repeats is within 0.005 of log p(y) with a wide margin.
	if d := ll - math.Log(z); math.Abs(d) > 0.005 {
		t.Errorf("log-likelihood %.5f, quadrature %.5f", ll, math.Log(z))
	}
	for k, c := range [][2]float64{{a1, e1}, {a2, e2}} {
		if math.Abs(c[0]-c[1]) > 0.01 {
			t.Errorf("E[x_%d | y] = %.4f, quadrature %.4f", k+1, c[0], c[1])
		}
	}
}

// TestESSAndRhat checks the diagnostics on independent draws (ESS about
// the number of draws, R-hat about 1) and on an AR(1) chain with
// coefficient 0.9 (ESS about n (1 - 0.9) / (1 + 0.9)).
func TestESSAndRhat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	iid := make([][]float64, 4)
	ar := make([][]float64, 4)
	for k := range iid {
		x := 0.0
		for range 5000 {
			iid[k] = append(iid[k], rng.NormFloat64())
			x = 0.9*x + math.Sqrt(1-0.81)*rng.NormFloat64()
			ar[k] = append(ar[k], x)
		}
	}
	if e := ess(iid); e < 17000 || e > 23000 {
		t.Errorf("ESS of 20000 independent draws: %.0f", e)
	}
	if r := splitRhat(iid); math.Abs(r-1) > 0.01 {
		t.Errorf("R-hat of independent draws: %.4f", r)
	}
	want := 20000 * 0.1 / 1.9
	if e := ess(ar); math.Abs(e/want-1) > 0.2 {
		t.Errorf("ESS of the AR(1) chains: %.0f, want about %.0f", e, want)
	}
}
