package infer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/mscppl/mscppl/infer/baselines"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/internal/resample"
	"github.com/mscppl/mscppl/ir/structure"
	"github.com/mscppl/mscppl/stdlib"
)

// Split is one random train/test partition of the rows 0..n-1.
type Split struct {
	Train, Test []int
}

// MakeSplits draws k random partitions of n rows with round(frac*n) test
// rows each (at least 1, at most n-1). Split i is drawn from its own
// stream seeded by (seed, i), so a split does not depend on how many splits
// are made, nor on which goroutine fits it.
func MakeSplits(n, k int, frac float64, seed uint64) ([]Split, error) {
	if !(frac > 0 && frac < 1) {
		return nil, Errorf("use a fraction such as 0.1", "--test-fraction must be strictly between 0 and 1, got %g", frac)
	}
	if k < 1 {
		return nil, Errorf("", "--splits must be at least 1, got %d", k)
	}
	ntest := max(1, int(frac*float64(n)+0.5))
	if ntest > n-1 {
		return nil, Errorf("", "cannot split %d rows into train and test sets with --test-fraction %g", n, frac)
	}
	out := make([]Split, k)
	for i := range out {
		rng := rand.New(rand.NewPCG(seed, 0x5eed511e+uint64(i)))
		perm := rng.Perm(n)
		test := append([]int(nil), perm[:ntest]...)
		train := append([]int(nil), perm[ntest:]...)
		slices.Sort(test)
		slices.Sort(train)
		out[i] = Split{Train: train, Test: test}
	}
	return out, nil
}

// CVOptions configure CrossValidate.
type CVOptions struct {
	Splits       int
	TestFraction float64
	Methods      []string
	Seed         uint64
	Fit          Options // the fit options shared by every method (Method is set per method)
	Shard        Shard   // the splits to run (zero: all)
}

// CVMethod is the outcome of one method over all splits.
type CVMethod struct {
	Method  string    `json:"method"`
	Mean    float64   `json:"mean"`
	SD      float64   `json:"sd"`
	Scores  []float64 `json:"scores"`
	Seconds float64   `json:"seconds"`
}

// CVResult is the outcome of CrossValidate.
type CVResult struct {
	Model        string  `json:"model"`
	Data         string  `json:"data"`
	Metric       string  `json:"metric"`
	Splits       int     `json:"splits"`
	TestFraction float64 `json:"test_fraction"`
	Seed         uint64  `json:"seed"`
	// Shard is the slice of the splits the result holds (zero: all).
	Shard   Shard      `json:"shard,omitzero"`
	Methods []CVMethod `json:"methods"`
}

// CrossValidate fits each method on random training subsets of the rows
// and scores it on the held-out rows: the test error for a binary GLM
// (the paper's Table 1), the held-out log predictive density otherwise.
// Splits run in parallel; the result does not depend on the number of cores.
func CrossValidate(ctx context.Context, m *Model, o CVOptions) (*CVResult, error) {
	for _, meth := range o.Methods {
		if m, ok := lookupMethod(meth); !ok || m.stateSpaceOnly() {
			return nil, Errorf("the methods are "+joinAnd(cvMethods()), "unknown method %q in --methods", meth)
		}
	}
	if m.Table == nil {
		return nil, Errorf("", "cv needs a CSV data file")
	}
	splits, err := MakeSplits(m.Table.Rows, o.Splits, o.TestFraction, o.Seed)
	if err != nil {
		return nil, err
	}
	metric := "held-out log predictive density"
	if glm, gerr := structure.RecogniseGLM(m.Comp); gerr == nil && glm.Family.Support == stdlib.Binary {
		metric = "test error"
	}
	lo, hi, err := o.Shard.Range(len(splits))
	if err != nil {
		return nil, err
	}
	res := &CVResult{Model: m.Path, Data: m.DataPath, Metric: metric, Splits: o.Splits, TestFraction: o.TestFraction, Seed: o.Seed, Shard: o.Shard}
	for mi, method := range o.Methods {
		start := time.Now()
		scores := make([]float64, hi-lo)
		errs := make([]error, hi-lo)
		Parallel(hi-lo, func(k int) {
			i := lo + k
			fo := o.Fit
			fo.Method, fo.Seed, fo.Trace = method, o.Seed, nil
			rng := rand.New(rand.NewPCG(o.Seed, uint64(i)<<8|uint64(mi)))
			scores[k], errs[k] = fold(ctx, m, splits[i], fo, metric, rng)
		})
		for k, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("split %d, method %s: %w", lo+k+1, method, err)
			}
		}
		mean, sd := MeanSD(scores)
		res.Methods = append(res.Methods, CVMethod{Method: method, Mean: mean, SD: sd, Scores: scores, Seconds: time.Since(start).Seconds()})
	}
	return res, nil
}

