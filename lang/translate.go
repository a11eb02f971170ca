package lang

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Translation of participle's errors. Participle says where it stopped,
// which token it found and which part of the grammar it expected there;
// translate rewords that for people using the tokens around the error
// (the previous and next tokens, the brackets open at that point and what
// precedes the innermost one: a block name, a call's name, "~") and the
// partial tree participle returns with its error (the block or loop body
// the error is in and where the item being parsed starts).

const (
	hintStmt     = `a statement is "x ~ dist(...)" or "name = expr"`
	hintSetting  = "a setting is name = value, as in samples = 10"
	hintLoop     = "a loop is for t in 1..T { ... } (both bounds included)"
	hintSep      = `put each statement on its own line, or separate them with ";"`
	hintFrom     = `write from "Column", from "V*" or from all except "A", "B"`
	hintBounds   = "bounds are written <lower=a>, <upper=b> or <lower=a, upper=b>"
	hintGrammar  = "the grammar is described in the documentation of package lang"
	hintFunction = "write name(x: real, v: vector) -> real { statements; return expr }"
)

// itemParser is the same grammar started at Item; the bracket check of
// large files uses it to parse the one item around an unbalanced bracket.
var itemParser = participle.MustBuild[Item](
	participle.Lexer(mscLexer),
	participle.Elide("Comment", "Whitespace"),
	participle.UseLookahead(0),
)

// exprAfter are the tokens an expression must follow.
var exprAfter = map[string]bool{"+": true, "-": true, "*": true, "/": true, "^": true, "=": true, ",": true, "(": true, "[": true, "..": true}

// item describes an item of a block or loop body in a partial tree.
type item struct {
	pos, end            lexer.Position
	semi, isFor, isDecl bool
	bare                bool // an expression alone, not a call (Stmt.bare)
	loop                *For
}

func blockItems(items []*Item) []item {
	out := make([]item, len(items))
	for k, it := range items {
		out[k] = item{pos: it.Pos, end: it.EndPos, isDecl: it.Decl != nil}
		if it.Decl != nil {
			out[k].semi = it.Decl.Semi
		}
		if it.Stmt != nil {
			out[k].semi, out[k].loop = it.Stmt.Semi, it.Stmt.For
			out[k].isFor = it.Stmt.Braced()
			out[k].bare = it.Stmt.bare()
		}
	}
	return out
}

func loopItems(body []*Stmt) []item {
	out := make([]item, len(body))
	for k, st := range body {
		out[k] = item{pos: st.Pos, end: st.EndPos, semi: st.HasSemi(), loop: st.For, isFor: st.Braced(), bare: st.bare()}
	}
	return out
}

// where is the place of an error at token i in the partial tree.
type where struct {
	inBlock bool
	kind    string // the block
	inLoop  bool
	start   int   // first token of the item being parsed (i if none)
	prev    *item // the complete item before it, if any
}

// locate finds, in the partial tree participle returns with its error,
// the block or loop body and the item the error at token i is in.
func (s *scanned) locate(f *File, i int) where {
	w := where{start: i}
	if f == nil || len(f.Blocks) == 0 {
		return w
	}
	b := f.Blocks[len(f.Blocks)-1]
	if brace := s.index(b.Pos.Offset) + 1; b.EndPos.Line != 0 || !s.isPunct(brace, "{") || i <= brace {
		return w
	}
	w.inBlock, w.kind = true, b.Kind
	items := blockItems(b.Items)
	for {
		n := len(items)
		if n == 0 || items[n-1].end.Line != 0 {
			if n > 0 {
				w.prev = &items[n-1]
			}
			return w
		}
		last := items[n-1]
		if l := last.loop; l != nil && l.Hi != nil && l.Hi.EndPos.Line != 0 {
			if brace := s.index(l.Hi.EndPos.Offset); s.isPunct(brace, "{") && i > brace {
				items, w.inLoop = loopItems(l.Body), true
				continue
			}
		}
		w.start = s.index(last.pos.Offset)
		if n > 1 {
			w.prev = &items[n-2]
		}
		return w
	}
}

