package main

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/internal/simdata"
	"github.com/mscppl/mscppl/ir/lower"
)

// compiled loads and compiles a model through the same path as the CLI.
func compiled(b testing.TB, model, data string) *lower.Compiled { return loaded(b, model, data).Comp }

// problem is the engine's view of a model loaded as the CLI loads it.
func problem(b testing.TB, model, data string) *msc.Problem { return loaded(b, model, data).Problem() }

func loaded(b testing.TB, model, data string) *infer.Model {
	m, err := infer.Load(model, data)
	if err == nil {
		return m
	}
	if b != nil {
		b.Fatal(err)
	}
	panic(err)
}

// benchMSC measures one MSC iteration (CIS step + natural-gradient update
// + iterate averaging) on a compiled model, from q fitted by a short run.
func benchMSC(b *testing.B, p *msc.Problem, S int) {
	rng := rand.New(rand.NewPCG(1, 2))
	q := msc.NewFullRank(p.Dim)
	k := msc.NewCIS(p, q, S)
	z0 := make([]float64, p.Dim)
	var lp [1]float64
	p.Target.LogJoint(z0, lp[:])
	k.SetConditional(z0, lp[0])
	stats, avg := make([]float64, q.NumStats()), make([]float64, q.NumStats())
	step := func(i int) {
		if _, err := k.Step(rng); err != nil {
			b.Fatal(err)
		}
		z, w := k.Weighted()
		if err := q.NaturalStep(z, w, 0.01*math.Pow(1+float64(i)/1000, -0.6)); err != nil {
			b.Fatal(err)
		}
		q.Stats(stats) // the iterate average
		for j, v := range stats {
			avg[j] += (v - avg[j]) / float64(i)
		}
	}
	for i := 1; i <= 200; i++ { // warm up: allocations of lazy buffers happen here
		step(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	i := 200
	for b.Loop() {
		i++
		step(i)
	}
	if math.IsNaN(q.Mu[0]) {
		b.Fatal("NaN")
	}
}

// BenchmarkCISStep: the skew-normal example compiled from its .msc file, S = 10.
func BenchmarkCISStep(b *testing.B) {
	benchMSC(b, problem(b, "../../examples/skew_normal.msc", ""), 10)
}

// BenchmarkCISStepS2: the same with S = 2, the setting of the paper's
// timing of its Python code (about 890 microseconds per iteration).
func BenchmarkCISStepS2(b *testing.B) {
	benchMSC(b, problem(b, "../../examples/skew_normal.msc", ""), 2)
}

// BenchmarkMSCProbitIonosphere: examples/probit.msc on Ionosphere (d = 35), S = 10.
func BenchmarkMSCProbitIonosphere(b *testing.B) {
	if _, err := os.Stat("../../examples/data/ionosphere.csv"); err != nil {
		b.Skip("no data")
	}
	benchMSC(b, problem(b, "../../examples/probit.msc", "../../examples/data/ionosphere.csv"), 10)
}

// BenchmarkCSMCSweepSV: one CSMC sweep (S = 10 particles, twisted
// proposals) of examples/stochastic_volatility_paper.msc on the daily series,
// T = 1974.
func BenchmarkCSMCSweepSV(b *testing.B) {
	p := problem(b, "../../examples/stochastic_volatility_paper.msc", "../../examples/data/dem2gbp.csv")
	tw, err := msc.NewTwisted(p.StateSpace)
	if err != nil {
		b.Fatal(err)
	}
	k, err := msc.NewCSMC(p, tw, 10)
	if err != nil {
		b.Fatal(err)
	}
	benchSweeps(b, k)
}

// BenchmarkLogJointSV10: the log joint of 10 trajectories of the same
// model, evaluated once as a batch: the yardstick of the CSMC sweep.
func BenchmarkLogJointSV10(b *testing.B) {
	c := compiled(b, "../../examples/stochastic_volatility_paper.msc", "../../examples/data/dem2gbp.csv")
	z := make([]float64, 10*c.Dim())
	out := make([]float64, 10)
	c.Reserve(10)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c.LogJoint(z, out)
	}
}

// BenchmarkProbitStep: one MSC iteration of a probit regression on
// n = 100000 simulated rows and d = 20 coefficients (19 covariates and an
// intercept), S = 10: the large-data yardstick of issue 12 (target 8 ms).
func BenchmarkProbitStep(b *testing.B) {
	model, data, err := simdata.Probit(b.TempDir(), 100000, 20)
	if err != nil {
		b.Fatal(err)
	}
	benchMSC(b, problem(b, model, data), 10)
}

// BenchmarkMSCGaussMix: one MSC iteration (S = 10) of posteriordb's
// two-component mixture, whose loop of N = 1000 `target += log_mix(...)`
// statements compiles to scalar nodes.
func BenchmarkMSCGaussMix(b *testing.B) {
	const dir = "../../examples/posteriordb/low_dim_gauss_mix-low_dim_gauss_mix/"
	benchMSC(b, problem(b, dir+"model.msc", dir+"data.json"), 10)
}

// benchSweeps times conditional sweeps of k after an unconditional one and
// five to warm up (lazy buffers are allocated there).
func benchSweeps(b *testing.B, k *msc.CSMC) {
	rng := rand.New(rand.NewPCG(1, 2))
	k.Sweep(rng, false)
	for i := 0; i < 5; i++ {
		k.Sweep(rng, true)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		k.Sweep(rng, true)
	}
}

// BenchmarkMSCHMMDrive: one MSC iteration (S = 10) of posteriordb's
// hmm_drive (K = 2, N = 416), by the forward loop as Stan's model writes
// it (one hmm_forward node) and by hmm_marginal.
func BenchmarkMSCHMMDrive(b *testing.B) {
	const dir = "../../examples/posteriordb/bball_drive_event_1-hmm_drive_1/"
	for _, m := range []string{"model", "model_marginal"} {
		b.Run(m, func(b *testing.B) { benchMSC(b, problem(b, dir+m+".msc", dir+"data.json"), 10) })
	}
}

// BenchmarkMSCHMMDrive1000: the same on the simulated T = 1000 data set
// (internal/simdata.HMMDriveData).
func BenchmarkMSCHMMDrive1000(b *testing.B) {
	const dir = "../../examples/posteriordb/bball_drive_event_1-hmm_drive_1/"
	data, err := simdata.HMMDriveJSON(b.TempDir(), 1000)
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []string{"model", "model_marginal"} {
		b.Run(m, func(b *testing.B) { benchMSC(b, problem(b, dir+m+".msc", data), 10) })
	}
}

// BenchmarkMSCHMMExample: one MSC iteration (S = 10) of posteriordb's
// hmm_example (K = 2, N = 100) by its forward loop and by hmm_marginal.
func BenchmarkMSCHMMExample(b *testing.B) {
	const dir = "../../examples/posteriordb/hmm_example-hmm_example/"
	for _, m := range []string{"model", "model_marginal"} {
		b.Run(m, func(b *testing.B) { benchMSC(b, problem(b, dir+m+".msc", dir+"data.json"), 10) })
	}
}
