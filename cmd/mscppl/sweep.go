package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mscppl/mscppl/cmd/mscppl/internal/show"
	"github.com/mscppl/mscppl/infer"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

type sweepCmd struct {
	Model string `arg:"" help:"The model file: .msc, or a Stan program (.stan)."`
	Data  string `arg:"" optional:"" help:"The data file, CSV or CmdStan JSON."`

	SampleSizes string  `name:"samples" default:"${sweep_samples}" help:"Comma-separated numbers of samples S to try."`
	Inits       int     `default:"${sweep_inits}" help:"Random initialisations per S and method (the mean of q starts at N(0, I) draws)."`
	Methods     string  `default:"${sweep_methods}" help:"Comma-separated methods: msc, is, advi, msc-prior."`
	Seed        uint64  `default:"${seed}" help:"Random seed."`
	Iters       int     `default:"${sweep_iters}" help:"Iterations per fit."`
	Optimizer   string  `help:"Update rule: natural (default), rm or adam." placeholder:"natural|rm|adam"`
	LR          float64 `help:"Step size (see run --help)."`
	Plot        string  `help:"Draw the spread against S into FILE.svg or FILE.png." placeholder:"FILE"`
	JSON        bool    `name:"json" help:"Print the machine-readable result on stdout."`
	Shard       string  `help:"Run only the i-th of n slices of the numbers of samples (see sbc --help): i/n, auto or auto/N; needs --out." placeholder:"i/n|auto[/N]"`
	Out         string  `help:"Write the result (sweep.json) and its plot (sweep.svg) into this folder, as one set with manifest.json (mscppl merge combines the shards' sets)." placeholder:"DIR"`
}

func parseInts(s, flag string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 2 {
			return nil, usageError{userErrorf("", "%s takes numbers of samples of at least 2, such as 2,5,10,50; got %q", flag, f)}
		}
		out = append(out, v)
	}
	return out, nil
}

func (c *sweepCmd) Run(e *env) error {
	sizes, err := parseInts(c.SampleSizes, "--samples")
	if err != nil {
		return err
	}
	if c.Plot != "" {
		if ext := strings.ToLower(filepath.Ext(c.Plot)); ext != ".svg" && ext != ".png" {
			return userErrorf("use a .svg or .png file name", "cannot draw %s", c.Plot)
		}
	}
	shard, m, set, err := e.startSharded(c.Shard, c.Out, c.Model, c.Data, "sweep")
	if err != nil {
		return err
	}
	if set != nil {
		defer set.abort()
	}
	methods := splitList(c.Methods)
	rows, err := infer.Sweep(e.ctx, m, infer.SweepOptions{Samples: sizes, Inits: c.Inits, Methods: methods, Seed: c.Seed,
		Fit: infer.Options{Iters: c.Iters, Optimizer: c.Optimizer, LR: c.LR}, Shard: shard})
	if err != nil {
		return err
	}
	res := &infer.SweepResult{Model: c.Model, Data: c.Data, Samples: sizes, Methods: methods, Inits: c.Inits, Iters: c.Iters, Seed: c.Seed, Shard: shard, Rows: rows}
	if set != nil {
		if err := writeSweepSet(set, res); err != nil {
			return err
		}
		if err := set.commit(res.Seed); err != nil {
			return err
		}
	}
	if c.Plot != "" {
		if err := plotSweep(c.Plot, rows, methods); err != nil {
			return err
		}
	}
	if c.JSON {
		b, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(append(b, '\n'))
		return err
	}
	return printSweep(e, res)
}

// printSweep prints a sweep's table.
func printSweep(e *env, res *infer.SweepResult) error {
	fmt.Fprintf(e.stdout, "%s: spread (sd across %d initialisations) of the fitted means, %d iterations each%s\n", res.Model, res.Inits, res.Iters, shardNote(res.Shard, len(res.Samples), "numbers of samples"))
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tS\tmean spread\tmax spread\t")
	for _, r := range res.Rows {
		fmt.Fprintf(tw, "%s\t%d\t%.4f\t%.4f\t\n", r.Method, r.Samples, r.Spread, r.MaxSpread)
	}
	return tw.Flush()
}

// plotSweep draws the mean spread against S, one line per method, in the
// spirit of the paper's Figure 2.
func plotSweep(path string, rows []infer.SweepRow, methods []string) error {
	b, err := sweepPlot(rows, methods, strings.ToLower(filepath.Ext(path)))
	if err != nil {
		return err
	}
	return show.WriteFileAtomic(path, b)
}

// sweepPlot is plotSweep's picture as the bytes of an SVG or (ext ".png")
// a PNG file.
func sweepPlot(rows []infer.SweepRow, methods []string, ext string) ([]byte, error) {
	p := plot.New()
	p.Title.Text = "Spread of the fitted means across initialisations"
	p.X.Label.Text = "samples S"
	p.Y.Label.Text = "mean sd of the fitted means"
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	seen := map[int]bool{}
	for _, r := range rows {
		if !seen[r.Samples] {
			seen[r.Samples] = true
			ticks = append(ticks, plot.Tick{Value: float64(r.Samples), Label: strconv.Itoa(r.Samples)})
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Legend.Top = true
	var lines []any
	for _, m := range methods {
		var xy plotter.XYs
		for _, r := range rows {
			if r.Method == m {
				xy = append(xy, plotter.XY{X: float64(r.Samples), Y: r.Spread})
			}
		}
		lines = append(lines, m, xy)
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return nil, err
	}
	w, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, strings.TrimPrefix(ext, "."))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