// translate turns a participle error into a message for people, using
// the partial tree f (nil for a single item).
func (s *scanned) translate(err error, f *File) *Error {
	var perr participle.Error
	if !errors.As(err, &perr) {
		return s.errAt(0, "", "%v", err)
	}
	pos := perr.Position()
	i := s.index(pos.Offset)
	if pos.Offset > len(s.src) || pos.Line <= 0 {
		i = len(s.toks) - 1
	}
	expect := ""
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		m := strings.TrimPrefix(ute.Message(), fmt.Sprintf("unexpected token %q", ute.Unexpected))
		expect = strings.TrimSuffix(strings.TrimPrefix(m, " (expected "), ")")
	} else {
		return s.errTok(i, hintGrammar, "%s", perr.Message())
	}
	open, _ := s.brackets(i)
	if e := s.unsupported(i, open); e != nil {
		return e
	}
	w := s.locate(f, i)
	if f == nil {
		w.kind, w.inLoop = s.block(open)
		w.inBlock = len(open) > 0
		w.start = s.lineStart(i)
	}
	if strings.Contains("+-*/^", s.text(i)) && s.tildeCall(i) && s.tok(i).line == s.tok(i-1).line {
		return s.errTok(i, "the right of \"~\" is a single distribution, as in y ~ normal(mu + 1, sigma)", "unexpected %s after the distribution", s.desc(i))
	}
	if p := w.prev; p != nil && p.bare {
		return s.missingTilde(s.index(p.end.Offset), where{kind: w.kind, inLoop: w.inLoop, start: s.index(p.pos.Offset)})
	}
	if p := w.prev; p != nil && (w.start < i || w.start == i && !s.isEOF(i) && !strings.Contains(")]}", s.text(i))) {
		if e := s.separated(p.end.Offset, s.tok(w.start).off, p.semi, p.isFor, p.isDecl, w.kind, w.inLoop); e != nil {
			return e
		}
	}
	if e := s.itemShape(i, w); e != nil {
		return e
	}
	if e := s.boundsShape(i, open); e != nil {
		return e
	}
	t, prev := s.desc(i), i-1
	if prev >= 0 && s.text(prev) == "target" && isOneOf(s.text(i), []string{"=", "-=", "*=", "/="}) {
		return s.errTok(i, "add a log density term with target += expr (subtract with target += -expr)", "unexpected %s after \"target\": the log density is changed only by target +=", t)
	}
	switch {
	case strings.HasPrefix(expect, `"{" Item*`):
		if s.isIdent(prev) && !isOneOf(s.text(prev), BlockKinds) {
			return s.errTok(prev, "statements and declarations go inside a block, as in model { ... }",
				"unexpected %s; expected a block such as model { ... }", s.desc(prev))
		}
		return s.errTok(i, "", "unexpected %s; expected \"{\" after %q", t, s.text(prev))
	case strings.HasPrefix(expect, `"{" Stmt*`):
		if kw := s.openingKeyword(i); kw == "if" || kw == "else" {
			return s.errTok(i, "the branches of an if are in braces, even for one statement: if x > 0 { reject(\"x = \", x) } else { ... }",
				"unexpected %s; expected \"{\" after the condition of \"if\"", t)
		}
		return s.errTok(i, hintLoop, "unexpected %s; expected \"{\" after the loop range", t)
	case strings.HasPrefix(expect, `<ident> "in"`):
		return s.errTok(i, hintLoop, "unexpected %s; expected a loop variable after \"for\"", t)
	case strings.HasPrefix(expect, `"=" Expr`) && (s.text(prev) == "lower" || s.text(prev) == "upper"):
		return s.errTok(i, fmt.Sprintf("write %s=value", s.text(prev)), "unexpected %s; expected \"=\" after %q", t, s.text(prev))
	case strings.HasPrefix(expect, `"in"`):
		return s.errTok(i, hintLoop, "unexpected %s; expected \"in\" after \"for %s\"", t, s.text(prev))
	case strings.HasPrefix(expect, `".."`):
		return s.errTok(i, hintLoop, "unexpected %s; expected \"..\" in the loop range", t)
	case strings.HasPrefix(expect, `(("~" Call)`):
		return s.missingTilde(i, w)
	case strings.HasPrefix(expect, "Type"), strings.HasPrefix(expect, `("int" | "real"`):
		// (the second: the base type after an optional array[...])
		return s.badType(i)
	case expect == "Call":
		return s.errTok(i, "the right of \"~\" is a distribution, as in y ~ normal(0, 1)", "unexpected %s; expected a distribution after \"~\"", t)
	case strings.HasPrefix(expect, `"(" (Expr`):
		return s.errTok(i, "the right of \"~\" is a distribution with its arguments, as in y ~ normal(0, 1)",
			"unexpected %s; expected \"(\" after the distribution %q", t, s.text(prev))
	case expect == "From":
		return s.from(i)
	case strings.HasPrefix(expect, `"except"`):
		return s.errTok(i, hintFrom, "unexpected %s; expected \"except\" after \"all\"", t)
	case strings.HasPrefix(expect, "<string>"):
		return s.errTok(i, hintFrom, "unexpected %s; expected a column name in double quotes", t)
	case strings.HasPrefix(expect, "Bound") && s.isPunct(i-1, "<") && (s.isPunct(i-2, "]") || s.isPunct(i-2, ">")):
		// a second "<...>" after the sizes or the bounds
		base := ""
		for j := i - 2; j >= 0 && base == ""; j-- {
			if s.isIdent(j) && isOneOf(s.text(j), TypeNames) {
				base = s.text(j)
			}
		}
		return s.errTok(i-1, fmt.Sprintf("write %s<lower=...>[...]: bounds come before the sizes, as in Stan", base), "bounds must come before the sizes")
	case strings.HasPrefix(expect, "Bound") && s.isPunct(i-1, "<") && s.tok(i-1).line != s.tok(i-2).line:
		// a "<" at the start of a line, read as the bounds of the type before
		return s.expectedExpr(i - 1)
	case strings.HasPrefix(expect, "Bound"):
		return s.bounds(i - 1)
	}
	if exprAfter[s.text(i-1)] && s.isPunct(i-1, s.text(i-1)) && !s.startsExpr(i) {
		return s.expectedExpr(i)
	}
	if e := s.bracketError(i); e != nil {
		return e
	}
	switch {
	case expect == `")"` || expect == `"]"` || expect == `">"`:
		return s.closer(i, open)
	case (expect == "" || strings.HasPrefix(expect, "Expr") || expect == "Unary" || expect == "Term") &&
		!s.endsOperand(i-1) && !s.isPunct(i-1, "{") && !s.isPunct(i-1, ";") && !s.isPunct(i-1, "}") && i > 0:
		return s.expectedExpr(i)
	}
	if !w.inBlock && len(open) == 0 {
		return s.errTok(i, "the blocks are "+BlockList(), "unexpected %s; expected a block such as model { ... }", t)
	}
	return s.inBlock(i, open)
}

