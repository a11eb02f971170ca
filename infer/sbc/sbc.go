package sbc

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/infer/diag"
	"github.com/mscppl/mscppl/ir/simulate"
)

// Simulation-based calibration (Talts et al. 2018; Modrák et al. 2023):
// each simulation draws the latents from their prior and a data set from
// the model (ir.Simulator), fits the model to that data set with the fit's
// options, and records the rank of each true latent value among L draws
// of the fitted posterior (the PSIS-weighted draws resampled, as the
// summaries are; the chain's retained trajectories, thinned, for a
// state-space run). If the fits are exact, each rank is uniform on 0..L.
// The statistics of the ranks are in sbcstats.go.

// DefaultRankDraws is L, the posterior draws each rank is counted among:
// the ranks take the 100 values 0..99.
const DefaultRankDraws = 99

// DefaultSims is the default number of simulations of sbc.
const DefaultSims = 100

// streamSBC is the random stream of simulation i: (seed, streamSBC + i).
const streamSBC = 0x736263 << 32

// Options configure Run.
type Options struct {
	Sims      int         // simulations (of all the shards)
	RankDraws int         // L (default DefaultRankDraws)
	Seed      uint64      // simulation i's draws and fit depend on (Seed, i) alone
	Shard     infer.Shard // the simulations to run (zero: all)
	Fit       infer.Options
	// Progress, if set, is called after each simulation with the number
	// done (from the simulations' goroutines, one at a time).
	Progress func(done, total int)
}

// Sim is one simulation's outcome.
type Sim struct {
	Sim  int    `json:"sim"`  // the simulation, counted from 1
	Seed uint64 `json:"seed"` // the fit's seed
	// Truth are the drawn latents (Model.IR.LatentNames), Ranks their
	// ranks among the L posterior draws, Lower and Upper the ends of the
	// fit's central 99% interval of each.
	Truth     []float64           `json:"truth"`
	Lower     []float64           `json:"lower99"`
	Upper     []float64           `json:"upper99"`
	Ranks     []int               `json:"ranks"`
	Converged bool                `json:"converged"`
	Khat      Number              `json:"khat"`
	Source    infer.SummarySource `json:"source"` // the fit's SummarySource
	Seconds   float64             `json:"seconds"`
	// Err is why the fit failed ("" when it did not); the other fields
	// but Sim and Seed are then empty.
	Err string `json:"error,omitempty"`
}

// Result are the runs of one shard (or all) of an SBC.
type Result struct {
	Model     string      `json:"model"`
	Data      string      `json:"data,omitempty"`
	Names     []string    `json:"latents"`
	Sims      int         `json:"sims"` // of all the shards
	RankDraws int         `json:"rank_draws"`
	Seed      uint64      `json:"seed"`
	Shard     infer.Shard `json:"shard"`
	Runs      []Sim       `json:"runs"` // in the order of Sim
}

// Run runs the simulations of o.Shard in parallel; the result does not
// depend on the number of cores nor on the sharding.
func Run(ctx context.Context, m *infer.Model, o Options) (*Result, error) {
	if o.Sims < 1 {
		return nil, infer.Errorf("", "--sims must be at least 1, got %d", o.Sims)
	}
	if o.RankDraws == 0 {
		o.RankDraws = DefaultRankDraws
	}
	if o.RankDraws < 1 {
		return nil, infer.Errorf("", "--rank-draws must be at least 1, got %d", o.RankDraws)
	}
	lo, hi, err := o.Shard.Range(o.Sims)
	if err != nil {
		return nil, err
	}
	if m.IR.XDim == 0 {
		return nil, infer.Errorf("declare the unknowns in a latent block, each with a prior", "sbc ranks the true values of the latents, and %s has none", m.Path)
	}
	sims := newSimulators(m)
	if _, err := sims.get(); err != nil { // the model cannot be simulated
		return nil, err
	}
	res := &Result{Model: m.Path, Data: m.DataPath, Names: m.IR.LatentNames(), Sims: o.Sims, RankDraws: o.RankDraws, Seed: o.Seed, Shard: o.Shard}
	runs := make([]Sim, hi-lo)
	errs, fitErrs := make([]error, hi-lo), make([]error, hi-lo)
	var mu sync.Mutex
	done := 0
	infer.Parallel(hi-lo, func(k int) {
		if ctx.Err() != nil {
			errs[k] = ctx.Err()
			return
		}
		runs[k], fitErrs[k], errs[k] = sbcRun(ctx, m, sims, o, lo+k)
		if o.Progress != nil {
			mu.Lock()
			done++
			o.Progress(done, hi-lo)
			mu.Unlock()
		}
	})
	for k, err := range errs {
		if err != nil {
			if ctx.Err() != nil {
				return nil, infer.Errorf("", "sbc interrupted after %d of %d simulations; nothing written", countDone(errs), hi-lo)
			}
			return nil, fmt.Errorf("simulation %d: %w", lo+k+1, err)
		}
	}
	// a fit that fails on every data set fails for its options or the
	// model, not for a data set: the command fails with it
	if hi > lo && !slices.ContainsFunc(fitErrs, func(e error) bool { return e == nil }) {
		return nil, fmt.Errorf("every fit failed; simulation %d's: %w", lo+1, fitErrs[0])
	}
	res.Runs = runs
	return res, nil
}

