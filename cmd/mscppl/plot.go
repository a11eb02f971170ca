package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mscppl/mscppl/cmd/mscppl/internal/show"
	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// plotMax is the default largest number of latent components drawn: the
// pictures' own default, not an inference setting.
const plotMax = 8

type plotCmd struct {
	Kind string   `arg:"" enum:"trace,rank,pairs,marginals,q" help:"What to draw: trace (each chain's samples against the draw, with each chain's density beside them, from DIR/output_N.csv), rank (each chain's rank histogram), pairs (the named components against each other, from DIR/draws.csv), marginals (the density of each latent in its own space from DIR/draws.csv, the prior dashed), or q (q's means and sds per iteration, in q's unconstrained space, from DIR/trace.csv)."`
	Dir  string   `arg:"" help:"The output directory of mscppl run --out DIR (or a file in it, such as DIR/draws.csv)."`
	Args []string `arg:"" optional:"" name:"names-and-out" help:"For pairs, trace and rank, the components to draw (pairs: two or more: mu tau a[1]; a vector's name draws all its components; trace and rank default to the scalar latents first, up to --max); then the picture to write: .svg (default DIR/KIND.svg) or .png."`
	Out  string   `short:"o" name:"out" help:"The picture to write, as the optional last argument." placeholder:"FILE"`
	Max  int      `default:"${plot_max}" help:"Largest number of latent components drawn."`

	model *infer.Model // the run's model when the caller has it (the REPL); else loaded from summary.json
	cols  int          // the columns of the grid of panels (0: at most two)
}

// namedKinds are the kinds of plot that take the components to draw as
// arguments (pairs needs them; trace and rank default to the scalar
// latents first, up to --max).
var namedKinds = map[string]bool{"pairs": true, "trace": true, "rank": true}

// split parts the positional arguments into the components and the
// picture: the last argument is the picture when the kind takes no names,
// or when it has a file extension (a component such as a.1 has none).
func (c *plotCmd) split() (names []string, out string, err error) {
	args := c.Args
	if namedKinds[c.Kind] {
		if n := len(args); n > 0 {
			if ext := filepath.Ext(args[n-1]); ext != "" && strings.Trim(ext, ".0123456789") != "" {
				return args[:n-1], args[n-1], nil
			}
		}
		return args, "", nil
	}
	switch len(args) {
	case 0:
		return nil, "", nil
	case 1:
		return nil, args[0], nil
	}
	return nil, "", userErrorf("mscppl plot KIND DIR [OUT]; only pairs, trace and rank take names", "too many arguments: %s", strings.Join(args, " "))
}

func (c *plotCmd) Run(e *env) error {
	out, err := c.write(e)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", out)
	return nil
}

// write draws the picture into the output file and returns its name; what
// the reader should know (components left out, a model that cannot be
// loaded) goes to stderr as notes. Nothing is written on an error.
func (c *plotCmd) write(e *env) (string, error) {
	_, outArg, err := c.split()
	if err != nil {
		return "", err
	}
	out := c.Out
	switch {
	case outArg != "" && c.Out != "" && outArg != c.Out:
		return "", userErrorf("give the file once: mscppl plot KIND DIR [OUT]", "two output files: %s and %s", outArg, c.Out)
	case outArg != "":
		out = outArg
	}
	if c.Max < 1 {
		return "", userErrorf("", "--max must be at least 1")
	}
	dir, err := runDir(c.Dir)
	if err != nil {
		return "", err
	}
	if out == "" {
		out = filepath.Join(dir, c.Kind+".svg")
	}
	ext := strings.ToLower(filepath.Ext(out))
	if ext != ".svg" && ext != ".png" {
		return "", userErrorf("use a .svg or .png file name", "cannot draw %s", out)
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return "", userErrorf("give a file name ending in .svg or .png", "cannot draw %s: it is a directory", out)
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return "", userErrorf("create the directory first", "cannot draw %s: no directory %s", out, filepath.Dir(out))
	}
	panels, notes, err := c.panels(e, dir)
	if err != nil {
		return "", err
	}
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "note: %s\n", n)
	}
	plots := make([]*plot.Plot, len(panels))
	for i, p := range panels {
		plots[i] = p.Plot
	}
	if err := savePlots(out, plots, c.cols, ext); err != nil {
		return "", userErrorf("", "cannot write %s: %v", out, err)
	}
	return out, nil
}

