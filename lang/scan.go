package lang

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// The token-level pre-checks. They look at tokens one at a time (and at
// bracket pairs), never at the grammar: lexer errors, unterminated
// comments, bad escapes, an empty file and over-long chains of signs and
// powers. The tokens they keep are what the error translation and the tree
// checks use as context.

var (
	symbols     = mscLexer.Symbols()
	typIdent    = symbols["Ident"]
	typNumber   = symbols["Number"]
	typString   = symbols["String"]
	typComment  = symbols["Comment"]
	typSpace    = symbols["Whitespace"]
	errTooLarge = errors.New("the file is too large (more than 2 GB)")
)

// token is a non-elided token; its source text is src[off:end].
type token struct {
	typ       lexer.TokenType
	off, end  int
	line, col int
}

// scanned is a lexed file.
type scanned struct {
	file string
	src  []byte
	toks []token       // the non-elided tokens, ending with EOF
	raw  []lexer.Token // the tokens for participle, strings unquoted, one elided token per gap
}

// sliceLexer is a lexer.Lexer over a token slice ending with EOF.
type sliceLexer struct {
	toks []lexer.Token
	i    int
}

func (l *sliceLexer) Next() (lexer.Token, error) {
	t := l.toks[l.i]
	if l.i < len(l.toks)-1 {
		l.i++
	}
	return t, nil
}

func scan(filename string, src []byte) (*scanned, *Error) {
	s := &scanned{file: filename, src: src}
	if int64(len(src)) >= 1<<31-1 {
		return nil, s.errAt(0, "", "%v", errTooLarge)
	}
	lx, err := mscLexer.LexString(filename, string(src))
	if err != nil {
		return nil, s.errAt(0, "", "%v", err)
	}
	s.toks = make([]token, 0, len(src)/8+1)
	s.raw = make([]lexer.Token, 0, len(src)/4+1)
	for {
		t, err := lx.Next()
		if err != nil {
			var le *lexer.Error
			off := len(src)
			if errors.As(err, &le) {
				off = le.Pos.Offset
			}
			return nil, s.lexError(off)
		}
		if t.Type != typComment && t.Type != typSpace {
			k := token{typ: t.Type, off: t.Pos.Offset, end: t.Pos.Offset + len(t.Value), line: t.Pos.Line, col: t.Pos.Column}
			if t.EOF() {
				k.end = k.off
			}
			s.toks = append(s.toks, k)
			if t.Value == "'" && (k.off == 0 || !isIdentByte(src[k.off-1]) && src[k.off-1] != ']' && src[k.off-1] != ')') {
				return nil, s.errAt(k.off, "strings are written in double quotes, as in \"Class\"", "unexpected character %q", '\'')
			}
			if s.text(len(s.toks)-1) == "/" && k.end < len(src) && src[k.end] == '*' {
				return nil, s.errAt(k.off, "close it with */", "unterminated comment")
			}
			if t.Type == typString {
				v, err := strconv.Unquote(t.Value)
				if err != nil {
					return nil, s.errAt(k.off, `escapes are \", \\, \n, \t and \uXXXX`, "invalid escape sequence in string %s", t.Value)
				}
				t.Value = v
			}
		}
		if elided := t.Type == typComment || t.Type == typSpace; elided && len(s.raw) > 0 {
			if last := s.raw[len(s.raw)-1].Type; last == typComment || last == typSpace {
				continue // one elided token per gap is enough for participle's EndPos
			}
		}
		s.raw = append(s.raw, t)
		if t.EOF() {
			break
		}
	}
	if len(s.toks) == 1 {
		return nil, s.errAt(0, "", "empty model: a .msc file needs at least a model { ... } block")
	}
	return s, nil
}

func (s *scanned) lexError(off int) *Error {
	if off >= len(s.src) {
		return s.errAt(off, "", "unexpected end of file")
	}
	switch c, _ := utf8.DecodeRune(s.src[off:]); c {
	case '"':
		return s.errAt(off, "close it with \" on the same line", "unterminated string")
	case '\'':
		return s.errAt(off, "strings are written in double quotes, as in \"Class\"", "unexpected character %q", c)
	case '.':
		return s.errAt(off, "a number needs a digit after the point, as in 0.5; a range is lo..hi", "unexpected character %q", c)
	default:
		return s.errAt(off, "", "unexpected character %q", c)
	}
}

