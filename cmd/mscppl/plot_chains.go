package main

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// chainColumns are the columns of the chain files drawn: the latents and
// derived quantities, not lp__ nor Stan's sampler columns (accept_stat__).
func chainColumns(names []string) []int {
	var out []int
	for j, n := range names {
		if !strings.HasSuffix(n, "__") {
			out = append(out, j)
		}
	}
	return out
}

// chainPlots reads the chain files and keeps the named components (a
// vector's name: all of its), or else at most --max columns, the scalars
// first (mu and tau before theta[1], ...), with a note when some are left
// out.
func (c *plotCmd) chainPlots(dir string, want []string) ([]string, [][][]float64, []int, []string, error) {
	names, chains, err := readChains(dir)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	var order []int
	if len(want) > 0 {
		if order, err = namedColumns(names, want, filepath.Join(dir, "output_1.csv")); err != nil {
			return nil, nil, nil, nil, err
		}
	} else {
		order = scalarsFirst(names, chainColumns(names))
	}
	var cols []int
	var notes []string
	for _, j := range order {
		c, r, v := firstNonFinite(chains, j)
		lo, hi := columnRange(chains, j)
		switch {
		case c < 0 && !math.IsInf(hi-lo, 0):
			cols = append(cols, j)
		case c < 0: // a density's bandwidth and the axis overflow
			notes = append(notes, fmt.Sprintf("%s spans from %g to %g, a range beyond the largest float, so it is not drawn", jsonName(names[j]), lo, hi))
		default:
			notes = append(notes, fmt.Sprintf("%s has NaN or infinite samples (the first: %g in draw %d of %s), so it is not drawn",
				jsonName(names[j]), v, r+1, filepath.Join(dir, fmt.Sprintf("output_%d.csv", c+1))))
		}
	}
	if len(cols) == 0 {
		return nil, nil, nil, nil, userErrorf("it is written by mscppl run --out DIR", "%s has no latent columns", filepath.Join(dir, "output_1.csv"))
	}
	if len(want) == 0 && len(cols) > c.Max {
		notes = append(notes, fmt.Sprintf("drew %d of %d components; use --max %d to draw them all, or name them", c.Max, len(cols), len(cols)))
		cols = cols[:c.Max]
	}
	return names, chains, cols, notes, nil
}

// scalarsFirst orders the columns js of a chain file: the scalars (a name
// without an index) first, then the components of vectors and matrices,
// each group in the file's order (the model's declarations).
func scalarsFirst(names []string, js []int) []int {
	var scalars, rest []int
	for _, j := range js {
		if strings.Contains(names[j], ".") {
			rest = append(rest, j)
		} else {
			scalars = append(scalars, j)
		}
	}
	return append(scalars, rest...)
}

// namedColumns are the columns of the components named by want, in its
// order: a component (tau, theta[2], theta.2) or a vector's or matrix's
// name (theta: all its components). An unknown name is an error listing
// the components of file.
func namedColumns(names, want []string, file string) ([]int, error) {
	var out []int
	for _, w := range want {
		n := len(out)
		for _, j := range chainColumns(names) {
			base, _, _ := strings.Cut(names[j], ".")
			if names[j] == w || jsonName(names[j]) == w || base == w {
				out = append(out, j)
			}
		}
		if len(out) == n {
			var all []string
			for _, j := range chainColumns(names) {
				all = append(all, jsonName(names[j]))
			}
			return nil, userErrorf("the components are "+strings.Join(all, ", "), "no component %s in %s", w, file)
		}
	}
	return out, nil
}

// tracePlots draw ArviZ's plot_trace: per component, the density of each
// chain's samples (left) and the samples against the draw (right), one
// colour per chain.
func (c *plotCmd) tracePlots(dir string, want []string) ([]panel, []string, error) {
	names, chains, cols, notes, err := c.chainPlots(dir, want)
	if err != nil {
		return nil, nil, err
	}
	colors := distinctColors(len(chains))
	var panels []panel
	for _, j := range cols {
		name := jsonName(names[j])
		dens := panel{Plot: plot.New()}
		dens.Title.Text = name
		dens.X.Label.Text = name
		dens.Y.Label.Text = "density"
		tr := panel{Plot: plot.New()}
		tr.Title.Text = name
		tr.X.Label.Text = "draw"
		tr.Y.Label.Text = name
		for k, ch := range chains {
			label := fmt.Sprintf("chain %d", k+1)
			d := kde(ch[j], 200)
			l, err := plotter.NewLine(d)
			if err != nil {
				return nil, nil, err
			}
			l.Color = colors[k]
			dens.Add(l)
			dens.Legend.Add(label, l)
			dens.curves = append(dens.curves, curve{label, d})
			xy := make(plotter.XYs, len(ch[j]))
			for i, v := range ch[j] {
				xy[i] = plotter.XY{X: float64(i + 1), Y: v}
			}
			t, err := plotter.NewLine(xy)
			if err != nil {
				return nil, nil, err
			}
			t.Color = colors[k]
			t.Width = vg.Points(0.6)
			tr.Add(t)
			tr.curves = append(tr.curves, curve{label, xy})
		}
		yFromZero(dens.Plot, maxY(curvesXY(dens.curves)...), len(chains))
		panels = append(panels, dens, tr)
	}
	return panels, notes, nil
}

