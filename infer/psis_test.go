package infer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir/lower"
)

// logisticModel is a logistic regression on a CSV of columns x1..xK, y.
const logisticModel = "data { y: vector[N]; X: matrix[N, D] from \"x*\" }\nlatent { a: real; w: vector[D] }\nmodel {\n  a ~ normal(0, 2.5)\n  w ~ normal(0, 2.5)\n  y ~ bernoulli_logit(a + X * w)\n}\n"

// logisticData writes a logistic regression of n rows and k standard
// normal covariates (coefficients 0.5/sqrt(j), alternating signs;
// intercept -0.5; seed 3) and logisticModel into dir.
func logisticData(tb testing.TB, dir string, n, k int) (model, data string) {
	rng := rand.New(rand.NewPCG(3, 3))
	var sb strings.Builder
	for j := 1; j <= k; j++ {
		fmt.Fprintf(&sb, "x%d,", j)
	}
	sb.WriteString("y\n")
	for i := 0; i < n; i++ {
		eta := -0.5
		for j := 1; j <= k; j++ {
			x := rng.NormFloat64()
			c := 0.5 / float64(j)
			if j%2 == 0 {
				c = -c
			}
			eta += c * x
			fmt.Fprintf(&sb, "%.5f,", x)
		}
		y := 0
		if rng.Float64()*(1+math.Exp(-eta)) < 1 {
			y = 1
		}
		fmt.Fprintf(&sb, "%d\n", y)
	}
	data, model = filepath.Join(dir, "logistic.csv"), filepath.Join(dir, "logistic.msc")
	if err := os.WriteFile(data, []byte(sb.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(model, []byte(logisticModel), 0o644); err != nil {
		tb.Fatal(err)
	}
	return model, data
}

// BenchmarkPSISDraw: the cost of one PSIS draw (sampling q, the log joint,
// the constrained values, the log ratio) of a logistic regression on
// n = 100000 rows and 10 covariates; one op is one draw.
func BenchmarkPSISDraw(b *testing.B) {
	model, data := logisticData(b, b.TempDir(), 100000, 10)
	// one compiled model per core, as the chains' models are
	var comps []*lower.Compiled
	for range runtime.GOMAXPROCS(0) {
		m, err := Load(model, data)
		if err != nil {
			b.Fatal(err)
		}
		comps = append(comps, m.Comp)
	}
	m := comps[0]
	d := m.Dim()
	q := msc.NewFullRank(d)
	for i := range q.Mu {
		q.Mu[i] = 0.1
	}
	for i := 0; i < d; i++ {
		q.L[i*d+i] = 0.01
	}
	rng := rand.New(rand.NewPCG(1, 2))
	(&importance{}).draw(rng, comps, q, drawChunk) // warm up
	b.ReportAllocs()
	b.ResetTimer()
	im := &importance{}
	im.draw(rng, comps, q, b.N)
}

// BenchmarkLogisticCISStep: one step of the CIS kernel (S = 10 samples of
// q, their log joints as one batch) on the model and data of
// BenchmarkPSISDraw: the yardstick of a draw's cost (one op is one step).
func BenchmarkLogisticCISStep(b *testing.B) {
	model, data := logisticData(b, b.TempDir(), 100000, 10)
	m, err := Load(model, data)
	if err != nil {
		b.Fatal(err)
	}
	d := m.Comp.Dim()
	q := msc.NewFullRank(d)
	for i := range d {
		q.Mu[i] = 0.1
		q.L[i*d+i] = 0.01
	}
	k := msc.NewCIS(newProblem(m.Comp), q, 10)
	z0 := append([]float64(nil), q.Mu...)
	var lp [1]float64
	m.Comp.LogJoint(z0, lp[:])
	k.SetConditional(z0, lp[0])
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5 { // warm up
		if _, err := k.Step(rng); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := k.Step(rng); err != nil {
			b.Fatal(err)
		}
	}
}

// psisComps loads a small logistic regression twice (two compiled models,
// as two chains have) and returns them with a proposal near its posterior.
func psisComps(t *testing.T, n int) ([]*lower.Compiled, *msc.FullRank) {
	model, data := logisticData(t, t.TempDir(), n, 3)
	var comps []*lower.Compiled
	for range 2 {
		m, err := Load(model, data)
		if err != nil {
			t.Fatal(err)
		}
		comps = append(comps, m.Comp)
	}
	d := comps[0].Dim()
	q := msc.NewFullRank(d)
	for i := range d {
		q.Mu[i] = 0.2 * float64(i%3-1)
		q.L[i*d+i] = 0.05
	}
	return comps, q
}

// TestDrawAllocs: the draws allocate per call, not per draw: 4000 draws
// take as many allocations as 400.
func TestDrawAllocs(t *testing.T) {
	comps, q := psisComps(t, 500)
	rng := rand.New(rand.NewPCG(1, 2))
	allocs := func(n int) float64 {
		return testing.AllocsPerRun(3, func() { (&importance{}).draw(rng, comps[:1], q, n) })
	}
	allocs(drawChunk) // warm up the compiled model
	if a, b := allocs(drawChunk), allocs(10*drawChunk); a != b {
		t.Errorf("%d draws allocate %v times, %d draws %v times: allocation per draw", drawChunk, a, 10*drawChunk, b)
	}
}

// TestDrawBitwise: the draws' log joints, log ratios and constrained values
// are the same bits on one or two cores, in one call or several, and equal
// the log joint of each row evaluated alone (so the batch split and the
// batched matrix-vector product change nothing).
func TestDrawBitwise(t *testing.T) {
	comps, q := psisComps(t, 700)
	const n = 2*drawChunk + 130
	run := func(procs int, calls ...int) *importance {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		rng := rand.New(rand.NewPCG(5, 6))
		im := &importance{}
		for _, k := range calls {
			im.draw(rng, comps, q, k)
		}
		return im
	}
	ref := run(1, n)
	if len(ref.lr) != n || len(ref.x) != n || len(ref.u) != n || ref.draws != n {
		t.Fatalf("%d draws asked, %d log ratios, %d rows, draws %d", n, len(ref.lr), len(ref.x), ref.draws)
	}
	same := func(what string, a, b []float64) {
		t.Helper()
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("%s: element %d is %v, against %v", what, i, b[i], a[i])
			}
		}
	}
	// one call of n draws is the same random stream as calls of chunks
	for _, alt := range []*importance{run(2, n), run(1, drawChunk, n-drawChunk), run(2, drawChunk, n-drawChunk)} {
		same("lr", ref.lr, alt.lr)
		same("lp", ref.lp, alt.lp)
		for i := range ref.x {
			same(fmt.Sprintf("x[%d]", i), ref.x[i], alt.x[i])
			same(fmt.Sprintf("u[%d]", i), ref.u[i], alt.u[i])
		}
	}
	c := comps[1]
	var lp [1]float64
	for i, u := range ref.u {
		c.LogJoint(u, lp[:])
		if math.Float64bits(lp[0]) != math.Float64bits(ref.lp[i]) {
			t.Fatalf("draw %d: log joint %v in the batch, %v alone", i, ref.lp[i], lp[0])
		}
		if i > 0 && ref.u[i][0] == ref.u[i-1][0] {
			t.Fatalf("draws %d and %d are the same row", i-1, i)
		}
	}
}

