package exact

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

var update = flag.Bool("update", false, "rewrite the case files under testdata")

// midpointGrid is an independent check of a one-dimensional answer: the
// midpoint rule with n cells on [lo, hi] for the log joint lj. It returns
// log Z, the mean, the sd and the mass above 0.
func midpointGrid(lj func(float64) float64, lo, hi float64, n int) (logZ, mean, sd, above0 float64) {
	h := (hi - lo) / float64(n)
	top := math.Inf(-1)
	for i := range n {
		top = max(top, lj(lo+(float64(i)+0.5)*h))
	}
	var z, m1, m2, pos float64
	for i := range n {
		x := lo + (float64(i)+0.5)*h
		w := math.Exp(lj(x) - top)
		z += w
		m1 += w * x
		m2 += w * x * x
		if x > 0 {
			pos += w
		}
	}
	mean = m1 / z
	return top + math.Log(z*h), mean, math.Sqrt(m2/z - mean*mean), pos / z
}

// TestOneDimensional checks cases 1 (two modes) and the three-mode case
// against a midpoint grid of 10^6 cells (200 cells per sd of the narrowest
// mode, so its error is far below the tolerances) and against their
// symmetries and closed-form modes.
func TestOneDimensional(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func() (*OneD, error)
		lj   func(float64) float64
		// the exact answer's own checks
		modes []float64
	}{
		{"bimodal", Bimodal, func(x float64) float64 { return logNormal(x, 0, 10) + logNormal(25, x*x, 0.5) },
			[]float64{-math.Sqrt(25 - 0.25/200), math.Sqrt(25 - 0.25/200)}},
		{"trimodal", Trimodal, func(x float64) float64 { return logNormal(x, 0, 10) + logNormal(1, x*x*x-4*x, 0.5) },
			nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, err := c.f()
			if err != nil {
				t.Fatal(err)
			}
			logZ, mean, sd, above := midpointGrid(c.lj, -8, 8, 1_000_000)
			for _, chk := range []struct {
				what      string
				got, want float64
				tol       float64
			}{
				{"log p(y)", o.LogZ, logZ, 1e-9},
				{"mean (in sd)", o.Theta.Mean / sd, mean / sd, 1e-9},
				{"sd (relative)", o.Theta.SD / sd, 1, 1e-9},
				{"P(theta > 0)", o.Rule.Prob(0, math.Inf(1)), above, 1e-9},
				{"masses' sum", sum(o.Masses), 1, 1e-12},
			} {
				if math.Abs(chk.got-chk.want) > chk.tol {
					t.Errorf("%s = %.12g, want %.12g", chk.what, chk.got, chk.want)
				}
			}
			for i, m := range c.modes {
				if math.Abs(o.Modes[i]-m) > 1e-6 {
					t.Errorf("mode %d at %.9f, want %.9f", i, o.Modes[i], m)
				}
			}
			// each quantile: the CDF there
			for _, q := range []struct{ p, x float64 }{{0.05, o.Theta.Q05}, {0.5, o.Theta.Q50}, {0.95, o.Theta.Q95}} {
				if !math.IsNaN(q.x) && math.Abs(o.Rule.CDF(q.x)-q.p) > 1e-10 {
					t.Errorf("CDF(q%02.0f = %g) = %.12f", 100*q.p, q.x, o.Rule.CDF(q.x))
				}
			}
		})
	}
	// The bimodal posterior is symmetric: P(theta > 0) = 1/2, mean 0,
	// q05 = -q95, and no median (it lies in the gap).
	o, err := Bimodal()
	if err != nil {
		t.Fatal(err)
	}
	if p := o.Rule.Prob(0, math.Inf(1)); math.Abs(p-0.5) > 1e-12 || math.Abs(o.Theta.Mean) > 1e-12*o.Theta.SD ||
		math.Abs(o.Theta.Q05+o.Theta.Q95) > 1e-9 || !math.IsNaN(o.Theta.Q50) {
		t.Errorf("bimodal not symmetric: P(theta > 0) = %.15f, %+v", p, o.Theta)
	}
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// TestFunnel: x's sd is exp(9/4) (E exp(v) = exp(9/2)) and its quantiles
// solve P(x <= q) = p by an independent midpoint sum over v of
// Phi(q exp(-v/2)) N(v; 0, 9).
func TestFunnel(t *testing.T) {
	s, err := Funnel()
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 1+FunnelDim {
		t.Fatalf("%d rows", len(s))
	}
	x := s[1]
	if math.Abs(x.SD-math.Exp(2.25)) > 1e-9 {
		t.Errorf("x sd %.12f, want %.12f", x.SD, math.Exp(2.25))
	}
	cdf := func(q float64) float64 {
		const n, lo, hi = 200000, -45.0, 45.0
		h := (hi - lo) / n
		c := 0.0
		for i := range n {
			v := lo + (float64(i)+0.5)*h
			c += h * math.Exp(logNormal(v, 0, 3)) * 0.5 * math.Erfc(-q*math.Exp(-v/2)/math.Sqrt2)
		}
		return c
	}
	for _, q := range []struct{ p, x float64 }{{0.05, x.Q05}, {0.5, x.Q50}, {0.95, x.Q95}} {
		if got := cdf(q.x); math.Abs(got-q.p) > 1e-9 {
			t.Errorf("P(x <= q%02.0f = %g) = %.12f", 100*q.p, q.x, got)
		}
	}
}

