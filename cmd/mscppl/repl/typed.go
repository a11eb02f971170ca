package repl

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mscppl/mscppl/ir/lower"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/lang"
)

// replName names the model typed at the prompt in messages: its lines are
// counted in what was typed (what :show prints).
const replName = "<repl>"

// chunk is a piece of the typed model: the lines from a line that starts a
// block to the one that closes it (usually one block; kinds are the block
// names at its top level), or comments between blocks (no kinds).
type chunk struct {
	kinds []string
	lines []string
}

// typed is the model typed at the prompt, block by block.
type typed struct {
	chunks []chunk
	open   *chunk // the block being typed: its braces are not balanced yet
	dirty  bool   // changed since it was last loaded
}

func (t *typed) empty() bool { return len(t.chunks) == 0 && t.open == nil }

// src is the typed text, the open block included.
func (t *typed) src() []byte {
	var sb strings.Builder
	for _, c := range t.all() {
		for _, l := range c.lines {
			sb.WriteString(l)
			sb.WriteByte('\n')
		}
	}
	return []byte(sb.String())
}

func (t *typed) all() []chunk {
	if t.open == nil {
		return t.chunks
	}
	return append(append([]chunk(nil), t.chunks...), *t.open)
}

func (t *typed) numLines() int {
	n := 0
	for _, c := range t.all() {
		n += len(c.lines)
	}
	return n
}

// has reports whether a complete block of this kind was typed.
func (t *typed) has(kind string) bool {
	for _, c := range t.chunks {
		for _, k := range c.kinds {
			if k == kind {
				return true
			}
		}
	}
	return false
}

// add adds a complete chunk. A single block of a kind typed before
// replaces that block in place (a person retypes a block to correct it);
// it reports whether it did.
func (t *typed) add(c chunk) (replaced bool) {
	t.dirty = true
	if len(c.kinds) == 1 {
		for i, old := range t.chunks {
			if len(old.kinds) == 1 && old.kinds[0] == c.kinds[0] {
				t.chunks[i] = c
				return true
			}
		}
	}
	t.chunks = append(t.chunks, c)
	return false
}

func (t *typed) clear() { *t = typed{} }

// openBalance reads the open chunk with the language's lexer.
func (t *typed) openBalance() lang.Balance {
	return lang.BalanceOf([]byte(strings.Join(t.open.lines, "\n")))
}

func isIdentStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdentByte(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }

// leadingWord is the identifier at the start of s (after spaces) and its
// byte column (1-based).
func leadingWord(s string) (string, int) {
	i := len(s) - len(strings.TrimLeft(s, " \t"))
	j := i
	for j < len(s) && isIdentByte(s[j]) {
		j++
	}
	if j == i || !isIdentStart(s[i]) {
		return "", i + 1
	}
	return s[i:j], i + 1
}

