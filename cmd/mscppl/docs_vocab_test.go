package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/stdlib"
)

// docLanguage is the page whose lists are generated.
var docLanguage = filepath.Join(docRoot, "docs", "language.md")

// generatedRE matches a generated list of a page: its opening marker (with
// the list's name), its text, and its closing marker.
var generatedRE = regexp.MustCompile(`(?s)(<!-- generated: (\w+)[^>]*-->\n)(.*?)(<!-- end generated -->)`)

// TestDocsVocabulary: the lists of built-in functions, distributions and
// settings in docs/language.md are those of the vocabulary tables (ir's
// functions, stdlib's registry, infer.Settings, the run flags' help);
// -update rewrites them.
func TestDocsVocabulary(t *testing.T) {
	src, err := os.ReadFile(docLanguage)
	require.NoError(t, err)
	got, err := regenerateDocLists(string(src), docLists(t))
	require.NoError(t, err)
	if *update {
		require.NoError(t, os.WriteFile(docLanguage, []byte(got), 0o644))
		return
	}
	require.Equal(t, got, string(src), "the generated lists of docs/language.md are stale; run go test ./cmd/mscppl -run TestDocsVocabulary -update")
}

// TestDocsVocabularyCatchesStaleLists: a list that lacks an entry of its
// table, or has one the table lacks, is rewritten.
func TestDocsVocabularyCatchesStaleLists(t *testing.T) {
	src, err := os.ReadFile(docLanguage)
	require.NoError(t, err)
	lists := docLists(t)
	for _, cut := range []string{"| `log1m_exp(x)` |", "| `rayleigh(sigma)` |", "| `param_lr` |"} {
		page := string(src)
		i := strings.Index(page, cut)
		require.GreaterOrEqual(t, i, 0, "%s is in the page", cut)
		j := i + strings.Index(page[i:], "\n") + 1
		stale := page[:i] + page[j:]
		got, err := regenerateDocLists(stale, lists)
		require.NoError(t, err)
		require.NotEqual(t, stale, got, "without %s", cut)
		require.Equal(t, string(src), got)
	}
}

// regenerateDocLists replaces the text of each generated list of page by
// lists[name]; a list with no generator is an error, and so is a generator
// whose list is not on the page.
func regenerateDocLists(page string, lists map[string]string) (string, error) {
	seen := map[string]bool{}
	var err error
	out := generatedRE.ReplaceAllStringFunc(page, func(m string) string {
		sub := generatedRE.FindStringSubmatch(m)
		name := sub[2]
		text, ok := lists[name]
		if !ok {
			err = fmt.Errorf("no generator for the list %q", name)
			return m
		}
		seen[name] = true
		return sub[1] + text + sub[4]
	})
	for name := range lists {
		if !seen[name] && err == nil {
			err = fmt.Errorf("the page has no list %q (<!-- generated: %s --> ... <!-- end generated -->)", name, name)
		}
	}
	return out, err
}

// docLists are the generated lists by name, as Markdown tables.
func docLists(t *testing.T) map[string]string {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	table := func(header string, rows [][]string) string {
		var b strings.Builder
		b.WriteString(header + "\n")
		b.WriteString(strings.Repeat("|---", strings.Count(header, "|")-1) + "|\n")
		for _, r := range rows {
			for i := range r {
				r[i] = cell(r[i])
			}
			b.WriteString("| " + strings.Join(r, " | ") + " |\n")
		}
		return b.String()
	}
	lists := map[string]string{}
	for _, s := range vocabulary() {
		switch s.kind {
		case "functions":
			var rows [][]string
			for _, e := range s.entries() {
				rows = append(rows, []string{"`" + e.name + e.args + "`", e.doc})
			}
			lists["functions"] = table("| function | what it is |", rows)
		case "distributions":
			derived := ir.DerivedNames()
			var rows [][]string
			for _, e := range s.entries() {
				f, _ := stdlib.Lookup(e.name)
				var also []string
				for _, d := range derived {
					if suffix, ok := strings.CutPrefix(d, e.name+"_"); ok && !strings.Contains(suffix, "_") {
						also = append(also, "`"+d+"`")
					}
				}
				kind := "continuous"
				if f.Discrete {
					kind = "discrete"
				}
				if !f.Scalar() {
					kind += ", multivariate"
				}
				rows = append(rows, []string{"`" + e.name + e.args + "`", e.doc, kind, strings.Join(also, ", ")})
			}
			lists["distributions"] = table("| distribution | what it is | kind | functions |", rows)
		}
	}
	// the settings: the table of infer.Settings, whose help is that of
	// the run flag of each key
	var c cli
	p, err := newParser(&c, &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard})
	require.NoError(t, err)
	flags := map[string]*kong.Flag{}
	for _, n := range p.Model.Children {
		if n.Name == "run" {
			for _, f := range n.Flags {
				flags[f.Name] = f
			}
		}
	}
	var rows [][]string
	for _, s := range infer.Settings() {
		f := flags[s.Flag()]
		require.NotNil(t, f, "the setting %s has a run flag of its name", s.Key)
		require.Equal(t, s.Help, f.Help, "--%s's help is the setting's", f.Name)
		rows = append(rows, []string{"`" + s.Key + "`", "`--" + f.Name + "`", s.Help})
	}
	lists["settings"] = table("| setting | flag | what it sets |", rows)
	return lists
}
