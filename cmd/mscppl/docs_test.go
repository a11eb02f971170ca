package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/internal/testtier"
)

// The documentation's tests: every command and every model that the README
// and docs/ show is run, and the lists of docs/language.md are the
// vocabulary tables'.
//
// A block is a command block when it is fenced as ```sh: each of its lines
// (or each part of a line between &&) that starts with ./mscppl or mscppl is
// a command. A block is a model when it is fenced as ```msc, or unfenced
// (```) with a line that opens a block (data {, model {, ...). An HTML
// comment on the line before the fence says more:
//
//	<!-- excerpt: PATH [DATA] -->  the model block's lines (comments and
//	                              blank lines aside) are lines of the model
//	                              file PATH, in order, and PATH checks with
//	                              DATA
//	<!-- data: DATA -->            the model block is a whole model that
//	                              checks with the data file DATA
//
// A model block without a comment is a whole model that checks alone. A
// ```text block right after a command block (blank lines between) is that
// command's output (stdout and stderr as a terminal shows them), compared
// after masking durations. The fast tier runs the cheap commands (check,
// list, version) and parses the others; the long tier runs them all.
//
// docs/layout.md and the README say how to write a page so that its tests
// find its blocks: tag commands ```sh, models ```msc and outputs ```text.

// docRoot is the repository's root, from this package's folder.
const docRoot = "../.."

// docBlock is one fenced code block of a page.
type docBlock struct {
	page string // relative to the root
	line int    // of the opening fence (1-based)
	end  int    // index of the closing fence (0-based)
	lang string
	text string
	// note is the HTML comment on the line before the fence, without its
	// markers ("data: PATH"), if any
	note string
	// output is the ```text block that follows a command block, if any
	output *docBlock
}

func (b docBlock) String() string { return fmt.Sprintf("%s:%d", b.page, b.line) }

// docPages are the README and the pages of docs/, relative to the root.
func docPages(t *testing.T) []string {
	pages, err := filepath.Glob(filepath.Join(docRoot, "docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, pages)
	out := []string{"README.md"}
	for _, p := range pages {
		out = append(out, filepath.ToSlash(strings.TrimPrefix(p, docRoot+string(filepath.Separator))))
	}
	return out
}

// fenceRE matches the opening fence of a code block, with its language.
var fenceRE = regexp.MustCompile("^\\s*```(\\w*)\\s*$")

var noteRE = regexp.MustCompile(`^\s*<!--\s*(.*?)\s*-->\s*$`)

// docBlocksOf splits a page into its fenced code blocks.
func docBlocksOf(page, src string) []docBlock {
	var blocks []docBlock
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		b := docBlock{page: page, line: i + 1, lang: m[1]}
		if i > 0 {
			if m := noteRE.FindStringSubmatch(lines[i-1]); m != nil {
				b.note = m[1]
			}
		}
		indent := lines[i][:len(lines[i])-len(strings.TrimLeft(lines[i], " "))]
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			body = append(body, strings.TrimPrefix(lines[i], indent))
		}
		b.text = strings.Join(body, "\n") + "\n"
		b.end = i
		blocks = append(blocks, b)
		// a text block right after a command block is its output
		if n := len(blocks); n >= 2 && b.lang == "text" && blocks[n-2].lang == "sh" &&
			strings.TrimSpace(strings.Join(lines[blocks[n-2].end+1:b.line-1], "")) == "" {
			blocks[n-2].output = &blocks[n-1]
		}
	}
	return blocks
}

// allDocBlocks reads every page's blocks.
func allDocBlocks(t *testing.T) []docBlock {
	var out []docBlock
	for _, p := range docPages(t) {
		src, err := os.ReadFile(filepath.Join(docRoot, p))
		require.NoError(t, err)
		out = append(out, docBlocksOf(p, string(src))...)
	}
	return out
}

var blockOpenRE = regexp.MustCompile(`(?m)^\s*(data|param|latent|model|derived|functions|infer)\s*\{`)

// isModel says whether a block is a model (or an excerpt of one).
func (b docBlock) isModel() bool {
	return b.lang == "msc" || b.lang == "" && blockOpenRE.MatchString(b.text)
}

// commands are the mscppl command lines of a ```sh block, as words.
func (b docBlock) commands() [][]string {
	if b.lang != "sh" {
		return nil
	}
	var out [][]string
	for _, line := range strings.Split(b.text, "\n") {
		for _, part := range strings.Split(line, "&&") {
			w := shellWords(part)
			if len(w) > 0 && (w[0] == "./mscppl" || w[0] == "mscppl") {
				out = append(out, w[1:])
			}
		}
	}
	return out
}

// shellWords splits a command line into words as sh would for the simple
// lines the docs hold: whitespace separates, single and double quotes
// group, and a # that starts a word starts a comment.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case r == '#' && !in:
			return words
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// docWorkDir is a fresh folder whose entries link to the root's, so that
// the docs' relative paths resolve and what a command writes stays in it.
func docWorkDir(t *testing.T) string {
	dir := t.TempDir()
	root, err := filepath.Abs(docRoot)
	require.NoError(t, err)
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	for _, e := range entries {
		require.NoError(t, os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())))
	}
	return dir
}

