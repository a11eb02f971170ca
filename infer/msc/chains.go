package msc

import (
	"context"
	"fmt"
	"github.com/mscppl/mscppl/infer/msc/advice"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mscppl/mscppl/infer/diag"
	"github.com/mscppl/mscppl/internal/runwindow"
)

// Chain is one chain of RunChains: its random stream, its problem, its q
// and its kernel (each chain needs its own: problems are not safe for
// concurrent use).
type Chain struct {
	Rand    *rand.Rand
	Problem *Problem
	Q       Family
	Kernel  Kernel
}

// RunChains runs independent chains of Run in parallel on up to GOMAXPROCS goroutines. The result
// does not depend on the number of cores: each chain has its own random
// stream, and the chains meet only at the checks.
//
// Unless s.Fixed, s.Iters is a cap: the chains advance in blocks and stop
// at the first check (from Defaults.FirstCheck on, then every 500 iterations or an eighth of
// the run so far; every Defaults.CheckStep iterations, with two successive
// passes needed, when an iteration computes at least Defaults.DenseCost
// scalars) at which the chains agree (the largest rank-normalised
// split R-hat over the averaging window at most Defaults.RhatMax, and the
// chains' averaged means within Defaults.AgreeSD posterior sds of each
// other) and the combined average is stable (its mean moved less than
// AgreeSD sds and its sds less than 5% since the previous check). A
// costly run whose summaries importance weights will correct
// (s.Corrected) checks densely from Defaults.FirstCheckCorrected on, with
// Defaults.AgreeSDCorrected in place of AgreeSD (res.AgreeSD).
//
// res gets the combined q (the average of the chains' averaged
// statistics), the averaged params, the chains' own results in res.Chains,
// R-hat and the spread of the chains per component, and the verdict:
// Converged is true only when no chain stopped early or froze and R-hat
// and the agreement pass; each failed check adds a warning that names the
// figure, the likely cause and the remedy.
func RunChains(ctx context.Context, specs []Chain, s Settings, res *Result) error {
	start := time.Now()
	C := len(specs)
	if C == 0 {
		return fmt.Errorf("RunChains needs at least one chain")
	}
	s, err := fill(s, specs[0].Problem, specs[0].Q, specs[0].Kernel)
	if err != nil {
		return err
	}
	chains := make([]*chain, C)
	for i, sp := range specs {
		si := s
		if i > 0 {
			si.Trace = nil
		}
		c, err := newChain(sp.Rand, sp.Problem, sp.Q, sp.Kernel, &si)
		if err != nil {
			return err
		}
		chains[i] = c
	}
	ev := &evaluator{chains: chains, s: &s}
	_, sampled := specs[0].Q.(Sampler)
	ev.chainSummaries = specs[0].Kernel.Markov() && !sampled
	// dense: the iterations are costly, so the rule is checked every
	// CheckStep iterations from the first check on; its figures are
	// evaluated from half of it on, so that each check judges the
	// stability against the evaluation that many iterations before (as
	// the sparse schedule does), and the run stops when the rule passes at
	// two successive checks (the windows of checks CheckStep apart
	// overlap, so their figures are close; two passes keep a dip of the
	// noise below the thresholds, which the more frequent checks meet more
	// often, from stopping the run). A dense run whose summaries
	// importance weights correct (s.Corrected, q sampled) checks from
	// FirstCheckCorrected on, against AgreeSDCorrected.
	dense := !s.Fixed && float64(s.Samples*C)*specs[0].Problem.Cost >= Defaults.DenseCost
	first := Defaults.FirstCheck
	ev.agree = Defaults.AgreeSD
	corrected := dense && s.Corrected != nil && sampled
	if corrected {
		first, ev.agree = Defaults.FirstCheckCorrected, Defaults.AgreeSDCorrected
	}
	next := s.Iters
	fixAt := 0 // the iteration at which the params are fixed (0: never)
	if !s.Fixed {
		next = min(s.Iters, first)
		if chains[0].l.pt != nil && Defaults.ParamIters < s.Iters {
			fixAt = Defaults.ParamIters
			next = min(next, fixAt)
		}
	}
	halfway := 0 // a run that makes no check is evaluated half-way, for the trend the warnings read
	if (s.Fixed || s.Iters <= first) && s.Iters >= 2 {
		halfway = s.Iters / 2
		next = halfway
	}
	dense = dense && halfway == 0
	passed := false // dense: the rule passed at the previous check
	if dense {
		ev.lag = first / 2
		next = min(next, first/2)
	}
	for {
		if err := advanceAll(ctx, chains, next); err != nil {
			return err
		}
		n := chains[0].it
		if slices.ContainsFunc(chains, func(c *chain) bool { return c.stopped }) || n >= s.Iters {
			break
		}
		if fixAt > 0 && n == fixAt {
			ev.fixParams(n)
			res.ParamsFixedAt = n
			next = min(s.Iters, n+first)
			continue
		}
		if n == halfway { // not a check: the run goes on to its cap
			ev.evaluate(n, false)
			next = s.Iters
			continue
		}
		if dense {
			pass := ev.evaluate(n, false) && (ev.stable || ev.chainSummaries)
			if n >= first {
				res.Checks++
				if pass && passed && corrected {
					// the looser agreement holds: the caller confirms that
					// q is good enough for its weights, else the run goes
					// on under the uncorrected rule (from its first check)
					ok, why := s.Corrected(ev.q, n)
					res.Confirmed = why
					if !ok {
						corrected, first, ev.agree = false, Defaults.FirstCheck, Defaults.AgreeSD
						ev.lag = first / 2
						pass = false
					}
				}
				if pass && passed {
					res.StoppedByRule = true
					break
				}
				passed = pass
			}
			next = min(s.Iters, roundUp(n+1, Defaults.CheckStep))
			if fixAt > n {
				next = min(next, fixAt)
			}
			continue
		}
		res.Checks++
		if ev.evaluate(n, false) && (ev.stable || ev.chainSummaries) {
			res.StoppedByRule = true
			break
		}
		next = min(s.Iters, roundUp(n+max(Defaults.FirstCheck/2, (n-s.windowFrom)/8), 100))
	}
	ev.combine(res)
	res.Settings = s
	res.Elapsed = time.Since(start)
	return nil
}

