package main

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// writeChains writes chain files as CmdStan does: comment lines, a header
// with lp__ first, one row per draw; cols[chain][column][draw].
func writeChains(t *testing.T, dir string, head []string, chains [][][]float64) {
	t.Helper()
	for k, ch := range chains {
		var b strings.Builder
		b.WriteString("# model = test_model\n# method = sample (Default)\n#   num_samples = 1000\n")
		b.WriteString(strings.Join(head, ",") + "\n")
		b.WriteString("# Adaptation terminated\n")
		for i := range ch[0] {
			row := make([]string, len(ch))
			for j := range ch {
				row[j] = strconv.FormatFloat(ch[j][i], 'g', -1, 64)
			}
			b.WriteString(strings.Join(row, ",") + "\n")
		}
		b.WriteString("# \n#  Elapsed Time: 0.01 seconds (Warm-up)\n")
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("output_%d.csv", k+1)), []byte(b.String()), 0o644))
	}
}

// normalChains are nc chains of n standard normal draws of mu, a.1 (shifted
// by shift[k] in chain k) and a.2, with lp__ and accept_stat__.
func normalChains(nc, n int, shift []float64) ([]string, [][][]float64) {
	head := []string{"lp__", "accept_stat__", "mu", "a.1", "a.2"}
	r := rand.New(rand.NewPCG(1, 2))
	chains := make([][][]float64, nc)
	for k := range chains {
		chains[k] = make([][]float64, len(head))
		for j := range head {
			for i := 0; i < n; i++ {
				v := r.NormFloat64()
				if head[j] == "a.1" && shift != nil {
					v += shift[k]
				}
				chains[k][j] = append(chains[k][j], v)
			}
		}
	}
	return head, chains
}

// TestReadChains: CmdStan's layout is read with its comments skipped, one
// chain per file, in the files' order; bad files get a clear error.
func TestReadChains(t *testing.T) {
	dir := t.TempDir()
	head, chains := normalChains(3, 50, nil)
	writeChains(t, dir, head, chains)
	names, got, err := readChains(dir)
	require.NoError(t, err)
	require.Equal(t, head, names)
	require.Equal(t, chains, got)

	for _, c := range []struct {
		name, file, want string
	}{
		{"no header", "# only comments\n", "no header line"},
		{"no draws", "lp__,mu\n", "has no draws"},
		{"ragged row", "lp__,mu\n1,2\n3\n", "line 3: 1 values for the 2 columns"},
		{"bad number", "lp__,mu\n1,x\n", `line 2, column mu: "x" is not a number`},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(d, "output_1.csv"), []byte(c.file), 0o644))
			_, _, err := readChains(d)
			require.ErrorContains(t, err, c.want)
		})
	}
	d := t.TempDir()
	_, _, err = readChains(d)
	require.ErrorContains(t, err, "cannot read the chain file "+d+"/output_1.csv: no such file")
	require.NoError(t, os.WriteFile(filepath.Join(d, "output_1.csv"), []byte("lp__,mu\n1,2\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(d, "output_2.csv"), []byte("lp__,nu\n1,2\n"), 0o644))
	_, _, err = readChains(d)
	require.ErrorContains(t, err, "output_2.csv: its columns differ from those of output_1.csv")
}

// lineColors are the colours of a panel's lines, polygons, histograms and
// scatters, each once: as many as the panel's curves when none repeats.
func lineColors(p panel) map[color.RGBA]bool {
	out := map[color.RGBA]bool{}
	add := func(c color.Color) {
		if c != nil {
			r, g, b, a := c.RGBA()
			out[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}] = true
		}
	}
	for _, d := range p.data {
		switch v := d.(type) {
		case *plotter.Line:
			if len(v.Dashes) == 0 { // the prior and the uniform counts are dashed grey
				add(v.Color)
			}
		case *plotter.Polygon:
			add(v.Color)
		case *plotter.Histogram:
			add(v.FillColor)
		case *plotter.Scatter:
			add(v.GlyphStyle.Color)
		}
	}
	return out
}

// legendEntries are the legend's texts, read from the legend's height:
// the number of entries it holds (gonum keeps the texts unexported).
func legendEntries(p panel) []string {
	c := draw.New(vgimg.New(5*vg.Inch, 3*vg.Inch))
	if p.Legend.Rectangle(c).Size().Y == 0 {
		return nil
	}
	return []string{"legend"}
}

// legendClear reports whether the band at the top of the data area as tall
// as the legend holds no point of any curve, as the panel is drawn in a
// tile of savePlots (5 by 3 inches).
func legendClear(t *testing.T, p panel) {
	t.Helper()
	c := draw.New(vgimg.New(5*vg.Inch, 3*vg.Inch))
	dc := p.DataCanvas(c)
	h := p.Legend.Rectangle(c).Size().Y
	require.Greater(t, float64(h), 0.0, "%s has a legend", p.Title.Text)
	_, fy := p.Transforms(&dc)
	band := dc.Max.Y - h - vg.Points(2)
	for _, cv := range p.curves {
		for _, pt := range cv.xy {
			require.Less(t, float64(fy(pt.Y)), float64(band), "%s: %s at (%g, %g) lies under the legend", p.Title.Text, cv.label, pt.X, pt.Y)
		}
	}
}

// roundFromZero checks a density or count axis: from 0, to a round value,
// labelled at multiples of 1, 2 or 5 times a power of ten, 0 among them.
func roundFromZero(t *testing.T, p panel) {
	t.Helper()
	require.Equal(t, 0.0, p.Y.Min, p.Title.Text)
	ticks := p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max)
	var vals []float64
	for _, tk := range ticks {
		if tk.Label != "" {
			v, err := strconv.ParseFloat(tk.Label, 64)
			require.NoError(t, err)
			require.InDelta(t, tk.Value, v, 1e-12, "the label says the value")
			vals = append(vals, v)
		}
	}
	require.GreaterOrEqual(t, len(vals), 3, "%s: ticks %v", p.Title.Text, vals)
	require.Equal(t, 0.0, vals[0], "%s: the first tick is 0", p.Title.Text)
	roundSteps(t, p.Title.Text, vals)
}