// TestHierGivenTau checks what ExactHier takes as analytic given tau
// against dense Gaussian algebra on all 90 observations: the posterior of
// (mu, a) given tau and y is Gaussian with precision Q = (the prior's) +
// (the likelihood's) and mean Q^-1 b; and y ~ N(0, 25 1 1' + tau^2 Z Z' +
// sigma^2 I) gives log p(y | tau).
func TestHierGivenTau(t *testing.T) {
	d := SimulateHier()
	ybar, n, ss := d.groups()
	h := hierGiven{ybar: ybar, s2: make([]float64, len(ybar))}
	for j := range ybar {
		h.s2[j] = d.Sigma * d.Sigma / float64(n[j])
	}
	J, N := d.J, len(d.Y)
	for _, tau := range []float64{0.03, 0.7, 4} {
		// (mu, a_1..a_J)
		q := mat.NewSymDense(J+1, nil)
		b := mat.NewVecDense(J+1, nil)
		q.SetSym(0, 0, 1/(HierPriorMuSD*HierPriorMuSD)+float64(J)/(tau*tau))
		for j := range J {
			q.SetSym(0, j+1, -1/(tau*tau))
			q.SetSym(j+1, j+1, 1/(tau*tau))
		}
		for i, y := range d.Y {
			j := d.G[i]
			q.SetSym(j, j, q.At(j, j)+1/(d.Sigma*d.Sigma))
			b.SetVec(j, b.AtVec(j)+y/(d.Sigma*d.Sigma))
		}
		var cov mat.Dense
		if err := cov.Inverse(q); err != nil {
			t.Fatal(err)
		}
		var mean mat.VecDense
		mean.MulVec(&cov, b)
		m, p, logLik := h.muGivenTau(tau)
		if math.Abs(m-mean.AtVec(0)) > 1e-10 || math.Abs(1/p-cov.At(0, 0)) > 1e-10 {
			t.Errorf("tau %g: mu | tau, y = N(%.12g, %.12g), dense N(%.12g, %.12g)", tau, m, 1/p, mean.AtVec(0), cov.At(0, 0))
		}
		for j := range J {
			am, av := h.aGivenTau(j, tau, m, p)
			if math.Abs(am-mean.AtVec(j+1)) > 1e-10 || math.Abs(av-cov.At(j+1, j+1)) > 1e-10 {
				t.Errorf("tau %g: a[%d] | tau, y = N(%.12g, %.12g), dense N(%.12g, %.12g)", tau, j+1, am, av, mean.AtVec(j+1), cov.At(j+1, j+1))
			}
		}
		// log p(y | tau) by the dense marginal covariance
		sig := mat.NewSymDense(N, nil)
		for i := range N {
			for k := i; k < N; k++ {
				v := HierPriorMuSD * HierPriorMuSD
				if d.G[i] == d.G[k] {
					v += tau * tau
				}
				if i == k {
					v += d.Sigma * d.Sigma
				}
				sig.SetSym(i, k, v)
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(sig) {
			t.Fatal("not positive definite")
		}
		var x mat.VecDense
		if err := ch.SolveVecTo(&x, mat.NewVecDense(N, d.Y)); err != nil {
			t.Fatal(err)
		}
		dense := -0.5*float64(N)*math.Log(2*math.Pi) - 0.5*ch.LogDet() - 0.5*mat.Dot(mat.NewVecDense(N, d.Y), &x)
		ours := logLik
		for j := range J {
			nj := float64(n[j])
			ours += -(nj-1)/2*math.Log(2*math.Pi*d.Sigma*d.Sigma) - 0.5*math.Log(nj) - ss[j]/(2*d.Sigma*d.Sigma)
		}
		if math.Abs(ours-dense) > 1e-8 {
			t.Errorf("tau %g: log p(y | tau) = %.12f, dense %.12f", tau, ours, dense)
		}
	}
}

// TestHier checks the exact posterior of case 2 against the brute-force
// grid over (mu, log tau) (errors of the grid: below 1e-6 sd for the
// moments, 3e-3 sd for its interpolated quantiles) and against a short
// random-walk Metropolis run (within 4.5 Monte Carlo standard errors for
// every mean of 32; its quantiles within 0.05 sd).
func TestHier(t *testing.T) {
	d := SimulateHier()
	h, err := ExactHier(d)
	if err != nil {
		t.Fatal(err)
	}
	mu, tau, edge := HierGrid(d, 200, 400, h.Mu.Mean-12*h.Mu.SD, h.Mu.Mean+12*h.Mu.SD, -30, 2.7)
	if edge > -25 {
		t.Errorf("the grid's border is %.1f below the maximum", edge)
	}
	for _, p := range [][2]Summary{{mu, h.Mu}, {tau, h.Tau}} {
		g, e := p[0], p[1]
		for _, c := range []struct {
			what      string
			got, want float64
			tol       float64
		}{
			{"mean", g.Mean, e.Mean, 1e-6}, {"sd", g.SD, e.SD, 1e-6},
			{"q05", g.Q05, e.Q05, 3e-3}, {"q50", g.Q50, e.Q50, 3e-3}, {"q95", g.Q95, e.Q95, 3e-3},
		} {
			if math.Abs(c.got-c.want)/e.SD > c.tol {
				t.Errorf("%s %s: grid %.8g, exact %.8g (%.1e sd)", e.Name, c.what, c.got, c.want, (c.got-c.want)/e.SD)
			}
		}
	}
	res, acc := HierMH(d, 4, 60000, 5000, 7)
	if acc < 0.15 || acc > 0.6 {
		t.Errorf("acceptance %.2f", acc)
	}
	for i, e := range h.Summaries() {
		r := res[i]
		if z := (r.Mean - e.Mean) / r.MCSE; math.Abs(z) > 4.5 {
			t.Errorf("%s: Metropolis mean %.5f, exact %.5f (%.1f MCSE of %.4f)", e.Name, r.Mean, e.Mean, z, r.MCSE)
		}
		if math.Abs(r.SD/e.SD-1) > 0.05 {
			t.Errorf("%s: Metropolis sd %.5f, exact %.5f", e.Name, r.SD, e.SD)
		}
		for _, q := range [][2]float64{{r.Q05, e.Q05}, {r.Q50, e.Q50}, {r.Q95, e.Q95}} {
			if !math.IsNaN(q[0]) && math.Abs(q[0]-q[1])/e.SD > 0.05 {
				t.Errorf("%s: Metropolis quantile %.5f, exact %.5f", e.Name, q[0], q[1])
			}
		}
	}
	// the weak identification the case is for: tau's 5% quantile is small
	// and its posterior wide
	if h.Tau.Q05 > 0.15 || h.Tau.SD < 0.3 {
		t.Errorf("tau %+v: not the weakly identified case", h.Tau)
	}
}

// TestMix checks case 4: the grid of 200 x 200 against 100 x 100 (the
// marginals' interpolated quadrature agrees to 1e-6 sd), a coarse grid
// over the whole plane mu1 < mu2 (no other mode: the log density outside
// the window is 40 below the maximum), and the unordered answer's
// symmetry.
func TestMix(t *testing.T) {
	y := SimulateMix()
	fine, err := ExactMix(y, mixGrid)
	if err != nil {
		t.Fatal(err)
	}
	coarse, err := ExactMix(y, 100)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range append(fine.Ordered, fine.Unordered...) {
		c := append(coarse.Ordered, coarse.Unordered...)[i]
		for _, v := range [][2]float64{{f.Mean, c.Mean}, {f.SD, c.SD}, {f.Q05, c.Q05}, {f.Q50, c.Q50}, {f.Q95, c.Q95}} {
			if !(math.IsNaN(v[0]) && math.IsNaN(v[1])) && !(math.Abs(v[0]-v[1])/f.SD < 1e-6) {
				t.Errorf("%s: %.10g on 200 x 200, %.10g on 100 x 100", f.Name, v[0], v[1])
			}
		}
	}
	top := 2*logNormal(fine.Mode[0], 0, mixPrior) + mixLogLik(y, fine.Mode[0], fine.Mode[1])
	worst := math.Inf(-1)
	for a := -8.0; a <= 8; a += 0.1 {
		for b := a; b <= 8; b += 0.1 {
			if math.Abs(a-fine.Mode[0]) < mixWindow && math.Abs(b-fine.Mode[1]) < mixWindow {
				continue
			}
			worst = max(worst, logNormal(a, 0, mixPrior)+logNormal(b, 0, mixPrior)+mixLogLik(y, a, b))
		}
	}
	if worst-top > -40 {
		t.Errorf("outside the window the log density reaches %.1f below the mode", worst-top)
	}
	o, u := fine.Ordered, fine.Unordered
	// the moments straight from a 2-D midpoint sum over the window (no
	// marginals, no interpolation)
	const n = 120
	h := 2 * mixWindow / n
	var z, m1, m2, s1, s2 float64
	for i := range n {
		a := fine.Mode[0] - mixWindow + (float64(i)+0.5)*h
		for k := range n {
			b := fine.Mode[1] - mixWindow + (float64(k)+0.5)*h
			w := math.Exp(logNormal(a, 0, mixPrior) + logNormal(b, 0, mixPrior) + mixLogLik(y, a, b) - top)
			z += w
			m1, m2 = m1+w*a, m2+w*b
			s1, s2 = s1+w*a*a, s2+w*b*b
		}
	}
	m1, m2 = m1/z, m2/z
	for i, c := range [][3]float64{{o[0].Mean, m1, o[0].SD}, {o[1].Mean, m2, o[1].SD}, {o[0].SD, math.Sqrt(s1/z - m1*m1), o[0].SD}, {o[1].SD, math.Sqrt(s2/z - m2*m2), o[1].SD}} {
		if math.Abs(c[0]-c[1]) > 1e-6*c[2] {
			t.Errorf("ordered moment %d: %.10f, the 2-D sum %.10f", i, c[0], c[1])
		}
	}
	if m := (o[0].Mean + o[1].Mean) / 2; math.Abs(u[0].Mean-m) > 1e-9 {
		t.Errorf("unordered mean %.10f, want %.10f", u[0].Mean, m)
	}
	v := (o[0].SD*o[0].SD+o[1].SD*o[1].SD)/2 + math.Pow((o[1].Mean-o[0].Mean)/2, 2)
	if math.Abs(u[0].SD-math.Sqrt(v)) > 1e-9 {
		t.Errorf("unordered sd %.10f, want %.10f", u[0].SD, math.Sqrt(v))
	}
	// the Laplace approximation at the mode is close (the posterior is
	// nearly normal): sd within 5%
	if math.Abs(o[0].Mean-fine.Mode[0]) > 0.05*o[0].SD || math.Abs(o[1].Mean-fine.Mode[1]) > 0.05*o[1].SD {
		t.Errorf("means %v far from the mode %v", []float64{o[0].Mean, o[1].Mean}, fine.Mode)
	}
}

// TestCaseFiles checks that the files under testdata are what Cases
// writes (go test ./internal/exact -run TestCaseFiles -update rewrites
// them).
func TestCaseFiles(t *testing.T) {
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if *update {
			if err := c.WriteFiles("testdata"); err != nil {
				t.Fatal(err)
			}
		}
		files, err := c.Files()
		if err != nil {
			t.Fatal(err)
		}
		_, _, ex := c.Paths("testdata")
		for name, want := range files {
			if filepath.Join("testdata", name) == ex {
				continue // compared by value below
			}
			got, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("testdata/%s differs from what %s's case writes (go test ./internal/exact -run TestCaseFiles -update)", name, c.Name)
			}
		}
		// The exact answer, to 1e-9 sd (not byte for byte: another
		// architecture's floating point, fused multiply-adds, may move the
		// last digits).
		rows, err := ReadSummaries(ex)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(c.Exact) {
			t.Errorf("%s: %d rows, want %d", ex, len(rows), len(c.Exact))
			continue
		}
		for i, r := range rows {
			e := c.Exact[i]
			close := func(a, b float64) bool {
				return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) <= 1e-9*e.SD
			}
			if r.Name != e.Name || !close(r.Mean, e.Mean) || !close(r.SD, e.SD) ||
				!close(r.Q05, e.Q05) || !close(r.Q50, e.Q50) || !close(r.Q95, e.Q95) {
				t.Errorf("%s: row %d is %+v, the case computes %+v (go test ./internal/exact -run TestCaseFiles -update)", ex, i, r, e)
			}
		}
	}
}
