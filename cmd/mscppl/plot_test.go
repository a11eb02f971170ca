package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/stdlib"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
)

// boundsNames are the 13 components of testdata/plot/bounds.msc, as
// the summary names them (draws.csv says v.1).
var boundsNames = []string{"mu", "tau", "p", "b", "neg", "v[1]", "v[2]", "v[3]", "v[4]", "v[5]", "v[6]", "v[7]", "v[8]"}

// boundsSupport is each component's support.
var boundsSupport = map[string][2]float64{
	"tau": {0, math.Inf(1)}, "p": {0, 1}, "b": {2, 5}, "neg": {math.Inf(-1), 0},
}

// fitBounds runs testdata/plot/bounds.msc (prior only, one latent of each
// kind of bound and a vector) with --out and returns the run directory.
func fitBounds(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	code, _, stderr := mscppl("run", "testdata/plot/bounds.msc", "--iters", "300", "--draws", "1000", "--quiet", "--out", dir)
	require.Equal(t, 0, code, stderr)
	return dir
}

func testEnv() (*env, *bytes.Buffer) {
	var out bytes.Buffer
	return &env{stdout: &out, stderr: &out, sources: map[string][]byte{}}, &out
}

func labels(p panel) []string {
	var out []string
	for _, c := range p.curves {
		out = append(out, c.label)
	}
	return out
}

// TestPlotCommandLine: mscppl plot KIND DIR [OUT] (or -o OUT) writes the
// picture and says so; a file of the run directory stands for it; bad
// input gets a clear message, exit code 1 and no file at all.
func TestPlotCommandLine(t *testing.T) {
	dir := fitBounds(t)
	empty := t.TempDir()
	for _, c := range []struct {
		name   string
		args   []string
		out    string // the picture written, or "" for an error
		stderr string // a part of stderr
	}{
		{"positional output", []string{"q", dir, dir + "/t.png"}, dir + "/t.png", "note: drew 8 of 13 components; use --max 13 to draw them all"},
		{"default output", []string{"marginals", dir}, dir + "/marginals.svg", "note: drew 8 of 13 components; use --max 13 to draw them all"},
		{"-o alias", []string{"q", dir, "-o", dir + "/t.svg", "--max", "13"}, dir + "/t.svg", ""},
		{"both spellings agree", []string{"q", dir, dir + "/u.svg", "--out", dir + "/u.svg", "--max", "20"}, dir + "/u.svg", ""},
		{"a file of the run", []string{"marginals", dir + "/draws.csv", dir + "/m.svg", "--max", "13"}, dir + "/m.svg", ""},
		{"the file's directory", []string{"q", dir + "/summary.json", "--max", "13"}, dir + "/q.svg", ""},
		{"pairs", []string{"pairs", dir, "mu", "tau", "v[2]", dir + "/p.svg"}, dir + "/p.svg", ""},
		{"pairs in Stan's names, default output", []string{"pairs", dir, "mu", "v.1"}, dir + "/pairs.svg", ""},
		{"pairs of one", []string{"pairs", dir, "mu", dir + "/p1.svg"}, "", "pairs needs two or more components, got 1"},
		{"pairs of an unknown name", []string{"pairs", dir, "mu", "sigma"}, "", "no component sigma in " + dir + "/draws.csv\nhint: the components are mu, tau, p, b, neg, v[1]"},
		{"trace of named components", []string{"trace", dir, "tau", "v", dir + "/tr.svg"}, dir + "/tr.svg", ""},
		{"rank of an unknown name", []string{"rank", dir, "sigma"}, "", "no component sigma in " + dir + "/output_1.csv\nhint: the components are mu, tau, p, b, neg, v[1]"},
		{"names for another kind", []string{"marginals", dir, "mu", dir + "/m2.svg"}, "", "too many arguments: mu " + dir + "/m2.svg"},
		{"no chain files", []string{"trace", empty, dir + "/c.svg"}, "", "cannot read the chain file " + empty + "/output_1.csv: no such file"},
		{"no chain files for rank", []string{"rank", empty, dir + "/r.svg"}, "", "cannot read the chain file " + empty + "/output_1.csv: no such file"},
		{"two outputs", []string{"q", dir, dir + "/a.svg", "-o", dir + "/b.svg"}, "", "two output files"},
		{"bad extension", []string{"q", dir, dir + "/t.txt"}, "", "cannot draw " + dir + "/t.txt\nhint: use a .svg or .png file name"},
		{"no such directory", []string{"q", dir + "/nowhere"}, "", "cannot read the run directory " + dir + "/nowhere: no such directory\nhint: give the directory written by mscppl run --out DIR"},
		{"not a run directory", []string{"marginals", empty, dir + "/e.svg"}, "", "cannot read the draws file " + empty + "/draws.csv: no such file\nhint: give the directory written by mscppl run --out DIR"},
		{"no trace", []string{"q", empty, dir + "/e.svg"}, "", "cannot read the trace file " + empty + "/trace.csv: no such file"},
		{"--max 0", []string{"q", dir, dir + "/z.svg", "--max", "0"}, "", "--max must be at least 1"},
		{"missing output directory", []string{"q", dir, dir + "/no/t.svg"}, "", "no directory " + dir + "/no"},
		{"output is a directory", []string{"q", dir, empty + ".svg"}, "", "it is a directory"},
		{"unknown kind", []string{"histogram", dir}, "", "must be one of"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "output is a directory" {
				require.NoError(t, os.MkdirAll(empty+".svg", 0o755))
			}
			before, _ := os.ReadDir(dir)
			code, stdout, stderr := mscppl(append([]string{"plot"}, c.args...)...)
			require.NotContains(t, stderr, "panic")
			if c.out == "" {
				want := 1 // bad input; a usage error (an unknown kind, --max 0) exits 2
				if c.name == "unknown kind" || c.name == "--max 0" {
					want = 2
				}
				require.Equal(t, want, code, stderr)
				require.Empty(t, stdout)
				require.Contains(t, stderr, c.stderr)
				after, _ := os.ReadDir(dir)
				require.Equal(t, len(before), len(after), "no file written, not even a temporary one")
				return
			}
			require.Equal(t, 0, code, stderr)
			require.Equal(t, "wrote "+c.out+"\n", stdout)
			if c.stderr == "" {
				require.Empty(t, stderr)
			} else {
				require.Contains(t, stderr, c.stderr)
			}
			st, err := os.Stat(c.out)
			require.NoError(t, err)
			require.Greater(t, st.Size(), int64(1000))
		})
	}
}