// runDir is the run directory named by arg: arg itself, or the directory
// of a file in it (DIR/draws.csv).
func runDir(arg string) (string, error) {
	st, err := os.Stat(arg)
	switch {
	case err != nil:
		return "", userErrorf("give the directory written by mscppl run --out DIR", "cannot read the run directory %s: no such directory", arg)
	case st.IsDir():
		return arg, nil
	}
	return filepath.Dir(arg), nil
}

// panels builds the pictures of the run in dir; a nil Plot is an empty
// cell of the grid. A run that did not converge says so in every title.
func (c *plotCmd) panels(e *env, dir string) ([]panel, []string, error) {
	var (
		panels []panel
		notes  []string
		err    error
		sum    *infer.Summary
	)
	switch c.Kind {
	case "q", "marginals":
		var m *infer.Model
		sum, m, notes = loadRun(e, dir, c.model)
		var more []string
		if c.Kind == "q" {
			panels, more, err = c.qPlots(dir, m)
		} else {
			panels, more, err = c.marginalPlots(e, dir, sum, m)
		}
		notes = append(notes, more...)
	default:
		sum = readRunSummary(dir)
		names, _, serr := c.split()
		if serr != nil {
			return nil, nil, serr
		}
		switch c.Kind {
		case "trace":
			panels, notes, err = c.tracePlots(dir, names)
		case "rank":
			panels, notes, err = c.rankPlots(dir, names)
		case "pairs":
			panels, notes, err = c.pairsPlots(dir, names)
		default:
			return nil, nil, userErrorf("the kinds are trace, rank, pairs, marginals and q", "no plot kind %q", c.Kind)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	for _, p := range panels {
		// round ticks (1, 2 or 5 times a power of ten) on every linear axis
		if p.Plot == nil {
			continue
		}
		for _, a := range []*plot.Axis{&p.X, &p.Y} {
			if _, ok := a.Tick.Marker.(plot.DefaultTicks); ok {
				a.Tick.Marker = roundTicks{}
			}
		}
	}
	if sum != nil && !sum.Converged {
		for _, p := range panels {
			if p.Plot != nil && p.Title.Text != "" {
				p.Title.Text += " (NOT converged)"
			}
		}
	}
	return panels, notes, nil
}

// readRunSummary is the run's summary.json, nil when it cannot be read.
func readRunSummary(dir string) *infer.Summary {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil
	}
	var sum infer.Summary
	if json.Unmarshal(b, &sum) != nil {
		return nil
	}
	return &sum
}

// panel is one picture with its curves and what it draws, kept for the
// tests (gonum/plot keeps its plotters to itself).
type panel struct {
	*plot.Plot
	curves []curve
	data   []plot.Plotter
}

// Add draws ps on the panel and keeps them.
func (p *panel) Add(ps ...plot.Plotter) {
	p.Plot.Add(ps...)
	p.data = append(p.data, ps...)
}

type curve struct {
	label string
	xy    plotter.XYs
}

// loadRun reads DIR/summary.json and loads the model it names, unless the
// caller has the model (nil, with a note, when either cannot be read).
func loadRun(e *env, dir string, have *infer.Model) (*infer.Summary, *infer.Model, []string) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, nil, []string{fmt.Sprintf("cannot read %s, so the latents' constraints are unknown", filepath.Join(dir, "summary.json"))}
	}
	var sum infer.Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		return nil, nil, []string{fmt.Sprintf("%s is not a summary written by mscppl run, so the latents' constraints are unknown", filepath.Join(dir, "summary.json"))}
	}
	if have != nil {
		return &sum, have, nil
	}
	// the manifest's paths, relative to dir, find the model from any
	// folder; summary.json's are relative to where the run was started
	if model, data := readManifestInputs(dir); model != "" {
		if m, err := infer.Load(model, data); err == nil {
			return &sum, m, nil
		}
	}
	m, err := infer.Load(sum.Model, sum.Data)
	if err != nil {
		return &sum, nil, []string{fmt.Sprintf("cannot load the run's model %s (moved, or the run directory has no manifest.json naming it), so the latents' constraints are unknown", sum.Model)}
	}
	return &sum, m, nil
}