// MergeCV combines the results of the shards of one cross-validation into
// the result of the whole, as one process would have made it (the seconds
// are the shards' sum).
func MergeCV(parts []*CVResult) (*CVResult, error) {
	if len(parts) == 0 {
		return nil, Errorf("", "nothing to merge")
	}
	a := *parts[0]
	ordered, err := orderShards(len(parts), a.Splits, "splits", func(i int) (Shard, bool) {
		p := parts[i]
		return p.Shard, p.Model == a.Model && p.Data == a.Data && p.Metric == a.Metric && p.Splits == a.Splits &&
			p.TestFraction == a.TestFraction && p.Seed == a.Seed && sameMethods(p.Methods, a.Methods)
	})
	if err != nil {
		return nil, err
	}
	out := a
	out.Shard = Shard{}
	out.Methods = nil
	for mi, pm := range a.Methods {
		cm := CVMethod{Method: pm.Method}
		for _, i := range ordered {
			p := parts[i].Methods[mi]
			cm.Scores = append(cm.Scores, p.Scores...)
			cm.Seconds += p.Seconds
		}
		cm.Mean, cm.SD = MeanSD(cm.Scores)
		out.Methods = append(out.Methods, cm)
	}
	return &out, nil
}

func sameMethods(a, b []CVMethod) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Method != b[i].Method {
			return false
		}
	}
	return true
}

// orderShards checks that the n parts (their shards by shard(i), and
// whether each is of the same run as the first) are the shards 1..count
// of one run of jobs, each once, and returns the parts in shard order.
func orderShards(n, jobs int, what string, shard func(i int) (Shard, bool)) ([]int, error) {
	first, _ := shard(0)
	if first.Count == 0 {
		return nil, Errorf("merge the folders written with --shard i/n", "the first folder holds a whole run, not a shard")
	}
	order := make([]int, first.Count)
	for i := range order {
		order[i] = -1
	}
	for i := 0; i < n; i++ {
		sh, same := shard(i)
		if !same || sh.Count != first.Count {
			return nil, Errorf("merge the shards of one command (same model, data, options and seed)", "the folders are shards of different runs")
		}
		if sh.Index < 1 || sh.Index > sh.Count {
			return nil, Errorf("", "shard %d/%d is out of range", sh.Index, sh.Count)
		}
		if order[sh.Index-1] >= 0 {
			return nil, Errorf("give each shard's folder once", "shard %d/%d is given twice", sh.Index, sh.Count)
		}
		order[sh.Index-1] = i
	}
	for k, i := range order {
		if i < 0 {
			lo, hi, _ := Shard{k + 1, first.Count}.Range(jobs)
			return nil, Errorf("run the missing shard, then merge again", "shard %d/%d (%s %d-%d of %d) is missing", k+1, first.Count, what, lo+1, hi, jobs)
		}
	}
	return order, nil
}

// parallel runs f(0..n-1) on GOMAXPROCS workers.
func Parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	jobs := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}

// MeanSD returns the mean and the sample standard deviation.
func MeanSD(x []float64) (float64, float64) {
	m := 0.0
	for _, v := range x {
		m += v / float64(len(x))
	}
	if len(x) < 2 {
		return m, 0
	}
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return m, math.Sqrt(s / float64(len(x)-1))
}

