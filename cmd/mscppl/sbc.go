package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/mscppl/mscppl/infer/sbc"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

type sbcCmd struct {
	Model string `arg:"" help:"The .msc model file."`
	Data  string `arg:"" optional:"" help:"The data file, CSV or CmdStan JSON: the sizes and covariates of the simulated data sets (the values the model's ~ statements observe are drawn)."`

	Sims      int    `default:"${sbc_sims}" help:"Simulations: each draws the latents from the prior and a data set from the model, fits it, and ranks the true latents among the fit's draws."`
	RankDraws int    `name:"rank-draws" default:"${rank_draws}" help:"Posterior draws L each true value is ranked among (ranks 0..L)."`
	Seed      uint64 `default:"${seed}" help:"Random seed; simulation i depends on (seed, i) alone, so the result is the same on any number of cores or shards."`
	Shard     string `help:"Run only the i-th of n slices of the simulations and write them as one set (merge the sets with mscppl merge): i/n, or auto (Slurm's SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT, or a Kubernetes Indexed Job's JOB_COMPLETION_INDEX with auto/N)." placeholder:"i/n|auto[/N]"`
	Out       string `help:"Write the ranks (ranks.csv), the runs (sims.csv), the statistics (summary.json), the record merge reads (sbc.json) and the plots (rank_hist.svg, ecdf_diff.svg) into this folder, as one set with manifest.json." placeholder:"DIR"`
	JSON      bool   `name:"json" help:"Print the statistics (summary.json) on stdout."`
	Quiet     bool   `help:"No progress bar (it is shown only when stderr is a terminal)."`

	Method   string  `help:"Inference method of each fit. ${methods}." placeholder:"${method_names}"`
	Kernel   string  `help:"Markov kernel of MSC (see run --help)." placeholder:"auto|${kernel_names}"`
	Init     string  `help:"Where each chain's q starts: laplace or zero (see run --help)." placeholder:"laplace|zero"`
	Draws    int     `help:"Draws of q behind each fit's PSIS check (default ${draws})."`
	ParamLR  float64 `name:"param-lr" help:"Adam step for the model parameters (see run --help); the data are drawn with the parameters at their initial values."`
	QOnly    bool    `name:"q-only" help:"Rank the truths among draws of q itself, without the PSIS check and its correction: the calibration of q rather than of the reported posterior."`
	fitFlags `embed:""`
}

// sbcFiles are the files of an sbc set.
var sbcFiles = []string{"sbc.json", "ranks.csv", "sims.csv", "summary.json", "rank_hist.svg", "ecdf_diff.svg"}

func init() {
	for _, f := range sbcFiles {
		setFiles[f] = true
	}
}

func (c *sbcCmd) Run(e *env) error {
	shard, m, set, err := e.startSharded(c.Shard, c.Out, c.Model, c.Data, "sbc")
	if err != nil {
		return err
	}
	if set != nil {
		defer set.abort()
	}
	o := c.fitFlags.options()
	o.Method, o.Kernel, o.Init, o.Draws, o.SkipCheck, o.ParamLR = c.Method, c.Kernel, c.Init, c.Draws, c.QOnly, c.ParamLR
	bar := newProgress(e, c.Quiet)
	defer bar.finish()
	res, err := sbc.Run(e.ctx, m, sbc.Options{Sims: c.Sims, RankDraws: c.RankDraws, Seed: c.Seed, Shard: shard, Fit: o,
		Progress: func(done, total int) { bar.update(done, total, math.NaN()) }})
	if err != nil {
		return err
	}
	bar.finish()
	sum := res.Summarize()
	if set != nil {
		if err := writeSBCSet(set, res, sum); err != nil {
			return err
		}
		if err := set.commit(res.Seed); err != nil {
			return err
		}
	}
	if c.JSON {
		return writeJSON(e.stdout, sum)
	}
	return printSBC(e, res, sum)
}