// roundSteps checks tick values: equally spaced by 1, 2 or 5 times a power
// of ten, each a multiple of the step (never 0.5, 2.5, 4.5).
func roundSteps(t *testing.T, what string, vals []float64) {
	t.Helper()
	require.GreaterOrEqual(t, len(vals), 2, "%s: ticks %v", what, vals)
	step := vals[1] - vals[0]
	m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
	require.True(t, math.Abs(m-1) < 1e-6 || math.Abs(m-2) < 1e-6 || math.Abs(m-5) < 1e-6, "%s: step %g", what, step)
	for i, v := range vals {
		require.InDelta(t, vals[0]+float64(i)*step, v, 1e-9*step, "%s: ticks %v", what, vals)
		k := v / step
		require.InDelta(t, math.Round(k), k, 1e-6, "%s: %g is not a multiple of %g", what, v, step)
	}
}

// labelled are the values of an axis's labelled ticks.
func labelled(a plot.Axis) []float64 {
	var out []float64
	for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		if tk.Label != "" {
			out = append(out, tk.Value)
		}
	}
	return out
}

// TestRoundTicks: labels at multiples of a round step, never 0.5, 2.5, 4.5.
func TestRoundTicks(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     []string
	}{
		{0, 1, []string{"0", "0.2", "0.4", "0.6", "0.8", "1"}},
		{0, 5, []string{"0", "1", "2", "3", "4", "5"}},
		{0, 0.45, []string{"0", "0.1", "0.2", "0.3", "0.4"}},
		{0.5, 4.5, []string{"1", "2", "3", "4"}},
		{-3, 3, []string{"-2", "0", "2"}},
		{0, 250, []string{"0", "50", "100", "150", "200", "250"}},
	} {
		var got []string
		for _, tk := range (roundTicks{}).Ticks(c.min, c.max) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		require.Equal(t, c.want, got, "[%g, %g]", c.min, c.max)
	}
}

// TestDistinctColors: no colour twice, however many are asked for.
func TestDistinctColors(t *testing.T) {
	for _, n := range []int{1, 4, 10, 11, 13, 40} {
		seen := map[color.RGBA]bool{}
		for _, c := range distinctColors(n) {
			require.False(t, seen[c], "n %d: %v twice", n, c)
			seen[c] = true
		}
		require.Len(t, seen, n)
	}
}