func roundUp(n, m int) int { return (n + m - 1) / m * m }

// advanceRound is how far ahead of the slowest chain advanceAll lets any
// chain run when the chains outnumber the cores.
const advanceRound = 256

// advanceAll advances every chain to iteration to, in parallel. When the
// chains outnumber the cores, it advances them in rounds of advanceRound
// iterations, so that the chains stay within a round of each other: a
// cancelled run then stops every chain near the same iteration, rather
// than the chains that were waiting for a core at their first (the
// results do not depend on the rounds: each chain has its own stream).
func advanceAll(ctx context.Context, chains []*chain, to int) error {
	if len(chains) <= runtime.GOMAXPROCS(0) {
		return advanceTo(ctx, chains, to)
	}
	for {
		lo := chains[0].it
		for _, c := range chains {
			lo = min(lo, c.it)
		}
		if lo >= to || slices.ContainsFunc(chains, func(c *chain) bool { return c.stopped }) {
			return nil
		}
		if err := advanceTo(ctx, chains, min(to, lo+advanceRound)); err != nil {
			return err
		}
	}
}

// advanceTo advances every chain to iteration to, on up to GOMAXPROCS
// goroutines at once.
func advanceTo(ctx context.Context, chains []*chain, to int) error {
	errs := make([]error, len(chains))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, c := range chains {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = c.advance(ctx, to)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			if len(chains) > 1 {
				return fmt.Errorf("chain %d: %w", i+1, err)
			}
			return err
		}
	}
	return nil
}

// evaluator computes the stopping rule's figures at a check.
type evaluator struct {
	chains []*chain
	s      *Settings
	agree  float64 // the agreement threshold in posterior sds (Result.AgreeSD)

	rhat, spread       []float64
	rhatMax, spreadMax float64
	mean, sd           []float64 // the combined average's moments
	prevMean, prevSD   []float64
	stable             bool
	// lag: the stability is judged against the last evaluation at least
	// lag iterations before (0: the previous one), kept in snaps
	lag           int
	snaps         []snapshot
	chainMeans    [][]float64
	chainThetas   [][]float64 // each chain's averaged params
	learnedThetas [][]float64 // each chain's own params when they were fixed
	q             Family      // the combined q
	theta         []float64
	// chainSummaries: q cannot be sampled (a state-space proposal), so the
	// run reports the chains' own averages of their retained samples. Their
	// spread is then Monte Carlo error, which the bulk ESS measures: the
	// chains agree when R-hat passes and the smallest ESS reaches
	// Defaults.MinESS (the spread and the stability of the combined
	// average are reported, not judged).
	chainSummaries bool
	essMin         float64
	// history are the iteration and the spread of each evaluation since
	// the params were fixed, for the trend (Result.Trend)
	history []evaluation
}