// printSBC prints the statistics of an SBC as a table.
func printSBC(e *env, res *sbc.Result, s *sbc.Summary) error {
	w := e.stdout
	what := fmt.Sprintf("%d simulations", s.Sims)
	if res.Shard.Count > 0 {
		lo, hi, _ := res.Shard.Range(res.Sims)
		what = fmt.Sprintf("simulations %d-%d of %d (shard %d/%d)", lo+1, hi, res.Sims, res.Shard.Index, res.Shard.Count)
	}
	fmt.Fprintf(w, "%s: simulation-based calibration, %s, ranks among %d draws, seed %d\n", res.Model, what, s.RankDraws, s.Seed)
	if s.Failed > 0 {
		fmt.Fprintf(w, "warning: %d fits failed (sims.csv says why); the statistics are of the %d others, and a calibration check with failures is incomplete\n", s.Failed, s.Runs)
	}
	if s.Runs == 0 {
		return nil
	}
	khat := "none (no PSIS check)"
	if k := float64(s.KhatMedian); !math.IsNaN(k) {
		khat = fmt.Sprintf("%.2f", k)
	}
	fmt.Fprintf(w, "fits: %d said converged, %d NOT converged (%.1f%%); median k-hat %s\n", s.Converged, s.Runs-s.Converged, 100*s.NotConverged, khat)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "latent\tchi2 p (%d bins)\tECDF p\tin 95%% band\toutside 99%%\tconverged & outside 99%%\t\n", s.Bins)
	for _, l := range s.Latents {
		band := "yes"
		if !l.InBand {
			band = "NO"
		}
		flag := ""
		if l.Flagged {
			flag = "  <- miscalibrated"
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%s\t%d (%.1f%%)\t%d of %d (%.1f%%)\t%s\n", l.Name, l.Chi2P, l.ECDFP, band,
			l.Outside99, 100*float64(l.Outside99)/float64(s.Runs), l.ConvergedOutside99, s.Converged, 100*l.ConvergedMissRate, flag)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if s.Flagged > 0 {
		fmt.Fprintf(w, "verdict: %d of %d latents miscalibrated: their ranks leave the simultaneous 95%% band or fail the chi-square test at 1%%", s.Flagged, len(s.Latents))
		if chance := 0.06 * float64(len(s.Latents)); chance >= 0.5 {
			// each component's tests flag a calibrated one with probability
			// about 5% + 1%
			fmt.Fprintf(w, " (about %.0f of %d are flagged by chance when all are calibrated)", chance, len(s.Latents))
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "verdict: ranks uniform: every latent's ECDF stays inside its simultaneous 95%% band and passes the chi-square test at 1%%\n")
	}
	fmt.Fprintf(w, "calibration of the verdict: a run that says converged should miss the truth with its 99%% interval 1%% of the time\n")
	return nil
}

// writeSBCSet writes an SBC's files into its set.
func writeSBCSet(set *outSet, res *sbc.Result, sum *sbc.Summary) error {
	rec, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		return err
	}
	js, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	files := []struct {
		name string
		data []byte
	}{
		{"sbc.json", append(rec, '\n')},
		{"ranks.csv", ranksCSV(res)},
		{"sims.csv", simsCSV(res)},
		{"summary.json", append(js, '\n')},
	}
	if sum.Runs > 0 {
		hist, ecdf, err := sbcPlots(res, sum)
		if err != nil {
			return err
		}
		files = append(files, struct {
			name string
			data []byte
		}{"rank_hist.svg", hist}, struct {
			name string
			data []byte
		}{"ecdf_diff.svg", ecdf})
	}
	for _, f := range files {
		if err := set.write(f.name, f.data); err != nil {
			return err
		}
	}
	return nil
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// ranksCSV has a row per simulation and latent component.
func ranksCSV(res *sbc.Result) []byte {
	rows := [][]string{{"sim", "latent", "rank", "truth", "lower99", "upper99", "converged"}}
	for _, r := range res.Runs {
		if r.Err != "" {
			continue
		}
		for j, name := range res.Names {
			rows = append(rows, []string{strconv.Itoa(r.Sim), name, strconv.Itoa(r.Ranks[j]), fmtFloat(r.Truth[j]),
				fmtFloat(r.Lower[j]), fmtFloat(r.Upper[j]), strconv.FormatBool(r.Converged)})
		}
	}
	return csvBytes(rows)
}

// simsCSV has a row per simulation: its fit's seed, verdict, k-hat, time
// and error.
func simsCSV(res *sbc.Result) []byte {
	rows := [][]string{{"sim", "seed", "converged", "khat", "source", "seconds", "error"}}
	for _, r := range res.Runs {
		rows = append(rows, []string{strconv.Itoa(r.Sim), strconv.FormatUint(r.Seed, 10), strconv.FormatBool(r.Converged),
			fmtFloat(float64(r.Khat)), r.Source.String(), strconv.FormatFloat(r.Seconds, 'f', 3, 64), r.Err})
	}
	return csvBytes(rows)
}

// csvBytes writes rows as CSV (fields quoted where they need it: a
// latent's name such as L[1,2], an error message).
func csvBytes(rows [][]string) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.WriteAll(rows) // a bytes.Buffer does not fail
	return b.Bytes()
}