// TestKDE: the kernel estimate of normal quantiles is the normal density
// smoothed by the kernel, N(0, 1 + h^2), which it must match; it spans the
// draws and no more.
func TestKDE(t *testing.T) {
	n := 2000
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = math.Sqrt2 * math.Erfinv(2*(float64(i)+0.5)/float64(n)-1)
	}
	h := 0.9 * math.Pow(float64(n), -0.2) // Silverman: sd 1 < IQR/1.34 of N(0, 1)
	d := kde(xs, 201)
	require.Equal(t, xs[0], d[0].X)
	require.Equal(t, xs[n-1], d[200].X)
	v := 1 + h*h
	for _, p := range d {
		if math.Abs(p.X) < 2.5 {
			require.InDelta(t, math.Exp(-p.X*p.X/(2*v))/math.Sqrt(2*math.Pi*v), p.Y, 0.004, "at %g", p.X)
		}
	}
	require.InDelta(t, 0.99, integral(d), 0.01)
}

// TestRanks: ranks of the pooled draws, ties at their average rank, and
// the counts of two chains that do not mix: the lower chain holds every
// low rank, the upper every high one.
func TestRanks(t *testing.T) {
	require.Equal(t, []float64{4, 1, 2.5, 2.5, 5}, ranks([]float64{3, 1, 2, 2, 7}))
	r := ranks([]float64{0, 1, 2, 3, 10, 11, 12, 13})
	require.Equal(t, []float64{2, 2, 0, 0}, rankCounts(r[:4], 8, 4))
	require.Equal(t, []float64{0, 0, 2, 2}, rankCounts(r[4:], 8, 4))
}

// TestTraceChainPlots: per component (not lp__ nor accept_stat__), a
// density panel and a trace panel, each with a curve per chain in its own
// colour; the trace is the chain's draws against the draw number; the
// density's axis is from 0 with round ticks, its legend above the curves;
// names as in the summary (a[1]); --max with a note.
func TestTraceChainPlots(t *testing.T) {
	dir := t.TempDir()
	head, chains := normalChains(4, 300, nil)
	writeChains(t, dir, head, chains)
	e, _ := testEnv()
	panels, notes, err := (&plotCmd{Kind: "trace", Max: 8}).panels(e, dir)
	require.NoError(t, err)
	require.Empty(t, notes)
	require.Len(t, panels, 6)
	chainLabels := []string{"chain 1", "chain 2", "chain 3", "chain 4"}
	for i, name := range []string{"mu", "a[1]", "a[2]"} {
		dens, tr := panels[2*i], panels[2*i+1]
		j := i + 2
		require.Equal(t, name, dens.Title.Text)
		require.Equal(t, name, tr.Title.Text)
		require.Equal(t, "density", dens.Y.Label.Text)
		require.Equal(t, "draw", tr.X.Label.Text)
		require.Equal(t, chainLabels, labels(dens))
		require.Equal(t, chainLabels, labels(tr))
		require.Len(t, lineColors(dens), 4, "a colour per chain")
		require.Equal(t, lineColors(dens), lineColors(tr), "the same colours in both panels")
		for k, cv := range tr.curves {
			require.Len(t, cv.xy, 300)
			for d, pt := range cv.xy {
				require.Equal(t, float64(d+1), pt.X)
				require.Equal(t, chains[k][j][d], pt.Y)
			}
		}
		for _, cv := range dens.curves {
			require.InDelta(t, 0.99, integral(cv.xy), 0.02, "%s %s", name, cv.label)
		}
		roundFromZero(t, dens)
		legendClear(t, dens)
	}
	panels, notes, err = (&plotCmd{Kind: "trace", Max: 2}).panels(e, dir)
	require.NoError(t, err)
	require.Len(t, panels, 4)
	require.Equal(t, []string{"drew 2 of 3 components; use --max 3 to draw them all, or name them"}, notes)

	// a quantity with a NaN sample (a derived value set in one branch) is
	// left out with a note, in trace and rank alike
	chains[1][3][7] = math.NaN()
	writeChains(t, dir, head, chains)
	for _, kind := range []string{"trace", "rank"} {
		panels, notes, err = (&plotCmd{Kind: kind, Max: 8}).panels(e, dir)
		require.NoError(t, err, kind)
		require.Equal(t, []string{"a[1] has NaN or infinite samples (the first: NaN in draw 8 of " + filepath.Join(dir, "output_2.csv") + "), so it is not drawn"}, notes, kind)
		require.Equal(t, "a[2]", panels[len(panels)-1].Title.Text, kind)
	}

	// finite values whose span overflows (1e308 and -1e308) are left out
	// too: the density's bandwidth and the axis would be infinite (trace
	// failed with "plotter: NaN data point")
	chains[0][4][0], chains[1][4][1] = 1e308, -1e308
	writeChains(t, dir, head, chains)
	for _, kind := range []string{"trace", "rank"} {
		_, notes, err = (&plotCmd{Kind: kind, Max: 8}).panels(e, dir)
		require.NoError(t, err, kind)
		require.Contains(t, notes, "a[2] spans from -1e+308 to 1e+308, a range beyond the largest float, so it is not drawn", kind)
	}
}

