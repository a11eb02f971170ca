package kalman

import (
	"encoding/csv"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/mscppl/mscppl/internal/testtier"
)

var update = flag.Bool("update", false, "rewrite the case files under testdata")

// The cases at their default resolution, computed once per test binary.
var (
	casesOnce sync.Once
	cases     []*Case
	casesErr  error
)

func allCases(t *testing.T) []*Case {
	t.Helper()
	casesOnce.Do(func() { cases, casesErr = Cases() })
	if casesErr != nil {
		t.Fatal(casesErr)
	}
	return cases
}

// readCSV reads a CSV file into its header and rows.
func readCSV(t *testing.T, path string) ([]string, [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs[0], recs[1:]
}

// TestCaseFiles checks that testdata holds what the case functions
// produce: the model text byte for byte, the data to the last bit (the
// simulation), and the exact answers to 1e-8 posterior sd (the files keep
// 10 digits). With -update it rewrites them.
func TestCaseFiles(t *testing.T) {
	for _, c := range allCases(t) {
		checkCaseFiles(t, c)
	}
}

// checkCaseFiles checks (or with -update writes) c's files in testdata.
func checkCaseFiles(t *testing.T, c *Case) {
	t.Helper()
	if *update {
		if err := c.WriteFiles("testdata"); err != nil {
			t.Fatal(err)
		}
		return
	}
	model, err := os.ReadFile(filepath.Join("testdata", c.Name+".msc"))
	if err != nil {
		t.Fatal(err)
	}
	if string(model) != c.Model {
		t.Errorf("%s.msc differs from the case's model text (go test -run TestCaseFiles -update)", c.Name)
	}
	head, rows := readCSV(t, filepath.Join("testdata", c.Name+".csv"))
	if len(head) != 1 || head[0] != "y" || len(rows) != len(c.Y) {
		t.Fatalf("%s.csv: header %v, %d rows; want y and %d rows", c.Name, head, len(rows), len(c.Y))
	}
	for i, r := range rows {
		v, err := strconv.ParseFloat(r[0], 64)
		if err != nil || v != c.Y[i] {
			t.Fatalf("%s.csv: row %d is %q, the simulation gives %v", c.Name, i+1, r[0], c.Y[i])
		}
	}
	head, rows = readCSV(t, filepath.Join("testdata", c.Name+"_exact.csv"))
	want := map[string][2]float64{}
	for _, p := range c.Params {
		want[p.Name] = [2]float64{p.Mean, p.SD}
	}
	for _, s := range c.States {
		for i := range s.Mean {
			want[s.ElemName(i+1)] = [2]float64{s.Mean[i], s.SD[i]}
		}
	}
	if len(rows) != len(want) || len(head) != 6 || head[1] != "mean" || head[2] != "sd" {
		t.Fatalf("%s_exact.csv: header %v and %d rows, want %d", c.Name, head, len(rows), len(want))
	}
	for _, r := range rows {
		w, ok := want[r[0]]
		m, err1 := strconv.ParseFloat(r[1], 64)
		sd, err2 := strconv.ParseFloat(r[2], 64)
		if !ok || err1 != nil || err2 != nil || math.Abs(m-w[0]) > 1e-8*w[1] || math.Abs(sd-w[1]) > 1e-8*w[1] {
			t.Errorf("%s_exact.csv: row %v, the case gives mean %.10g sd %.10g", c.Name, r, w[0], w[1])
		}
	}
}

// TestCaseGridsCoverThePosterior checks that each grid's edges away from
// the support's ends hold no mass (the support ends, phi = 1 and s, sq,
// sr = 0, lie on the grids) and that no state was left unsmoothed.
func TestCaseGridsCoverThePosterior(t *testing.T) {
	for _, c := range allCases(t) {
		checkCaseCovers(t, c)
	}
}

func checkCaseCovers(t *testing.T, c *Case) {
	t.Helper()
	for i, p := range c.Params {
		lo, hi := p.EdgeLo, p.EdgeHi
		ax := c.Grid.Axes[i]
		if ax.Lo == 0 {
			lo = 0 // a scale's support starts at 0
		}
		if ax.Name == "phi" {
			hi = 0 // phi < 1
		}
		if lo > 1e-14 || hi > 1e-14 {
			t.Errorf("%s: %s: mass %g in the first cell, %g in the last", c.Name, p.Name, lo, hi)
		}
	}
}

// TestCasesAgreeWithTheirSimulation checks that the exact posteriors put
// the simulated states where they should: the z-scores (truth - mean) / sd
// of each state series have a mean square within [0.25, 4] (about 1, but
// the z-scores of neighbouring times are strongly correlated), and no
// static parameter is more than 3 sds from its true value.
func TestCasesAgreeWithTheirSimulation(t *testing.T) {
	for _, c := range allCases(t) {
		checkCaseTruth(t, c)
	}
}

func checkCaseTruth(t *testing.T, c *Case) {
	t.Helper()
	for _, s := range c.States {
		z2 := 0.0
		for i := range s.Mean {
			z := (c.Truth[s.ElemName(i+1)] - s.Mean[i]) / s.SD[i]
			z2 += z * z / float64(len(s.Mean))
		}
		if z2 < 0.25 || z2 > 4 {
			t.Errorf("%s: %s: mean square z-score %.3f", c.Name, s.Name, z2)
		}
	}
	for _, p := range c.Params {
		if z := (c.Truth[p.Name] - p.Mean) / p.SD; math.Abs(z) > 3 {
			t.Errorf("%s: %s: truth %g is %.2f sds from the posterior mean %g", c.Name, p.Name, c.Truth[p.Name], z, p.Mean)
		}
	}
}

// TestLocalLinearTrendMatchesDense checks case (b) against the dense
// Gaussian algebra on its own data.
func TestLocalLinearTrendMatchesDense(t *testing.T) {
	var c *Case
	for _, cc := range allCases(t) {
		if cc.Name == "local_linear_trend" {
			c = cc
		}
	}
	m := Model{
		M0: vec(c.Y[0], 0),
		P0: sym(2, 100, 0, 0, 1),
		F:  dmat(2, 1, 1, 0, 1),
		Q:  sym(2, 0.09, 0, 0, 0.0025),
		H:  dmat(2, 1, 0),
		R:  sym(1, 1),
	}
	_, mean, cov := dense(m, Scalar(c.Y))
	for i, s := range c.States {
		for tt := range s.Mean {
			if math.Abs(s.Mean[tt]-mean[tt][i]) > 1e-8 || math.Abs(s.SD[tt]-math.Sqrt(cov[tt][i][i])) > 1e-8 {
				t.Errorf("%s[%d]: %.10g (sd %.10g), dense %.10g (%.10g)", s.Name, tt+1, s.Mean[tt], s.SD[tt], mean[tt][i], math.Sqrt(cov[tt][i][i]))
			}
		}
	}
}

// maxDiff returns the largest difference between two solutions of a case
// in units of the posterior sd: of the statics' means, sds and quantiles,
// and of the states' means and sds.
func maxDiff(a, b *Case) (statics, states float64) {
	for i, p := range a.Params {
		q := b.Params[i]
		d := math.Max(math.Abs(p.Mean-q.Mean), math.Abs(p.SD-q.SD))
		for k := range p.Quantiles {
			d = math.Max(d, math.Abs(p.Quantiles[k]-q.Quantiles[k]))
		}
		statics = math.Max(statics, d/p.SD)
	}
	for i, s := range a.States {
		if i >= len(b.States) {
			break
		}
		r := b.States[i]
		for tt := range s.Mean {
			d := math.Max(math.Abs(s.Mean[tt]-r.Mean[tt]), math.Abs(s.SD[tt]-r.SD[tt]))
			states = math.Max(states, d/s.SD[tt])
		}
	}
	return statics, states
}

// TestCaseResolution measures the grids' resolution error. The midpoint
// rule's error is O(h^2), so the difference between the grid at N and at
// 2N is about 3/4 of the error at N and 3 times the error at 2N. At the
// default N = 300 the difference from N = 150 is below 1e-4 sd (so the
// answers' error is below about 3e-5 sd); without -short the test also
// runs N = 600 (the statics only) and bounds its difference from N = 300
// by 3e-5 sd. A log-scale grid on case (c) (different cells, transforms
// and Jacobians; sq in [e^-10, 2.2], sr in [0.25, 2.2], whose mass below
// 0.25 is about 1e-9) must agree as closely.
func TestCaseResolution(t *testing.T) {
	type solver func(n int, noStates bool) (*Case, error)
	logLevel := func(n int) (*Case, error) {
		c, err := localLevel(n, false)
		if err != nil {
			return nil, err
		}
		c.Grid.Axes[0] = Axis{Name: "sq", Lo: -10, Hi: math.Log(2.2), N: n, Transform: Log}
		c.Grid.Axes[1] = Axis{Name: "sr", Lo: math.Log(0.25), Hi: math.Log(2.2), N: n, Transform: Log}
		return c, c.solveGrid([]string{"x"})
	}
	def := map[string]*Case{}
	for _, c := range allCases(t) {
		def[c.Name] = c
	}
	// tol bounds N = 150 against 300 (the error at 300 is about a third
	// of it); 600 against 300 is bounded by tol*0.3
	for _, tc := range []struct {
		name  string
		solve solver
		tol   float64
	}{{"ar1_noise", ar1Noise, 1e-4}, {"local_level", localLevel, 1e-4}, {"local_level_1000", localLevel1000, 3e-4}} {
		coarse, err := tc.solve(150, false)
		if err != nil {
			t.Fatal(err)
		}
		st, sx := maxDiff(coarse, def[tc.name])
		t.Logf("%s: N = 150 vs 300: statics %.2g sd, states %.2g sd", tc.name, st, sx)
		if st > tc.tol || sx > tc.tol {
			t.Errorf("%s: N = 150 and 300 differ by %.2g sd (statics), %.2g sd (states)", tc.name, st, sx)
		}
		if !testtier.Long() {
			continue // the 600 x 600 grids take 5 s: long tier
		}
		fine, err := tc.solve(600, true)
		if err != nil {
			t.Fatal(err)
		}
		st, sx = maxDiff(fine, def[tc.name])
		t.Logf("%s: N = 600 vs 300: statics %.2g sd, states %.2g sd", tc.name, st, sx)
		if st > 0.3*tc.tol || sx > 0.3*tc.tol {
			t.Errorf("%s: N = 300 and 600 differ by %.2g sd (statics), %.2g sd (states)", tc.name, st, sx)
		}
	}
	lg, err := logLevel(300)
	if err != nil {
		t.Fatal(err)
	}
	st, sx := maxDiff(lg, def["local_level"])
	t.Logf("local_level: log-scale grid vs natural: statics %.2g sd, states %.2g sd", st, sx)
	if st > 1e-4 || sx > 1e-4 {
		t.Errorf("local_level: the log-scale grid differs by %.2g sd (statics), %.2g sd (states)", st, sx)
	}
}

func TestCaseLookups(t *testing.T) {
	cs := allCases(t)
	if p, ok := cs[0].Param("s"); !ok || p.Name != "s" || p.Mean != cs[0].Params[1].Mean {
		t.Errorf("Param(s) = %+v, %v", p, ok)
	}
	if _, ok := cs[0].Param("sigma"); ok {
		t.Error("Param(sigma) found in ar1_noise")
	}
	if s, ok := cs[1].State("slope"); !ok || s.Name != "slope" || len(s.Mean) != len(cs[1].Y) {
		t.Errorf("State(slope): %v", ok)
	}
	if _, ok := cs[2].State("level"); ok {
		t.Error("State(level) found in local_level")
	}
}

// Param returns the exact summary of the static parameter name.
func (c *Case) Param(name string) (ParamSummary, bool) {
	for _, p := range c.Params {
		if p.Name == name {
			return p, true
		}
	}
	return ParamSummary{}, false
}

// State returns the exact posterior of the state series name.
func (c *Case) State(name string) (StateSummary, bool) {
	for _, s := range c.States {
		if s.Name == name {
			return s, true
		}
	}
	return StateSummary{}, false
}

// TestVAR2Case checks case (e), the VAR(1) state with Bayesian statics,
// as the fast tier checks the others (its files, its grid's edges, its
// simulation), and its grid against one half as fine. Long tier: its
// 200 x 200 grid runs the matrix Kalman path, seconds.
func TestVAR2Case(t *testing.T) {
	testtier.Skip(t)
	c, err := VAR2()
	if err != nil {
		t.Fatal(err)
	}
	checkCaseFiles(t, c)
	checkCaseCovers(t, c)
	checkCaseTruth(t, c)
	coarse, err := var2(75, false)
	if err != nil {
		t.Fatal(err)
	}
	st, sx := maxDiff(coarse, c)
	t.Logf("var2: N = 75 vs 150: statics %.2g sd, states %.2g sd", st, sx)
	if st > 2e-3 || sx > 2e-3 { // the error at 150 is about a third of it
		t.Errorf("var2: N = 75 and 150 differ by %.2g sd (statics), %.2g sd (states)", st, sx)
	}
}