type evaluation struct {
	n      int
	spread float64
}

// snapshot is the combined average's moments at an evaluation.
type snapshot struct {
	n        int
	mean, sd []float64
}

// evaluate computes R-hat, the chains' spread and the combined moments
// after n iterations, and reports whether R-hat and the agreement pass.
// Unless final, R-hat is computed only when the agreement and the
// stability pass (it is NaN otherwise, and the check fails).
func (e *evaluator) evaluate(n int, final bool) bool {
	c0 := e.chains[0]
	d, C := c0.l.d, len(e.chains)
	from := e.s.windowStart(n)
	e.prevMean, e.prevSD = e.mean, e.sd
	if e.lag > 0 {
		e.prevMean, e.prevSD = nil, nil
		for _, sn := range e.snaps {
			if sn.n <= n-e.lag {
				e.prevMean, e.prevSD = sn.mean, sn.sd
			}
		}
	}
	e.mean, e.sd = make([]float64, d), make([]float64, d)
	// the combined q: the average of the chains' averaged statistics
	sum := make([]float64, len(c0.l.stats))
	avg := make([]float64, len(c0.l.stats))
	var theta, th []float64
	if c0.l.pt != nil {
		theta, th = make([]float64, len(c0.l.theta)), make([]float64, len(c0.l.theta))
	}
	zm, zs := make([]float64, d), make([]float64, d)
	pooled2 := make([]float64, d)
	e.chainMeans = make([][]float64, C)
	e.chainThetas = make([][]float64, C)
	for i, c := range e.chains {
		c.l.win.Mean(from, avg, th, zm, zs)
		runwindow.AddTo(sum, avg)
		runwindow.AddTo(theta, th)
		e.chainThetas[i] = append([]float64(nil), th...)
		m := make([]float64, d)
		if sq, ok := c.l.q.(Sampler); ok {
			qi := sq.Clone()
			if qi.SetStats(avg) == nil {
				qi.(Sampler).Moments(m, zs)
			}
		} else {
			copy(m, zm)
		}
		e.chainMeans[i] = m
		for j := range zm {
			pooled2[j] += (zs[j]*zs[j] + zm[j]*zm[j]) / float64(C)
			e.mean[j] += zm[j] / float64(C)
		}
	}
	for i := range sum {
		sum[i] /= float64(C)
	}
	for i := range theta {
		theta[i] /= float64(C)
	}
	e.theta = theta
	e.q = c0.l.q.Clone()
	if err := e.q.SetStats(sum); err != nil {
		e.q = c0.l.q.Clone()
	}
	if sq, ok := e.q.(Sampler); ok {
		sq.Moments(e.mean, e.sd)
	} else {
		for j := range e.sd {
			e.sd[j] = math.Sqrt(math.Max(0, pooled2[j]-e.mean[j]*e.mean[j]))
		}
	}
	// the spread of the chains' averaged means, in combined sds
	e.spread = make([]float64, d)
	e.spreadMax = 0
	for j := range e.spread {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, m := range e.chainMeans {
			lo, hi = math.Min(lo, m[j]), math.Max(hi, m[j])
		}
		e.spread[j] = (hi - lo) / e.sd[j]
		if C == 1 {
			e.spread[j] = 0
		}
		e.spreadMax = nanMax(e.spreadMax, e.spread[j])
	}
	if e.lag > 0 {
		e.snaps = append(e.snaps, snapshot{n, e.mean, e.sd})
	}
	e.stable = e.prevMean != nil
	for j := range e.prevMean {
		if math.Abs(e.mean[j]-e.prevMean[j]) > e.agree*e.sd[j] || math.Abs(e.sd[j]/e.prevSD[j]-1) > 0.05 {
			e.stable = false
		}
	}
	// R-hat of the recorded draws over the window: the costly figure (a
	// sort of every component's draws), so a check that the spread or the
	// stability already fails does without it
	e.rhat = make([]float64, d)
	for j := range e.rhat {
		e.rhat[j] = math.NaN()
	}
	if final || e.chainSummaries || e.spreadMax <= e.agree && e.stable {
		e.rhats(n)
	}
	e.rhatMax = 0
	for _, r := range e.rhat {
		e.rhatMax = nanMax(e.rhatMax, r)
	}
	e.history = append(e.history, evaluation{n, e.spreadMax})
	if e.chainSummaries {
		e.essMin = math.NaN()
		if e.rhatMax <= Defaults.RhatMax {
			e.essMin = e.essBulkMin(n)
		}
		return e.rhatMax <= Defaults.RhatMax && e.essMin >= Defaults.MinESS
	}
	return e.rhatMax <= Defaults.RhatMax && e.spreadMax <= e.agree
}

