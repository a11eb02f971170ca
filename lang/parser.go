package lang

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// mscLexer tokenises .msc source. Keywords are Ident tokens matched by value.
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
	// strconv.Unquote rather than participle.Unquote, which is quadratic in
	// the length of the literal; the recogniser has already rejected bad
	// escapes.
	participle.Map(func(t lexer.Token) (lexer.Token, error) {
		v, err := strconv.Unquote(t.Value)
		if err != nil {
			return t, participle.Errorf(t.Pos, "invalid escape sequence in string %s", t.Value)
		}
		t.Value = v
		return t, nil
	}, "String"),
	participle.UseLookahead(4),
)

// MaxNesting bounds the nesting of brackets, and separately the length of
// chains of signs and powers (- - x, a^b^c^...), so that hostile input
// cannot exhaust the parser's stack.
const MaxNesting = 200

// ToPos converts a participle position.
func ToPos(p lexer.Position) Pos {
	return Pos{File: p.Filename, Offset: p.Offset, Line: p.Line, Col: p.Column}
}

// Parse parses a .msc file. The error, if any, is an ErrorList whose
// positions carry filename.
//
// Parsing runs in three steps: a byte-level pre-check (UTF-8, NUL bytes,
// bracket depth), a hand-written recogniser over the tokens that finds the
// first syntax error and words it for people (it also checks block names,
// duplicate blocks, statement separators, the order of bounds and the form
// of infer settings), and finally participle, which builds the CST.
func Parse(filename string, src []byte) (*File, error) {
	if err := precheck(filename, src); err != nil {
		return nil, err
	}
	toks, derr := diagnose(filename, src)
	if derr != nil {
		return nil, ErrorList{derr}
	}
	peek, err := lexer.Upgrade(&replay{toks: toks}, typSpace)
	var f *File
	if err == nil {
		f, err = parser.ParseFromLexer(peek)
	}
	if err != nil {
		// The recogniser accepted what participle rejects: the two
		// grammars disagree (FuzzParse looks for this). Report participle's
		// view, translated.
		return nil, translate(filename, src, err)
	}
	f.Name = filename
	return f, nil
}

// posAt computes the position of a byte offset.
func posAt(filename string, src []byte, off int) Pos {
	off = max(0, min(off, len(src)))
	line := 1 + bytes.Count(src[:off], []byte{'\n'})
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return Pos{File: filename, Offset: off, Line: line, Col: off - start + 1}
}

// precheck rejects binary input and absurd bracket nesting before any
// recursive parser sees it.
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

// hintDisagree marks errors found by participle but not by the recogniser.
const hintDisagree = "the grammar is described in the documentation of package lang"

// translate turns a participle error into a message for people. It is only
// reached when the recogniser and participle disagree.
func translate(filename string, src []byte, err error) error {
	var perr participle.Error
	if !errors.As(err, &perr) {
		return ErrorList{{Pos: Pos{File: filename, Line: 1, Col: 1}, Msg: err.Error()}}
	}
	pos := ToPos(perr.Position())
	pos.File = filename
	if pos.Line <= 0 || pos.Offset > len(src) {
		pos = posAt(filename, src, len(src))
	}
	msg := perr.Message()
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		if ute.Unexpected.EOF() {
			msg = "unexpected end of file"
		} else {
			msg = fmt.Sprintf("unexpected %q", ute.Unexpected.Value)
		}
	}
	return ErrorList{{Pos: pos, Msg: msg, Hint: hintDisagree}}
}

// BlockKinds are the block names of the language, in canonical order.
var BlockKinds = []string{"data", "param", "latent", "model", "infer"}

// TypeNames are the base type names.
var TypeNames = []string{"int", "real", "vector", "matrix"}

func isOneOf(s string, list []string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