// chains returns the index of the token that makes a chain of more than
// MaxNesting signs, negations, carets and conditionals (the operators the
// parser nests: !!!x, a ? b : c ? d : ..., a^b^c), or -1. It counts
// through brackets (-(-(-x)) is a chain of three) and restarting after a
// binary operator or separator at the same bracket level.
func (s *scanned) chains() int {
	chain := 0
	var base []int // chain at each open bracket
	for i := range s.toks {
		switch v := s.text(i); {
		case v == "^" || v == "!" || v == "?" || (v == "-" || v == "+") && !s.endsOperand(i-1):
			chain++
			if chain > MaxNesting {
				return i
			}
		case v == "(" || v == "[" || v == "{" || v == "<":
			base = append(base, chain)
		case v == ")" || v == "]" || v == "}" || v == ">":
			if k := len(base); k > 0 {
				chain, base = base[k-1], base[:k-1]
			}
		case s.toks[i].typ == typIdent || s.toks[i].typ == typNumber || s.toks[i].typ == typString:
		case v == ":": // the else branch of c ? a : b nests in the conditional
		default:
			chain = 0
			if k := len(base); k > 0 {
				chain = base[k-1]
			}
		}
	}
	return -1
}

// ---- token helpers ----------------------------------------------------------

func (s *scanned) errAt(off int, hint, format string, args ...any) *Error {
	return &Error{Pos: posAt(s.file, s.src, off), Msg: fmt.Sprintf(format, args...), Hint: hint}
}

// errTok is an error at token i.
func (s *scanned) errTok(i int, hint, format string, args ...any) *Error {
	return s.errAt(s.tok(i).off, hint, format, args...)
}

// tok returns token i, the EOF token past the end and an empty token
// before the start.
func (s *scanned) tok(i int) token {
	if i < 0 {
		return token{typ: -2}
	}
	if i >= len(s.toks) {
		return s.toks[len(s.toks)-1]
	}
	return s.toks[i]
}

func (s *scanned) text(i int) string {
	t := s.tok(i)
	if t.typ == -2 {
		return ""
	}
	return string(s.src[t.off:t.end])
}

func (s *scanned) isEOF(i int) bool { return s.tok(i).typ == lexer.EOF }

func (s *scanned) isIdent(i int) bool { return s.tok(i).typ == typIdent }

// isPunct reports whether token i is the punctuation p.
func (s *scanned) isPunct(i int, p string) bool {
	t := s.tok(i)
	return t.typ != typIdent && t.typ != typString && t.typ != typNumber && t.typ != lexer.EOF && t.typ != -2 && s.text(i) == p
}

// endsOperand reports whether token i can end an operand: a name, a
// literal or a closing bracket.
func (s *scanned) endsOperand(i int) bool {
	switch t := s.tok(i); t.typ {
	case typIdent, typNumber, typString:
		return true
	}
	return s.isPunct(i, ")") || s.isPunct(i, "]")
}

// startsExpr reports whether token i can begin an expression.
func (s *scanned) startsExpr(i int) bool {
	switch s.tok(i).typ {
	case typIdent, typNumber, typString:
		return true
	}
	return s.isPunct(i, "(") || s.isPunct(i, "-") || s.isPunct(i, "+")
}

// desc describes token i for messages.
func (s *scanned) desc(i int) string {
	switch s.tok(i).typ {
	case lexer.EOF:
		return "end of file"
	case typString:
		return "string " + s.text(i)
	}
	return fmt.Sprintf("%q", s.text(i))
}

// before is "before <token>" or "at end of file".
func (s *scanned) before(i int) string {
	if s.isEOF(i) {
		return "at end of file"
	}
	return "before " + s.desc(i)
}

func (s *scanned) at(i int) string { return fmt.Sprintf("%d:%d", s.tok(i).line, s.tok(i).col) }

// index returns the index of the first token at or after byte offset off.
func (s *scanned) index(off int) int {
	lo, hi := 0, len(s.toks)-1
	for lo < hi {
		m := (lo + hi) / 2
		if s.toks[m].off < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// span is the source of tokens [from, to), shortened for messages.
func (s *scanned) span(from, to int) string {
	if from >= to {
		return ""
	}
	t := strings.Join(strings.Fields(string(s.src[s.tok(from).off:s.tok(to-1).end])), " ")
	if len(t) > 40 {
		t = t[:37] + "..."
	}
	return t
}

// brackets returns the indexes of the brackets open just before token i
// ("(", "[", "{" and the "<" of bounds), innermost last, and the index of
// the first closing bracket before i that matches none (or -1).
func (s *scanned) brackets(i int) (open []int, bad int) {
	for j := 0; j < i && j < len(s.toks); j++ {
		switch s.text(j) {
		case "(", "[", "{", "<":
			if s.isPunct(j, s.text(j)) {
				open = append(open, j)
			}
		case ")", "]", "}", ">":
			if !s.isPunct(j, s.text(j)) {
				continue
			}
			if k := len(open); k > 0 && closerOf[s.text(open[k-1])] == s.text(j) {
				open = open[:k-1]
			} else {
				return open, j
			}
		}
	}
	return open, -1
}

var closerOf = map[string]string{"(": ")", "[": "]", "{": "}", "<": ">"}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
