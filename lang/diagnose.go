package lang

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// The recogniser: a hand-written recursive-descent pass over the tokens
// that accepts the same language as the participle grammar in ast.go (or a
// subset of it: it is stricter about statement separators, bounds and
// settings) and reports the first error in words a Stan user understands,
// at the position of the offending token. Participle only runs on input the
// recogniser accepted, so its own messages are almost never seen.

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tNumber
	tString
	tPunct // punctuation and ".."
)

// token is a lexed token; its text is src[off:end].
type token struct {
	kind      tokKind
	off, end  int32
	line, col int32
}

type recog struct {
	file  string
	src   []byte
	toks  []token
	ptoks []lexer.Token // the same tokens for participle, strings unquoted
	i     int
	chain int // signs and carets currently open
}

// bail carries the first error out of the recursion.
type bail struct{ e *Error }

// diagnose returns the first syntax error of src, or nil and the tokens
// of src for participle: the non-elided tokens with strings unquoted, and
// one elided token in each gap between them, so that participle's EndPos
// (the position of the next raw token) is the end of the node.
func diagnose(filename string, src []byte) (ptoks []lexer.Token, err *Error) {
	r := &recog{file: filename, src: src}
	defer func() {
		if x := recover(); x != nil {
			b, ok := x.(bail)
			if !ok {
				panic(x)
			}
			ptoks, err = nil, b.e
		}
	}()
	r.lex()
	r.parseFile()
	return r.ptoks, nil
}

// replay is a lexer.Lexer over a token slice.
type replay struct {
	toks []lexer.Token
	i    int
}

func (l *replay) Next() (lexer.Token, error) {
	t := l.toks[l.i]
	if l.i < len(l.toks)-1 {
		l.i++
	}
	return t, nil
}

var (
	symbols     = mscLexer.Symbols()
	typIdent    = symbols["Ident"]
	typNumber   = symbols["Number"]
	typString   = symbols["String"]
	typComment  = symbols["Comment"]
	typSpace    = symbols["Whitespace"]
	typEOF      = symbols["EOF"]
	errTooLarge = errors.New("the file is too large (more than 2 GB)")
)

func (r *recog) lex() {
	if int64(len(r.src)) >= 1<<31-1 {
		r.failAt(Pos{File: r.file, Line: 1, Col: 1}, "", "%v", errTooLarge)
	}
	lx, err := mscLexer.LexString(r.file, string(r.src))
	if err != nil {
		r.failAt(Pos{File: r.file, Line: 1, Col: 1}, "", "%v", err)
	}
	r.toks = make([]token, 0, len(r.src)/8+1)
	r.ptoks = make([]lexer.Token, 0, len(r.src)/4+1)
	sawGap := false
	for {
		t, err := lx.Next()
		if err != nil {
			var le *lexer.Error
			off := len(r.src)
			if errors.As(err, &le) {
				off = le.Pos.Offset
			}
			r.lexError(off)
		}
		if t.Type == typComment || t.Type == typSpace {
			sawGap = true
			continue
		}
		if sawGap && len(r.ptoks) > 0 {
			// a gap token just after the previous token, which never
			// spans lines
			prev := r.ptoks[len(r.ptoks)-1]
			last := r.toks[len(r.toks)-1]
			n := int(last.end - last.off)
			gp := prev.Pos
			gp.Offset += n
			gp.Column += n
			r.ptoks = append(r.ptoks, lexer.Token{Type: typSpace, Value: " ", Pos: gp})
		}
		sawGap = false
		k := tPunct
		switch t.Type {
		case typEOF:
			k = tEOF
		case typIdent:
			k = tIdent
		case typNumber:
			k = tNumber
		case typString:
			k = tString
		}
		r.toks = append(r.toks, token{kind: k, off: int32(t.Pos.Offset), end: int32(t.Pos.Offset + len(t.Value)),
			line: int32(t.Pos.Line), col: int32(t.Pos.Column)})
		if k == tPunct && t.Value == "/" && t.Pos.Offset+1 < len(r.src) && r.src[t.Pos.Offset+1] == '*' {
			r.fail(r.toks[len(r.toks)-1], "close it with */", "unterminated comment")
		}
		if k == tString {
			v, err := strconv.Unquote(t.Value)
			if err != nil {
				r.fail(r.toks[len(r.toks)-1], `escapes are \", \\, \n, \t and \uXXXX`, "invalid escape sequence in string %s", t.Value)
			}
			t.Value = v
		}
		r.ptoks = append(r.ptoks, t)
		if k == tEOF {
			return
		}
	}
}