func countDone(errs []error) int {
	n := 0
	for _, e := range errs {
		if e == nil {
			n++
		}
	}
	return n
}

// simulators hands out the model's simulators, one per goroutine at a
// time (a compiled model is not safe for concurrent use).
type simulators struct {
	m    *infer.Model
	mu   sync.Mutex
	free []*simulate.Simulator
}

func newSimulators(m *infer.Model) *simulators { return &simulators{m: m} }

func (s *simulators) get() (*simulate.Simulator, error) {
	s.mu.Lock()
	if n := len(s.free); n > 0 {
		sim := s.free[n-1]
		s.free = s.free[:n-1]
		s.mu.Unlock()
		return sim, nil
	}
	s.mu.Unlock()
	irm, err := s.m.BuildIR(s.m.File, s.m.Table)
	if err != nil {
		return nil, err
	}
	sim, err := simulate.NewSimulator(irm, s.m.File)
	if err != nil {
		return nil, err
	}
	s.put(sim)
	return s.get()
}

func (s *simulators) put(sim *simulate.Simulator) {
	s.mu.Lock()
	s.free = append(s.free, sim)
	s.mu.Unlock()
}

// sbcRun draws simulation i (counted from 0) and fits it. A fit that
// fails is recorded in the run (Err) and returned as fitErr; err is an
// error that stops the SBC (a data set that cannot be drawn, an
// interrupt).
func sbcRun(ctx context.Context, m *infer.Model, sims *simulators, o Options, i int) (run Sim, fitErr, err error) {
	start := time.Now()
	rng := infer.NewRand(o.Seed, streamSBC+uint64(i))
	run = Sim{Sim: i + 1, Seed: rng.Uint64(), Khat: Number(math.NaN())}
	sim, err := sims.get()
	if err != nil {
		return run, nil, err
	}
	truth := make([]float64, m.IR.XDim)
	data := make([][]float64, len(sim.Data))
	err = sim.Draw(rng, truth, data)
	values := map[string][]float64{}
	for j, v := range sim.Data {
		values[v.Name] = data[j]
	}
	sims.put(sim)
	if err != nil {
		return run, nil, err
	}
	fm, err := m.WithData(values)
	if err == nil {
		fo := o.Fit
		fo.Seed, fo.Trace = run.Seed, nil
		var f *infer.Fitted
		if f, err = infer.Fit(ctx, fm, fo); err == nil {
			err = run.record(f, truth, o.RankDraws)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return run, nil, ctx.Err()
		}
		run.Err = firstLine(err.Error())
	}
	run.Seconds = time.Since(start).Seconds()
	return run, err, nil
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}

// record fills a run's ranks, intervals and verdict from its fit.
func (r *Sim) record(f *infer.Fitted, truth []float64, L int) error {
	draws, err := posteriorDraws(f, L, r.Seed)
	if err != nil {
		return err
	}
	lower, upper, err := centralInterval(f, 0.99, r.Seed)
	if err != nil {
		return err
	}
	r.Truth, r.Lower, r.Upper = truth, lower, upper
	r.Ranks = make([]int, len(truth))
	tie := infer.NewRand(r.Seed, 0x746965)
	for j, t := range truth {
		less, eq := 0, 0
		for _, d := range draws {
			switch {
			case d[j] < t:
				less++
			case d[j] == t:
				eq++
			}
		}
		// ties (a latent constant on the posterior) are broken at random
		r.Ranks[j] = less + tie.IntN(eq+1)
	}
	for j := range truth {
		if !finite(truth[j]) {
			return fmt.Errorf("the drawn %s is %g", f.Model.IR.LatentNames()[j], truth[j])
		}
		if !finite(lower[j]) || !finite(upper[j]) {
			return fmt.Errorf("the fit's 99%% interval of %s is not finite", f.Model.IR.LatentNames()[j])
		}
	}
	r.Converged = f.Summary.Converged
	r.Khat = Number(f.Summary.Diagnostics.Khat)
	r.Source = f.Summary.SummarySource
	return nil
}