// bracketError reports a closing bracket that matches no open one at or
// before token i, or the end of file with brackets open.
func (s *scanned) bracketError(i int) *Error {
	open, bad := s.brackets(i + 1)
	if bad < 0 && !(s.isEOF(i) && len(open) > 0) {
		return nil
	}
	if bad < 0 {
		bad = i
	}
	c := s.text(bad)
	if s.isEOF(bad) && len(open) > 0 {
		// reported below as a missing closer
	} else if len(open) == 0 || c != "}" && s.text(open[len(open)-1]) == "{" {
		if c == "}" {
			return s.errTok(bad, `check that every "{" has exactly one "}"`, `unexpected "}": no block is open`)
		}
		if c == ">" || len(open) == 0 && c != "}" {
			return nil // worded by where it is
		}
		return s.errTok(bad, "remove it, or check the brackets before it", "unexpected %s: there is no open %q", s.desc(bad), map[string]string{")": "(", "]": "["}[c])
	}
	o := open[len(open)-1]
	want := closerOf[s.text(o)]
	if want == "}" {
		return s.errTok(bad, fmt.Sprintf("the %s at %s is not closed", s.braceWhat(o), s.at(o)), `unexpected %s; missing "}"`, s.desc(bad))
	}
	return s.errTok(bad, fmt.Sprintf("the %q at %s is not closed", s.text(o), s.at(o)), "missing %q %s", want, s.before(bad))
}