// TestChainPlotsNames: trace and rank draw the scalars first (a model that
// declares a vector before mu and tau shows mu and tau under --max), and
// take the components to draw as arguments like pairs: a component, or a
// vector's name for all of its components, in the order given; an unknown
// name lists the components.
func TestChainPlotsNames(t *testing.T) {
	dir := t.TempDir()
	_, chains := normalChains(2, 100, nil)
	head := []string{"lp__", "accept_stat__", "theta.1", "theta.2", "mu"}
	chains[0] = append(chains[0], chains[0][2]) // tau, a copy of a column
	chains[1] = append(chains[1], chains[1][2])
	head = append(head, "tau")
	writeChains(t, dir, head, chains)
	e, _ := testEnv()
	titles := func(ps []panel, step int) []string {
		var out []string
		for i := 0; i < len(ps); i += step {
			out = append(out, ps[i].Title.Text)
		}
		return out
	}
	for _, c := range []struct {
		kind string
		args []string
		max  int
		want []string
		note string
	}{
		{"trace", nil, 2, []string{"mu", "tau"}, "drew 2 of 4 components; use --max 4 to draw them all, or name them"},
		{"rank", nil, 3, []string{"mu", "tau", "theta[1]"}, "drew 3 of 4 components; use --max 4 to draw them all, or name them"},
		{"trace", []string{"theta"}, 1, []string{"theta[1]", "theta[2]"}, ""},
		{"rank", []string{"tau", "theta[2]", "r.svg"}, 8, []string{"tau", "theta[2]"}, ""},
		{"trace", []string{"theta.1", "mu"}, 8, []string{"theta[1]", "mu"}, ""},
	} {
		step := 1
		if c.kind == "trace" {
			step = 2 // a density and a trace per component
		}
		panels, notes, err := (&plotCmd{Kind: c.kind, Max: c.max, Args: c.args}).panels(e, dir)
		require.NoError(t, err, "%s %v", c.kind, c.args)
		require.Equal(t, c.want, titles(panels, step), "%s %v", c.kind, c.args)
		if c.note == "" {
			require.Empty(t, notes)
		} else {
			require.Equal(t, []string{c.note}, notes)
		}
	}
	_, _, err := (&plotCmd{Kind: "trace", Max: 8, Args: []string{"sigma"}}).panels(e, dir)
	require.ErrorContains(t, err, "no component sigma in "+filepath.Join(dir, "output_1.csv"))
	// the picture is the last argument when it has an extension
	names, out, err := (&plotCmd{Kind: "rank", Args: []string{"mu", "tau", "r.png"}}).split()
	require.NoError(t, err)
	require.Equal(t, []string{"mu", "tau"}, names)
	require.Equal(t, "r.png", out)
}

// TestRankPlots: a panel per component, a row per chain; each chain's
// counts add up to its draws; chains from one distribution have counts
// near the uniform one, and a chain shifted above the others holds the
// high ranks (what R-hat measures).
func TestRankPlots(t *testing.T) {
	dir := t.TempDir()
	head, chains := normalChains(4, 400, []float64{0, 0, 0, 5})
	writeChains(t, dir, head, chains)
	e, _ := testEnv()
	panels, _, err := (&plotCmd{Kind: "rank", Max: 8}).panels(e, dir)
	require.NoError(t, err)
	require.Len(t, panels, 3)
	for i, name := range []string{"mu", "a[1]", "a[2]"} {
		p := panels[i]
		require.Equal(t, name, p.Title.Text)
		require.Equal(t, "rank (all chains)", p.X.Label.Text)
		require.Equal(t, []string{"chain 1", "chain 2", "chain 3", "chain 4"}, labels(p))
		require.Len(t, lineColors(p), 4)
		for _, cv := range p.curves {
			require.Len(t, cv.xy, 20)
			total := 0.0
			for _, pt := range cv.xy {
				total += pt.Y
				require.True(t, pt.X > 0.5 && pt.X < 1600.5)
				if name != "a[1]" {
					// binomial(400, 1/20): 20 +- 4.4
					require.InDelta(t, 20, pt.Y, 16, "%s %s", name, cv.label)
				}
			}
			require.Equal(t, 400.0, total)
		}
	}
	// a[1]: chain 4 is 5 sds above the others, so its draws are the top
	// quarter of the ranks, the last five bins
	shifted := panels[1].curves[3].xy
	low := 0.0
	for _, pt := range shifted[:10] {
		low += pt.Y
	}
	require.Equal(t, 0.0, low, "no low ranks in the shifted chain")
	require.InDelta(t, 400, shifted[15].Y+shifted[16].Y+shifted[17].Y+shifted[18].Y+shifted[19].Y, 10)
	// every row stays below the next chain's baseline
	for k, d := range panels[1].data {
		if poly, ok := d.(*plotter.Polygon); ok {
			for _, ring := range poly.XYs {
				for _, pt := range ring {
					require.Less(t, pt.Y, float64(k/2)+0.95, "chain %d's bars reach the next row", k/2+1)
				}
			}
		}
	}
}