// savePlots lays the plots out in a grid of cols columns (0: at most two);
// a nil plot leaves its cell empty.
func savePlots(path string, plots []*plot.Plot, cols int, ext string) error {
	b, err := renderPlots(plots, cols, ext)
	if err != nil {
		return err
	}
	return show.WriteFileAtomic(path, b)
}

// renderPlots is savePlots' picture, as the bytes of an SVG or (ext
// ".png") a PNG file.
func renderPlots(plots []*plot.Plot, cols int, ext string) ([]byte, error) {
	if cols <= 0 {
		cols = 1
		if len(plots) > 2 {
			cols = 2
		}
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
		return nil, err
	}
	return buf.Bytes(), nil
}

// qColumn says which columns of trace.csv plot q draws (the iteration, q's
// means and sds; not the ESS or the change rate, NaN early in a run).
func qColumn(c string) bool {
	return c == "iteration" || strings.HasPrefix(c, "mean_") || strings.HasPrefix(c, "sd_")
}

func everyColumn(string) bool { return true }

// readCSV reads draws.csv or trace.csv as columns. Every problem is an
// error at its place (file:line:col, the row and the column): a row of
// the wrong length, a cell that is not a number, and a NaN or infinite
// value in a column checked says (a run writes finite draws and q's
// moments, so such a cell means the file was edited or damaged; the plot
// is not drawn without those rows, as it would be silently).
func readCSV(path, what string, checked func(column string) bool) ([]string, [][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, userErrorf("give the directory written by mscppl run --out DIR", "cannot read the %s file %s: no such file", what, path)
		}
		return nil, nil, infer.FileError(path, what, err)
	}
	defer f.Close()
	const hint = "it is written by mscppl run --out DIR; run it again"
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, nil, csvError(path, what, err, hint)
	}
	cols := make([][]float64, len(head))
	for row := 1; ; row++ {
		rec, err := r.Read()
		if err == io.EOF {
			if row == 1 {
				return nil, nil, userErrorf(hint, "%s is not a %s file: it has no rows", path, what)
			}
			return head, cols, nil
		}
		if errors.Is(err, csv.ErrFieldCount) {
			line, _ := r.FieldPos(0)
			e := lang.Errorf(lang.Pos{File: path, Line: line, Col: 1}, "row %d has %d cells; the header has %d columns", row, len(rec), len(head))
			e.Hint = hint
			return nil, nil, e
		}
		if err != nil {
			return nil, nil, csvError(path, what, err, hint)
		}
		for j, cell := range rec {
			v, err := strconv.ParseFloat(cell, 64)
			bad := ""
			switch {
			case err != nil:
				bad = fmt.Sprintf("%q is not a number", cell)
			case (math.IsNaN(v) || math.IsInf(v, 0)) && checked(head[j]):
				bad = fmt.Sprintf("the value is %s", cell)
			}
			if bad != "" {
				line, col := r.FieldPos(j)
				e := lang.Errorf(lang.Pos{File: path, Line: line, Col: col}, "row %d, column %q: %s", row, head[j], bad)
				e.Hint = hint
				return nil, nil, e
			}
			cols[j] = append(cols[j], v)
		}
	}
}