// bracketCheck reports the first unbalanced bracket of the file, if any.
// When the innermost open bracket there is not a "{", the item it is in
// is parsed on its own, so that an error inside the brackets before the
// unbalanced one (a missing ")" noticed at the next line) is reported
// where participle finds it.
func (s *scanned) bracketCheck() *Error {
	open, bad := s.brackets(len(s.toks))
	if bad < 0 && len(open) == 0 {
		return nil
	}
	if bad < 0 {
		bad = len(s.toks) - 1
	}
	e := s.bracketError(bad)
	if open, _ = s.brackets(bad); len(open) > 0 && s.text(open[len(open)-1]) != "{" {
		if we := s.parseItemAt(s.lineStart(open[len(open)-1])); we != nil && we.Pos.Offset < e.Pos.Offset {
			return we
		}
	}
	return e
}

// braceWhat names the "{" at token o.
func (s *scanned) braceWhat(o int) string {
	if k := s.blockOf(o); k != "" {
		return fmt.Sprintf(`"{" of the %s block`, k)
	}
	return `"{" of the for loop`
}

// blockOf returns the block name before the "{" at token o, or "" for the
// "{" of a loop.
func (s *scanned) blockOf(o int) string {
	if open, _ := s.brackets(o); len(open) == 0 && s.isIdent(o-1) {
		return s.text(o - 1)
	}
	return ""
}

// block returns the kind of the innermost block or loop ("") around open.
func (s *scanned) block(open []int) (kind string, inLoop bool) {
	for k := len(open) - 1; k >= 0; k-- {
		if s.text(open[k]) == "{" {
			if k == 0 {
				return s.text(open[k] - 1), false
			}
			return "", true
		}
	}
	return "", false
}

func itemWord(kind string, inLoop bool) string {
	switch {
	case inLoop:
		return "statement"
	case kind == "infer":
		return "setting"
	case kind == "data" || kind == "param" || kind == "latent":
		return "declaration"
	}
	return "statement"
}

// lineStart is the first token of the item that token i is in, found as
// the first token after the last "{", "}" or ";" on i's line.
func (s *scanned) lineStart(i int) int {
	j := i
	for j > 0 && s.tok(j-1).line == s.tok(i).line && !s.isPunct(j-1, "{") && !s.isPunct(j-1, "}") && !s.isPunct(j-1, ";") {
		j--
	}
	return j
}

// itemShape words an error inside a declaration or a setting by its first
// two tokens: in data, param and latent a name not followed by ":", "~",
// "=", "[" or "(" misses the ":" of a declaration; in infer an item is a
// name and "=".
func (s *scanned) itemShape(i int, w where) *Error {
	if !w.inBlock || w.inLoop || s.isEOF(i) || w.start > i {
		return nil
	}
	if w.start == i {
		if w.kind == "infer" && !strings.Contains(")]}", s.text(i)) {
			return s.errTok(i, hintSetting, "the infer block holds settings such as samples = 10")
		}
		return nil
	}
	name, after := w.start, w.start+1
	switch w.kind {
	case "data", "param", "latent":
		if s.isIdent(name) && s.text(name) != "for" && !s.isPunct(after, ":") && !s.isPunct(after, "~") && !s.isPunct(after, "=") && !s.isPunct(after, "[") && !s.isPunct(after, "(") {
			return s.errTok(after, "a declaration is name: type, as in x: vector[N]", "unexpected %s; expected \":\" after %q", s.desc(after), s.text(name))
		}
	case "infer":
		if !s.isIdent(name) || s.text(name) == "for" {
			return s.errTok(name, hintSetting, "the infer block holds settings such as samples = 10")
		}
		if s.isPunct(after, ":") {
			return s.errTok(name, hintSetting, "the infer block holds settings such as samples = 10")
		}
		if !s.isPunct(after, "=") {
			return s.errTok(after, hintSetting, "unexpected %s; expected \"=\" after the setting %q", s.desc(after), s.text(name))
		}
	}
	return nil
}

