package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

type sweepCmd struct {
	Model string `arg:"" help:"The .msc model file."`
	Data  string `arg:"" optional:"" help:"The CSV data file."`

	SampleSizes string  `name:"samples" default:"2,5,10,50" help:"Comma-separated numbers of samples S to try."`
	Inits       int     `default:"100" help:"Random initialisations per S and method (the mean of q starts at N(0, I) draws)."`
	Methods     string  `default:"msc,is" help:"Comma-separated methods: msc, is, advi, msc-prior."`
	Seed        uint64  `default:"1" help:"Random seed."`
	Iters       int     `default:"2000" help:"Iterations per fit."`
	Optimizer   string  `help:"Update rule: natural (default), rm or adam." placeholder:"natural|rm|adam"`
	LR          float64 `help:"Step size (see run --help)."`
	Plot        string  `help:"Draw the spread against S into FILE.svg or FILE.png." placeholder:"FILE"`
	JSON        bool    `name:"json" help:"Print the machine-readable result on stdout."`
}

type sweepRow struct {
	Method  string `json:"method"`
	Samples int    `json:"samples"`
	// Spread is the sd across initialisations of the fitted mean of each
	// latent component, averaged over components; MaxSpread its largest.
	Spread    float64 `json:"spread"`
	MaxSpread float64 `json:"max_spread"`
}

func parseInts(s, flag string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 2 {
			return nil, userErrorf("", "%s takes numbers of samples of at least 2, such as 2,5,10,50; got %q", flag, f)
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
	methods := strings.Split(c.Methods, ",")
	for i := range methods {
		methods[i] = strings.TrimSpace(methods[i])
		if !validMethod(methods[i]) || methods[i] == "ep" {
			return userErrorf("sweep compares stochastic methods: msc, is, advi, msc-prior", "unknown or unsuitable method %q in --methods", methods[i])
		}
	}
	if c.Inits < 2 {
		return userErrorf("", "--inits must be at least 2 to measure a spread")
	}
	if c.Plot != "" {
		if ext := strings.ToLower(filepath.Ext(c.Plot)); ext != ".svg" && ext != ".png" {
			return userErrorf("use a .svg or .png file name", "cannot draw %s", c.Plot)
		}
	}
	m, table, err := e.load(c.Model, c.Data)
	if err != nil {
		return err
	}
	f, err := lang.Parse(c.Model, e.sources[c.Model])
	if err != nil {
		return err
	}
	if _, err := ir.Compile(m, ir.CompileOptions{}); err != nil {
		return err
	}
	d := m.LatentDim
	var rows []sweepRow
	for mi, method := range methods {
		for si, S := range sizes {
			means := make([][]float64, c.Inits)
			errs := make([]error, c.Inits)
			var wg sync.WaitGroup
			jobs := make(chan int)
			for w := 0; w < runtime.GOMAXPROCS(0); w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					comp, err := compileOn(f, table)
					for i := range jobs {
						if err != nil {
							errs[i] = err
							continue
						}
						rng := rand.New(rand.NewPCG(c.Seed, uint64(i)<<16|uint64(si)<<8|uint64(mi)))
						init := make([]float64, d)
						for j := range init {
							init[j] = rng.NormFloat64()
						}
						opt := msc.Natural
						if c.Optimizer != "" {
							if opt, err = msc.ParseOptimizer(c.Optimizer); err != nil {
								errs[i] = userErrorf("", "%v", err)
								continue
							}
						}
						s := msc.Settings{Samples: S, Iters: c.Iters, LR: c.LR, Optimizer: opt, InitMean: init}
						res, ferr := fit(e.ctx, method, comp, &s, rng)
						if ferr != nil {
							errs[i] = ferr
							continue
						}
						means[i] = res.Mean
					}
				}()
			}
			for i := 0; i < c.Inits; i++ {
				jobs <- i
			}
			close(jobs)
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					return err
				}
			}
			row := sweepRow{Method: method, Samples: S}
			col := make([]float64, c.Inits)
			for j := 0; j < d; j++ {
				for i := range means {
					col[i] = means[i][j]
				}
				_, sd := meanSD(col)
				row.Spread += sd / float64(d)
				row.MaxSpread = math.Max(row.MaxSpread, sd)
			}
			rows = append(rows, row)
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
	fmt.Fprintf(e.stdout, "%s: spread (sd across %d initialisations) of the fitted means, %d iterations each\n", c.Model, c.Inits, c.Iters)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tS\tmean spread\tmax spread\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%.4f\t%.4f\t\n", r.Method, r.Samples, r.Spread, r.MaxSpread)
	}
	return tw.Flush()
}

// plotSweep draws the mean spread against S, one line per method, in the
// spirit of the paper's Figure 2.
func plotSweep(path string, rows []sweepRow, methods []string) error {
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
		return err
	}
	w, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), "."))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}