// TestULabel: a component of q's space is named by the bijection that maps
// it onto the latent.
func TestULabel(t *testing.T) {
	for _, c := range []struct {
		bij  stdlib.Bijection
		want string
	}{
		{stdlib.Bijection{}, "x"},
		{stdlib.Bijection{HasLower: true}, "log(x)"},
		{stdlib.Bijection{HasLower: true, Lower: 2}, "log(x - 2)"},
		{stdlib.Bijection{HasLower: true, Lower: -1.5}, "log(x + 1.5)"},
		{stdlib.Bijection{HasUpper: true}, "log(-x)"},
		{stdlib.Bijection{HasUpper: true, Upper: 3}, "log(3 - x)"},
		{stdlib.Bijection{HasLower: true, HasUpper: true, Upper: 1}, "logit(x)"},
		{stdlib.Bijection{HasLower: true, HasUpper: true, Upper: 4}, "logit(x/4)"},
		{stdlib.Bijection{HasLower: true, HasUpper: true, Lower: 2, Upper: 5}, "logit((x - 2)/3)"},
	} {
		require.Equal(t, c.want, uLabel(&ir.Var{Name: "x", Bij: c.bij}, "x"), c.bij.String())
	}
	require.Equal(t, "x (unconstrained)", uLabel(&ir.Var{Name: "x", LowerX: &ir.Num{}}, "x"), "bounds that are expressions")
}

// TestQPlots: two panels (q's means and sds), in q's unconstrained
// space, each curve named as the bijection makes it, in colours no two
// alike, and the legend in a third panel of its own (it covers no curve);
// at most --max curves, with a note when some are left out.
func TestQPlots(t *testing.T) {
	dir := fitBounds(t)
	e, _ := testEnv()
	all := []string{"mu", "log(tau)", "logit(p)", "logit((b - 2)/3)", "log(-neg)", "v[1]", "v[2]", "v[3]", "v[4]", "v[5]", "v[6]", "v[7]", "v[8]"}
	for _, c := range []struct {
		max  int
		want []string
		note string
	}{
		{20, all, ""},
		{13, all, ""},
		{8, all[:8], "drew 8 of 13 components; use --max 13 to draw them all"},
		{1, all[:1], "drew 1 of 13 components; use --max 13 to draw them all"},
	} {
		panels, notes, err := (&plotCmd{Kind: "q", Max: c.max}).panels(e, dir)
		require.NoError(t, err)
		require.Len(t, panels, 3)
		// a run of 300 iterations has not converged, and says so
		require.Equal(t, "mean of q (unconstrained space)", verdictless(panels[0].Title.Text))
		require.Equal(t, "sd of q (unconstrained space)", verdictless(panels[1].Title.Text))
		for _, p := range panels[:2] {
			require.Equal(t, "iteration", p.X.Label.Text)
			require.Equal(t, c.want, labels(p), "max %d", c.max)
			require.Equal(t, len(c.want), len(lineColors(p)), "max %d: a colour per curve, none repeated", c.max)
			require.Empty(t, legendEntries(p), "no legend over the curves")
			roundSteps(t, p.Title.Text+" y", labelled(p.Y))
		}
		require.NotEmpty(t, legendEntries(panels[2]), "the legend's own panel")
		if c.note == "" {
			require.Empty(t, notes)
		} else {
			require.Equal(t, []string{c.note}, notes)
		}
	}
}

