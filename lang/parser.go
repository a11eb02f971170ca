package lang

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
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
	{Name: "Op", Pattern: `%/%|\+=|-=|\*=|/=|==|!=|<=|>=|&&|\|\||\.\*|\./|->`},
	{Name: "Punct", Pattern: `[-+*/%^~=<>,;:()\[\]{}|!'?]`},
	{Name: "Whitespace", Pattern: `[ \t\r\n]+`},
})

// parser is the grammar of .msc files: the annotated structs of ast.go.
// Lookahead 0: the lookahead groups written in the grammar (name ":"
// starts a declaration, name "(" a call) are all the lookahead it needs,
// and without more no branch backtracks over tokens it has consumed, so
// that participle stops, and reports its error, where the input goes
// wrong.
var parser = participle.MustBuild[File](
	participle.Lexer(mscLexer),
	participle.Elide("Comment", "Whitespace"),
	participle.UseLookahead(0),
)

// largeFile is the size above which unbalanced brackets are reported
// without parsing the whole file (participle takes seconds per megabyte).
const largeFile = MaxSource / 2

// MaxSource is the largest model file Parse reads, in bytes. The parser
// keeps the whole concrete syntax tree, and participle builds it at about
// 4 s and 0.6 GB of memory per megabyte of source, so that a 10 MB file
// would take a minute and 6 GB: a larger file is refused at
// once, before anything is allocated for it, at the line where it crosses
// the limit. Data belong in a data file, and repetition in a loop or a
// vectorised statement.
const MaxSource = 1 << 20

// MaxNesting bounds the nesting of brackets, and separately the length of
// chains of signs and powers (- - x, a^b^c^...), so that hostile input
// cannot exhaust the parser's stack.
const MaxNesting = 200

// Normalize returns a model file's text as the parser reads it: without a
// UTF-8 byte-order mark, and with the line breaks of a file that uses
// carriage returns alone (classic Mac OS) made newlines, so that line
// numbers count lines as an editor shows them. The CSV and JSON readers
// do the same with their files. Callers that print errors with the source
// keep the normalized text.
func Normalize(src []byte) []byte {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if bytes.IndexByte(src, '\r') >= 0 && bytes.IndexByte(src, '\n') < 0 {
		src = bytes.ReplaceAll(src, []byte{'\r'}, []byte{'\n'})
	}
	return src
}

// ToPos converts a participle position.
func ToPos(p lexer.Position) Pos {
	return Pos{File: p.Filename, Offset: p.Offset, Line: p.Line, Col: p.Column}
}

