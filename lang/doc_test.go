package lang

import (
	"os"
	"strings"
	"testing"
)

// The grammar listing of doc.go is the code block under "# Grammar": one
// production per line, long ones continued on lines indented one tab
// more. TestDocGrammar compares it, production by production and up to
// the spacing, with what participle prints for the parser
// (parser.String()); go test ./lang -run TestDocGrammar -update rewrites
// it.

const docGrammarWidth = 72 // wrap productions longer than this

// TestDocGrammar: the grammar listed in doc.go is the parser's.
func TestDocGrammar(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	from, to := grammarBlock(lines)
	if from < 0 {
		t.Fatal(`doc.go: no code block under "// # Grammar"`)
	}
	want := grammarProductions(parser.String())
	if *update {
		var out []string
		out = append(out, lines[:from]...)
		for _, p := range want {
			for _, l := range wrapProduction(p, docGrammarWidth) {
				out = append(out, "//\t"+l)
			}
		}
		out = append(out, lines[to:]...)
		if err := os.WriteFile("doc.go", []byte(strings.Join(out, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	var got []string
	for _, l := range lines[from:to] {
		l = strings.TrimPrefix(l, "//\t")
		if strings.HasPrefix(l, "\t") && len(got) > 0 {
			got[len(got)-1] += " " + strings.TrimSpace(l)
		} else {
			got = append(got, l)
		}
	}
	for i := range got {
		got[i] = strings.Join(strings.Fields(got[i]), " ")
	}
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		return
	}
	t.Error("the grammar in doc.go is not the parser's; run go test ./lang -run TestDocGrammar -update")
	for i := 0; i < max(len(got), len(want)); i++ {
		g, w := "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("production %d:\ndoc.go: %s\nparser: %s", i+1, g, w)
		}
	}
}

// grammarBlock returns the lines [from, to) of the code block (lines
// starting with "//\t") after the "// # Grammar" heading, or -1, -1.
func grammarBlock(lines []string) (from, to int) {
	from = -1
	for i, l := range lines {
		switch {
		case l == "// # Grammar":
			from = -2
		case from == -2 && strings.HasPrefix(l, "//\t"):
			from = i
		case from >= 0 && !strings.HasPrefix(l, "//\t"):
			return from, i
		}
	}
	return -1, -1
}

// grammarProductions splits participle's EBNF into productions, one per
// line, with single spaces between tokens.
func grammarProductions(ebnf string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(ebnf), "\n") {
		out = append(out, strings.Join(strings.Fields(l), " "))
	}
	return out
}

// wrapProduction breaks p into lines of at most width characters (unless
// a single token is longer) at spaces outside quotes; the continuation
// lines start with a tab.
func wrapProduction(p string, width int) []string {
	var words []string
	start, quoted := 0, false
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '"':
			quoted = !quoted
		case '\\':
			i++
		case ' ':
			if !quoted {
				words = append(words, p[start:i])
				start = i + 1
			}
		}
	}
	words = append(words, p[start:])
	if k := len(words); k > 1 && words[k-1] == "." {
		words = append(words[:k-2], words[k-2]+" .") // the end stays on the last line
	}
	var out []string
	line := ""
	for _, w := range words {
		if line != "" && len(line)+1+len(w) > width {
			out = append(out, line)
			line = "\t" + w
			continue
		}
		if line != "" && line != "\t" {
			line += " "
		}
		line += w
	}
	return append(out, line)
}

// TestWrapProduction: a wrapped production reads back as the original.
func TestWrapProduction(t *testing.T) {
	p := `A = ("x y" | B)* "\" z" C D Eeeeeeee .`
	lines := wrapProduction(p, 10)
	if len(lines) < 2 {
		t.Fatalf("not wrapped: %q", lines)
	}
	joined := lines[0]
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "\t") {
			t.Fatalf("continuation %q not indented", l)
		}
		joined += " " + l[1:]
	}
	if l := lines[len(lines)-1]; l != "\tEeeeeeee ." {
		t.Errorf("last line %q, want the last token and the end", l)
	}
	if joined != p {
		t.Errorf("wrapped %q reads back as %q", p, joined)
	}
}
