package repl

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/lang"
)

// lineEdit is a line being retyped after :edit BLOCK without an editor:
// first its number, then its new text.
type lineEdit struct {
	block string
	chunk int // index in typed.chunks
	first int // the typed model's line number of the block's first line
	line  int // the chosen line, 0 until chosen
}

func (e *lineEdit) prompt() string {
	if e.line == 0 {
		return "line> "
	}
	return "new> "
}

// findBlock is the index of the typed chunk holding block kind.
func (t *typed) findBlock(kind string) (index, first int) {
	first = 1
	for i, c := range t.chunks {
		if slices.Contains(c.kinds, kind) {
			return i, first
		}
		first += len(c.lines)
	}
	return -1, 0
}

// editBlock starts :edit BLOCK: in the editor when there is one, else by
// showing the block's lines with their numbers (those of :show and of the
// messages) and asking which one to retype.
func (r *state) editBlock(kind string) {
	t := &r.typed
	if kind == "" {
		r.fail(infer.Errorf("for example :edit model", "usage: :edit BLOCK"))
		return
	}
	i, first := t.findBlock(kind)
	if i < 0 {
		var kinds []string
		for _, c := range t.chunks {
			kinds = append(kinds, c.kinds...)
		}
		hint := "type the block first (:edit changes a typed block)"
		if r.modelPath != "" && r.modelPath != replName {
			hint = fmt.Sprintf("edit %s in your editor and :load it again", r.modelPath)
		}
		switch {
		case len(kinds) > 0 && lang.Suggest(kind, kinds) != "":
			hint = fmt.Sprintf("did you mean :edit %s?", lang.Suggest(kind, kinds))
		case len(kinds) > 0:
			hint = "the typed blocks are " + strings.Join(kinds, ", ")
		}
		r.fail(infer.Errorf(hint, "no typed %s block", kind))
		return
	}
	if r.opts.Editor != "" {
		r.editInEditor(kind, i)
		return
	}
	for k, l := range t.chunks[i].lines {
		fmt.Fprintf(r.stdout, "%4d  %s\n", first+k, l)
	}
	fmt.Fprintf(r.stdout, "retype which line (%d-%d)? an empty line keeps the block\n", first, first+len(t.chunks[i].lines)-1)
	r.edit = &lineEdit{block: kind, chunk: i, first: first}
}

// editLine takes the line typed while retyping: the line's number, then
// its new text. The block with the new line must still be one complete
// block of the same kinds; else it is kept as it was.
func (r *state) editLine(text string) {
	e, t := r.edit, &r.typed
	c := t.chunks[e.chunk]
	if e.line == 0 {
		if strings.TrimSpace(text) == "" {
			r.edit = nil
			fmt.Fprintf(r.stdout, "the %s block is unchanged\n", e.block)
			return
		}
		n, err := strconv.Atoi(strings.TrimSpace(text))
		if err != nil || n < e.first || n >= e.first+len(c.lines) {
			r.fail(infer.Errorf(fmt.Sprintf("type a number from %d to %d, or an empty line to keep the block", e.first, e.first+len(c.lines)-1),
				"%q is not a line of the %s block", strings.TrimSpace(text), e.block))
			return
		}
		e.line = n
		fmt.Fprintf(r.stdout, "%4d  %s\n", n, c.lines[n-e.first])
		return
	}
	r.edit = nil
	lines := slices.Clone(c.lines)
	lines[e.line-e.first] = text
	r.replaceBlock(e.block, e.chunk, lines)
}

// replaceBlock puts lines in place of typed chunk i, when they are still
// one complete block of the same kinds, and reloads the model when it has
// a model block.
func (r *state) replaceBlock(kind string, i int, lines []string) {
	t := &r.typed
	b := lang.BalanceOf([]byte(strings.Join(lines, "\n")))
	if !b.Complete() || b.Depth != 0 || !slices.Equal(b.Words, t.chunks[i].kinds) {
		r.fail(infer.Errorf("a block's braces must stay balanced and its name unchanged; :edit "+kind+" again",
			"the %s block would no longer be one complete %s block; it is unchanged", kind, kind))
		return
	}
	t.chunks[i] = chunk{kinds: b.Words, lines: lines}
	t.dirty = true
	fmt.Fprintf(r.stdout, "replaced the %s block\n", kind)
	if t.has("model") {
		r.useTyped()
		r.reload()
	}
}

// editInEditor writes the block to a file, runs the editor on it and takes
// the file back.
func (r *state) editInEditor(kind string, i int) {
	path := filepath.Join(r.dir, kind+".msc")
	if err := os.WriteFile(path, []byte(strings.Join(r.typed.chunks[i].lines, "\n")+"\n"), 0o644); err != nil {
		r.fail(err)
		return
	}
	cmd := exec.Command("sh", "-c", r.opts.Editor+` "$1"`, "sh", path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, r.stdout, r.stderr
	if err := cmd.Run(); err != nil {
		r.fail(infer.Errorf("set $EDITOR (or $VISUAL) to an editor, or unset it to retype a line at the prompt",
			"the editor %q failed: %v; the %s block is unchanged", r.opts.Editor, err, kind))
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		r.fail(err)
		return
	}
	r.replaceBlock(kind, i, strings.Split(strings.TrimRight(string(b), "\n"), "\n"))
}
