package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mscppl/mscppl/cmd/mscppl/internal/show"
	"github.com/mscppl/mscppl/infer"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

type plotCmd struct {
	Kind string `arg:"" enum:"trace,marginals" help:"What to draw: trace (q's means and sds per iteration) or marginals (the density of each marginal of q, the prior dashed)."`
	Dir  string `arg:"" help:"The output directory of mscppl run --out DIR."`
	Out  string `short:"o" help:"The picture to write: .svg (default DIR/KIND.svg) or .png." placeholder:"FILE"`
	Max  int    `default:"8" help:"Largest number of latent components drawn."`
}

func (c *plotCmd) Run(e *env) error {
	out := c.Out
	if out == "" {
		out = filepath.Join(c.Dir, c.Kind+".svg")
	}
	ext := strings.ToLower(filepath.Ext(out))
	if ext != ".svg" && ext != ".png" {
		return userErrorf("use a .svg or .png file name", "cannot draw %s", out)
	}
	if c.Max < 1 {
		return userErrorf("", "--max must be at least 1")
	}
	var plots []*plot.Plot
	var err error
	switch c.Kind {
	case "trace":
		plots, err = c.tracePlots()
	default:
		plots, err = c.marginalPlots(e)
	}
	if err != nil {
		return err
	}
	return savePlots(out, plots, ext)
}

// savePlots stacks the plots in a grid of at most two columns.
func savePlots(path string, plots []*plot.Plot, ext string) error {
	cols := 1
	if len(plots) > 2 {
		cols = 2
	}
	rows := (len(plots) + cols - 1) / cols
	w, h := 5*vg.Inch*vg.Length(cols), 3*vg.Inch*vg.Length(rows)
	var canvas interface {
		vg.CanvasSizer
		io.WriterTo
	}
	if ext == ".png" {
		canvas = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
	} else {
		canvas = vgsvg.New(w, h)
	}
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range grid[r] {
			if i := r*cols + c; i < len(plots) {
				grid[r][c] = plots[i]
			}
		}
	}
	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	cs := plot.Align(grid, tiles, dc)
	for r := range grid {
		for c, p := range grid[r] {
			if p != nil {
				p.Draw(cs[r][c])
			}
		}
	}
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return err
	}
	return show.WriteFileAtomic(path, buf.Bytes())
}

func readCSV(path string) ([]string, [][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, infer.FileError(path, "trace", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) < 2 {
		return nil, nil, userErrorf("it is written by mscppl run --out DIR", "%s is not a trace file", path)
	}
	cols := make([][]float64, len(recs[0]))
	for _, r := range recs[1:] {
		for j := range cols {
			v, err := strconv.ParseFloat(r[j], 64)
			if err != nil {
				return nil, nil, userErrorf("", "%s: bad number %q", path, r[j])
			}
			cols[j] = append(cols[j], v)
		}
	}
	return recs[0], cols, nil
}

// tracePlots draws q's means and sds against the iteration, log-scaled, as
// in the paper's Figure 1.
func (c *plotCmd) tracePlots() ([]*plot.Plot, error) {
	head, cols, err := readCSV(filepath.Join(c.Dir, "trace.csv"))
	if err != nil {
		return nil, err
	}
	iters := cols[0]
	mk := func(prefix, title string) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text = title
		p.X.Label.Text = "iteration"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Legend.Top = true
		p.Legend.Left = true
		var lines []any
		n := 0
		for j, h := range head {
			if !strings.HasPrefix(h, prefix) || n >= c.Max {
				continue
			}
			n++
			var xy plotter.XYs
			for i, it := range iters {
				if it > 0 {
					xy = append(xy, plotter.XY{X: it, Y: cols[j][i]})
				}
			}
			lines = append(lines, strings.TrimPrefix(h, prefix), xy)
		}
		if n == 0 {
			return nil, userErrorf("", "trace.csv has no %s columns", prefix)
		}
		if err := plotutil.AddLines(p, lines...); err != nil {
			return nil, err
		}
		return p, nil
	}
	pm, err := mk("mean_", "mean of q")
	if err != nil {
		return nil, err
	}
	ps, err := mk("sd_", "standard deviation of q")
	if err != nil {
		return nil, err
	}
	return []*plot.Plot{pm, ps}, nil
}

// marginalPlots draws a kernel density estimate of each marginal of q from
// draws.csv, with the prior (4000 draws from the model's prior) dashed.
func (c *plotCmd) marginalPlots(e *env) ([]*plot.Plot, error) {
	head, cols, err := readCSV(filepath.Join(c.Dir, "draws.csv"))
	if err != nil {
		return nil, err
	}
	var prior [][]float64
	b, err := os.ReadFile(filepath.Join(c.Dir, "summary.json"))
	if err == nil {
		var sum infer.Summary
		if json.Unmarshal(b, &sum) == nil {
			prior = priorDraws(e, sum.Model, sum.Data, 4000)
		}
	}
	var plots []*plot.Plot
	for j, name := range head {
		if j >= c.Max {
			break
		}
		p := plot.New()
		p.Title.Text = name
		p.X.Label.Text = "value"
		p.Y.Label.Text = "density"
		lo, hi := quantileRange(cols[j])
		q := kde(cols[j], lo, hi)
		lq, err := plotter.NewLine(q)
		if err != nil {
			return nil, err
		}
		lq.Color = color.RGBA{R: 200, A: 255}
		lq.Width = vg.Points(1.5)
		p.Add(lq)
		p.Legend.Add("q", lq)
		if prior != nil && j < len(prior) {
			pr := kde(prior[j], lo, hi)
			lp, err := plotter.NewLine(pr)
			if err != nil {
				return nil, err
			}
			lp.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			lp.Color = color.Gray{Y: 80}
			p.Add(lp)
			p.Legend.Add("prior", lp)
		}
		p.Legend.Top = true
		plots = append(plots, p)
	}
	return plots, nil
}

// priorDraws samples the model's prior (nil when it cannot be sampled).
func priorDraws(e *env, model, data string, n int) [][]float64 {
	m, err := e.load(model, data, 0)
	if err != nil {
		return nil
	}
	return infer.PriorDraws(m, n, 1)
}

func quantileRange(x []float64) (float64, float64) {
	m, sd := infer.MeanSD(x)
	lo, hi := m-4*sd, m+4*sd
	mn, mx := math.Inf(1), math.Inf(-1)
	for _, v := range x {
		mn, mx = math.Min(mn, v), math.Max(mx, v)
	}
	return math.Max(lo, mn-sd), math.Min(hi, mx+sd)
}

// kde is a Gaussian kernel density estimate on 200 points of [lo, hi]
// with Silverman's bandwidth.
func kde(x []float64, lo, hi float64) plotter.XYs {
	_, sd := infer.MeanSD(x)
	h := 1.06 * sd * math.Pow(float64(len(x)), -0.2)
	if h <= 0 {
		h = 1e-3
	}
	const n = 200
	out := make(plotter.XYs, n)
	for i := range out {
		t := lo + (hi-lo)*float64(i)/(n-1)
		s := 0.0
		for _, v := range x {
			d := (t - v) / h
			s += math.Exp(-0.5 * d * d)
		}
		out[i] = plotter.XY{X: t, Y: s / (float64(len(x)) * h * math.Sqrt(2*math.Pi))}
	}
	return out
}
