package lang

import (
	"bytes"
	"errors"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Balance is how a piece of source typed line by line (the REPL's blocks)
// stands at its end, read with the lexer of Parse: comments and strings
// hide what they hold exactly as they do for the parser.
type Balance struct {
	// Depth is the number of braces opened and not closed (negative when
	// more close than open).
	Depth int
	// Braced reports whether a brace was opened at the top level.
	Braced bool
	// Words are the identifiers at the top level (brace depth 0), in
	// order: the block names.
	Words []string
	// Tokens is the number of tokens outside comments.
	Tokens int
	// InComment reports that the source ends inside a /* comment that is
	// not closed: what follows continues it.
	InComment bool
	// InString reports that the last line holds a string that is not
	// closed. A string cannot span lines, so the next line does not
	// continue it: Parse reports it as unterminated.
	InString bool
}

// Complete reports whether the source is one or more whole blocks: a brace
// was opened, all braces are closed (or more closed than opened: Parse
// says which one is stray) and no comment is open.
func (b Balance) Complete() bool { return b.Braced && b.Depth <= 0 && !b.InComment }

// BalanceOf reads src with the language's lexer. A character that cannot
// start a token is skipped, and an unterminated string runs to the end of
// its line, so that the rest still counts: Parse reports either.
func BalanceOf(src []byte) Balance {
	var b Balance
	for off := 0; off < len(src); {
		lx, err := mscLexer.LexString("", string(src[off:]))
		if err != nil {
			break
		}
		next := len(src)
		for {
			t, err := lx.Next()
			if err != nil {
				var le *lexer.Error
				at := 0
				if errors.As(err, &le) {
					at = le.Pos.Offset
				}
				next = b.skip(src, off+at)
				break
			}
			if t.EOF() {
				break
			}
			if t.Type == typComment || t.Type == typSpace {
				continue
			}
			b.Tokens++
			end := off + t.Pos.Offset + len(t.Value)
			switch {
			case t.Type == typIdent:
				if b.Depth == 0 {
					b.Words = append(b.Words, t.Value)
				}
			case t.Type == typString:
			case t.Value == "{":
				if b.Depth == 0 {
					b.Braced = true
				}
				b.Depth++
			case t.Value == "}":
				b.Depth--
			case t.Value == "/" && end < len(src) && src[end] == '*':
				// a /* that the comment rule did not match: it is never
				// closed, and the rest of src is inside it
				b.Tokens--
				b.InComment = true
				return b
			}
		}
		off = next
	}
	return b
}

// skip steps over what the lexer could not read at off and returns where
// to read on: past the end of the line for an unterminated string, past
// one character otherwise.
func (b *Balance) skip(src []byte, off int) int {
	if off >= len(src) {
		return len(src)
	}
	b.Tokens++
	if src[off] != '"' {
		_, size := utf8.DecodeRune(src[off:])
		return off + size
	}
	nl := bytes.IndexByte(src[off:], '\n')
	if nl < 0 {
		b.InString = true
		return len(src)
	}
	return off + nl + 1
}