// rhats sets e.rhat from the chains' recorded draws over the window after
// n iterations, the components shared out over the cores (each R-hat is
// computed alone, so the figures do not depend on their number).
func (e *evaluator) rhats(n int) {
	d := len(e.rhat)
	workers := max(1, min(runtime.GOMAXPROCS(0), d))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			column := e.windowDraws(n) // its own buffers
			if column == nil {
				return
			}
			for j := w; j < d; j += workers {
				e.rhat[j] = diag.Rhat(column(j))
			}
		})
	}
	wg.Wait()
}

// MaxChainDraws bounds the records per chain behind R-hat, the bulk ESS,
// the chains' quantiles and Result.ChainDraws: a window holding more
// (only when more than half of the run is averaged) is thinned by a
// stride that keeps its last record, so that every figure and the
// written samples (mscppl's output_N.csv) come from the same draws.
const MaxChainDraws = 1000

// windowSpan gives, for the averaging window after n iterations, each
// chain's index of the first record, the number m of records each chain
// contributes (the same for all), and the stride between the records
// used; m is 0 when there are fewer than 4 per chain.
func (e *evaluator) windowSpan(n int) (starts []int, m, stride int) {
	from := e.s.windowStart(n)
	m, starts = math.MaxInt, make([]int, len(e.chains))
	for i, c := range e.chains {
		starts[i] = c.buf.since(from)
		m = min(m, len(c.buf.iters)-starts[i])
	}
	if m < 4 {
		return nil, 0, 1
	}
	stride = (m + MaxChainDraws - 1) / MaxChainDraws
	// the records kept: starts[i] + (m-1) - stride*k for k < kept
	kept := (m-1)/stride + 1
	for i := range starts {
		starts[i] += (m - 1) - stride*(kept-1)
	}
	return starts, kept, stride
}

// windowDraws returns a function giving the chains' recorded draws of
// component j in the averaging window after n iterations (the same slices
// on every call), or nil when there are fewer than 4 per chain.
func (e *evaluator) windowDraws(n int) func(j int) [][]float64 {
	d, C := e.chains[0].l.d, len(e.chains)
	starts, m, stride := e.windowSpan(n)
	if m < 4 {
		return nil
	}
	draws := make([][]float64, C)
	for i := range draws {
		draws[i] = make([]float64, m)
	}
	return func(j int) [][]float64 {
		for i, c := range e.chains {
			for r := range m {
				draws[i][r] = c.buf.z[(starts[i]+r*stride)*d+j]
			}
		}
		return draws
	}
}

// windowRows returns each chain's recorded draws in the averaging window
// after n iterations (the records windowDraws gives), rows of Dim, their
// log joints as recorded (nil when any is unknown), and the iterations of
// chain 0's records; nil when there are fewer than 4 per chain.
func (e *evaluator) windowRows(n int) (rows, lps [][]float64, iters []int) {
	d := e.chains[0].l.d
	starts, m, stride := e.windowSpan(n)
	if m < 4 {
		return nil, nil, nil
	}
	rows, lps = make([][]float64, len(e.chains)), make([][]float64, len(e.chains))
	known := true
	for i, c := range e.chains {
		rows[i], lps[i] = make([]float64, 0, m*d), make([]float64, 0, m)
		for r := range m {
			k := starts[i] + r*stride
			rows[i] = append(rows[i], c.buf.z[k*d:(k+1)*d]...)
			lps[i] = append(lps[i], c.buf.lp[k])
			known = known && !math.IsNaN(c.buf.lp[k])
		}
	}
	if !known {
		lps = nil
	}
	iters = make([]int, m)
	for r := range iters {
		iters[r] = e.chains[0].buf.iters[starts[0]+r*stride]
	}
	return rows, lps, iters
}

