// Package show prints what both the mscppl command and its REPL show: a
// fit's summary, a model's layout, errors with their source line, numbers;
// and writes files atomically.
package show

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/dataset"
	"github.com/mscppl/mscppl/ir/lower"
	"github.com/mscppl/mscppl/ir/structure"
	"github.com/mscppl/mscppl/lang"
)

// Num formats a number for tables: four decimals, or four significant
// digits for very large and very small magnitudes.
func Num(x float64) string {
	if math.Abs(x) >= 1e5 || (x != 0 && math.Abs(x) < 1e-3) {
		return fmt.Sprintf("%.4g", x)
	}
	return fmt.Sprintf("%.4f", x)
}

// Report prints err for a person: positioned errors with their source line
// and a caret, anything else on one line with an optional hint.
func Report(w io.Writer, err error, sources map[string][]byte) {
	var list lang.ErrorList
	var one *lang.Error
	var ue *infer.UserError
	switch {
	case errors.As(err, &list):
		list.Format(w, withFiles(sources, list))
	case errors.As(err, &one):
		lang.ErrorList{one}.Format(w, withFiles(sources, lang.ErrorList{one}))
	case errors.As(err, &ue):
		fmt.Fprintf(w, "mscppl: %s\n", ue.Msg)
		if ue.Hint != "" {
			fmt.Fprintf(w, "hint: %s\n", ue.Hint)
		}
	default:
		fmt.Fprintf(w, "mscppl: %v\n", err)
	}
}

// Summary prints a fit's summary for people: the latents' table shows the
// scalars first, then each vector, a long one (more than LongVector
// elements) by its first and last Ends elements and those a warning or a
// note names, with a line saying how many rows were left out. SummaryAll
// prints every row.
func Summary(w io.Writer, s *infer.Summary) { summary(w, s, false) }

// SummaryAll is Summary with every element of every latent.
func SummaryAll(w io.Writer, s *infer.Summary) { summary(w, s, true) }

// withFiles is sources with the files of the errors it lacks read again:
// infer.Load drops a data file's text once the data are bound.
func withFiles(sources map[string][]byte, l lang.ErrorList) map[string][]byte {
	var more map[string][]byte
	for _, e := range l[:min(len(l), lang.MaxShownErrors)] {
		f := e.Pos.File
		if _, ok := sources[f]; ok || !e.Pos.IsValid() || more[f] != nil {
			continue
		}
		if b, err := os.ReadFile(f); err == nil {
			if more == nil {
				more = maps.Clone(sources)
				if more == nil {
					more = map[string][]byte{}
				}
			}
			more[f] = b
		}
	}
	if more == nil {
		return sources
	}
	return more
}

// LongVector and Ends: a latent with more than LongVector elements is
// shown by its first and last Ends (and those a warning names).
const (
	LongVector = 10
	Ends       = 4
)