// columnRange is the least and the greatest value of column j.
func columnRange(chains [][][]float64, j int) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, ch := range chains {
		for _, v := range ch[j] {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return lo, hi
}

// firstNonFinite finds the first NaN or infinite value of column j: its
// chain, draw and value, or a chain of -1 when there is none.
func firstNonFinite(chains [][][]float64, j int) (chain, draw int, v float64) {
	for c, ch := range chains {
		for r, v := range ch[j] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return c, r, v
			}
		}
	}
	return -1, -1, 0
}

func curvesXY(cs []curve) []plotter.XYs {
	out := make([]plotter.XYs, len(cs))
	for i, c := range cs {
		out[i] = c.xy
	}
	return out
}

// rankPlots draw the rank histograms of Vehtari et al. (2021): per
// component, the draws of all chains are ranked together and each chain's
// ranks are counted in equal bins, one row per chain, the count a chain
// would have if all chains mixed dashed. Chains that disagree pile up at
// one end; the plot shows what R-hat measures.
func (c *plotCmd) rankPlots(dir string, want []string) ([]panel, []string, error) {
	names, chains, cols, notes, err := c.chainPlots(dir, want)
	if err != nil {
		return nil, nil, err
	}
	colors := distinctColors(len(chains))
	var panels []panel
	for _, j := range cols {
		name := jsonName(names[j])
		var pooled []float64
		for _, ch := range chains {
			pooled = append(pooled, ch[j]...)
		}
		n := len(pooled)
		r := ranks(pooled)
		p := panel{Plot: plot.New()}
		p.Title.Text = name
		p.X.Label.Text = "rank (all chains)"
		p.Y.Label.Text = "chain"
		// each chain's counts; one scale for the panel, the uniform count
		// 0.4 of a row high unless a bin would reach the next row
		counts := make([][]float64, len(chains))
		scale := math.Inf(1)
		start := 0
		for k, ch := range chains {
			m := len(ch[j])
			bins := rankBins(m)
			counts[k] = rankCounts(r[start:start+m], n, bins)
			start += m
			scale = math.Min(scale, 0.4*float64(bins)/float64(m))
			for _, cnt := range counts[k] {
				scale = math.Min(scale, 0.9/cnt)
			}
		}
		var ticks []plot.Tick
		for k := range chains {
			bins := len(counts[k])
			expected := float64(len(chains[k][j])) / float64(bins)
			base := float64(k)
			// the histogram as a stepped area from the chain's baseline,
			// the uniform count dashed
			ring := plotter.XYs{{X: 0.5, Y: base}}
			var xy plotter.XYs
			for b, cnt := range counts[k] {
				lo := 0.5 + float64(n)*float64(b)/float64(bins)
				hi := 0.5 + float64(n)*float64(b+1)/float64(bins)
				h := base + scale*cnt
				ring = append(ring, plotter.XY{X: lo, Y: h}, plotter.XY{X: hi, Y: h})
				xy = append(xy, plotter.XY{X: (lo + hi) / 2, Y: cnt})
			}
			ring = append(ring, plotter.XY{X: float64(n) + 0.5, Y: base})
			poly, err := plotter.NewPolygon(ring)
			if err != nil {
				return nil, nil, err
			}
			poly.Color = colors[k]
			poly.LineStyle.Color = colors[k]
			p.Add(poly)
			u, err := plotter.NewLine(plotter.XYs{{X: 0.5, Y: base + scale*expected}, {X: float64(n) + 0.5, Y: base + scale*expected}})
			if err != nil {
				return nil, nil, err
			}
			u.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
			u.Color = color.Gray{Y: 80}
			p.Add(u)
			p.curves = append(p.curves, curve{fmt.Sprintf("chain %d", k+1), xy})
			ticks = append(ticks, plot.Tick{Value: base, Label: fmt.Sprint(k + 1)})
		}
		p.Y.Min, p.Y.Max = 0, float64(len(chains))
		p.Y.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = 0.5, float64(n)+0.5
		panels = append(panels, p)
	}
	return panels, notes, nil
}

// rankBins is the number of bins of a chain of m draws: 20, fewer for a
// short chain (about 5 draws a bin).
func rankBins(m int) int {
	return max(1, min(20, m/5))
}