// sbcPanelMax is the most latent components the plots draw: the flagged
// ones, then the others in the model's order.
const sbcPanelMax = 24

// sbcPanels are the components the plots draw, in the model's order.
func sbcPanels(sum *sbc.Summary) []int {
	var out []int
	for pass := range 2 {
		for j, l := range sum.Latents {
			if len(out) < sbcPanelMax && l.Flagged == (pass == 0) {
				out = append(out, j)
			}
		}
	}
	slices.Sort(out)
	return out
}

// sbcPlots draws the rank histograms, with the 99% band of a bin's count
// under uniform ranks, and the ECDF differences with their simultaneous
// 95% bands, a panel per latent component (sbcPanels).
func sbcPlots(res *sbc.Result, sum *sbc.Summary) (hist, ecdf []byte, err error) {
	n, L, B := sum.Runs, res.RankDraws, sum.Bins
	band := sbc.NewECDFBand(n, L)
	lo, hi := sbc.BinomialBand(n, 1/float64(B), 0.01)
	grey := color.Gray{Y: 220}
	var hp, ep []*plot.Plot
	for _, j := range sbcPanels(sum) {
		name := res.Names[j]
		ranks := res.Ranks(j)
		// the histogram
		p := plot.New()
		p.Title.Text = name
		p.X.Label.Text = fmt.Sprintf("rank (0..%d)", L)
		p.Y.Label.Text = "simulations"
		w := float64(L+1) / float64(B)
		poly, err := plotter.NewPolygon(plotter.XYs{{X: 0, Y: float64(lo)}, {X: float64(L + 1), Y: float64(lo)}, {X: float64(L + 1), Y: float64(hi)}, {X: 0, Y: float64(hi)}})
		if err != nil {
			return nil, nil, err
		}
		poly.Color, poly.LineStyle.Width = grey, 0
		p.Add(poly)
		h := &plotter.Histogram{FillColor: tableau[0], LineStyle: plotter.DefaultLineStyle, Width: w}
		h.LineStyle.Color = color.White
		for b, c := range sbc.RankCounts(ranks, L, B) {
			h.Bins = append(h.Bins, plotter.HistogramBin{Min: float64(b) * w, Max: float64(b+1) * w, Weight: float64(c)})
		}
		p.Add(h)
		mid, err := plotter.NewLine(plotter.XYs{{X: 0, Y: float64(n) / float64(B)}, {X: float64(L + 1), Y: float64(n) / float64(B)}})
		if err != nil {
			return nil, nil, err
		}
		mid.Color = color.Gray{Y: 80}
		mid.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(mid)
		p.X.Min, p.X.Max, p.Y.Min = 0, float64(L+1), 0
		hp = append(hp, p)
		// the ECDF difference
		q := plot.New()
		q.Title.Text = name
		q.X.Label.Text = "fractional rank"
		q.Y.Label.Text = "ECDF difference"
		up, down := plotter.XYs{{X: 0, Y: 0}}, plotter.XYs{{X: 0, Y: 0}}
		diff := plotter.XYs{{X: 0, Y: 0}}
		for k, z := range band.Z {
			up = append(up, plotter.XY{X: z, Y: float64(band.Upper[k])/float64(n) - z})
			down = append(down, plotter.XY{X: z, Y: float64(band.Lower[k])/float64(n) - z})
		}
		for k, c := range band.Counts(ranks) {
			diff = append(diff, plotter.XY{X: band.Z[k], Y: float64(c)/float64(n) - band.Z[k]})
		}
		up, down, diff = append(up, plotter.XY{X: 1, Y: 0}), append(down, plotter.XY{X: 1, Y: 0}), append(diff, plotter.XY{X: 1, Y: 0})
		ring := append(plotter.XYs{}, up...)
		for k := len(down) - 1; k >= 0; k-- {
			ring = append(ring, down[k])
		}
		area, err := plotter.NewPolygon(ring)
		if err != nil {
			return nil, nil, err
		}
		area.Color, area.LineStyle.Width = grey, 0
		q.Add(area)
		line, err := plotter.NewLine(diff)
		if err != nil {
			return nil, nil, err
		}
		line.Color, line.Width = tableau[0], vg.Points(1.5)
		if !sum.Latents[j].InBand {
			line.Color = tableau[3]
		}
		q.Add(line)
		q.X.Min, q.X.Max = 0, 1
		ep = append(ep, q)
	}
	if hist, err = renderPlots(hp, 0, ".svg"); err != nil {
		return nil, nil, err
	}
	ecdf, err = renderPlots(ep, 0, ".svg")
	return hist, ecdf, err
}
