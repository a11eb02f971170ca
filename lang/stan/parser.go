package stan

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
	"github.com/mscppl/mscppl/lang"
)

// typeWords are Stan's type names, a token of their own (Stan reserves
// them), so that a statement starting with one is a declaration.
var typeWords = []string{"int", "real", "complex", "vector", "row_vector", "matrix",
	"complex_vector", "complex_row_vector", "complex_matrix", "simplex", "unit_vector",
	"sum_to_zero_vector", "ordered", "positive_ordered", "cholesky_factor_corr",
	"cholesky_factor_cov", "corr_matrix", "cov_matrix", "column_stochastic_matrix",
	"row_stochastic_matrix", "tuple"}

// stanLexer tokenises Stan source. Keywords other than the type names are
// Ident tokens matched by value.
var stanLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Comment", Pattern: `//[^\n]*|/\*([^*]|\*+[^*/])*\*+/`},
	{Name: "String", Pattern: `"(\\.|[^"\\\n])*"`},
	{Name: "Imag", Pattern: `(\d(_?\d)*\.(\d(_?\d)*)?|\.\d(_?\d)*|\d(_?\d)*)([eE][-+]?\d(_?\d)*)?i\b`},
	{Name: "Number", Pattern: `(\d(_?\d)*\.(\d(_?\d)*)?|\.\d(_?\d)*|\d(_?\d)*)([eE][-+]?\d(_?\d)*)?`},
	{Name: "TypeWord", Pattern: `\b(` + strings.Join(typeWords, "|") + `)\b`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_]*`},
	{Name: "Op", Pattern: `%/%|\.\*=|\./=|\+=|-=|\*=|/=|==|!=|<=|>=|&&|\|\||\.\*|\./|\.\^`},
	{Name: "Punct", Pattern: `[-+*/^~=<>,;:()\[\]{}|!'?%\\]`},
	{Name: "Whitespace", Pattern: `[ \t\r\n]+`},
})

var parser = participle.MustBuild[Program](
	participle.Lexer(stanLexer),
	participle.Elide("Comment", "Whitespace"),
	participle.UseLookahead(4),
)

// ParseProgram parses a Stan program into its own syntax tree. The error,
// if any, is a lang.ErrorList of one error, positioned.
func ParseProgram(filename string, src []byte) (*Program, error) {
	if len(src) > lang.MaxSource {
		return nil, lang.ErrorList{{Pos: lang.Pos{File: filename, Line: 1, Col: 1},
			Msg: fmt.Sprintf("the model file is %.1f MB, more than the %d MB a model file may have", float64(len(src))/(1<<20), lang.MaxSource>>20)}}
	}
	if !utf8.Valid(src) || bytes.IndexByte(src, 0) >= 0 {
		off := bytes.IndexByte(src, 0)
		for i := 0; i < len(src) && (off < 0 || i < off); {
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size <= 1 {
				off = i
				break
			}
			i += size
		}
		line := 1 + bytes.Count(src[:off], []byte{'\n'})
		col := off - bytes.LastIndexByte(src[:off], '\n')
		return nil, lang.ErrorList{{Pos: lang.Pos{File: filename, Offset: off, Line: line, Col: col}, Msg: "the file is not text (a NUL byte or invalid UTF-8): is it a binary file?"}}
	}
	if e := nesting(filename, src); e != nil {
		return nil, lang.ErrorList{e}
	}
	if e := chains(filename, src); e != nil {
		return nil, lang.ErrorList{e}
	}
	p, err := parser.ParseBytes(filename, src)
	if err != nil {
		return nil, lang.ErrorList{syntaxError(filename, src, err)}
	}
	return p, nil
}

// nesting refuses brackets nested more than lang.MaxNesting deep, before
// the recursive parser sees them.
func nesting(filename string, src []byte) *lang.Error {
	depth, line, col := 0, 1, 0
	for i, c := range src {
		col++
		switch c {
		case '\n':
			line, col = line+1, 0
		case '(', '[', '{':
			depth++
			if depth > lang.MaxNesting {
				return &lang.Error{Pos: lang.Pos{File: filename, Offset: i, Line: line, Col: col}, Msg: fmt.Sprintf("brackets are nested more than %d deep", lang.MaxNesting)}
			}
		case ')', ']', '}':
			depth--
		}
	}
	return nil
}