// essBulkMin is the smallest bulk ESS over the components of the draws
// recorded in the averaging window (thinned: a lower bound for the chain).
func (e *evaluator) essBulkMin(n int) float64 {
	column := e.windowDraws(n)
	if column == nil {
		return math.NaN()
	}
	lo := math.Inf(1)
	for j := range e.chains[0].l.d {
		lo = math.Min(lo, DrawsESS(column(j)))
	}
	return lo
}

// DrawsESS is the ESS of the chains' draws of one component: the bulk ESS,
// or twice the batch-means ESS when that is smaller (a drift over the
// window or chains that disagree, which the bulk ESS of a window can
// miss). The factor 2 keeps the noise of the batch-means figure (19
// degrees of freedom with 4 chains) from making the smallest ESS over many
// components far too small, while an MCSE is never more than about 1.4
// times smaller than batch means say.
func DrawsESS(chains [][]float64) float64 {
	b := diag.ESSBulk(chains)
	if bm := 2 * diag.ESSBatch(chains); bm < b {
		return bm
	}
	return b
}

// nanMax is the larger of a and b, NaN when either is (a failed figure).
func nanMax(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Max(a, b)
}

// combine writes the combined result and the verdict.
func (e *evaluator) combine(res *Result) {
	C := len(e.chains)
	n := e.chains[0].it
	for _, c := range e.chains {
		n = min(n, c.it)
	}
	ok := e.evaluate(n, true)
	c0 := e.chains[0]
	res.Kernel = c0.l.k.Name()
	res.Chains = make([]*Result, C)
	res.Converged = ok
	var mixing []string
	minRate, lastN := math.Inf(1), 0
	d := c0.l.d
	res.ChainMean, res.ChainSD = make([]float64, d), make([]float64, d)
	for i, c := range e.chains {
		r := &Result{}
		c.finish(r)
		res.Chains[i] = r
		res.Stopped = res.Stopped || r.Stopped
		res.Converged = res.Converged && r.Converged
		res.ChangeRate += r.ChangeRate / float64(C)
		res.ChangeRateLast += r.ChangeRateLast / float64(C)
		res.StepsChange += r.StepsChange / float64(C)
		res.MeanESS += r.MeanESS / float64(C)
		res.Degenerate += r.Degenerate
		for j := range res.ChainMean {
			res.ChainMean[j] += r.ChainMean[j] / float64(C)
			res.ChainSD[j] += (r.ChainSD[j]*r.ChainSD[j] + r.ChainMean[j]*r.ChainMean[j]) / float64(C)
		}
		for k, w := range r.Warnings {
			if k+1 == r.notMixing {
				mixing = append(mixing, fmt.Sprint(i+1))
				minRate, lastN = math.Min(minRate, r.ChangeRateLast), max(lastN, c.it/10)
				continue
			}
			if C > 1 {
				w = fmt.Sprintf("chain %d: %s", i+1, w)
			}
			res.Warnings = append(res.Warnings, w)
		}
		for _, n := range r.Notes {
			if C > 1 {
				n = fmt.Sprintf("chain %d: %s", i+1, n)
			}
			res.Notes = append(res.Notes, n)
		}
	}
	for j := range res.ChainSD {
		res.ChainSD[j] = math.Sqrt(math.Max(0, res.ChainSD[j]-res.ChainMean[j]*res.ChainMean[j]))
	}
	res.Q, res.Final, res.Params = e.q, res.Chains[0].Final, e.theta
	if c0.l.pt != nil {
		for _, c := range e.chains {
			c.l.pt.SetParams(e.theta)
		}
	}
	res.Iterations, res.Averaged = n, res.Chains[0].Averaged
	res.Rhat, res.Spread, res.RhatMax, res.SpreadMax = e.rhat, e.spread, e.rhatMax, e.spreadMax
	res.AgreeSD = e.agree
	res.ESSBulkMin = e.essBulkMin(n)
	res.ChainDraws, res.ChainLogJoint, res.ChainDrawIters = e.windowRows(n)
	if c0.l.pt != nil {
		res.ChainLogJoint = nil // recorded at params other than the reported ones
	}

	if column := e.windowDraws(n); column != nil {
		res.ChainQuantiles, res.ChainMCSE = make([][3]float64, d), make([]float64, d)
		var pooled []float64
		for j := range d {
			draws := column(j)
			pooled = pooled[:0]
			for _, ch := range draws {
				pooled = append(pooled, ch...)
			}
			slices.Sort(pooled)
			for k, p := range [3]float64{0.05, 0.5, 0.95} {
				res.ChainQuantiles[j][k] = diag.Quantile(pooled, p)
			}
			res.ChainMCSE[j] = res.ChainSD[j] / math.Sqrt(DrawsESS(draws))
		}
	}
	res.RhatOf = "retained samples"
	if !c0.l.k.Markov() {
		res.RhatOf = "q's mean iterates"
		if c0.l.ownDraws {
			res.RhatOf = "draws of the kernel"
		}
	}
	first := e.s.windowStart(n)
	res.Reported = fmt.Sprintf("average of %d chains over iterations %d-%d (%d iterates each)", C, first, n, res.Averaged)
	if C == 1 {
		res.Reported = fmt.Sprintf("average of iterations %d-%d (%d iterates)", first, n, res.Averaged)
	}
	if res.Stopped {
		res.Reported += "; " + e.interrupted(n)
	}
	names := func(v []float64, limit float64) string {
		var worst []string
		for j, x := range v {
			if !(x <= limit) {
				worst = append(worst, c0.l.p.name(j))
			}
			if len(worst) == 3 {
				worst = append(worst, "...")
				break
			}
		}
		return strings.Join(worst, ", ")
	}
	res.Trend = e.trend(n, res)
	if len(mixing) > 0 {
		res.Warnings = append(res.Warnings, mixingWarning(c0.l, minRate, lastN, mixing, C, res.Trend))
	}
	agreeCause, agreeRemedy := agreementAdvice(c0.l.p.Facts, res.Trend, e.s.Iters, c0.l.q)
	cause := ""
	if c0.l.pt != nil {
		cause = "; with params, each chain learns its own: if only a combination of them is identified, the chains settle on different values and their latents differ (compare the chains' params)"
	}
	if !(e.rhatMax <= Defaults.RhatMax) {
		likely, remedy := agreeCause, agreeRemedy
		if e.chainSummaries { // a state-space run: its kernel, not q, sets the chains' pace
			likely = "the run is too short for the kernel to forget its start"
			remedy = fmt.Sprintf("more --iters (the cap was %d), or more --samples (particles)", e.s.Iters)
			if res.Stopped {
				likely, remedy = "the run was "+e.interrupted(n), "let the run finish"
			}
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"R-hat is %.3g (threshold %.2f) for %s: the %d chains' %s over iterations %d-%d do not agree; likely cause: %s; remedy: %s%s",
			e.rhatMax, Defaults.RhatMax, names(e.rhat, Defaults.RhatMax), C, res.RhatOf, first, n, likely, remedy, cause))
	}
	if e.chainSummaries && !(e.essMin >= Defaults.MinESS) && e.rhatMax <= Defaults.RhatMax {
		likely, remedy := "too few iterations or a slowly mixing kernel", fmt.Sprintf("more --iters (the cap was %d)", e.s.Iters)
		if res.Stopped {
			likely, remedy = "the run was "+e.interrupted(n), "let the run finish"
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the smallest ESS of the chains' recorded draws is %.0f (threshold %.0f): the summaries' Monte Carlo error is still large; likely cause: %s; remedy: %s%s",
			e.essMin, Defaults.MinESS, likely, remedy, cause))
	}
	if !e.chainSummaries && !(e.spreadMax <= e.agree) {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the chains' averaged means differ by up to %.3g posterior sd (threshold %.2f) for %s: q has not settled; likely cause: %s; remedy: %s%s",
			e.spreadMax, e.agree, names(e.spread, e.agree), agreeCause, agreeRemedy, cause))
	}
	if !res.Stopped {
		if u := e.unidentified(); u != nil {
			res.Unidentified = u
			res.Converged = false
			res.Warnings = append(res.Warnings, fmt.Sprintf(
				"%s: the chains learned params that differ along that direction (sd %.2g in unconstrained space), and a particle filter gives the same log-likelihood at the combined params and %.2g before and after them along it (%s), so the data do not tell them apart: the params reported are one of many maximum-likelihood estimates, and what depends on the direction (the latents' level, say) is arbitrary; remedy: write the model in the identified combination, or fix one of them (give it a value as data)",
				flatWords(u.Direction, c0.l.p.ParamNames), u.Spread, u.Step, logLiks(u)))
		}
	}
	if res.Stopped {
		res.Converged = false
	}
}

