package lang

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

var mscLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Comment", Pattern: `//[^\n]*|/\*([^*]|\*+[^*/])*\*+/`},
	{Name: "String", Pattern: `"(\\.|[^"\\\n])*"`},
	{Name: "Number", Pattern: `(\d+(\.\d+)?|\.\d+)([eE][-+]?\d+)?`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_]*`},
	{Name: "Range", Pattern: `\.\.`},
	{Name: "Punct", Pattern: `[-+*/^~=<>,;:()\[\]{}]`},
	{Name: "Whitespace", Pattern: `[ \t\r\n]+`},
})

var parser = participle.MustBuild[File](
	participle.Lexer(mscLexer),
	participle.Elide("Comment", "Whitespace"),
	participle.Unquote("String"),
	participle.UseLookahead(4),
)

// MaxNesting bounds the nesting of brackets, so that hostile input cannot
// exhaust the parser's stack.
const MaxNesting = 200

// ToPos converts a participle position.
func ToPos(p lexer.Position) Pos {
	return Pos{File: p.Filename, Offset: p.Offset, Line: p.Line, Col: p.Column}
}

// Parse parses a .msc file. Errors are an ErrorList with positions.
func Parse(filename string, src []byte) (*File, error) {
	if err := precheck(filename, src); err != nil {
		return nil, err
	}
	f, err := parser.ParseBytes(filename, src)
	if err != nil {
		return nil, translate(filename, src, err)
	}
	f.Name = filename
	if len(f.Blocks) == 0 {
		return nil, ErrorList{{Pos: Pos{File: filename, Line: 1, Col: 1}, Msg: "empty model: a .msc file needs at least a model { ... } block"}}
	}
	return f, nil
}

// posAt computes the position of a byte offset.
func posAt(filename string, src []byte, off int) Pos {
	if off > len(src) {
		off = len(src)
	}
	line := 1 + bytes.Count(src[:off], []byte{'\n'})
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return Pos{File: filename, Offset: off, Line: line, Col: off - start + 1}
}

// precheck rejects binary input and absurd nesting before participle sees it.
func precheck(filename string, src []byte) error {
	if !utf8.Valid(src) {
		off := 0
		for off < len(src) {
			r, size := utf8.DecodeRune(src[off:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		return ErrorList{{Pos: posAt(filename, src, off), Msg: "the file is not valid UTF-8 text (is it a binary file?)"}}
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return ErrorList{{Pos: posAt(filename, src, i), Msg: "the file contains a NUL byte (is it a binary file?)"}}
	}
	depth := 0
	inLine, inBlock, inStr := false, false, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inLine:
			if c == '\n' {
				inLine = false
			}
			continue
		case inBlock:
			if c == '*' && i+1 < len(src) && src[i+1] == '/' {
				inBlock = false
				i++
			}
			continue
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' || c == '\n' {
				inStr = false
			}
			continue
		}
		switch c {
		case '/':
			if i+1 < len(src) && src[i+1] == '/' {
				inLine = true
			} else if i+1 < len(src) && src[i+1] == '*' {
				inBlock = true
				i++
			}
		case '"':
			inStr = true
		case '(', '[', '{':
			depth++
			if depth > MaxNesting {
				return ErrorList{{Pos: posAt(filename, src, i), Msg: fmt.Sprintf("brackets are nested more than %d deep", MaxNesting)}}
			}
		case ')', ']', '}':
			depth--
		}
	}
	return nil
}

// translate turns participle's errors into messages for people.
func translate(filename string, src []byte, err error) error {
	var perr participle.Error
	if !errors.As(err, &perr) {
		return ErrorList{{Pos: Pos{File: filename, Line: 1, Col: 1}, Msg: err.Error()}}
	}
	pos := ToPos(perr.Position())
	if pos.File == "" {
		pos.File = filename
	}
	if pos.Line == 0 {
		pos = posAt(filename, src, len(src))
	}
	msg := perr.Message()
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		tok := ute.Unexpected
		what := fmt.Sprintf("%q", tok.Value)
		if tok.EOF() {
			what = "end of file"
		}
		msg = "unexpected " + what
		hint := ""
		if exp := friendlyExpect(ute.Expect); exp != "" {
			msg += "; expected " + exp
		}
		if tok.EOF() {
			hint = "a block or a bracket is not closed"
		}
		prev := prevNonSpace(src, pos.Offset)
		switch {
		case prev != 0 && strings.ContainsRune(",(+-*/^=~[", rune(prev)) && !tok.EOF():
			hint = fmt.Sprintf("an expression is missing after %q", string(prev))
		case !tok.EOF() && isNameStart(tok.Value) && (isNameByte(prev) || prev == ']'):
			hint = `a statement is "x ~ dist(...)" or "name = expr": is a "~" or "=" missing?`
		}
		e := &Error{Pos: pos, Msg: msg, Hint: hint}
		return ErrorList{e}
	}
	var lerr *lexer.Error
	if errors.As(err, &lerr) {
		off := pos.Offset
		ch := ""
		if off < len(src) {
			r, _ := utf8.DecodeRune(src[off:])
			ch = fmt.Sprintf(" %q", r)
		}
		if off < len(src) && src[off] == '"' {
			return ErrorList{{Pos: pos, Msg: "unterminated string", Hint: "close it with \" on the same line"}}
		}
		return ErrorList{{Pos: pos, Msg: "unexpected character" + ch}}
	}
	msg = strings.ReplaceAll(msg, "<ident>", "a name")
	return ErrorList{{Pos: pos, Msg: msg}}
}

func friendlyExpect(exp string) string {
	if exp == "" {
		return ""
	}
	r := strings.NewReplacer(
		"<ident>", "a name", "<number>", "a number", "<string>", "a string",
		"Expr", "an expression", "Stmt", "a statement", "Item", "a declaration or statement",
		"Block", "a block", "Type", "a type", "Call", "a distribution call",
	)
	return r.Replace(exp)
}

// BlockKinds are the block names of the language.
var BlockKinds = []string{"data", "param", "latent", "model", "infer"}

// Format prints each error as "file:line:col: message", then the source
// line with a caret under the column, then the hint, if any.
func (l ErrorList) Format(w interface{ Write([]byte) (int, error) }, sources map[string][]byte) {
	for _, e := range l {
		fmt.Fprintf(w, "%s: %s\n", e.Pos, e.Msg)
		if src, ok := sources[e.Pos.File]; ok && e.Pos.IsValid() {
			if line, ok := sourceLine(src, e.Pos.Line); ok {
				line = strings.TrimRight(line, "\r")
				if len(line) > 200 {
					line = line[:200] + "..."
				}
				fmt.Fprintf(w, "    %s\n", line)
				col := e.Pos.Col - 1
				if col > len(line) {
					col = len(line)
				}
				pad := make([]byte, 0, col)
				for i := 0; i < col && i < len(line); i++ {
					if line[i] == '\t' {
						pad = append(pad, '\t')
					} else {
						pad = append(pad, ' ')
					}
				}
				fmt.Fprintf(w, "    %s^\n", pad)
			}
		}
		if e.Hint != "" {
			fmt.Fprintf(w, "    hint: %s\n", e.Hint)
		}
	}
}

func sourceLine(src []byte, n int) (string, bool) {
	line := 1
	start := 0
	for i, c := range src {
		if line == n {
			start = i
			break
		}
		if c == '\n' {
			line++
			if line == n {
				start = i + 1
				break
			}
		}
	}
	if line != n {
		return "", false
	}
	end := bytes.IndexByte(src[start:], '\n')
	if end < 0 {
		return string(src[start:]), true
	}
	return string(src[start : start+end]), true
}

// Suggest returns the candidate closest to name by edit distance, if it is
// close enough to be a likely typo, or "".
func Suggest(name string, candidates []string) string {
	best, bestD := "", 1<<30
	ln := strings.ToLower(name)
	for _, c := range candidates {
		if c == name {
			continue
		}
		d := editDistance(ln, strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	limit := 1 + len(name)/3
	if bestD <= limit {
		return best
	}
	return ""
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			// transposition
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev[j-1]) // approximate Damerau
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// prevNonSpace is the last non-whitespace byte before off, skipping
// comments only roughly (it is for hints).
func prevNonSpace(src []byte, off int) byte {
	for i := min(off, len(src)) - 1; i >= 0; i-- {
		switch src[i] {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return src[i]
	}
	return 0
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isNameStart(s string) bool {
	return s != "" && isNameByte(s[0]) && !(s[0] >= '0' && s[0] <= '9')
}