func (r *recog) lexError(off int) {
	pos := posAt(r.file, r.src, off)
	if off >= len(r.src) {
		r.failAt(pos, "", "unexpected end of file")
	}
	switch c, _ := utf8.DecodeRune(r.src[off:]); c {
	case '"':
		r.failAt(pos, "close it with \" on the same line", "unterminated string")
	case '\'':
		r.failAt(pos, "strings are written in double quotes, as in \"Class\"", "unexpected character %q", c)
	case '.':
		r.failAt(pos, "a number needs a digit after the point, as in 0.5; a range is lo..hi", "unexpected character %q", c)
	default:
		r.failAt(pos, "", "unexpected character %q", c)
	}
}

// ---- tokens -----------------------------------------------------------------

func (r *recog) val(t token) string { return string(r.src[t.off:t.end]) }

func (r *recog) peek() token { return r.toks[r.i] }

func (r *recog) peekAt(k int) token {
	if r.i+k < len(r.toks) {
		return r.toks[r.i+k]
	}
	return r.toks[len(r.toks)-1]
}

func (r *recog) next() token {
	t := r.toks[r.i]
	if t.kind != tEOF {
		r.i++
	}
	return t
}

// last is the most recently consumed token.
func (r *recog) last() (token, bool) {
	if r.i == 0 {
		return token{}, false
	}
	return r.toks[r.i-1], true
}

func (r *recog) is(t token, punct string) bool {
	return t.kind == tPunct && int(t.end-t.off) == len(punct) && string(r.src[t.off:t.end]) == punct
}

func (r *recog) isWord(t token, w string) bool {
	return t.kind == tIdent && int(t.end-t.off) == len(w) && string(r.src[t.off:t.end]) == w
}

func (r *recog) desc(t token) string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return "string " + r.val(t)
	}
	return fmt.Sprintf("%q", r.val(t))
}

// startsExpr reports whether t can begin an expression.
func (r *recog) startsExpr(t token) bool {
	switch t.kind {
	case tIdent, tNumber, tString:
		return true
	}
	return r.is(t, "(") || r.is(t, "-") || r.is(t, "+")
}

func (r *recog) pos(t token) Pos {
	return Pos{File: r.file, Offset: int(t.off), Line: int(t.line), Col: int(t.col)}
}

func (r *recog) fail(t token, hint, format string, args ...any) {
	r.failAt(r.pos(t), hint, format, args...)
}

func (r *recog) failAt(p Pos, hint, format string, args ...any) {
	panic(bail{&Error{Pos: p, Msg: fmt.Sprintf(format, args...), Hint: hint}})
}