func summary(w io.Writer, s *infer.Summary, all bool) {
	fmt.Fprintf(w, "%s: %s, %s kernel, S = %d, %s family, %s updates, %d iterations, seed %d, %.2fs\n",
		s.Model, strings.ToUpper(s.Method), s.Kernel, s.Samples, s.Family, s.Optimizer, s.Iterations, s.Seed, s.ElapsedSeconds)
	if s.Reported != "" {
		fmt.Fprintf(w, "q reported: %s\n", s.Reported)
	}
	var table strings.Builder // the rows of a gap end in blanks, trimmed
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', tabwriter.AlignRight)
	var left []string // "N rows of z", one per elided latent
	if len(s.LatentOrder) > 0 {
		src := sourceText[s.SummarySource]
		if s.SummarySource == infer.SourceQ && math.IsNaN(float64(s.Diagnostics.KhatQ)) && math.IsNaN(float64(s.Diagnostics.Khat)) {
			src = "q's own marginals (the PSIS check was not run)" // skipped (cv, sweep, an interrupted solve): no k-hat
		}
		fmt.Fprintf(w, "latents: %s\n", src)
		fmt.Fprintln(tw, "latent\tmean\tsd\t5%\t50%\t95%\tmcse\t")
		named := append(slices.Clone(s.Warnings), s.Notes...)
		for _, g := range latentGroups(s.LatentOrder) {
			gap := false
			for i, name := range g.names {
				if !all && len(g.names) > LongVector && i >= Ends && i < len(g.names)-Ends && !mentioned(named, name) {
					if !gap {
						fmt.Fprintln(tw, "...\t\t\t\t\t\t\t")
					}
					gap = true
					continue
				}
				gap = false
				m := s.Latent[name]
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, Num(m.Mean), Num(m.SD), fig(m.Q05), fig(m.Q50), fig(m.Q95), fig(m.MCSE))
			}
			if n := g.hidden(all, named); n > 0 {
				left = append(left, fmt.Sprintf("%d of the %d rows of %s", n, len(g.names), g.base))
			}
		}
	}
	tw.Flush()
	for _, line := range strings.SplitAfter(table.String(), "\n") {
		if line != "" {
			fmt.Fprintln(w, strings.TrimRight(line, " \n"))
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(w, "left out: %s; --all prints every row (--json and summary.json have them all)\n", strings.Join(left, ", "))
	}
	if len(s.ParamOrder) > 0 {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "param\tvalue\t")
		for _, name := range s.ParamOrder {
			fmt.Fprintf(tw, "%s\t%s\t\n", name, Num(s.Params[name]))
		}
		tw.Flush()
	}
	d := s.Diagnostics
	// a Markov kernel's change rate is that of its retained state: a
	// trajectory (a state-space kernel) or a sample; particle Gibbs moves
	// both, so its rate is neither alone
	k, _ := msc.LookupKernel(s.Kernel)
	markov := k != nil && k.Markov && !k.Statics
	switch {
	case markov && k.StateSpace:
		fmt.Fprintf(w, "mixing: the retained trajectory changed in %.1f%% of sweeps; mean ESS %.2f of %d\n", 100*d.ChangeRate, d.MeanESS, s.Samples)
	case markov:
		fmt.Fprintf(w, "mixing: conditional sample changed in %.1f%% of iterations (%.1f%% over the last 10%%); mean ESS %.2f of %d\n",
			100*d.ChangeRate, 100*d.ChangeRateLast, d.MeanESS, s.Samples)
	case d.MeanESS > 0:
		fmt.Fprintf(w, "mean ESS %.2f of %d\n", d.MeanESS, s.Samples)
	}
	if s.LogEvidence == s.LogEvidence { // not NaN
		fmt.Fprintf(w, "log evidence: %s (se %s)\n", Num(float64(s.LogEvidence)), fig(s.LogEvidenceSE))
	}
	for _, note := range s.Notes {
		fmt.Fprintf(w, "note: %s\n", note)
	}
	for _, warn := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprintf(w, "verdict: %s\n", s.Verdict)
}

// latentGroup is one latent (or derived quantity) of the table: its name
// and its elements' names.
type latentGroup struct {
	base  string
	names []string
}

// latentGroups groups the names of the table by latent, the scalars first,
// then the vectors and matrices, each in the order given.
func latentGroups(order []string) []latentGroup {
	var scalars, vectors []latentGroup
	for _, name := range order {
		base, _, indexed := strings.Cut(name, "[")
		if !indexed {
			scalars = append(scalars, latentGroup{base: name, names: []string{name}})
			continue
		}
		if n := len(vectors); n > 0 && vectors[n-1].base == base {
			vectors[n-1].names = append(vectors[n-1].names, name)
			continue
		}
		vectors = append(vectors, latentGroup{base: base, names: []string{name}})
	}
	return append(scalars, vectors...)
}

// hidden is the number of rows of g the table leaves out.
func (g latentGroup) hidden(all bool, named []string) int {
	if all || len(g.names) <= LongVector {
		return 0
	}
	n := 0
	for _, name := range g.names[Ends : len(g.names)-Ends] {
		if !mentioned(named, name) {
			n++
		}
	}
	return n
}

// mentioned reports whether one of texts names the element name (z[12],
// not as the end of another name such as xz[12]).
func mentioned(texts []string, name string) bool {
	for _, t := range texts {
		for i := 0; ; {
			j := strings.Index(t[i:], name)
			if j < 0 {
				break
			}
			at := i + j
			if at == 0 || !isNameByte(t[at-1]) {
				return true
			}
			i = at + 1
		}
	}
	return false
}

