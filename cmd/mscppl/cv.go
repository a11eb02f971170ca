package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/mscppl/mscppl/infer/baselines"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/dataset"
	"github.com/mscppl/mscppl/lang"
)

// fitFlags are the inference flags shared by run, cv and sweep.
type fitFlags struct {
	Samples     int     `help:"Samples S per kernel step (default 10, or the model's infer block)."`
	Iters       int     `help:"Iterations K (default: 10^6 up to 3 dimensions, 20000 up to 40, 40000 above)."`
	Optimizer   string  `help:"Update rule: natural (default), rm or adam." placeholder:"natural|rm|adam"`
	LR          float64 `help:"Step size: rho_0 for natural (default 0.01; 0.001 up to 3 dimensions), c for rm (0.5), the step for adam (0.01)."`
	Family      string  `help:"Variational family: fullrank (default up to 200 dimensions) or meanfield." placeholder:"fullrank|meanfield"`
	AverageLast int     `help:"Report the average of the last N iterates (default: the last half)."`
}

type cvCmd struct {
	Model string `arg:"" help:"The .msc model file."`
	Data  string `arg:"" help:"The CSV data file."`

	Splits       int     `default:"100" help:"Number of random train/test splits."`
	TestFraction float64 `default:"0.1" help:"Fraction of the rows in each test set, in (0, 1)."`
	Methods      string  `default:"msc,is,ep,msc-prior" help:"Comma-separated methods to compare: msc, is, ep, advi, msc-prior."`
	Seed         uint64  `default:"1" help:"Random seed for the splits and the fits; results do not depend on the number of cores."`
	JSON         bool    `name:"json" help:"Print the machine-readable result on stdout."`
	fitFlags     `embed:""`
}

// cvMethod is the outcome of one method over all splits.
type cvMethod struct {
	Method  string    `json:"method"`
	Mean    float64   `json:"mean"`
	SD      float64   `json:"sd"`
	Scores  []float64 `json:"scores"`
	Seconds float64   `json:"seconds"`
}

type cvResult struct {
	Model        string     `json:"model"`
	Data         string     `json:"data"`
	Metric       string     `json:"metric"`
	Splits       int        `json:"splits"`
	TestFraction float64    `json:"test_fraction"`
	Seed         uint64     `json:"seed"`
	Methods      []cvMethod `json:"methods"`
}

func (c *cvCmd) Run(e *env) error {
	methods := strings.Split(c.Methods, ",")
	for i, m := range methods {
		methods[i] = strings.TrimSpace(m)
		if !validMethod(methods[i]) {
			return userErrorf("the methods are msc, is, ep, advi and msc-prior", "unknown method %q in --methods", methods[i])
		}
	}
	m, table, err := e.load(c.Model, c.Data)
	if err != nil {
		return err
	}
	if table == nil {
		return userErrorf("", "cv needs a CSV data file")
	}
	comp, err := ir.Compile(m, ir.CompileOptions{})
	if err != nil {
		return err
	}
	splits, err := makeSplits(table.Rows, c.Splits, c.TestFraction, c.Seed)
	if err != nil {
		return err
	}
	metric := "held-out log predictive density"
	if glm, gerr := comp.LinearGLM(); gerr == nil && strings.HasPrefix(glm.Family.Name, "bernoulli") {
		metric = "test error"
	}
	src, err := lang.Parse(c.Model, e.sources[c.Model])
	if err != nil {
		return err
	}
	res := cvResult{Model: c.Model, Data: c.Data, Metric: metric, Splits: c.Splits, TestFraction: c.TestFraction, Seed: c.Seed}
	for mi, method := range methods {
		start := time.Now()
		scores := make([]float64, len(splits))
		errs := make([]error, len(splits))
		var wg sync.WaitGroup
		jobs := make(chan int)
		for w := 0; w < runtime.GOMAXPROCS(0); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range jobs {
					rng := rand.New(rand.NewPCG(c.Seed, uint64(i)<<8|uint64(mi)))
					scores[i], errs[i] = c.fold(e.ctx, src, table, splits[i], method, metric, rng)
				}
			}()
		}
		for i := range splits {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				return fmt.Errorf("split %d, method %s: %w", i+1, method, err)
			}
		}
		mean, sd := meanSD(scores)
		res.Methods = append(res.Methods, cvMethod{Method: method, Mean: mean, SD: sd, Scores: scores, Seconds: time.Since(start).Seconds()})
	}
	if c.JSON {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(append(b, '\n'))
		return err
	}
	fmt.Fprintf(e.stdout, "%s on %s: %s over %d random splits (%.0f%% test), seed %d\n", c.Model, c.Data, metric, c.Splits, 100*c.TestFraction, c.Seed)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tmean\tsd\tseconds\t")
	for _, r := range res.Methods {
		fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.1f\t\n", r.Method, r.Mean, r.SD, r.Seconds)
	}
	return tw.Flush()
}