// verdictless is a title without the verdict of a run that did not
// converge.
func verdictless(title string) string {
	return strings.TrimSuffix(title, " (NOT converged)")
}

func readSummary(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	var sum map[string]any
	require.NoError(t, json.Unmarshal(b, &sum))
	return sum
}

// integral is the trapezoid rule over a curve.
func integral(xy plotter.XYs) float64 {
	s := 0.0
	for i := 1; i < len(xy); i++ {
		s += (xy[i].X - xy[i-1].X) * (xy[i].Y + xy[i-1].Y) / 2
	}
	return s
}

// TestMarginalPlots: one panel per component up to --max (with a note
// beyond), the posterior from draws.csv and the prior, both only on the
// component's support and both densities there; the half-Cauchy prior of
// tau is its density, not a flat line; with q's own draws, q's exact
// Gaussian density.
func TestMarginalPlots(t *testing.T) {
	dir := fitBounds(t)
	e, _ := testEnv()
	post := map[string]string{"psis": "posterior (PSIS)", "q": "q"}[readSummary(t, dir)["summary_source"].(string)]
	for _, c := range []struct {
		max    int
		panels int
		note   string
	}{
		{20, 13, ""},
		{8, 8, "drew 8 of 13 components; use --max 13 to draw them all"},
		{3, 3, "drew 3 of 13 components; use --max 13 to draw them all"},
	} {
		panels, notes, err := (&plotCmd{Kind: "marginals", Max: c.max}).panels(e, dir)
		require.NoError(t, err)
		require.Len(t, panels, c.panels)
		if c.note == "" {
			require.Empty(t, notes)
		} else {
			require.Equal(t, []string{c.note}, notes)
		}
		for j, p := range panels {
			name := boundsNames[j]
			require.Equal(t, name, verdictless(p.Title.Text))
			require.Equal(t, []string{post, "prior"}, labels(p), name)
			sup, bounded := boundsSupport[name]
			if bounded {
				require.Contains(t, p.X.Label.Text, "<", "the label shows the constraint")
			} else {
				require.Equal(t, name, p.X.Label.Text)
				sup = [2]float64{math.Inf(-1), math.Inf(1)}
			}
			for _, cv := range p.curves {
				require.Greater(t, len(cv.xy), 150, name)
				for _, pt := range cv.xy {
					require.Greater(t, pt.X, sup[0], "%s %s below its support", name, cv.label)
					require.Less(t, pt.X, sup[1], "%s %s above its support", name, cv.label)
					require.True(t, pt.Y >= 0 && !math.IsInf(pt.Y, 0), "%s %s: density %g", name, cv.label, pt.Y)
				}
				// the plotted range holds the bulk of each density (the model is
				// prior only: the posterior is the prior)
				require.InDelta(t, 0.97, integral(cv.xy), 0.06, "%s %s", name, cv.label)
			}
		}
	}

	panels, _, err := (&plotCmd{Kind: "marginals", Max: 2}).panels(e, dir)
	require.NoError(t, err)
	// the prior of tau is half-Cauchy(0, 5): 2/(5 pi (1 + (x/5)^2))
	for _, pt := range panels[1].curves[1].xy {
		if pt.X > 0.5 && pt.X < 20 {
			want := 2 / (5 * math.Pi * (1 + pt.X*pt.X/25))
			require.InDelta(t, want, pt.Y, 0.25*want, "tau's prior at %g", pt.X)
		}
	}
	// the prior of mu is N(0, 1)
	for _, pt := range panels[0].curves[1].xy {
		require.InDelta(t, math.Exp(-pt.X*pt.X/2)/math.Sqrt(2*math.Pi), pt.Y, 0.03, "mu's prior at %g", pt.X)
	}

	// when the summaries are q's own (k-hat too large), q is drawn exactly
	sum := readSummary(t, dir)
	sum["summary_source"] = "q"
	b, err := json.Marshal(sum)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644))
	var s infer.Summary
	require.NoError(t, json.Unmarshal(b, &s))
	panels, _, err = (&plotCmd{Kind: "marginals", Max: 2}).panels(e, dir)
	require.NoError(t, err)
	require.Equal(t, []string{"q", "prior"}, labels(panels[0]))
	m, sd := s.QLatent["mu"].Mean, s.QLatent["mu"].SD
	for _, pt := range panels[0].curves[0].xy {
		d := (pt.X - m) / sd
		require.InDelta(t, math.Exp(-d*d/2)/(sd*math.Sqrt(2*math.Pi)), pt.Y, 1e-9, "q's density of mu at %g", pt.X)
	}
	// tau = exp(u) with u Gaussian: a log-normal density, none below 0
	for _, pt := range panels[1].curves[0].xy {
		require.Greater(t, pt.X, 0.0)
		require.True(t, pt.Y >= 0 && !math.IsInf(pt.Y, 0))
	}
}