// pairsPlots draw the named components against each other, a scatter of
// the draws (draws.csv) below the diagonal and each one's marginal on it
// (bars for a count or an indicator).
func (c *plotCmd) pairsPlots(dir string, want []string) ([]panel, []string, error) {
	if len(want) < 2 {
		return nil, nil, userErrorf("name them after the directory: mscppl plot pairs DIR mu tau [OUT]", "pairs needs two or more components, got %d", len(want))
	}
	head, cols, err := readCSV(filepath.Join(dir, "draws.csv"), "draws", everyColumn)
	if err != nil {
		return nil, nil, err
	}
	index := map[string]int{}
	var all []string
	for j, h := range head {
		index[h], index[jsonName(h)] = j, j
		all = append(all, jsonName(h))
	}
	sel := make([]int, len(want))
	for i, w := range want {
		j, ok := index[w]
		if !ok {
			return nil, nil, userErrorf("the components are "+strings.Join(all, ", "), "no component %s in %s", w, filepath.Join(dir, "draws.csv"))
		}
		sel[i] = j
	}
	n := len(sel)
	c.cols = n
	colors := distinctColors(n)
	panels := make([]panel, n*n)
	for i, ji := range sel {
		yi := jsonName(head[ji])
		for k, jk := range sel {
			xk := jsonName(head[jk])
			p := panel{Plot: plot.New()}
			switch {
			case k > i:
				continue // the upper triangle stays empty
			case k == i:
				p.Title.Text = yi
				p.X.Label.Text = yi
				if err := marginalOf(&p, cols[ji], colors[i], "density"); err != nil {
					return nil, nil, err
				}
			default:
				p.X.Label.Text = xk
				p.Y.Label.Text = yi
				xy := thinXY(cols[jk], cols[ji], 2000)
				s, err := plotter.NewScatter(xy)
				if err != nil {
					return nil, nil, err
				}
				s.GlyphStyle.Radius = vg.Points(1)
				s.GlyphStyle.Shape = draw.CircleGlyph{}
				s.GlyphStyle.Color = colors[i]
				p.Add(s)
				p.curves = append(p.curves, curve{"draws", xy})
			}
			panels[i*n+k] = p
		}
	}
	return panels, nil, nil
}

// thinXY pairs x and y, every k-th draw so that at most most are kept.
func thinXY(x, y []float64, most int) plotter.XYs {
	step := max(1, int(math.Ceil(float64(len(x))/float64(most))))
	var out plotter.XYs
	for i := 0; i < len(x); i += step {
		out = append(out, plotter.XY{X: x[i], Y: y[i]})
	}
	return out
}

// marginalOf adds the marginal of the draws xs to p: bars at each value
// (their share of the draws) for a count or an indicator, a kernel
// density otherwise; the y axis from 0 with round ticks.
func marginalOf(p *panel, xs []float64, col interface {
	RGBA() (r, g, b, a uint32)
}, label string) error {
	if vals, shares, ok := discreteValues(xs); ok {
		addBars(p, vals, shares, col, label)
		p.Y.Label.Text = "share of draws"
		yFromZero(p.Plot, maxY(p.curves[len(p.curves)-1].xy), 1)
		return nil
	}
	d := kde(xs, 200)
	l, err := plotter.NewLine(d)
	if err != nil {
		return err
	}
	l.Color = col
	l.Width = vg.Points(1.5)
	p.Add(l)
	p.curves = append(p.curves, curve{label, d})
	p.Y.Label.Text = "density"
	yFromZero(p.Plot, maxY(d), 1)
	return nil
}

// addBars draws one bar per value, as wide as 0.8 of the smallest gap.
func addBars(p *panel, vals, shares []float64, col interface {
	RGBA() (r, g, b, a uint32)
}, label string) {
	w := 0.8
	for i := 1; i < len(vals); i++ {
		w = math.Min(w, 0.8*(vals[i]-vals[i-1]))
	}
	h := &plotter.Histogram{FillColor: col, LineStyle: draw.LineStyle{Color: col, Width: vg.Points(0.5)}}
	xy := make(plotter.XYs, len(vals))
	for i, v := range vals {
		h.Bins = append(h.Bins, plotter.HistogramBin{Min: v - w/2, Max: v + w/2, Weight: shares[i]})
		xy[i] = plotter.XY{X: v, Y: shares[i]}
	}
	h.Width = w
	p.Add(h)
	p.curves = append(p.curves, curve{label, xy})
	p.X.Tick.Marker = roundTicks{}
	if len(vals) <= 10 {
		var ticks []plot.Tick
		for _, v := range vals {
			ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprint(v)})
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	p.X.Min, p.X.Max = vals[0]-0.75, vals[len(vals)-1]+0.75
}