func meanSD(x []float64) (float64, float64) {
	m := 0.0
	for _, v := range x {
		m += v / float64(len(x))
	}
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	if len(x) < 2 {
		return m, 0
	}
	return m, math.Sqrt(s / float64(len(x)-1))
}

// fold fits one method on the training rows and scores it on the test rows.
func (c *cvCmd) fold(ctx context.Context, f *lang.File, table *dataset.Table, sp split, method, metric string, rng *rand.Rand) (float64, error) {
	train, err := compileOn(f, table.Subset(sp.Train))
	if err != nil {
		return 0, err
	}
	test, err := compileOn(f, table.Subset(sp.Test))
	if err != nil {
		return 0, err
	}
	s, err := c.fitFlags.settings(train.Model)
	if err != nil {
		return 0, err
	}
	res, err := fit(ctx, method, train, &s, rng)
	if err != nil {
		return 0, err
	}
	if metric == "test error" {
		return testError(test, res, rng)
	}
	return heldOutLPD(test, res, rng), nil
}

func compileOn(f *lang.File, t *dataset.Table) (*ir.Compiled, error) {
	m, err := ir.Build(f, t)
	if err != nil {
		return nil, err
	}
	return ir.Compile(m, ir.CompileOptions{})
}

// testError predicts y = 1 when the posterior predictive probability under q
// exceeds 1/2: exactly Phi(mu'a + c / sqrt(1 + a' Sigma a)) for probit, by
// 2000 draws of q for the other bernoulli families.
func testError(test *ir.Compiled, res *msc.Result, rng *rand.Rand) (float64, error) {
	glm, err := test.LinearGLM()
	if err != nil {
		return 0, err
	}
	var p []float64
	if glm.Family.Name == "bernoulli_probit" {
		p = baselines.PredictProbit(glm.A, glm.N, glm.D, glm.C, res.Mean, res.Cov)
	} else {
		const draws = 2000
		p = make([]float64, glm.N)
		z, eps := make([]float64, glm.D), make([]float64, glm.D)
		for m := 0; m < draws; m++ {
			res.Q.Sample(rng, z, eps)
			for i := 0; i < glm.N; i++ {
				eta := glm.C[i]
				for j, a := range glm.A[i*glm.D : (i+1)*glm.D] {
					eta += a * z[j]
				}
				p[i] += math.Exp(glm.Family.LogPdf(1, []float64{eta})) / draws
			}
		}
	}
	wrong := 0
	for i, y := range glm.Y {
		pred := 0.0
		if p[i] > 0.5 {
			pred = 1
		}
		if pred != y {
			wrong++
		}
	}
	return float64(wrong) / float64(glm.N), nil
}

// heldOutLPD is log (1/M) sum_m p(y_test | z_m) with z_m ~ q: the log joint
// of the test data minus the log prior is the test log likelihood.
func heldOutLPD(test *ir.Compiled, res *msc.Result, rng *rand.Rand) float64 {
	const draws = 2000
	d := test.Dim()
	z, eps := make([]float64, d), make([]float64, d)
	ll := make([]float64, draws)
	var a, b [1]float64
	for m := range ll {
		res.Q.Sample(rng, z, eps)
		test.LogJoint(z, a[:])
		test.LogPrior(z, b[:])
		ll[m] = a[0] - b[0]
	}
	mx := math.Inf(-1)
	for _, v := range ll {
		mx = math.Max(mx, v)
	}
	s := 0.0
	for _, v := range ll {
		s += math.Exp(v - mx)
	}
	return mx + math.Log(s/draws)
}