// runDocCommand runs a command line of the docs in-process; "< FILE" takes
// stdin from FILE. It returns the exit status, stdout and stderr, and the
// two as a terminal shows them, interleaved.
func runDocCommand(t *testing.T, args []string) (code int, stdout, stderr, shown string) {
	var stdin io.Reader = strings.NewReader("")
	for i, a := range args {
		if a == "<" && i+1 < len(args) {
			src, err := os.ReadFile(args[i+1])
			require.NoError(t, err)
			stdin = bytes.NewReader(src)
			args = append(args[:i:i], args[i+2:]...)
			break
		}
	}
	var out, errb, both bytes.Buffer
	code = run(args, stdin, io.MultiWriter(&out, &both), io.MultiWriter(&errb, &both))
	return code, out.String(), errb.String(), both.String()
}

// cheapCommands run in the fast tier as written; the others are parsed and
// their model checked with its data, and run in the long tier.
var cheapCommands = map[string]bool{"check": true, "list": true, "version": true}

// durationRE matches the durations a command prints (2.89s, 0.15s), and
// timeLineRE the line of phase times a run longer than 5 s adds.
var (
	durationRE = regexp.MustCompile(`\b\d+(\.\d+)?s\b`)
	timeLineRE = regexp.MustCompile(`(?m)^time: .*\n`)
)

// maskDurations is a command's output without what depends on the
// machine's speed.
func maskDurations(s string) string {
	return durationRE.ReplaceAllString(timeLineRE.ReplaceAllString(s, ""), "TIMEs")
}

// TestDocsCommands checks every command of the docs' ```sh blocks from a
// folder that sees the repository's files: the cheap ones (check, list,
// version) run, exit with status 0 and print the ```text block that
// follows them, if any; the others are parsed as mscppl parses them (their
// flag values checked) and the model and data they name checked.
// TestDocsCommandsRun runs them all.
func TestDocsCommands(t *testing.T) { docCommands(t, false) }

// TestDocsCommandsRun runs every command of the docs as written, in order
// within a page (a plot reads the --out folder of the run before it): each
// exits with status 0 and prints the ```text block that follows it.
func TestDocsCommandsRun(t *testing.T) {
	testtier.Skip(t)
	docCommands(t, true)
}

func docCommands(t *testing.T, all bool) {
	blocks := allDocBlocks(t)
	t.Chdir(docWorkDir(t))
	n := 0
	for _, b := range blocks {
		for _, args := range b.commands() {
			n++
			name := b.String() + " " + strings.Join(args, " ")
			require.NotEmpty(t, args, name)
			if all || cheapCommands[args[0]] {
				code, _, stderr, shown := runDocCommand(t, args)
				require.Equalf(t, 0, code, "%s: exit %d\n%s", name, code, stderr)
				if b.output != nil {
					require.Equal(t, maskDurations(b.output.text), maskDurations(shown), "%s: the output shown at %s", name, b.output)
				}
				continue
			}
			model, data := parseDocCommand(t, name, args)
			if model != "" {
				code, _, stderr, _ := runDocCommand(t, []string{"check", model, data})
				require.Equalf(t, 0, code, "%s: check %s %s: %s", name, model, data, stderr)
			}
		}
	}
	require.GreaterOrEqual(t, n, 15, "commands found in the docs (the README and docs/ hold about 20)")
}

// parseDocCommand parses a command line as mscppl would, checks its flag
// values, and returns the model and data files it names, if any.
func parseDocCommand(t *testing.T, name string, args []string) (model, data string) {
	for i, a := range args {
		if a == "<" { // a redirection is the shell's
			args = args[:i:i]
			break
		}
	}
	var c cli
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	p, err := newParser(&c, e)
	require.NoError(t, err)
	kctx, err := p.Parse(args)
	require.NoErrorf(t, err, "%s", name)
	require.NoErrorf(t, checkFlagValues(kctx), "%s", name)
	target := kctx.Selected().Target
	if f := target.FieldByName("Model"); f.IsValid() && f.Kind() == reflect.String {
		model = f.String()
	}
	if f := target.FieldByName("Data"); f.IsValid() && f.Kind() == reflect.String {
		data = f.String()
	}
	return model, data
}