// writeDraws writes a draws.csv by hand.
func writeDraws(t *testing.T, dir string, head []string, cols [][]float64) {
	t.Helper()
	var b strings.Builder
	b.WriteString(strings.Join(head, ",") + "\n")
	for i := range cols[0] {
		row := make([]string, len(cols))
		for j := range cols {
			row[j] = strconv.FormatFloat(cols[j][i], 'g', -1, 64)
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "draws.csv"), []byte(b.String()), 0o644))
}

// handDraws are 1000 draws of mu ~ N(0, 1), tau = exp(N), a.1 and a.2
// normal, flag 0/1 (30% ones) and k a count 0..3.
func handDraws() ([]string, [][]float64) {
	head := []string{"mu", "tau", "a.1", "a.2", "flag", "k"}
	r := rand.New(rand.NewPCG(3, 4))
	cols := make([][]float64, len(head))
	for i := 0; i < 1000; i++ {
		cols[0] = append(cols[0], r.NormFloat64())
		cols[1] = append(cols[1], math.Exp(r.NormFloat64()))
		cols[2] = append(cols[2], r.NormFloat64())
		cols[3] = append(cols[3], 2+r.NormFloat64())
		cols[4] = append(cols[4], float64(min(1, i%10/7)))
		cols[5] = append(cols[5], float64(i%4))
	}
	return head, cols
}

// TestPairsPlots: a grid of n by n cells, the upper triangle empty, the
// marginals on the diagonal (bars for the 0/1 flag, with the exact
// shares), below it the draws of the row's component against the
// column's, every draw.
func TestPairsPlots(t *testing.T) {
	dir := t.TempDir()
	head, cols := handDraws()
	writeDraws(t, dir, head, cols)
	e, _ := testEnv()
	c := &plotCmd{Kind: "pairs", Args: []string{"mu", "a[1]", "flag"}}
	panels, _, err := c.panels(e, dir)
	require.NoError(t, err)
	require.Equal(t, 3, c.cols)
	require.Len(t, panels, 9)
	sel := []int{0, 2, 4}
	names := []string{"mu", "a[1]", "flag"}
	for i := range 3 {
		for k := range 3 {
			p := panels[3*i+k]
			switch {
			case k > i:
				require.Nil(t, p.Plot, "the upper triangle is empty")
			case k == i:
				require.Equal(t, names[i], p.Title.Text)
				require.Equal(t, names[i], p.X.Label.Text)
				roundFromZero(t, p)
			default:
				require.Equal(t, names[k], p.X.Label.Text)
				require.Equal(t, names[i], p.Y.Label.Text)
				require.Len(t, p.curves[0].xy, 1000)
				for d, pt := range p.curves[0].xy {
					require.Equal(t, cols[sel[k]][d], pt.X)
					require.Equal(t, cols[sel[i]][d], pt.Y)
				}
			}
		}
	}
	require.Equal(t, "share of draws", panels[8].Y.Label.Text)
	require.Equal(t, plotter.XYs{{X: 0, Y: 0.7}, {X: 1, Y: 0.3}}, panels[8].curves[0].xy)
	require.Equal(t, "density", panels[0].Y.Label.Text)

	cols[0][5] = math.Inf(1)
	writeDraws(t, dir, head, cols)
	_, _, err = (&plotCmd{Kind: "pairs", Args: []string{"mu", "tau"}}).panels(e, dir)
	// draws.csv is written finite: a NaN or infinite cell is an error at its place
	require.ErrorContains(t, err, filepath.Join(dir, "draws.csv")+`:7:1: row 6, column "mu": the value is +Inf`)
	_, _, err = (&plotCmd{Kind: "marginals", Max: 8}).panels(e, dir)
	require.ErrorContains(t, err, filepath.Join(dir, "draws.csv")+`:7:1: row 6, column "mu": the value is +Inf`)
}