// csvError positions an error of encoding/csv in path.
func csvError(path, what string, err error, hint string) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		e := lang.Errorf(lang.Pos{File: path, Line: pe.Line, Col: pe.Column}, "%v", pe.Err)
		e.Hint = hint
		return e
	}
	return userErrorf(hint, "%s is not a %s file: %v", path, what, err)
}

// uLabels names the components of q's unconstrained space as the
// bijection defines them: log(tau) for tau: real<lower=0>, logit(p) for
// p: real<lower=0, upper=1>; keyed by trace.csv's column names.
func uLabels(m *ir.Model) map[string]string {
	out := map[string]string{}
	names := m.UnconstrainedNames()
	for _, v := range m.Latents {
		for i := 0; i < v.UDim(); i++ {
			n := names[v.Offset+i]
			out[csvName(n)] = uLabel(v, n)
		}
	}
	return out
}

func uLabel(v *ir.Var, n string) string {
	b := v.Bij
	switch {
	case v.VecBij != nil:
		return n // already name__u[i]
	case v.Special():
		return n + " (unconstrained)"
	case b.HasLower && b.HasUpper:
		if b.Lower == 0 {
			if b.Upper == 1 {
				return "logit(" + n + ")"
			}
			return fmt.Sprintf("logit(%s/%g)", n, b.Upper)
		}
		return fmt.Sprintf("logit((%s)/%g)", shifted(n, b.Lower), b.Upper-b.Lower)
	case b.HasLower:
		return "log(" + shifted(n, b.Lower) + ")"
	case b.HasUpper:
		if b.Upper == 0 {
			return "log(-" + n + ")"
		}
		return fmt.Sprintf("log(%g - %s)", b.Upper, n)
	}
	return n
}

// shifted writes n - a.
func shifted(n string, a float64) string {
	switch {
	case a == 0:
		return n
	case a < 0:
		return fmt.Sprintf("%s + %g", n, -a)
	}
	return fmt.Sprintf("%s - %g", n, a)
}

// qPlots draws q's means and sds against the iteration, log-scaled, as
// in the paper's Figure 1. They live in q's unconstrained space; each curve
// is labelled with its transform of the latent (log(tau)) when the model can
// be loaded.
func (c *plotCmd) qPlots(dir string, m *infer.Model) ([]panel, []string, error) {
	head, cols, err := readCSV(filepath.Join(dir, "trace.csv"), "trace", qColumn)
	if err != nil {
		return nil, nil, err
	}
	var labels map[string]string
	if m != nil {
		labels = uLabels(m.IR)
	}
	iters := cols[0]
	total := 0
	// the legend has a panel of its own, beside the curves, covering none
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	mk := func(prefix, title string) (panel, error) {
		p := panel{Plot: plot.New()}
		p.Title.Text = title
		p.X.Label.Text = "iteration"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		total = 0
		for j, h := range head {
			if !strings.HasPrefix(h, prefix) {
				continue
			}
			if total++; total > c.Max {
				continue
			}
			var xy plotter.XYs
			for i, it := range iters {
				if it > 0 {
					xy = append(xy, plotter.XY{X: it, Y: cols[j][i]})
				}
			}
			name := strings.TrimPrefix(h, prefix)
			if l, ok := labels[name]; ok {
				name = l
			}
			p.curves = append(p.curves, curve{name, xy})
		}
		if total == 0 {
			return p, userErrorf("it is written by mscppl run --out DIR", "trace.csv has no %s columns", prefix)
		}
		colors := distinctColors(len(p.curves))
		for i, cv := range p.curves {
			l, err := plotter.NewLine(cv.xy)
			if err != nil {
				return p, err
			}
			l.Color = colors[i]
			p.Add(l)
			if prefix == "mean_" {
				legend.Add(cv.label, l) // the same colours in both panels
			}
		}
		return p, nil
	}

	pm, err := mk("mean_", "mean of q (unconstrained space)")
	if err != nil {
		return nil, nil, err
	}
	ps, err := mk("sd_", "sd of q (unconstrained space)")
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	if total > c.Max {
		notes = append(notes, fmt.Sprintf("drew %d of %d components; use --max %d to draw them all", c.Max, total, total))
	}
	if m != nil && m.IR.LatentDim > total {
		notes = append(notes, fmt.Sprintf("trace.csv holds the first %d of the %d components of q", total, m.IR.LatentDim))
	}
	lp := panel{Plot: plot.New()}
	lp.HideAxes()
	lp.Title.Text = "components of q"
	lp.Legend = legend
	c.cols = 2
	return []panel{pm, ps, lp}, notes, nil
}