// posteriorDraws are L draws of the fitted posterior in the latents' own
// spaces: Fitted.Draws, or the chains' retained records thinned evenly
// when the run's q cannot be sampled on its own (a state-space run).
func posteriorDraws(f *infer.Fitted, L int, seed uint64) ([][]float64, error) {
	if cs := chainDraws(f); cs != nil {
		out := make([][]float64, L)
		for l := range out {
			out[l] = cs[(2*l+1)*len(cs)/(2*L)]
		}
		return out, nil
	}
	return f.Draws(L, seed)
}

// chainDraws are the pooled records of the chains (without lp__) when the
// summaries come from them, else nil.
func chainDraws(f *infer.Fitted) [][]float64 {
	if f.Summary.SummarySource != infer.SourceChain {
		return nil
	}
	cs := f.ChainSamples()
	if cs == nil {
		return nil
	}
	var out [][]float64
	for _, ch := range cs.Draws {
		for _, row := range ch {
			out = append(out, row[1:])
		}
	}
	return out
}

// centralInterval are the ends of the fit's central interval of mass p of
// each latent component: of the PSIS-weighted draws behind the summaries,
// of the chains' records for a state-space run, or of draws of q.
func centralInterval(f *infer.Fitted, p float64, seed uint64) (lower, upper []float64, err error) {
	ps := []float64{(1 - p) / 2, (1 + p) / 2}
	var rows [][]float64
	var w []float64
	if wd := f.WeightedDraws(); wd != nil && f.Summary.SummarySource == infer.SourcePSIS {
		rows, w = wd.Rows, wd.Weight
	} else if cs := chainDraws(f); cs != nil {
		rows = cs
	} else if rows, err = f.Draws(infer.DefaultDraws, seed); err != nil {
		return nil, nil, err
	}
	if w == nil {
		w = make([]float64, len(rows))
		for i := range w {
			w[i] = 1
		}
	}
	d := f.Model.IR.XDim
	lower, upper = make([]float64, d), make([]float64, d)
	x, q := make([]float64, len(rows)), make([]float64, 2)
	var scratch diag.QuantileScratch
	for j := 0; j < d; j++ {
		for i, r := range rows {
			x[i] = r[j]
		}
		diag.WeightedQuantiles(x, w, ps, q, &scratch)
		lower[j], upper[j] = q[0], q[1]
	}
	return lower, upper, nil
}

// Merge combines the results of the shards of one SBC into the result
// of the whole, as one process would have made it. The shards must be of
// the same SBC (names, simulations, L, seed) and hold each simulation once
// between them.
func Merge(parts []*Result) (*Result, error) {
	if len(parts) == 0 {
		return nil, infer.Errorf("", "nothing to merge")
	}
	a := parts[0]
	out := &Result{Model: a.Model, Data: a.Data, Names: a.Names, Sims: a.Sims, RankDraws: a.RankDraws, Seed: a.Seed}
	for _, p := range parts {
		if !slices.Equal(p.Names, a.Names) || p.Sims != a.Sims || p.RankDraws != a.RankDraws || p.Seed != a.Seed {
			return nil, infer.Errorf("merge the shards of one sbc command (same model, --sims, --rank-draws and --seed)", "the shards are of different sbc runs (sims %d and %d, seed %d and %d)", a.Sims, p.Sims, a.Seed, p.Seed)
		}
		out.Runs = append(out.Runs, p.Runs...)
	}
	slices.SortFunc(out.Runs, func(x, y Sim) int { return x.Sim - y.Sim })
	for i, r := range out.Runs {
		switch {
		case r.Sim < i+1:
			return nil, infer.Errorf("", "simulation %d is in more than one shard", r.Sim)
		case r.Sim > i+1:
			return nil, infer.Errorf("run the missing shard, then merge again", "simulation %d is in none of the shards", i+1)
		}
	}
	if len(out.Runs) != out.Sims {
		return nil, infer.Errorf("run the missing shard, then merge again", "the shards hold %d of the %d simulations", len(out.Runs), out.Sims)
	}
	return out, nil
}

// Number is a float64 whose JSON keeps NaN and the infinities (as the
// strings "NaN", "+Inf" and "-Inf"), so that a record read back is the
// record written.
type Number float64

// MarshalJSON writes a finite number as JSON's, the others as strings.
func (x Number) MarshalJSON() ([]byte, error) {
	if f := float64(x); !finite(f) {
		return json.Marshal(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return json.Marshal(float64(x))
}

// UnmarshalJSON reads what MarshalJSON writes.
func (x *Number) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		f, err := strconv.ParseFloat(s, 64)
		*x = Number(f)
		return err
	}
	return json.Unmarshal(b, (*float64)(x))
}

// finite reports whether x is a number.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