// interrupted says that the run was stopped from outside (a signal, a
// time limit: its context ended) after n iterations, before its stopping
// rule could judge it.
func (e *evaluator) interrupted(n int) string {
	return fmt.Sprintf("interrupted at iteration %d of at most %d, before the stopping rule could judge it", n, e.s.Iters)
}

// mixingWarning names the chains whose kernel did not mix, with the
// family's cause and remedy, the facts', and more iterations when the
// chains were still coming together (t; nil for one chain).
func mixingWarning(l *loop, rate float64, last int, chains []string, C int, t *Trend) string {
	var a advice.Advice
	if f := familyOf(l.q); f.MixingCause != "" && l.d > 1 {
		a.Add(f.MixingCause, f.MixingRemedy)
	} else {
		a.Add("the proposal q is far from the posterior", "use more --samples")
	}
	st := l.p.Facts.Structural()
	a.Causes, a.Remedies = append(a.Causes, st.Causes...), append(a.Remedies, st.Remedies...)
	a.Add("", t.MoreIters(l.s.Iters))
	cause, remedy := a.Cause(""), a.Remedy("")
	which := ""
	if C > 1 {
		which = fmt.Sprintf(" in chain %s", strings.Join(chains, ", "))
		if len(chains) > 1 {
			which = fmt.Sprintf(" in chains %s", strings.Join(chains, ", "))
		}
	}
	return fmt.Sprintf(
		"the %s kernel is not mixing%s: its retained sample changed in only %.1f%% of the last %d iterations (threshold %.0f%%); likely cause: %s; remedy: %s",
		strings.ToUpper(l.k.Name()), which, 100*rate, last, 100*MixingThreshold, cause, remedy)
}

