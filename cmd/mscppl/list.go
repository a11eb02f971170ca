package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/stdlib"
)

// listCmd prints the vocabularies from their registries: what a model can
// call and what a run can use.
type listCmd struct {
	Kind   string `arg:"" optional:"" enum:"all,methods,kernels,families,distributions,functions" default:"all" help:"What to list: methods, kernels, families, distributions, functions (default all)."`
	Filter string `arg:"" optional:"" help:"Only the names that contain this text."`
}

// vocabEntry is one line of a list: a name, its arguments and what it is.
type vocabEntry struct{ name, args, doc string }

// vocabSection is one kind of name that mscppl list prints (and the docs
// generate their tables from): its kind (the argument of list), its title,
// and its entries read from the registry.
type vocabSection struct {
	kind, title string
	entries     func() []vocabEntry
}

// vocabulary lists the sections of mscppl list, from their registries.
func vocabulary() []vocabSection {
	type entry = vocabEntry
	return []vocabSection{
		{"methods", "inference methods (--method)", func() (out []entry) {
			for _, n := range infer.Methods() {
				out = append(out, entry{n, "", infer.MethodHelp(n)})
			}
			return
		}},
		{"kernels", "Markov kernels of MSC (--kernel)", func() (out []entry) {
			for _, k := range msc.Kernels() {
				if k.Markov {
					out = append(out, entry{k.Name, "", k.Help})
				}
			}
			return
		}},
		{"families", "variational families (--family) and state-space proposals", func() (out []entry) {
			for _, f := range msc.Families() {
				out = append(out, entry{f.Name, "", f.Help})
			}
			return
		}},
		{"distributions", "distributions (y ~ NAME(...), NAME_lpdf(y | ...), NAME_rng(...))", func() (out []entry) {
			for _, n := range stdlib.FamilyNames() {
				f, _ := stdlib.Lookup(n)
				var ps []string
				for _, p := range f.Params {
					ps = append(ps, p.Name)
				}
				out = append(out, entry{n, "(" + strings.Join(ps, ", ") + ")", f.Doc})
			}
			return
		}},
		{"functions", "built-in functions", func() (out []entry) {
			for _, f := range ir.Functions() {
				out = append(out, entry{f.Name, "(" + f.Params + ")", f.Doc})
			}
			return
		}},
	}
}

func (c *listCmd) Run(e *env) error {
	sections := vocabulary()
	for _, s := range sections {
		if c.Kind != "all" && c.Kind != s.kind {
			continue
		}
		var rows []vocabEntry
		for _, en := range s.entries() {
			if strings.Contains(en.name, c.Filter) {
				rows = append(rows, en)
			}
		}
		if len(rows) == 0 {
			continue
		}
		printList(e.stdout, s.title, func(w io.Writer) {
			for _, r := range rows {
				fmt.Fprintf(w, "  %s%s\t%s\n", r.name, r.args, r.doc)
			}
		})
	}
	return nil
}

// printList prints a titled two-column list.
func printList(out io.Writer, title string, rows func(io.Writer)) {
	fmt.Fprintln(out, title+":")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	rows(tw)
	tw.Flush()
}