// TestDocsModels checks every model block of the docs: a whole model with
// `mscppl check` (with the data its note names), an excerpt by finding its
// lines in the model file its note names and checking that file.
func TestDocsModels(t *testing.T) {
	blocks := allDocBlocks(t)
	t.Chdir(docWorkDir(t))
	n := 0
	for _, b := range blocks {
		if !b.isModel() {
			continue
		}
		n++
		kind, rest, _ := strings.Cut(b.note, ":")
		files := strings.Fields(rest)
		switch strings.TrimSpace(kind) {
		case "excerpt":
			if len(files) == 0 {
				t.Errorf("%s: excerpt of which file?", b)
				continue
			}
			src, err := os.ReadFile(files[0])
			if err != nil {
				t.Errorf("%s: %v", b, err)
				continue
			}
			if missing := excerptMissing(b.text, string(src)); missing != "" {
				t.Errorf("%s: the line %q is not in %s (in this order)", b, missing, files[0])
			}
			if code, _, stderr, _ := runDocCommand(t, append([]string{"check"}, files...)); code != 0 {
				t.Errorf("%s: check %s: exit %d\n%s", b, files, code, stderr)
			}
		case "data", "":
			path := filepath.Join(t.TempDir(), "model.msc")
			require.NoError(t, os.WriteFile(path, []byte(b.text), 0o644))
			if code, _, stderr, _ := runDocCommand(t, append([]string{"check", path}, files...)); code != 0 {
				t.Errorf("%s: check: exit %d\n%s", b, code, stderr)
			}
		default:
			t.Errorf("%s: unknown note %q", b, b.note)
		}
	}
	require.GreaterOrEqual(t, n, 10, "models found in the docs (the README and docs/ hold about 11)")
}

// excerptMissing returns the first line of the excerpt (comments and blank
// lines aside, spaces trimmed) that is not a line of src after the lines
// matched before it; "" when every line is.
func excerptMissing(excerpt, src string) string {
	norm := func(s string) []string {
		var out []string
		sc := bufio.NewScanner(strings.NewReader(s))
		for sc.Scan() {
			l := sc.Text()
			if i := strings.Index(l, "//"); i >= 0 {
				l = l[:i]
			}
			if l = strings.Join(strings.Fields(l), " "); l != "" {
				out = append(out, l)
			}
		}
		return out
	}
	have := norm(src)
	j := 0
	for _, l := range norm(excerpt) {
		for j < len(have) && have[j] != l {
			j++
		}
		if j == len(have) {
			return l
		}
		j++
	}
	return ""
}

// TestDocsBlocksFound: the block reader finds commands, models and outputs
// where the README has them, so that the tests above cannot pass by
// finding nothing.
func TestDocsBlocksFound(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(docRoot, "README.md"))
	require.NoError(t, err)
	var cmds []string
	models, outputs := 0, 0
	for _, b := range docBlocksOf("README.md", string(src)) {
		for _, c := range b.commands() {
			cmds = append(cmds, strings.Join(c, " "))
		}
		if b.isModel() {
			models++
		}
		if b.output != nil {
			outputs++
		}
	}
	require.Contains(t, cmds, "run examples/normal_mean.msc examples/data/normal_mean.csv")
	require.Contains(t, cmds, "check examples/probit.msc examples/data/ionosphere.csv")
	require.Equal(t, 1, models)
	require.Equal(t, 2, outputs)
}

var (
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRE = regexp.MustCompile(`(?m)^#+ (.*)$`)
	slugDrop  = regexp.MustCompile(`[^\w\- ]`)
)

// slug is GitHub's anchor of a heading: lower case, punctuation dropped
// (hyphens and underscores kept), spaces made hyphens.
func slug(heading string) string {
	return strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(heading), ""), " ", "-")
}

// TestDocsLinks: every relative link of the README and docs/ names a file
// that exists, and an anchor names a heading of that page.
func TestDocsLinks(t *testing.T) {
	n := 0
	for _, page := range docPages(t) {
		src, err := os.ReadFile(filepath.Join(docRoot, page))
		require.NoError(t, err)
		for _, m := range linkRE.FindAllStringSubmatch(string(src), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			file, anchor, _ := strings.Cut(target, "#")
			path := filepath.Join(docRoot, filepath.Dir(page), file)
			if file == "" {
				path = filepath.Join(docRoot, page)
			}
			body, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s: the link %s: %v", page, target, err)
				continue
			}
			if anchor == "" {
				continue
			}
			found := false
			for _, h := range headingRE.FindAllStringSubmatch(string(body), -1) {
				found = found || slug(h[1]) == anchor
			}
			if !found {
				t.Errorf("%s: the link %s: no heading with that anchor", page, target)
			}
		}
	}
	require.NotZero(t, n, "links found")
}

// pathRE matches a backquoted path of the repository: words joined by
// slashes.
var pathRE = regexp.MustCompile("`([\\w.-]+(?:/[\\w.-]+)+)/?`")

// TestDocsPaths: every file or folder of the repository that the README
// and docs/ name in backquotes (a path whose first element is an entry of
// the root: `ir/hmmloop.go`, `examples/posteriordb`) exists.
func TestDocsPaths(t *testing.T) {
	entries, err := os.ReadDir(docRoot)
	require.NoError(t, err)
	root := map[string]bool{}
	for _, e := range entries {
		root[e.Name()] = true
	}
	n := 0
	for _, page := range docPages(t) {
		src, err := os.ReadFile(filepath.Join(docRoot, page))
		require.NoError(t, err)
		for _, m := range pathRE.FindAllStringSubmatch(string(src), -1) {
			if first, _, _ := strings.Cut(m[1], "/"); !root[first] {
				continue
			}
			n++
			if _, err := os.Stat(filepath.Join(docRoot, m[1])); err != nil {
				t.Errorf("%s names %s, which does not exist", page, m[1])
			}
		}
	}
	require.Greater(t, n, 20, "paths found in the docs")
}