func logLiks(u *Unidentified) string {
	parts := make([]string, 3)
	for i, l := range u.LogLik {
		parts[i] = fmt.Sprintf("%.2f (se %.2f)", l, u.SE[i])
	}
	return strings.Join(parts, ", ")
}

// fixParams sets every chain's params to the chains' combined average over
// the window after n iterations and starts the averaging windows afresh.
func (e *evaluator) fixParams(n int) {
	e.evaluate(n, false) // the combined params, e.theta, and each chain's
	theta := append([]float64(nil), e.theta...)
	e.learnedThetas = e.chainThetas
	e.s.windowFrom = n + 1
	for _, c := range e.chains {
		c.l.s.windowFrom = n + 1
		c.l.fixParams(theta)
	}
	e.prevMean, e.prevSD, e.mean, e.sd = nil, nil, nil, nil
	e.history = nil
}

// trend is what the run recorded of the chains' agreement when it reached
// its cap after n iterations (nil when it did not): the final R-hat, and
// the spread at the end and at the last evaluation at or before n/2 (the
// first when there is none).
func (e *evaluator) trend(n int, res *Result) *Trend {
	if n < e.s.Iters || res.Stopped || res.StoppedByRule {
		return nil
	}
	t := &Trend{To: n, SpreadTo: e.spreadMax, Rhat: e.rhatMax}
	if len(e.history) < 2 {
		return t
	}
	earlier := e.history[0]
	for _, h := range e.history[:len(e.history)-1] {
		if h.n <= n/2 {
			earlier = h
		}
	}
	if earlier.n < n && !math.IsNaN(earlier.spread) && !math.IsNaN(e.spreadMax) {
		t.From, t.SpreadFrom = earlier.n, earlier.spread
	}
	return t
}