// marginalPlots draws the density of each latent component in its own
// space from DIR/draws.csv (PSIS-resampled posterior draws when the
// summaries are PSIS estimates, draws of q otherwise), with the prior
// dashed, as infer.EstimateMarginals estimates them.
func (c *plotCmd) marginalPlots(e *env, dir string, sum *infer.Summary, m *infer.Model) ([]panel, []string, error) {
	head, cols, err := readCSV(filepath.Join(dir, "draws.csv"), "draws", everyColumn)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, len(head))
	for j, h := range head {
		names[j] = jsonName(h)
	}
	ms := infer.EstimateMarginals(infer.MarginalsInput{Names: names, Draws: cols, Model: m, Summary: sum,
		Variational: filepath.Join(dir, "variational.json"), Max: c.Max})
	var notes []string
	switch {
	case ms.ModelChanged:
		notes = append(notes, fmt.Sprintf("the model %s has changed since the run, so the latents' constraints are unknown", m.Path))
	case ms.NoPrior:
		notes = append(notes, "the model's prior cannot be sampled, so it is not drawn")
	}
	label := "draws"
	if sum != nil {
		switch sum.SummarySource {
		case infer.SourcePSIS:
			label = "posterior (PSIS)"
		case infer.SourceQ:
			label = "q"
		}
	}
	// one colour per component, none repeated; the prior dashed grey
	colors := distinctColors(len(ms.Components))
	var panels []panel
	for j, mg := range ms.Components {
		name := names[j] // a[1], as the summary names it
		p := panel{Plot: plot.New()}
		p.Title.Text = name
		p.X.Label.Text = name
		p.Y.Label.Text = "density"
		if vals, shares, ok := discreteValues(cols[j]); ok {
			// a count or an indicator: the share of the draws at each value
			addBars(&p, vals, shares, colors[j], label)
			p.Legend.Add(label, p.data[0].(plot.Thumbnailer))
			p.Y.Label.Text = "share of draws"
			yFromZero(p.Plot, maxY(p.curves[0].xy), 1)
			panels = append(panels, p)
			continue
		}
		q := xys(mg.Posterior)
		lq, err := plotter.NewLine(q)
		if err != nil {
			return nil, nil, err
		}
		lq.Color = colors[j]
		lq.Width = vg.Points(1.5)
		p.Add(lq)
		p.Legend.Add(label, lq)
		p.curves = append(p.curves, curve{label, q})
		if mg.Prior != nil {
			pr := xys(mg.Prior)
			lp, err := plotter.NewLine(pr)
			if err != nil {
				return nil, nil, err
			}
			lp.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			lp.Color = color.Gray{Y: 80}
			p.Add(lp)
			p.Legend.Add("prior", lp)
			p.curves = append(p.curves, curve{"prior", pr})
		}
		if mg.Constraint != "" {
			p.X.Label.Text = name + " " + mg.Constraint
		}
		yFromZero(p.Plot, maxY(curvesXY(p.curves)...), len(p.curves))
		panels = append(panels, p)
	}
	if len(head) > c.Max {
		notes = append(notes, fmt.Sprintf("drew %d of %d components; use --max %d to draw them all", c.Max, len(head), len(head)))
	}
	return panels, notes, nil
}

// xys is a density curve as gonum/plot takes it.
func xys(pts []infer.Point) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		out[i] = plotter.XY{X: p.X, Y: p.Density}
	}
	return out
}