func isOneOf(s string, list []string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// modelLine takes a line that is not a command: a line of the block being
// typed, the start of a block, a comment between blocks, or a mistake,
// reported at once. When a block closes and the typed text has a model
// block, the model is loaded.
func (r *state) modelLine(text string) {
	t := &r.typed
	if t.open == nil {
		if strings.TrimSpace(text) == "" {
			return
		}
		b := lang.BalanceOf([]byte(text))
		if b.Tokens > 0 && (len(b.Words) == 0 || !isOneOf(b.Words[0], lang.BlockKinds)) {
			if r.bareEval(text) {
				return
			}
			word, col := leadingWord(text)
			r.strayLine(text, word, col)
			return
		}
		t.open = &chunk{}
	}
	t.open.lines = append(t.open.lines, text)
	b := t.openBalance()
	if b.Tokens == 0 && !b.InComment {
		// comments between blocks
		t.add(chunk{lines: t.open.lines})
		t.open = nil
		return
	}
	if !b.Complete() {
		return
	}
	c := *t.open
	t.open = nil
	c.kinds = b.Words
	if t.add(c) && len(c.kinds) == 1 {
		fmt.Fprintf(r.stdout, "replaced the %s block\n", c.kinds[0])
	}
	if t.has("model") {
		r.useTyped()
		r.reload()
	}
}

// strayLine reports a line that is neither a command nor the start of a
// block, positioned where it would have gone in the typed model.
func (r *state) strayLine(text, word string, col int) {
	e := &lang.Error{
		Pos: lang.Pos{File: replName, Line: r.typed.numLines() + 1, Col: col},
		Msg: "this line is neither a command nor the start of a block",
		Hint: "commands start with ':' (:help lists them); a model is typed block by block, " +
			"each block starting with its name, as in latent { mu: real } or model { ... }",
	}
	if word != "" {
		if isOneOf(word, r.names) && r.last == nil {
			e.Msg = "this line is neither a command nor the start of a block, and there is no fit to evaluate it under"
			e.Hint = fmt.Sprintf("%s is a name of the model: :run first, then type %s (or :eval %s) to evaluate it", word, strings.TrimSpace(text), strings.TrimSpace(text))
		} else if s := lang.Suggest(word, lang.BlockKinds); s != "" {
			e.Hint = fmt.Sprintf("did you mean %q?", s)
		} else if isOneOf(":"+word, commands) {
			e.Hint = fmt.Sprintf("commands start with ':', as in :%s", word)
		} else if s := lang.Suggest(":"+word, commands); s != "" {
			e.Hint = fmt.Sprintf("did you mean %s? commands start with ':'", s)
		}
	}
	sources := map[string][]byte{replName: append(r.typed.src(), text+"\n"...)}
	lang.ErrorList{e}.Format(r.stderr, sources)
}

// useTyped makes the typed model the current one.
func (r *state) useTyped() {
	r.modelPath = replName
	r.typed.dirty = false
}

// typedReady reports whether the typed model can be loaded for :check or
// :run, saying why not.
func (r *state) typedReady() bool {
	if o := r.typed.open; o != nil {
		line := r.typed.numLines() - len(o.lines) + 1
		switch b := r.typed.openBalance(); {
		case b.Tokens == 0:
			r.fail(infer.Errorf("close it with */, or drop what was typed with :clear",
				"the comment at %s:%d is not closed", replName, line))
			return false
		case b.InComment:
			r.fail(infer.Errorf("close the comment with */ and the block with }, or drop what was typed with :clear",
				"the block at %s:%d is not closed: it ends inside a /* comment", replName, line))
			return false
		}
		r.fail(infer.Errorf("close it with }, or drop what was typed with :clear",
			"the block at %s:%d is not closed", replName, line))
		return false
	}
	return true
}

// showTyped prints the typed model with its line numbers (those of its
// messages), or the loaded file's text when nothing was typed.
func (r *state) showTyped(w io.Writer) {
	t := &r.typed
	var src []byte
	name := replName
	switch {
	case !t.empty():
		src = t.src()
	case r.modelPath != "" && r.modelPath != replName:
		b, err := os.ReadFile(r.modelPath)
		if err != nil {
			r.fail(infer.FileError(r.modelPath, "model", err))
			return
		}
		src, name = b, r.modelPath
	default:
		r.fail(infer.Errorf("type a model block by block (data { ... }, latent { ... }, model { ... }) or :load FILE.msc",
			"nothing typed yet"))
		return
	}
	fmt.Fprintf(w, "%s:\n", name)
	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	for i, l := range lines {
		fmt.Fprintf(w, "%4d  %s\n", i+1, l)
	}
	switch {
	case t.open != nil:
		what := "block"
		if t.openBalance().Tokens == 0 {
			what = "comment"
		}
		fmt.Fprintf(w, "(the %s at line %d is not closed yet)\n", what, len(lines)-len(t.open.lines)+1)
	case name == replName && !t.has("model"):
		fmt.Fprintln(w, "(no model block yet: it is loaded once its model block is typed, or with :check)")
	}
}

// bareEval evaluates a line typed outside a block as :eval when there is a
// fit and the line is an expression of it; it reports whether it did.
func (r *state) bareEval(text string) bool {
	if r.last == nil {
		return false
	}
	expr := strings.TrimSpace(text)
	src := []byte(expr)
	if kind, inner := evalShape(src); kind == evalMean {
		src = inner // mean(x) of a scalar x, as :eval reads it
	}
	if _, err := lower.CompileExpr(r.last.Model.Comp, evalName, src); err != nil {
		return false
	}
	r.eval(expr)
	return true
}