// boundsShape: inside "<...>", bounds written after the sizes or a bound
// given twice come before whatever else is wrong there.
func (s *scanned) boundsShape(i int, open []int) *Error {
	if len(open) == 0 || s.text(open[len(open)-1]) != "<" {
		return nil
	}
	o := open[len(open)-1]
	if s.isPunct(o-1, "]") || s.isPunct(o-1, ">") {
		base := ""
		for j := o - 1; j >= 0 && base == ""; j-- {
			if s.isIdent(j) && isOneOf(s.text(j), TypeNames) {
				base = s.text(j)
			}
		}
		return s.errTok(o, fmt.Sprintf("write %s<lower=...>[...]: bounds come before the sizes, as in Stan", base), "bounds must come before the sizes")
	}
	seen := map[string]bool{}
	depth := 0
	for j := o + 1; j < i; j++ {
		switch w := s.text(j); {
		case s.isPunct(j, "(") || s.isPunct(j, "["):
			depth++
		case s.isPunct(j, ")") || s.isPunct(j, "]"):
			depth--
		case depth == 0 && (w == "lower" || w == "upper") && s.isIdent(j) && s.isPunct(j+1, "=") && (s.isPunct(j-1, "<") || s.isPunct(j-1, ",")):
			if seen[w] {
				return s.errTok(j, "", "the %s bound is given twice", w)
			}
			seen[w] = true
		}
	}
	return nil
}

// missingTilde: the left side of a statement, from w.start, is not
// followed by "~" or "=" at token i.
func (s *scanned) missingTilde(i int, w where) *Error {
	start := max(w.start, s.lineStart(i-1))
	switch {
	case w.inLoop && start == i-1 && s.isIdent(i-1) && s.isPunct(i, ":"):
		return s.errTok(i-1, "declare it in the data, param or latent block", "a declaration cannot appear inside a for loop")
	case w.kind == "infer" && !w.inLoop:
		return s.errTok(i, hintSetting, "unexpected %s; expected \"=\" after the setting %q", s.desc(i), s.span(start, i))
	case (w.kind == "data" || w.kind == "param" || w.kind == "latent") && !w.inLoop && start == i-1 && s.isIdent(i-1):
		return s.errTok(i, "a declaration is name: type, as in x: vector[N]", "unexpected %s; expected \":\" after %q", s.desc(i), s.text(i-1))
	}
	hint := hintStmt
	if s.isIdent(i) && s.tok(i).line == s.tok(i-1).line {
		hint = `a statement is "x ~ dist(...)" or "name = expr": is a "~" or "=" missing?`
	}
	return s.errTok(i, hint, "unexpected %s; expected \"~\" or \"=\" after %q", s.desc(i), s.span(start, i))
}

func (s *scanned) badType(i int) *Error {
	hint := "the types are int, real, vector[n], matrix[m, n] and arrays of them (array[n] real)"
	if s.isIdent(i) {
		if sug := Suggest(s.text(i), append(TypeNames[:len(TypeNames):len(TypeNames)], "array")); sug != "" {
			hint = fmt.Sprintf("did you mean %q?", sug)
		}
		return s.errTok(i, hint, "unknown type %q", s.text(i))
	}
	return s.errTok(i, hint, "unexpected %s; expected a type", s.desc(i))
}