// TestREPLPlot: :plot KIND FILE in the REPL draws the last run and says
// "wrote FILE" once, with the same notes as mscppl plot.
func TestREPLPlot(t *testing.T) {
	dir := t.TempDir()
	script := strings.Join([]string{
		":load testdata/plot/bounds.msc",
		":run --iters 300 --draws 1000",
		":plot q " + dir + "/t.svg",
		":plot marginals " + dir + "/m.png",
		":quit",
	}, "\n") + "\n"
	var out, errb bytes.Buffer
	code := run([]string{"repl"}, strings.NewReader(script), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	for _, f := range []string{"t.svg", "m.png"} {
		require.Equal(t, 1, strings.Count(out.String(), "wrote "+dir+"/"+f+"\n"), out.String())
		require.FileExists(t, filepath.Join(dir, f))
	}
	require.Contains(t, errb.String(), "note: drew 8 of 13 components; use --max 13 to draw them all")
}

// TestREPLPlotTypedModel: a model typed in the REPL has no file to reload,
// so the REPL hands the run's model to the plot (the curve of s is labelled
// log(s), with no note that the constraints are unknown), and :plot KIND
// without a file writes KIND.svg, as mscppl plot KIND DIR does.
func TestREPLPlotTypedModel(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	script := strings.Join([]string{
		"latent {", "  mu: real", "  s: real<lower=0>", "}",
		"model {", "  mu ~ normal(0, 1)", "  s ~ normal(0, 1)", "}",
		":run --iters 300 --draws 1000",
		":plot q",
		":plot marginals m.svg",
		":quit",
	}, "\n") + "\n"
	var out, errb bytes.Buffer
	code := run([]string{"repl"}, strings.NewReader(script), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	require.Contains(t, out.String(), "wrote q.svg\n")
	require.Contains(t, out.String(), "wrote m.svg\n")
	require.FileExists(t, filepath.Join(dir, "q.svg"))
	require.NotContains(t, errb.String(), "constraints are unknown")
}

// TestPlotFindsModelFromAnyFolder: plot marginals, which needs the run's
// model (its constraints and prior), finds it through manifest.json's
// path relative to the run's folder when run from another folder, where
// summary.json's path (relative to where the run started) leads nowhere.
func TestPlotFindsModelFromAnyFolder(t *testing.T) {
	src, err := os.ReadFile("testdata/plot/bounds.msc")
	require.NoError(t, err)
	work := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(work, "models"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(work, "elsewhere"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(work, "models", "bounds.msc"), src, 0o644))
	t.Chdir(work)
	code, _, stderr := mscppl("run", "models/bounds.msc", "--iters", "300", "--draws", "500", "--quiet", "--out", "runs/r1")
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(filepath.Join("runs", "r1", "manifest.json"))
	require.NoError(t, err)
	var m manifest
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, filepath.Join("..", "..", "models", "bounds.msc"), m.Model)
	t.Chdir(filepath.Join(work, "elsewhere"))
	code, stdout, stderr := mscppl("plot", "marginals", filepath.Join("..", "runs", "r1"), "--max", "13")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "wrote "+filepath.Join("..", "runs", "r1", "marginals.svg")+"\n", stdout)
	require.NotContains(t, stderr, "cannot load")
}