// fold fits one method on the training rows and scores it on the test rows.
func fold(ctx context.Context, m *Model, sp Split, o Options, metric string, rng *rand.Rand) (float64, error) {
	train, err := m.Rebind(m.Table.Subset(sp.Train))
	if err != nil {
		return 0, err
	}
	test, err := m.Rebind(m.Table.Subset(sp.Test))
	if err != nil {
		return 0, err
	}
	if o.Chains == 0 { // the splits run in parallel already
		o.Chains = 1
	}
	o.SkipCheck = true
	f, err := fitWith(ctx, train, o, rng)
	if err != nil {
		return 0, err
	}
	q, ok := f.Q.(msc.Sampler)
	if !ok {
		return 0, Errorf("", "cv needs a q that can be sampled")
	}
	if metric == "test error" {
		return testError(test, q, rng)
	}
	return heldOutLPD(test, q, rng), nil
}

// testError predicts y = 1 when the posterior predictive probability under q
// exceeds 1/2.
func testError(test *Model, q msc.Sampler, rng *rand.Rand) (float64, error) {
	glm, err := structure.RecogniseGLM(test.Comp)
	if err != nil {
		return 0, err
	}
	p, err := predictGLM(test, q, rng)
	if err != nil {
		return 0, err
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

// predictGLM is the posterior predictive probability of y = 1 for each row
// of a bernoulli GLM under q: exactly Phi(mu'a + c / sqrt(1 + a' Sigma a))
// for probit, by 2000 draws of q for the other bernoulli families.
func predictGLM(test *Model, q msc.Sampler, rng *rand.Rand) ([]float64, error) {
	glm, err := structure.RecogniseGLM(test.Comp)
	if err != nil {
		return nil, err
	}
	if glm.Family.Support != stdlib.Binary {
		return nil, Errorf("", "prediction is available for bernoulli regressions; this likelihood is %s", glm.Family.Name)
	}
	d := glm.D
	var p []float64
	if glm.Family == probitFamily {
		mean, sd := make([]float64, d), make([]float64, d)
		cov := make([]float64, d*d)
		q.Moments(mean, sd)
		q.Cov(cov)
		p = baselines.PredictProbit(glm.A, glm.N, d, glm.C, mean, cov)
	} else {
		const draws = 2000
		p = make([]float64, glm.N)
		z, eps := make([]float64, d), make([]float64, d)
		for k := 0; k < draws; k++ {
			q.Sample(rng, z, eps)
			for i := 0; i < glm.N; i++ {
				eta := glm.C[i]
				for j, a := range glm.A[i*d : (i+1)*d] {
					eta += a * z[j]
				}
				p[i] += math.Exp(glm.Family.LogPdf(1, []float64{eta})) / draws
			}
		}
	}
	return p, nil
}

// Predict returns, for each row of test (the model bound to new data, e.g.
// with Model.Rebind), the posterior predictive probability that y = 1
// under the fitted q, for a bernoulli regression.
func (f *Fitted) Predict(test *Model, seed uint64) ([]float64, error) {
	q, ok := f.Q.(msc.Sampler)
	if !ok {
		return nil, Errorf("", "prediction needs a q that can be sampled")
	}
	return predictGLM(test, q, NewRand(seed, 0x707264))
}

// heldOutLPD is log (1/M) sum_m p(y_test | z_m) with z_m ~ q: the log joint
// of the test data minus the log prior is the test log likelihood.
func heldOutLPD(test *Model, q msc.Sampler, rng *rand.Rand) float64 {
	const draws = 2000
	d := q.Dim()
	z, eps := make([]float64, d), make([]float64, d)
	ll := make([]float64, draws)
	var a, b [1]float64
	for k := range ll {
		q.Sample(rng, z, eps)
		test.Comp.LogJoint(z, a[:])
		test.Comp.LogPrior(z, b[:])
		ll[k] = a[0] - b[0]
	}
	v, _ := resample.LogMeanExpSE(ll)
	return v
}