// expectedExpr: an expression should start at token i.
func (s *scanned) expectedExpr(i int) *Error {
	hint := ""
	if p := s.text(i - 1); !s.endsOperand(i-1) && !s.isEOF(i-1) {
		switch {
		case p == "," && (s.isPunct(i, ")") || s.isPunct(i, "]")):
			hint = "remove the trailing comma"
		case strings.Contains("+-*/^=~,([<..", p) && p != "":
			hint = fmt.Sprintf("an expression is missing after %q", p)
		}
	}
	if s.isPunct(i, "=") || s.isPunct(i, "~") {
		hint = hintStmt
	}
	return s.errTok(i, hint, "unexpected %s; expected an expression", s.desc(i))
}

// closer: the innermost open bracket should be closed at token i.
func (s *scanned) closer(i int, open []int) *Error {
	if len(open) == 0 {
		return s.errTok(i, hintGrammar, "unexpected %s", s.desc(i))
	}
	o := open[len(open)-1]
	c := closerOf[s.text(o)]
	if c == ">" && s.isPunct(i, ",") {
		return s.bounds(i)
	}
	if c == ">" && (s.text(i) == "lower" || s.text(i) == "upper") {
		return s.errTok(i, "separate the bounds with a comma", "unexpected %s; expected \",\" or \">\"", s.desc(i))
	}
	// the arguments of a call and the indexes of a name are separated by
	// commas; the sizes of a type and a parenthesised expression are not lists
	commas := c == ")" && s.isIdent(o-1) || c == "]" && s.endsOperand(o-1) && !isOneOf(s.text(o-1), TypeNames)
	if commas && s.startsExpr(i) && s.tok(i).line == s.tok(i-1).line {
		return s.errTok(i, "separate the arguments with commas", "unexpected %s; expected \",\" or %q", s.desc(i), c)
	}
	return s.errTok(i, fmt.Sprintf("the %q at %s is not closed", s.text(o), s.at(o)), "missing %q %s", c, s.before(i))
}

// tildeCall reports whether token i follows "~ dist(...)".
func (s *scanned) tildeCall(i int) bool {
	if !s.isPunct(i-1, ")") {
		return false
	}
	depth := 0
	for j := i - 1; j >= 0; j-- {
		switch {
		case s.isPunct(j, ")"):
			depth++
		case s.isPunct(j, "("):
			depth--
			if depth == 0 {
				return s.isIdent(j-1) && s.isPunct(j-2, "~")
			}
		}
	}
	return false
}

// inBlock explains why no item could start at token i inside a block or
// loop body.
func (s *scanned) inBlock(i int, open []int) *Error {
	kind, inLoop := s.block(open)
	if t := s.text(i); (t == "lower" || t == "upper") && s.isPunct(i+1, "=") && !inLoop && itemWord(kind, false) == "declaration" {
		return s.errTok(i, "bounds follow the type name in <...>, as in real<lower=0> or vector<lower=0>[N]", "unexpected %s after the declaration", s.desc(i))
	}
	return s.expectedExpr(i)
}

// sepError: token i starts an item on the line where the previous one
// ends.
func (s *scanned) sepError(i int, kind string, inLoop bool) *Error {
	hint := hintSep
	if s.tok(i-1).typ == typNumber && s.isIdent(i) && s.tok(i-1).end == s.tok(i).off {
		hint = "multiplication is written with *, as in 2 * x"
	}
	return s.errTok(i, hint, "unexpected %s; expected a new line or \";\" after the %s", s.desc(i), itemWord(kind, inLoop))
}

// parseItemAt parses one item starting at token i and translates its
// error.
func (s *scanned) parseItemAt(i int) *Error {
	off := s.tok(i).off
	r := sort.Search(len(s.raw), func(k int) bool { return s.raw[k].Pos.Offset >= off })
	peek, err := lexer.Upgrade(&sliceLexer{toks: s.raw[r:]}, typSpace, typComment)
	if err != nil {
		return nil
	}
	if _, err = itemParser.ParseFromLexer(peek); err == nil {
		return nil
	}
	return s.translate(err, nil)
}

