package main

import (
	"image/color"
	"math"
	"sort"
	"strconv"

	"github.com/mscppl/mscppl/infer"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// tableau are matplotlib's (and so ArviZ's) ten default colours.
var tableau = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255}, {148, 103, 189, 255},
	{140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255}, {188, 189, 34, 255}, {23, 190, 207, 255},
}

// distinctColors are n colours, no two alike: matplotlib's ten, then hues
// evenly spread around the colour wheel.
func distinctColors(n int) []color.RGBA {
	if n <= len(tableau) {
		return append([]color.RGBA(nil), tableau[:n]...)
	}
	out := make([]color.RGBA, n)
	for i := range out {
		out[i] = hsv(float64(i)/float64(n), 0.75, 0.8)
	}
	return out
}

// hsv is the colour of hue h in [0, 1), saturation s and value v.
func hsv(h, s, v float64) color.RGBA {
	h6 := h * 6
	i := math.Floor(h6)
	f := h6 - i
	p, q, t := v*(1-s), v*(1-s*f), v*(1-s*(1-f))
	var r, g, b float64
	switch int(i) % 6 {
	case 0:
		r, g, b = v, t, p
	case 1:
		r, g, b = q, v, p
	case 2:
		r, g, b = p, v, t
	case 3:
		r, g, b = p, q, v
	case 4:
		r, g, b = t, p, v
	default:
		r, g, b = v, p, q
	}
	return color.RGBA{uint8(255*r + 0.5), uint8(255*g + 0.5), uint8(255*b + 0.5), 255}
}

// niceStep is the tick spacing 1, 2 or 5 times a power of ten that cuts
// span into about n intervals.
func niceStep(span float64, n int) float64 {
	if !(span > 0) || math.IsInf(span, 0) {
		return 1
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// roundTicks labels the multiples of a round step (1, 2 or 5 times a power
// of ten), so an axis from 0 reads 0, 0.1, 0.2, ... and never 0.5, 2.5, 4.5.
type roundTicks struct{}

func (roundTicks) Ticks(min, max float64) []plot.Tick {
	step := niceStep(max-min, 5)
	if span := max - min; math.IsInf(span, 0) || math.IsNaN(span) || !(step > 0) || span/step > 100 {
		// a range too wide to step through (values near +-1e308 overflow
		// the span): its two ends only, never a loop that does not end
		var out []plot.Tick
		for _, v := range []float64{min, max} {
			if !math.IsInf(v, 0) && !math.IsNaN(v) {
				out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 3, 64)})
			}
		}
		return out
	}
	digits := 0
	if step < 1 {
		digits = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	var out []plot.Tick
	for k := math.Ceil(min/step - 1e-9); k*step <= max+1e-9*step; k++ {
		v := k * step
		if v == 0 {
			v = 0 // no -0
		}
		scale := math.Pow(10, float64(digits))
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(math.Round(v*scale)/scale, 'f', -1, 64)})
		if minor := v + step/2; minor < max {
			out = append(out, plot.Tick{Value: minor})
		}
	}
	return out
}

// headroom is the share of a panel's height above its data left free for
// a legend of entries lines at the top, so that it covers no curve.
func headroom(entries int) float64 {
	return math.Min(0.6, 0.08*float64(entries)+0.08)
}

// yFromZero makes the y axis of a density or count run from 0 to a round
// value above the data, with room on top for a legend of entries lines,
// and round ticks.
func yFromZero(p *plot.Plot, top float64, entries int) {
	if !(top > 0) || math.IsInf(top, 0) {
		top = 1
	}
	want := top / (1 - headroom(entries))
	step := niceStep(want, 5)
	p.Y.Min = 0
	p.Y.Max = math.Ceil(want/step-1e-9) * step
	p.Y.Tick.Marker = roundTicks{}
	p.Legend.Top = true
}

// maxY is the largest y of the curves.
func maxY(xys ...plotter.XYs) float64 {
	m := 0.0
	for _, xy := range xys {
		for _, p := range xy {
			m = math.Max(m, p.Y)
		}
	}
	return m
}

// kde is infer.KDE as plot points.
func kde(xs []float64, n int) plotter.XYs {
	d := infer.KDE(xs, n)
	out := make(plotter.XYs, len(d))
	for i, p := range d {
		out[i] = plotter.XY{X: p.X, Y: p.Density}
	}
	return out
}

// discreteValues reports whether every draw is an integer with at most 30
// distinct values (a count, an indicator), and returns the share of the
// draws at each value, in increasing order.
func discreteValues(xs []float64) (vals, shares []float64, ok bool) {
	count := map[float64]int{}
	for _, v := range xs {
		if v != math.Trunc(v) || math.IsInf(v, 0) {
			return nil, nil, false
		}
		if count[v]++; len(count) > 30 {
			return nil, nil, false
		}
	}
	for v := range count {
		vals = append(vals, v)
	}
	sort.Float64s(vals)
	for _, v := range vals {
		shares = append(shares, float64(count[v])/float64(len(xs)))
	}
	return vals, shares, len(vals) > 0
}

// ranks are the ranks 1..n of the pooled draws, ties given their average
// rank (Vehtari et al. 2021, section 4).
func ranks(pooled []float64) []float64 {
	idx := make([]int, len(pooled))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return pooled[idx[a]] < pooled[idx[b]] })
	r := make([]float64, len(pooled))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && pooled[idx[j+1]] == pooled[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		i = j + 1
	}
	return r
}

// rankCounts counts the ranks r (1..n) in bins equal-width bins.
func rankCounts(r []float64, n, bins int) []float64 {
	out := make([]float64, bins)
	for _, v := range r {
		b := int((v - 1) / float64(n) * float64(bins))
		if b >= bins {
			b = bins - 1
		}
		out[b]++
	}
	return out
}