// Parse parses a .msc file. The error, if any, is an ErrorList whose
// positions carry filename.
//
// Parsing has three steps around the one grammar (see the package
// documentation): pre-checks on the bytes and tokens that do not depend on
// the grammar, participle, whose error is reworded using the tokens around
// it, and checks on the finished tree.
func Parse(filename string, src []byte) (*File, error) {
	if err := precheck(filename, src); err != nil {
		return nil, err
	}
	s, e := scan(filename, src)
	if e != nil {
		return nil, ErrorList{e}
	}
	if len(src) > largeFile {
		if e := s.bracketCheck(); e != nil {
			return nil, ErrorList{e}
		}
	}
	raw := s.raw
	deep := s.chains()
	if deep >= 0 {
		// parse only the tokens before the over-long chain, so that an
		// earlier error is reported first
		r := sort.Search(len(raw), func(k int) bool { return raw[k].Pos.Offset >= s.toks[deep].off })
		raw = append(raw[:r:r], lexer.Token{Type: lexer.EOF, Pos: raw[r].Pos})
	}
	peek, err := lexer.Upgrade(&sliceLexer{toks: raw}, typSpace, typComment)
	if err != nil {
		return nil, ErrorList{{Pos: Pos{File: filename, Line: 1, Col: 1}, Msg: err.Error()}}
	}
	f, err := parser.ParseFromLexer(peek)
	if deep >= 0 {
		var perr participle.Error
		if err == nil || errors.As(err, &perr) && perr.Position().Offset >= s.toks[deep].off {
			return nil, ErrorList{s.errAt(s.toks[deep].off, "", "the expression is nested more than %d deep", MaxNesting)}
		}
	}
	stan := s.stanForm() // a Stan declaration or loop, worded as such
	if err != nil {
		e := s.translate(err, f)
		// the complete part of the tree may hold an earlier error
		if e0 := s.checkTree(f, true); e0 != nil && e0.Pos.Offset < e.Pos.Offset {
			e = e0
		}
		if stan != nil && stan.Pos.Offset <= e.Pos.Offset {
			e = stan
		}
		return nil, ErrorList{e}
	}
	f.Name = filename
	e = s.checkTree(f, false)
	if stan != nil && (e == nil || stan.Pos.Offset <= e.Pos.Offset) {
		e = stan
	}
	if e != nil {
		return nil, ErrorList{e}
	}
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
	if len(src) > MaxSource {
		return ErrorList{{Pos: posAt(filename, src, MaxSource), Msg: fmt.Sprintf("the model file is %.1f MB, more than the %d MB a model file may have", float64(len(src))/(1<<20), MaxSource>>20),
			Hint: "put data in a data file (CSV or JSON), and write repeated statements as a loop or one vectorised statement"}}
	}
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

// BlockKinds are the block names of the language, in canonical order.
var BlockKinds = []string{"functions", "data", "param", "latent", "transformed", "model", "derived", "infer"}

// BlockList names the blocks for messages: "functions, data, ... and infer".
func BlockList() string {
	n := len(BlockKinds)
	return strings.Join(BlockKinds[:n-1], ", ") + " and " + BlockKinds[n-1]
}

// TypeNames are the base type names.
var TypeNames = []string{"int", "real", "vector", "row_vector", "matrix"}

func isOneOf(s string, list []string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// exprParser is the grammar's Expr rule on its own, for expressions typed
// outside a file (the REPL's :eval).
var exprParser = participle.MustBuild[Expr](
	participle.Lexer(mscLexer),
	participle.Elide("Comment", "Whitespace"),
	participle.UseLookahead(2),
)

// ParseExpr parses one expression, such as exp(b + w[1]), with the same
// lexer, grammar and error wording as Parse. Positions carry filename and
// are relative to src. The error, if any, is an ErrorList.
func ParseExpr(filename string, src []byte) (*Expr, error) {
	if err := precheck(filename, src); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, ErrorList{{Pos: Pos{File: filename, Line: 1, Col: 1}, Msg: "empty expression"}}
	}
	s, e := scan(filename, src)
	if e != nil {
		return nil, ErrorList{e}
	}
	peek, err := lexer.Upgrade(&sliceLexer{toks: s.raw}, typSpace, typComment)
	if err != nil {
		return nil, ErrorList{{Pos: Pos{File: filename, Line: 1, Col: 1}, Msg: err.Error()}}
	}
	x, err := exprParser.ParseFromLexer(peek, participle.AllowTrailing(true))
	if err != nil {
		var perr participle.Error
		if errors.As(err, &perr) && s.bracketError(s.index(perr.Position().Offset)) == nil {
			// no block is open around an expression: what is missing is
			// the expression itself
			return nil, ErrorList{s.expectedExpr(s.index(perr.Position().Offset))}
		}
		return nil, ErrorList{s.translate(err, nil)}
	}
	// the tokens after the expression, if any, are an error
	if i := s.index(x.EndPos.Offset); i < len(s.toks)-1 && x.EndPos.Offset <= s.toks[i].off {
		if e := s.bracketError(i); e != nil {
			return nil, ErrorList{e}
		}
		if s.tok(i).typ != typIdent && s.tok(i).typ != typNumber && s.tok(i).typ != typString && strings.Contains("+-*/^", s.text(i)) {
			return nil, ErrorList{s.expectedExpr(i + 1)}
		}
		return nil, ErrorList{s.errTok(i, "an expression combines names and numbers with + - * / ^, calls and indexes", "unexpected %s after the expression", s.desc(i))}
	}
	return x, nil
}