// from: the column selection after "from" should start at token i.
func (s *scanned) from(i int) *Error {
	switch {
	case s.tok(i).typ == typString:
		return s.errTok(i, hintGrammar, "unexpected %s", s.desc(i))
	case s.text(i) == "all" && s.isIdent(i):
		if s.text(i+1) != "except" {
			return s.errTok(i+1, hintFrom, "unexpected %s; expected \"except\" after \"all\"", s.desc(i+1))
		}
		for j := i + 2; ; j += 2 {
			if s.tok(j).typ != typString {
				return s.errTok(j, hintFrom, "unexpected %s; expected a column name in double quotes", s.desc(j))
			}
			if !s.isPunct(j+1, ",") {
				return s.errTok(j+1, hintGrammar, "unexpected %s", s.desc(j+1))
			}
		}
	}
	return s.errTok(i, hintFrom, "unexpected %s; expected a column name in double quotes after \"from\"", s.desc(i))
}

// bounds: the bound after the "<" or "," at token o is wrong.
func (s *scanned) bounds(o int) *Error {
	i := o + 1
	w := s.text(i)
	if w != "lower" && w != "upper" {
		hint := hintBounds
		if s.isIdent(i) {
			if sug := Suggest(w, []string{"lower", "upper"}); sug != "" {
				hint = fmt.Sprintf("did you mean %q?", sug)
			}
			return s.errTok(i, hint, "unknown bound %q; expected lower or upper", w)
		}
		return s.errTok(i, hint, "unexpected %s; expected lower= or upper=", s.desc(i))
	}
	if !s.isPunct(i+1, "=") {
		return s.errTok(i+1, fmt.Sprintf("write %s=value", w), "unexpected %s; expected \"=\" after %q", s.desc(i+1), w)
	}
	return s.expectedExpr(i + 2)
}

// stanBlocks maps Stan's two-word block names to what mscppl has.
var stanBlocks = map[string]string{
	"transformed data":       "Stan's transformed data are definitions name = expression inside data { }",
	"transformed parameters": "Stan's transformed parameters are transformed { } here: declarations (name: type, with bounds) and the statements that assign them",
	"generated quantities":   "Stan's generated quantities are derived { ... }, computed on each posterior draw (definitions, declarations, loops, if, NAME_rng)",
}

// unsupported names a Stan construct the language does not have, when the
// parse error at token i is one: a two-word Stan block, a while loop
// written as in Stan, a slice x[a:b].
func (s *scanned) unsupported(i int, open []int) *Error {
	for _, j := range []int{i - 1, i} {
		if j < 0 || j+1 >= len(s.toks) || !s.isIdent(j) || !s.isIdent(j+1) {
			continue
		}
		if hint, ok := stanBlocks[s.text(j)+" "+s.text(j+1)]; ok && len(open) == 0 {
			return s.errTok(j, hint, "there is no %s block", s.text(j)+" "+s.text(j+1))
		}
	}
	if len(open) > 0 && open[0] > 0 && s.text(open[0]-1) == "functions" {
		return s.errTok(i, hintFunction, "a function is written as in mscppl, not Stan")
	}
	if j := s.lineStart(i); j >= 0 && j <= i && s.isIdent(j) && s.text(j) == "while" {
		return s.errTok(j, "write while cond { ... }", "a while loop is written while cond { statements }")
	}
	return nil
}

// openingKeyword is the last "if", "else" or "for" before token i with no
// "{", "}" or ";" between them: the construct whose body token i should
// open ("" when there is none).
func (s *scanned) openingKeyword(i int) string {
	for j := i - 1; j >= 0; j-- {
		if s.isPunct(j, "{") || s.isPunct(j, "}") || s.isPunct(j, ";") {
			return ""
		}
		if s.isIdent(j) && isOneOf(s.text(j), []string{"if", "else", "for"}) {
			return s.text(j)
		}
	}
	return ""
}