// text is the source of tokens [from, r.i), shortened for messages.
func (r *recog) text(from int) string {
	if from >= r.i {
		return ""
	}
	s := strings.Join(strings.Fields(string(r.src[r.toks[from].off:r.toks[r.i-1].end])), " ")
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

func at(t token) string { return fmt.Sprintf("%d:%d", t.line, t.col) }

// ---- file and blocks ----------------------------------------------------------

const (
	hintStmt    = `a statement is "x ~ dist(...)" or "name = expr"`
	hintSetting = "a setting is name = value, as in samples = 10"
	hintLoop    = "a loop is for t in 1..T { ... } (both bounds included)"
	hintSep     = `put each statement on its own line, or separate them with ";"`
)

func (r *recog) parseFile() {
	if r.peek().kind == tEOF {
		r.failAt(Pos{File: r.file, Line: 1, Col: 1}, "", "empty model: a .msc file needs at least a model { ... } block")
	}
	seen := map[string]token{}
	for r.peek().kind != tEOF {
		t, nx := r.peek(), r.peekAt(1)
		if t.kind != tIdent {
			if r.is(t, "}") {
				r.fail(t, `check that every "{" has exactly one "}"`, `unexpected "}": no block is open`)
			}
			r.fail(t, "the blocks are data, param, latent, model and infer", "unexpected %s; expected a block such as model { ... }", r.desc(t))
		}
		name := r.val(t)
		if !isOneOf(name, BlockKinds) {
			if !r.is(nx, "{") {
				r.fail(t, "statements and declarations go inside a block, as in model { ... }", "unexpected %s; expected a block such as model { ... }", r.desc(t))
			}
			hint := ""
			if s := Suggest(name, BlockKinds); s != "" {
				hint = fmt.Sprintf("did you mean %q?", s)
			}
			r.fail(t, hint, "unknown block %q; the blocks are data, param, latent, model and infer", name)
		}
		if !r.is(nx, "{") {
			r.fail(nx, "", "unexpected %s; expected \"{\" after %q", r.desc(nx), name)
		}
		if old, dup := seen[name]; dup {
			r.fail(t, "", "duplicate %s block (the first is at %s); merge them", name, at(old))
		}
		seen[name] = t
		r.next()
		open := r.next()
		r.items(name, open, fmt.Sprintf("%q of the %s block", "{", name))
	}
	if _, ok := seen["model"]; !ok {
		r.failAt(Pos{File: r.file, Line: 1, Col: 1}, "", "the file has no model { ... } block")
	}
}

// items parses the items of a block (kind != "") or a loop body (kind ==
// "") up to and including the closing "}".
func (r *recog) items(kind string, open token, what string) {
	needSep := false
	for {
		t := r.peek()
		if r.is(t, "}") {
			r.next()
			return
		}
		if t.kind == tEOF {
			r.fail(t, fmt.Sprintf("the %s at %s is not closed", what, at(open)), `unexpected end of file; missing "}"`)
		}
		if r.is(t, ")") || r.is(t, "]") {
			r.fail(t, "remove it, or check the brackets before it", "unexpected %s: there is no open %q", r.desc(t), map[string]string{")": "(", "]": "["}[r.val(t)])
		}
		if prev, ok := r.last(); ok && needSep && t.line == prev.line {
			hint := hintSep
			if prev.kind == tNumber && t.kind == tIdent && prev.end == t.off {
				hint = "multiplication is written with *, as in 2 * x"
			}
			r.fail(t, hint, "unexpected %s; expected a new line or \";\" after the %s", r.desc(t), r.itemWord(kind))
		}
		needSep = r.item(kind)
	}
}

func (r *recog) itemWord(kind string) string {
	switch kind {
	case "infer":
		return "setting"
	case "data", "param", "latent":
		return "declaration"
	}
	return "statement"
}

// item parses one item and reports whether a separator must follow it.
func (r *recog) item(kind string) bool {
	t, nx := r.peek(), r.peekAt(1)
	switch {
	case t.kind == tIdent && r.is(nx, ":"):
		switch kind {
		case "":
			r.fail(t, "declare it in the data, param or latent block", "a declaration cannot appear inside a for loop")
		case "infer":
			r.fail(t, hintSetting, "the infer block holds settings such as samples = 10")
		}
		r.decl()
	case kind == "infer":
		r.setting()
	case t.kind == tIdent && isOneOf(kind, BlockKinds[:3]) && !r.is(nx, "~") && !r.is(nx, "=") && !r.is(nx, "[") && !r.is(nx, "("):
		r.fail(nx, "a declaration is name: type, as in x: vector[N]", "unexpected %s; expected \":\" after %q", r.desc(nx), r.val(t))
	case r.isWord(t, "for"):
		r.forLoop()
		r.semi()
		return false
	default:
		r.simple()
	}
	return !r.semi()
}

func (r *recog) semi() bool {
	if r.is(r.peek(), ";") {
		r.next()
		return true
	}
	return false
}

// ---- declarations -------------------------------------------------------------

func (r *recog) decl() {
	r.next() // name
	r.next() // ":"
	r.typ()
	if r.isWord(r.peek(), "from") {
		r.next()
		r.from()
	}
	if r.isWord(r.peek(), "standardized") {
		r.next()
	}
	if r.is(r.peek(), "=") {
		r.next()
		r.expr()
	}
	if t := r.peek(); (r.isWord(t, "lower") || r.isWord(t, "upper")) && r.is(r.peekAt(1), "=") {
		r.fail(t, "bounds follow the type name in <...>, as in real<lower=0> or vector<lower=0>[N]", "unexpected %s after the declaration", r.desc(t))
	}
}

func (r *recog) typ() {
	t := r.peek()
	if t.kind != tIdent || !isOneOf(r.val(t), TypeNames) {
		hint := "the types are int, real, vector[n] and matrix[m, n]"
		if t.kind == tIdent {
			if s := Suggest(r.val(t), TypeNames); s != "" {
				hint = fmt.Sprintf("did you mean %q?", s)
			}
			r.fail(t, hint, "unknown type %q", r.val(t))
		}
		r.fail(t, hint, "unexpected %s; expected a type", r.desc(t))
	}
	base := r.val(r.next())
	if r.is(r.peek(), "<") {
		r.bounds()
	}
	if r.is(r.peek(), "[") {
		open := r.next()
		r.expr()
		for r.is(r.peek(), ",") {
			r.next()
			r.expr()
		}
		r.closer("]", open, false)
	}
	if t := r.peek(); r.is(t, "<") {
		r.fail(t, fmt.Sprintf("write %s<lower=...>[...]: bounds come before the sizes, as in Stan", base), "bounds must come before the sizes")
	}
}

func (r *recog) bounds() {
	open := r.next() // "<"
	seen := map[string]bool{}
	for {
		t := r.peek()
		w := r.val(t)
		if !r.isWord(t, "lower") && !r.isWord(t, "upper") {
			hint := "bounds are written <lower=a>, <upper=b> or <lower=a, upper=b>"
			if t.kind == tIdent {
				if s := Suggest(w, []string{"lower", "upper"}); s != "" {
					hint = fmt.Sprintf("did you mean %q?", s)
				}
				r.fail(t, hint, "unknown bound %q; expected lower or upper", w)
			}
			r.fail(t, hint, "unexpected %s; expected lower= or upper=", r.desc(t))
		}
		r.next()
		if seen[w] {
			r.fail(t, "", "the %s bound is given twice", w)
		}
		seen[w] = true
		if eq := r.peek(); !r.is(eq, "=") {
			r.fail(eq, fmt.Sprintf("write %s=value", w), "unexpected %s; expected \"=\" after %q", r.desc(eq), w)
		}
		r.next()
		r.expr()
		switch t := r.peek(); {
		case r.is(t, ","):
			r.next()
		case r.is(t, ">"):
			r.next()
			return
		case r.isWord(t, "lower") || r.isWord(t, "upper"):
			r.fail(t, "separate the bounds with a comma", "unexpected %s; expected \",\" or \">\"", r.desc(t))
		default:
			r.fail(t, fmt.Sprintf("the \"<\" at %s is not closed", at(open)), "missing \">\" %s", r.before(t))
		}
	}
}

func (r *recog) from() {
	t := r.peek()
	const hint = `write from "Column", from "V*" or from all except "A", "B"`
	switch {
	case t.kind == tString:
		r.next()
	case r.isWord(t, "all"):
		r.next()
		if ex := r.peek(); !r.isWord(ex, "except") {
			r.fail(ex, hint, "unexpected %s; expected \"except\" after \"all\"", r.desc(ex))
		}
		r.next()
		for {
			if s := r.peek(); s.kind != tString {
				r.fail(s, hint, "unexpected %s; expected a column name in double quotes", r.desc(s))
			}
			r.next()
			if !r.is(r.peek(), ",") {
				return
			}
			r.next()
		}
	default:
		r.fail(t, hint, "unexpected %s; expected a column name in double quotes after \"from\"", r.desc(t))
	}
}

// ---- statements ---------------------------------------------------------------

func (r *recog) setting() {
	t := r.peek()
	if t.kind != tIdent || r.isWord(t, "for") {
		r.fail(t, hintSetting, "the infer block holds settings such as samples = 10")
	}
	key := r.val(r.next())
	if eq := r.peek(); !r.is(eq, "=") {
		r.fail(eq, hintSetting, "unexpected %s; expected \"=\" after the setting %q", r.desc(eq), key)
	}
	r.next()
	start := r.i
	r.expr()
	n, v := r.i-start, r.toks[start]
	ok := n == 1 && v.kind != tPunct ||
		n == 2 && (r.is(v, "-") || r.is(v, "+")) && r.toks[start+1].kind == tNumber
	if !ok {
		r.fail(v, `a setting's value is a number, a string or a name, as in family = "fullrank"`, "the value of the setting %q must be a literal, not %s", key, r.text(start))
	}
}

func (r *recog) forLoop() {
	r.next() // "for"
	v := r.peek()
	if v.kind != tIdent {
		r.fail(v, hintLoop, "unexpected %s; expected a loop variable after \"for\"", r.desc(v))
	}
	r.next()
	if in := r.peek(); !r.isWord(in, "in") {
		r.fail(in, hintLoop, "unexpected %s; expected \"in\" after \"for %s\"", r.desc(in), r.val(v))
	}
	r.next()
	r.expr()
	if dd := r.peek(); !r.is(dd, "..") {
		r.fail(dd, hintLoop, "unexpected %s; expected \"..\" in the loop range", r.desc(dd))
	}
	r.next()
	r.expr()
	open := r.peek()
	if !r.is(open, "{") {
		r.fail(open, hintLoop, "unexpected %s; expected \"{\" after the loop range", r.desc(open))
	}
	r.next()
	r.items("", open, fmt.Sprintf("%q of the for loop", "{"))
}

func (r *recog) simple() {
	start := r.i
	r.expr()
	lhs := r.text(start)
	t := r.peek()
	switch {
	case r.is(t, "~"):
		r.next()
		d := r.peek()
		if d.kind != tIdent {
			r.fail(d, "the right of \"~\" is a distribution, as in y ~ normal(0, 1)", "unexpected %s; expected a distribution after \"~\"", r.desc(d))
		}
		if !r.is(r.peekAt(1), "(") {
			r.next()
			r.fail(r.peek(), "the right of \"~\" is a distribution with its arguments, as in y ~ normal(0, 1)",
				"unexpected %s; expected \"(\" after the distribution %q", r.desc(r.peek()), r.val(d))
		}
		r.primary() // the call
		if n := r.peek(); n.line == d.line && (r.isBinOp(n) || r.is(n, "[") || r.is(n, "^")) {
			r.fail(n, "the right of \"~\" is a single distribution, as in y ~ normal(mu + 1, sigma)", "unexpected %s after the distribution", r.desc(n))
		}
	case r.is(t, "="):
		r.next()
		r.expr()
	default:
		hint := hintStmt
		if prev, _ := r.last(); t.kind == tIdent && t.line == prev.line {
			hint = `a statement is "x ~ dist(...)" or "name = expr": is a "~" or "=" missing?`
		}
		r.fail(t, hint, "unexpected %s; expected \"~\" or \"=\" after %q", r.desc(t), lhs)
	}
}

func (r *recog) isBinOp(t token) bool {
	return r.is(t, "+") || r.is(t, "-") || r.is(t, "*") || r.is(t, "/")
}

// ---- expressions --------------------------------------------------------------

func (r *recog) expr() {
	r.term()
	for t := r.peek(); r.is(t, "+") || r.is(t, "-"); t = r.peek() {
		r.next()
		r.term()
	}
}

func (r *recog) term() {
	r.unary()
	for t := r.peek(); r.is(t, "*") || r.is(t, "/"); t = r.peek() {
		r.next()
		r.unary()
	}
}

func (r *recog) deeper(t token) {
	r.chain++
	if r.chain > MaxNesting {
		r.fail(t, "", "the expression is nested more than %d deep", MaxNesting)
	}
}

func (r *recog) unary() {
	n := 0
	for t := r.peek(); r.is(t, "-") || r.is(t, "+"); t = r.peek() {
		r.deeper(t)
		r.next()
		n++
	}
	r.postfix()
	if t := r.peek(); r.is(t, "^") {
		r.deeper(t)
		r.next()
		r.unary()
		r.chain--
	}
	r.chain -= n
}

func (r *recog) postfix() {
	r.primary()
	for r.is(r.peek(), "[") {
		open := r.next()
		r.expr()
		for r.is(r.peek(), ",") {
			r.next()
			r.expr()
		}
		r.closer("]", open, true)
	}
}

func (r *recog) primary() {
	t := r.peek()
	switch {
	case t.kind == tNumber || t.kind == tString:
		r.next()
	case t.kind == tIdent:
		r.next()
		if !r.is(r.peek(), "(") {
			return
		}
		open := r.next()
		if r.is(r.peek(), ")") {
			r.next()
			return
		}
		r.expr()
		for r.is(r.peek(), ",") {
			r.next()
			r.expr()
		}
		r.closer(")", open, true)
	case r.is(t, "("):
		open := r.next()
		r.expr()
		r.closer(")", open, false)
	default:
		hint := ""
		if prev, ok := r.last(); ok && prev.kind == tPunct {
			switch p := r.val(prev); {
			case p == "," && (r.is(t, ")") || r.is(t, "]")):
				hint = "remove the trailing comma"
			case strings.Contains("+-*/^=~,([<..", p):
				hint = fmt.Sprintf("an expression is missing after %q", p)
			}
		}
		if r.is(t, "=") || r.is(t, "~") {
			hint = hintStmt
		}
		r.fail(t, hint, "unexpected %s; expected an expression", r.desc(t))
	}
}

// closer expects the closing bracket of open.
func (r *recog) closer(c string, open token, commas bool) {
	t := r.peek()
	if r.is(t, c) {
		r.next()
		return
	}
	if prev, _ := r.last(); commas && r.startsExpr(t) && t.line == prev.line {
		r.fail(t, "separate the arguments with commas", "unexpected %s; expected \",\" or %q", r.desc(t), c)
	}
	r.fail(t, fmt.Sprintf("the %q at %s is not closed", r.val(open), at(open)), "missing %q %s", c, r.before(t))
}

func (r *recog) before(t token) string {
	if t.kind == tEOF {
		return "at end of file"
	}
	return "before " + r.desc(t)
}
