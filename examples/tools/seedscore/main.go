// Command seedscore runs an mscppl binary on a model for seeds 1..N and
// scores each run against an exact answer (internal/exact's harness; it
// runs the binary and does not import the engine). Per seed it prints
// whether the run says it converged, the worst mean error in exact sds,
// the worst relative sd error, the worst quantile error in exact sds (each
// with the quantity it is in) and the reported probabilities; then the
// counts: matched and converged, NOT converged (with its warnings), and
// converged but wrong (the silent failures).
//
//	go build -o /tmp/m ./cmd/mscppl
//	go run ./examples/tools/seedscore -bin /tmp/m -case bimodal -seeds 16
//	go run ./examples/tools/seedscore -bin /tmp/m -case hier_centred -seeds 16 -flags "--iters 20000"
//	go run ./examples/tools/seedscore -bin /tmp/m -model M.msc -data D.csv -exact E.csv -probs pos
//
// -case names a case of internal/exact (bimodal, trimodal, hier_centred,
// hier_noncentred, funnel, mix_unordered, mix_ordered), whose files are
// read from -dir; or -model, -data and -exact name the files (-probs the
// exact file's 0/1 rows). A run matches when every mean is within -maxmean
// exact sds, every sd within -maxsd (relative) and every probability
// within -maxprob; the second count also asks every quantile the exact
// file defines to be within -maxq exact sds.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mscppl/mscppl/internal/exact"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "seedscore:", err)
		os.Exit(1)
	}
}

func run() error {
	bin := flag.String("bin", "", "the mscppl binary (a path)")
	name := flag.String("case", "", "a case of internal/exact, read from -dir")
	dir := flag.String("dir", filepath.Join(exact.RepoRoot(), "internal", "exact", "testdata"), "the cases' directory")
	model := flag.String("model", "", "the model file (without -case)")
	data := flag.String("data", "", "the data file (without -case; none when empty)")
	exactFile := flag.String("exact", "", "the exact answer, name,mean,sd[,q05,q50,q95] (without -case)")
	probs := flag.String("probs", "", "comma-separated 0/1 rows of the exact file (without -case)")
	seeds := flag.Int("seeds", 16, "run seeds 1..N")
	from := flag.Int("from", 1, "the first seed")
	flags := flag.String("flags", "", "extra flags for every run, space-separated (e.g. \"--iters 20000\")")
	timeout := flag.Duration("timeout", 10*time.Minute, "stop a run after this long and count it as an error")
	maxMean := flag.Float64("maxmean", 0.1, "largest |mean - exact| / exact sd of a match")
	maxSD := flag.Float64("maxsd", 0.1, "largest |sd / exact sd - 1| of a match")
	maxProb := flag.Float64("maxprob", 0.05, "largest |P - exact P| of a match")
	maxQ := flag.Float64("maxq", 0.2, "largest |quantile - exact| / exact sd of a match in the second count")
	flag.Parse()
	if *bin == "" {
		return errors.New("-bin is required")
	}
	cfg := exact.ScoreConfig{Bin: *bin, Flags: strings.Fields(*flags), Timeout: *timeout,
		MaxMean: *maxMean, MaxSD: *maxSD, MaxProb: *maxProb, MaxQ: *maxQ, Log: os.Stderr}
	ex := *exactFile
	switch {
	case *name != "":
		cases, err := exact.Cases()
		if err != nil {
			return err
		}
		var names []string
		for _, c := range cases {
			names = append(names, c.Name)
			if c.Name == *name {
				cfg.Model, cfg.Data, ex = c.Paths(*dir)
				cfg.Probs = c.Probs
			}
		}
		if cfg.Model == "" {
			return fmt.Errorf("-case %q: not one of %s", *name, strings.Join(names, ", "))
		}
	case *model != "" && ex != "":
		cfg.Model, cfg.Data = *model, *data
		if *probs != "" {
			cfg.Probs = strings.Split(*probs, ",")
		}
	default:
		return errors.New("give -case, or -model and -exact")
	}
	var err error
	if cfg.Exact, err = exact.ReadSummaries(ex); err != nil {
		return err
	}
	for i := range *seeds {
		cfg.Seeds = append(cfg.Seeds, uint64(*from+i))
	}
	fmt.Printf("%s run %s %s --json --quiet --seed SEED %s; exact %s\n", *bin, cfg.Model, cfg.Data, *flags, ex)
	return exact.WriteTable(os.Stdout, exact.Score(cfg), cfg.Probs)
}