// TestFitTiming: a fit records the wall time of each of its phases, each
// positive (the reading and compiling from Load), and the phases of Fit
// add up to no more than its wall time.
func TestFitTiming(t *testing.T) {
	model, data := logisticData(t, t.TempDir(), 2000, 3)
	m, err := Load(model, data)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	f, err := Fit(context.Background(), m, Options{Seed: 1, Iters: 100, Fixed: true})
	wall := time.Since(start).Seconds()
	if err != nil {
		t.Fatal(err)
	}
	tm := f.Summary.Timing
	if tm == nil {
		t.Fatal("no Timing")
	}
	for name, v := range map[string]float64{"read": tm.Read, "compile": tm.Compile, "warm start": tm.WarmStart, "iterations": tm.Iterations, "PSIS": tm.PSIS} {
		if !(v > 0) {
			t.Errorf("%s took %v s", name, v)
		}
	}
	if tm.Write != 0 {
		t.Errorf("Fit wrote nothing, yet write took %v s", tm.Write)
	}
	if sum := tm.Compile - m.compileTime.Seconds() + tm.WarmStart + tm.Iterations + tm.PSIS; sum > wall {
		t.Errorf("the phases of Fit add up to %v s, more than its %v s", sum, wall)
	}
}

// BenchmarkLogisticGradient: one gradient of the log joint (batch 1, as
// the warm start's searches take it) on BenchmarkPSISDraw's model, after
// the model was reserved for batches of 10 (the CIS kernel's samples) and
// of drawBatchFor (the PSIS draws).
func BenchmarkLogisticGradient(b *testing.B) {
	model, data := logisticData(b, b.TempDir(), 100000, 10)
	m, err := Load(model, data)
	if err != nil {
		b.Fatal(err)
	}
	m.Comp.Reserve(drawBatchFor(m.Comp))
	z, grad := make([]float64, m.Comp.Dim()), make([]float64, m.Comp.Dim())
	b.ReportAllocs()
	for b.Loop() {
		m.Comp.GradLogJoint(z, grad)
	}
}
