package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/mscppl/mscppl/infer"
)

// fitFlags are the inference flags shared by run, cv and sweep.
type fitFlags struct {
	Samples     int     `help:"${setting_samples}"`
	Iters       int     `help:"${setting_iters}"`
	Fixed       bool    `help:"Run exactly --iters iterations, with no stopping rule (the paper's experiments)."`
	Chains      int     `help:"Independent chains, run in parallel (default ${chains})."`
	Optimizer   string  `help:"${setting_optimizer}" placeholder:"natural|rm|adam"`
	LR          float64 `help:"${setting_lr}"`
	Family      string  `help:"${setting_family}" placeholder:"NAME"`
	AverageLast int     `help:"Report the average of the last N iterates (default: the last ${average_percent}%)."`
}

func (c *fitFlags) options() infer.Options {
	return infer.Options{Samples: c.Samples, Iters: c.Iters, Fixed: c.Fixed, Chains: c.Chains, Optimizer: c.Optimizer, LR: c.LR, Family: c.Family, AverageLast: c.AverageLast}
}

type cvCmd struct {
	Model string `arg:"" help:"The model file: .msc, or a Stan program (.stan)."`
	Data  string `arg:"" help:"The data file, CSV or CmdStan JSON."`

	Splits       int     `default:"${cv_splits}" help:"Number of random train/test splits."`
	TestFraction float64 `default:"${cv_test_fraction}" help:"Fraction of the rows in each test set, in (0, 1)."`
	Methods      string  `default:"${cv_methods}" help:"Comma-separated methods to compare: msc, is, ep, advi, msc-prior."`
	Seed         uint64  `default:"${seed}" help:"Random seed for the splits and the fits; results do not depend on the number of cores."`
	JSON         bool    `name:"json" help:"Print the machine-readable result on stdout."`
	Shard        string  `help:"Run only the i-th of n slices of the splits (see sbc --help): i/n, auto or auto/N; needs --out." placeholder:"i/n|auto[/N]"`
	Out          string  `help:"Write the result (cv.json) into this folder, as one set with manifest.json (mscppl merge combines the shards' sets)." placeholder:"DIR"`
	fitFlags     `embed:""`
}

func splitList(s string) []string {
	out := strings.Split(s, ",")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

func (c *cvCmd) Run(e *env) error {
	shard, m, set, err := e.startSharded(c.Shard, c.Out, c.Model, c.Data, "cv")
	if err != nil {
		return err
	}
	if set != nil {
		defer set.abort()
	}
	res, err := infer.CrossValidate(e.ctx, m, infer.CVOptions{Splits: c.Splits, TestFraction: c.TestFraction,
		Methods: splitList(c.Methods), Seed: c.Seed, Fit: c.fitFlags.options(), Shard: shard})
	if err != nil {
		return err
	}
	if set != nil {
		if err := writeCVSet(set, res); err != nil {
			return err
		}
		if err := set.commit(res.Seed); err != nil {
			return err
		}
	}
	if c.JSON {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(append(b, '\n'))
		return err
	}
	return printCV(e, res)
}

// printCV prints a cross-validation's table.
func printCV(e *env, res *infer.CVResult) error {
	fmt.Fprintf(e.stdout, "%s on %s: %s over %d random splits (%.0f%% test), seed %d%s\n", res.Model, res.Data, res.Metric, res.Splits, 100*res.TestFraction, res.Seed, shardNote(res.Shard, res.Splits, "splits"))
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tmean\tsd\tseconds\t")
	for _, r := range res.Methods {
		fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.1f\t\n", r.Method, r.Mean, r.SD, r.Seconds)
	}
	return tw.Flush()
}