// TestMarginalsStyle: the complaints of issue 24 about the marginals, each
// checked: names as in the summary (a[1], not a.1); y axes from 0 with
// round ticks; a 0/1 quantity and a count drawn as bars of their exact
// shares, not a density; a colour per component, none repeated; the legend
// over no curve.
func TestMarginalsStyle(t *testing.T) {
	dir := t.TempDir()
	head, cols := handDraws()
	writeDraws(t, dir, head, cols)
	e, _ := testEnv()
	panels, _, err := (&plotCmd{Kind: "marginals", Max: 8}).panels(e, dir)
	require.NoError(t, err)
	require.Len(t, panels, 6)
	seen := map[color.RGBA]string{}
	for j, p := range panels {
		require.Equal(t, jsonName(head[j]), p.Title.Text)
		require.NotContains(t, p.Title.Text+p.X.Label.Text, ".")
		roundFromZero(t, p)
		if j < 4 { // the bars are labelled at their values
			roundSteps(t, p.Title.Text+" x", labelled(p.X))
		}
		legendClear(t, p)
		for col := range lineColors(p) {
			require.Empty(t, seen[col], "%s has the colour of %s", p.Title.Text, seen[col])
			seen[col] = p.Title.Text
		}
	}
	require.Equal(t, "density", panels[0].Y.Label.Text)
	require.Equal(t, "share of draws", panels[4].Y.Label.Text)
	require.Equal(t, plotter.XYs{{X: 0, Y: 0.7}, {X: 1, Y: 0.3}}, panels[4].curves[0].xy)
	require.Equal(t, plotter.XYs{{X: 0, Y: 0.25}, {X: 1, Y: 0.25}, {X: 2, Y: 0.25}, {X: 3, Y: 0.25}}, panels[5].curves[0].xy)
	for _, p := range panels[4:] {
		var kinds []string
		for _, d := range p.data {
			kinds = append(kinds, fmt.Sprintf("%T", d))
		}
		require.Equal(t, []string{"*plotter.Histogram"}, kinds, "%s: bars, no density line", p.Title.Text)
	}
}

// TestVerdictInTitle: every picture of a run that did not converge says so
// in each title; a converged run's do not.
func TestVerdictInTitle(t *testing.T) {
	dir := t.TempDir()
	head, chains := normalChains(2, 100, nil)
	writeChains(t, dir, head, chains)
	dh, dc := handDraws()
	writeDraws(t, dir, dh, dc)
	e, _ := testEnv()
	for _, converged := range []bool{false, true} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "summary.json"), []byte(fmt.Sprintf(`{"converged": %v, "latent_order": ["mu"]}`, converged)), 0o644))
		for _, c := range []*plotCmd{{Kind: "trace", Max: 8}, {Kind: "rank", Max: 8}, {Kind: "marginals", Max: 8}, {Kind: "pairs", Args: []string{"mu", "tau"}}} {
			panels, _, err := c.panels(e, dir)
			require.NoError(t, err)
			n := 0
			for _, p := range panels {
				if p.Plot == nil || p.Title.Text == "" {
					continue
				}
				n++
				if converged {
					require.NotContains(t, p.Title.Text, "converged", c.Kind)
				} else {
					require.True(t, strings.HasSuffix(p.Title.Text, " (NOT converged)"), "%s: %q", c.Kind, p.Title.Text)
				}
			}
			require.Positive(t, n, c.Kind)
		}
	}
}

// TestRoundTicksHugeRange: an axis from -1e308 to 1e308, whose span
// overflows, gets its two ends as ticks, at once (issue 25: the loop over
// round steps of 1 never ended and plot never returned); a finite 1e300
// span steps as any other.
func TestRoundTicksHugeRange(t *testing.T) {
	ticks := roundTicks{}.Ticks(-1e308, 1e308)
	require.Len(t, ticks, 2)
	require.Equal(t, -1e308, ticks[0].Value)
	require.Equal(t, 1e308, ticks[1].Value)
	require.LessOrEqual(t, len(roundTicks{}.Ticks(0, 1e300)), 12)
}
