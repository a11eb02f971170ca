package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/infer/cmdstan"
)

// The files of --out for Stan users (docs/outputs.md, "The files of --out DIR"):
// output_1.csv, ... are each chain's retained samples over the averaging
// window in CmdStan's layout; psis_draws.csv are the PSIS draws with
// their log weights and Pareto-smoothed weights; draws.csv stays the
// equal-weight resample of those (a fixed --draws rows).

// stanVersion is the Stan version written in the header of output_N.csv:
// readers of CmdStan files (cmdstanpy, cmdstanr) take their layout rules
// from it; the files follow the layout of this version.
var stanVersion = [3]int{2, 36, 0}

// chainFiles returns output_N.csv's contents, one file per chain, or nil
// when the run kept no retained samples.
func chainFiles(f *infer.Fitted) []*cmdstan.File {
	cs := f.ChainSamples()
	if cs == nil {
		return nil
	}
	model := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f.Model.Path), ".msc"), ".stan")
	order := cmdstan.Order(cs.Names) // matrices column-major, as CmdStan
	cols := []string{"lp__"}
	for _, k := range order {
		cols = append(cols, cmdstan.Name(cs.Names[k]))
	}
	var out []*cmdstan.File
	for c, rows := range cs.Draws {
		first, last := 0, 0
		if len(cs.Iters) > 0 {
			first, last = cs.Iters[0], cs.Iters[len(cs.Iters)-1]
		}
		cfg := []string{
			fmt.Sprintf("stan_version_major = %d", stanVersion[0]),
			fmt.Sprintf("stan_version_minor = %d", stanVersion[1]),
			fmt.Sprintf("stan_version_patch = %d", stanVersion[2]),
			"model = " + model,
			"mscppl_version = " + version,
			fmt.Sprintf("mscppl: written by mscppl run, not by CmdStan: the retained samples of chain %d of Markovian score climbing (kernel %s),", c+1, cs.Kernel),
			fmt.Sprintf("mscppl: iterations %d to %d, thinned by %d (the averaging window, whose records give summary.json's R-hat and ESS);", first, last, cs.Thin),
			"mscppl: lp__ is the log joint density up to a constant on the unconstrained scale with the log-Jacobians, as CmdStan's;",
			"mscppl: there is no NUTS, so no step size, tree depth, divergences or adaptation.",
			"method = sample (Default)",
			"  sample",
			// num_samples counts iterations before thinning: readers expect
			// ceil(num_samples / thin) rows (cmdstanpy's check_sampler_csv)
			fmt.Sprintf("    num_samples = %d", last-first+1),
			fmt.Sprintf("    num_warmup = %d", max(first-1, 0)),
			"    save_warmup = 0", // a number: ArviZ's from_cmdstan takes int() of it
			fmt.Sprintf("    thin = %d", cs.Thin),
			"    adapt",
			"      engaged = 0",
			"    algorithm = mscppl",
			// rstan's read_stan_csv names the sampler from sampler_t
			// when the algorithm is not one of Stan's
			"    sampler_t = MSC(" + cs.Kernel + ")",
			"      mscppl",
			"        kernel = " + cs.Kernel,
			fmt.Sprintf("    num_chains = %d", len(cs.Draws)),
			fmt.Sprintf("id = %d", c+1),
			"data",
			"  file = " + f.Model.DataPath,
			"init = 0",
			"random",
			fmt.Sprintf("  seed = %d", f.Summary.Seed),
			"output",
			fmt.Sprintf("  file = output_%d.csv", c+1),
			"  sig_figs = 17",
		}
		stan := make([][]float64, len(rows))
		for r, row := range rows {
			stan[r] = make([]float64, 1+len(order))
			stan[r][0] = row[0]
			for j, k := range order {
				stan[r][1+j] = row[1+k]
			}
		}
		out = append(out, &cmdstan.File{Config: cfg, Columns: cols, Rows: stan, Trailer: elapsedLines(f.Summary, first, last)})
	}
	return out
}

// elapsedLines is CmdStan's block of elapsed times after the draws (rstan's
// read_stan_csv warns without it): the run's iterations before the
// averaging window (and the warm start) as the warm-up, those of the
// window as the sampling, in proportion to their counts, for each chain
// (they run together).
func elapsedLines(s *infer.Summary, first, last int) []string {
	warm, samp := 0.0, s.ElapsedSeconds
	if t := s.Timing; t != nil && last > 0 {
		frac := float64(max(first-1, 0)) / float64(last)
		warm, samp = t.WarmStart+t.Iterations*frac, t.Iterations*(1-frac)
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	return []string{
		"",
		" Elapsed Time: " + f(warm) + " seconds (Warm-up)",
		"               " + f(samp) + " seconds (Sampling)",
		"               " + f(warm+samp) + " seconds (Total)",
		"",
	}
}

// psisFile returns psis_draws.csv's contents: the draws behind the PSIS
// summaries with the columns log_weight (the raw log importance ratio)
// and weight (Pareto-smoothed, normalised), or nil without PSIS draws.
func psisFile(f *infer.Fitted) *cmdstan.File {
	w := f.WeightedDraws()
	if w == nil {
		return nil
	}
	order := cmdstan.Order(w.Names)
	cols := []string{"log_weight", "weight"}
	for _, k := range order {
		cols = append(cols, cmdstan.Name(w.Names[k]))
	}
	rows := make([][]float64, len(w.Rows))
	for i, x := range w.Rows {
		rows[i] = append(make([]float64, 0, 2+len(order)), w.LogWeight[i], w.Weight[i])
		for _, k := range order {
			rows[i] = append(rows[i], x[k])
		}
	}
	cfg := []string{
		fmt.Sprintf("mscppl: %d draws of the proposal behind the summaries, %s,", len(rows), w.Proposal),
		"mscppl: with their raw log importance ratios log p(z, x) - log proposal(z) (log_weight) and their Pareto-smoothed",
		"mscppl: normalised weights (weight, summing to 1); when summary.json's summary_source is psis, the weighted",
		"mscppl: draws give its summaries.",
	}
	return &cmdstan.File{Config: cfg, Columns: cols, Rows: rows}
}

// writeStanFiles adds output_N.csv and psis_draws.csv to the set (those
// the run has).
func writeStanFiles(set *outSet, f *infer.Fitted) error {
	for c, cf := range chainFiles(f) {
		if err := set.write(fmt.Sprintf("output_%d.csv", c+1), cf.Bytes()); err != nil {
			return err
		}
	}
	if pf := psisFile(f); pf != nil {
		return set.write("psis_draws.csv", pf.Bytes())
	}
	return nil
}