// syntaxError words participle's error as a positioned lang.Error.
func syntaxError(filename string, src []byte, err error) *lang.Error {
	var perr participle.Error
	if !errors.As(err, &perr) {
		return &lang.Error{Pos: lang.Pos{File: filename, Line: 1, Col: 1}, Msg: err.Error()}
	}
	pos := lang.ToPos(perr.Position())
	if pos.File == "" {
		pos.File = filename
	}
	msg := perr.Message()
	var ut *participle.UnexpectedTokenError
	if errors.As(err, &ut) {
		tok := ut.Unexpected
		switch {
		case tok.EOF():
			msg = "unexpected end of file"
		case tok.Value == "#":
			msg = "# comments and #include are not supported; write // comments"
		case tok.Value == "(" && strings.HasSuffix(strings.TrimRight(string(src[:pos.Offset]), " \t\r\n"), "tuple"):
			return &lang.Error{Pos: pos, Msg: "tuples are not supported"}
		default:
			msg = fmt.Sprintf("unexpected %q", tok.Value)
		}
		if ut.Expect != "" {
			msg += fmt.Sprintf(" (expected %s)", ut.Expect)
		}
		if e := missingSemi(filename, src, pos); e != nil {
			return e
		}
	}
	return &lang.Error{Pos: pos, Msg: "Stan syntax: " + msg}
}

// missingSemi reports a statement that ends at the end of a line without
// its ";": the unexpected token starts a later line than the previous
// token, which is not one a statement may end with.
func missingSemi(filename string, src []byte, pos lang.Pos) *lang.Error {
	i := pos.Offset - 1
	for i >= 0 && strings.ContainsRune(" \t\r\n", rune(src[i])) {
		i--
	}
	if i < 0 || strings.ContainsRune(";{}(,[|?:=<>+-*/", rune(src[i])) || !strings.Contains(string(src[i+1:pos.Offset]), "\n") {
		return nil
	}
	line := 1 + strings.Count(string(src[:i+1]), "\n")
	col := i + 1 - strings.LastIndexByte(string(src[:i+1]), '\n')
	return &lang.Error{Pos: lang.Pos{File: filename, Offset: i + 1, Line: line, Col: col},
		Msg: "Stan syntax: missing \";\" at the end of the statement"}
}

// chains refuses more than lang.MaxNesting signs or negations in a row,
// and more than lang.MaxNesting powers or conditionals in one statement,
// which the recursive parser would nest as deep (as lang does for .msc).
func chains(filename string, src []byte) *lang.Error {
	lx, err := stanLexer.Lex(filename, bytes.NewReader(src))
	if err != nil {
		return nil // the parser reports it
	}
	syms := stanLexer.Symbols()
	skip := map[lexer.TokenType]bool{syms["Whitespace"]: true, syms["Comment"]: true}
	run, nested := 0, 0
	prevOp := true // a sign follows an operator or an opening bracket
	for {
		tok, err := lx.Next()
		if err != nil || tok.EOF() {
			return nil
		}
		if skip[tok.Type] {
			continue
		}
		v := tok.Value
		switch {
		case prevOp && (v == "-" || v == "+" || v == "!"):
			run++
		default:
			run = 0
		}
		switch v {
		case "^", ".^", "?":
			nested++
		case ";", "{", "}":
			nested = 0
		}
		if run > lang.MaxNesting || nested > lang.MaxNesting {
			return &lang.Error{Pos: lang.ToPos(tok.Pos), Msg: fmt.Sprintf("the expression is nested more than %d deep", lang.MaxNesting)}
		}
		prevOp = tok.Type != syms["Ident"] && tok.Type != syms["Number"] && tok.Type != syms["Imag"] &&
			tok.Type != syms["String"] && v != ")" && v != "]" && v != "'"
	}
}