func isNameByte(c byte) bool {
	return c == '_' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// sourceText says what the latent table describes.
var sourceText = map[infer.SummarySource]string{
	infer.SourcePSIS:    "posterior estimates from PSIS-weighted draws of q",
	infer.SourceQ:       "q's own marginals (k-hat too large for posterior estimates)",
	infer.SourceChain:   "the chains' smoothing marginals (retained trajectories)",
	infer.SourceUnknown: "q's marginals",
}

// fig formats a figure, "-" when it is missing.
func fig(f infer.Figure) string {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return "-"
	}
	return Num(float64(f))
}

// Layout prints what check found: sizes, data, params, latents,
// dimensions, and the structure of a state-space model (or of a model
// that looks like an attempt at one). table may be nil.
func Layout(w io.Writer, model string, m *ir.Model, comp *lower.Compiled, table *dataset.Table) {
	fmt.Fprintf(w, "model %s: ok\n", model)
	for _, note := range m.Notes {
		fmt.Fprintf(w, "note: %s\n", note)
	}
	if table != nil {
		fmt.Fprintf(w, "data %s: %d rows, %d columns\n", table.File, table.Rows, len(table.Header))
	}
	for _, v := range m.Vars {
		if v.Kind == ir.SizeVar {
			fmt.Fprintf(w, "size %s = %d (%s)\n", v.Name, int(v.Value[0]), v.Source)
		}
	}
	section := func(title string, vs []*ir.Var, extra func(*ir.Var) string) {
		if len(vs) == 0 {
			fmt.Fprintf(w, "%s: none\n", title)
			return
		}
		fmt.Fprintf(w, "%s:\n", title)
		for _, v := range vs {
			fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %-10s %-18s %s", v.Name, v.Type, extra(v)), " "))
		}
	}
	section("data", m.Data, func(v *ir.Var) string {
		if v.Source != "" {
			return v.Source
		}
		return fmt.Sprintf("= %g", v.Value[0])
	})
	section("param", m.Params, func(v *ir.Var) string {
		return fmt.Sprintf("%s init %g, unconstrained offset %d", v.Bij.String(), v.Init[0], v.Offset)
	})
	var latents, transformed, derived []*ir.Var
	for _, v := range m.Latents {
		switch {
		case v.Transformed:
			transformed = append(transformed, v)
		case v.Derived != nil:
			derived = append(derived, v)
		default:
			latents = append(latents, v)
		}
	}
	section("latent", latents, func(v *ir.Var) string {
		c := v.Bij.String()
		switch {
		case v.VecBij != nil:
			c = v.VecBij.Name()
		case v.Affine():
			c = "offset and multiplier"
		case v.LowerX != nil || v.UpperX != nil:
			c = "bounds depending on other latents"
		}
		return fmt.Sprintf("%s unconstrained offsets %d..%d", c, v.Offset, v.Offset+v.UDim()-1)
	})
	if len(transformed) > 0 {
		section("transformed (computed once per evaluation of the log density)", transformed, func(v *ir.Var) string {
			if v.Check != nil {
				return v.Check.Text + " checked on each evaluation"
			}
			return ""
		})
	}
	if len(derived) > 0 {
		section("derived (computed on each posterior draw)", derived, func(*ir.Var) string { return "" })
	}
	fmt.Fprintf(w, "unconstrained dimension: %d latent, %d param\n", m.LatentDim, m.ParamDim)
	fmt.Fprintf(w, "graph: %d nodes\n", comp.Graph().NumNodes())
	// the structure is worth a line for a state-space model, a hidden
	// Markov model or a GLM, or a model that looks like an attempt at a
	// state-space model (then with the reason it is not)
	if st := structure.Of(comp); st.Kind != structure.KindGeneral || st.StateSpace.Attempt {
		fmt.Fprintf(w, "structure: %s\n", st)
	}
	if path := infer.StateSpacePath(comp); path != "" {
		fmt.Fprintln(w, path)
	}
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory and a rename, so that an interrupted or failed run never leaves
// a half-written file behind.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
