package lang

import (
	"strings"
)

// Stan's forms. A Stan declaration (vector<lower=0>[N] lam;, array[N] int
// y;, real x = 2;) and a Stan loop (for (i in 1:N)) do not parse as the
// language's items, or parse as something else (int<lower=0> N is the
// comparison int < lower, assigned 0 > N), so they are found on the tokens
// before the grammar sees them: a type name at the start of an item
// (inside a block, after "{", "}", ";" or a line break), with its bounds
// and sizes, followed by a name on the same line. The message shows the
// same declaration in the language's form.

// stanTypes are Stan's type names that start a declaration, with the
// language's base type for each ("" when the language has none).
var stanTypes = map[string]string{
	"int": "int", "real": "real", "vector": "vector", "matrix": "matrix",
	"simplex": "simplex", "ordered": "ordered", "positive_ordered": "positive_ordered",
	"cholesky_factor_corr": "cholesky_factor_corr", "row_vector": "row_vector",
	"cov_matrix": "", "corr_matrix": "", "cholesky_factor_cov": "", "unit_vector": "",
	"complex": "", "tuple": "",
}

// stanForm returns the first Stan declaration or loop of the file, or nil.
func (s *scanned) stanForm() *Error {
	depth := 0 // brackets ( [ open
	braces := 0
	block := "" // the block the token is in
	for i := 0; i < len(s.toks) && !s.isEOF(i); i++ {
		start := braces > 0 && depth == 0 && (i == 0 || s.isPunct(i-1, "{") || s.isPunct(i-1, "}") || s.isPunct(i-1, ";") || s.tok(i-1).line != s.tok(i).line)
		if start && s.isIdent(i) {
			if e := s.stanItem(i, block); e != nil {
				return e
			}
		}
		switch {
		case s.isPunct(i, "{"):
			if braces == 0 {
				block = s.text(i - 1)
			}
			braces++
		case s.isPunct(i, "}"):
			braces--
		case s.isPunct(i, "(") || s.isPunct(i, "["):
			depth++
		case s.isPunct(i, ")") || s.isPunct(i, "]"):
			depth = max(0, depth-1)
		}
	}
	return nil
}

// match returns the index of the bracket closing the one at token o (the
// brackets inside it balanced), or -1.
func (s *scanned) match(o int) int {
	open, closer := s.text(o), closerOf[s.text(o)]
	n := 0
	for j := o; j < len(s.toks) && !s.isEOF(j); j++ {
		switch {
		case s.isPunct(j, open):
			n++
		case s.isPunct(j, closer):
			if n--; n == 0 {
				return j
			}
		case s.isPunct(j, "{") || s.isPunct(j, "}") || s.isPunct(j, ";"):
			return -1
		}
	}
	return -1
}

// source is the text of tokens from..to inclusive, blanks collapsed.
func (s *scanned) source(from, to int) string {
	if from > to {
		return ""
	}
	return strings.Join(strings.Fields(string(s.src[s.tok(from).off:s.tok(to).end])), " ")
}

// stanItem reports a Stan declaration or loop starting at token i, in the
// block of that name (the bounds of a local declaration are left out).
func (s *scanned) stanItem(i int, block string) *Error {
	if s.text(i) == "for" && s.isPunct(i+1, "(") {
		return s.stanFor(i)
	}
	j := i
	arrayDims := ""
	if s.text(i) == "array" && s.isPunct(i+1, "[") {
		c := s.match(i + 1)
		if c < 0 {
			return nil
		}
		arrayDims, j = s.source(i+2, c-1), c+1
	}
	base, ok := stanTypes[s.text(j)]
	if !ok || !s.isIdent(j) {
		return nil
	}
	bounds, dims := "", ""
	k := j + 1
	if s.isPunct(k, "<") {
		c := k + 1
		for n := 0; c < len(s.toks) && !s.isEOF(c); c++ {
			if s.isPunct(c, "(") || s.isPunct(c, "[") {
				n++
			} else if s.isPunct(c, ")") || s.isPunct(c, "]") {
				n--
			} else if n == 0 && s.isPunct(c, ">") || s.isPunct(c, "{") || s.isPunct(c, ";") {
				break
			}
		}
		if !s.isPunct(c, ">") {
			return nil
		}
		bounds, k = s.source(k, c), c+1
	}
	if s.isPunct(k, "[") {
		c := s.match(k)
		if c < 0 {
			return nil
		}
		dims, k = s.source(k+1, c-1), c+1
	}
	name := k
	if !s.isIdent(name) || s.tok(name).line != s.tok(i).line {
		return nil
	}
	oldDims, after := "", name // real y[N]: Stan's array form before 2.33
	if s.isPunct(name+1, "[") && arrayDims == "" {
		c := s.match(name + 1)
		if c < 0 {
			return nil
		}
		oldDims, after = s.source(name+2, c-1), c
	}
	if n := after + 1; !(s.isEOF(n) || s.isPunct(n, ";") || s.isPunct(n, "=") || s.isPunct(n, "}") || s.tok(n).line != s.tok(name).line) {
		return nil
	}
	stan := s.source(i, after)
	init := ""
	if s.isPunct(after+1, "=") {
		e := after + 2
		for !s.isEOF(e) && !s.isPunct(e, ";") && s.tok(e).line == s.tok(name).line {
			e++
		}
		init = " = " + s.source(after+2, e-1)
		stan += init
	}
	hint := "a declaration is name: type, as in x: vector<lower=0>[N]"
	if bounds != "" && (block == "model" || block == "derived" || block == "functions") {
		bounds, hint = "", "local variables take no bounds (Stan's bounds on a local are checks)"
	}
	if base == "" {
		return s.errTok(i, hint, "Stan's %s is not supported yet (in %q)", s.text(j), stan)
	}
	typ := base + bounds
	switch {
	case arrayDims != "" && (base == "matrix" || base == "cholesky_factor_corr"):
		return s.errTok(i, "declare each one (L1: cholesky_factor_corr[K], L2: cholesky_factor_corr[K]), or use an array of vectors", "arrays of %s are not supported yet (in %q)", s.text(j), stan)
	case arrayDims != "":
		typ = "array[" + arrayDims + "] " + typ
		if dims != "" {
			typ += "[" + dims + "]"
		}
		hint = "an array is name: array[N] T, with T's bounds after T, as in theta: array[4] real<lower=0>"
	case dims != "":
		typ += "[" + dims + "]"
	}
	if oldDims != "" {
		arrayDims = oldDims
		typ = "array[" + oldDims + "] " + typ
		hint = "Stan's old array syntax " + s.source(j, after) + " is array[" + oldDims + "] " + s.source(j, name) + " since Stan 2.33"
	}
	return s.errTok(i, hint, "%q is Stan's form of a declaration; write %s: %s%s", stan, s.text(name), typ, init)
}

// stanFor reports Stan's for (i in lo:hi) at token i.
func (s *scanned) stanFor(i int) *Error {
	c := s.match(i + 1)
	if c < 0 || !s.isIdent(i+2) || s.text(i+3) != "in" {
		return nil
	}
	colon := -1
	n := 0
	for j := i + 4; j < c; j++ {
		switch {
		case s.isPunct(j, "(") || s.isPunct(j, "["):
			n++
		case s.isPunct(j, ")") || s.isPunct(j, "]"):
			n--
		case n == 0 && s.isPunct(j, ":"):
			colon = j
		}
	}
	if colon < 0 {
		return nil
	}
	lo, hi := s.source(i+4, colon-1), s.source(colon+1, c-1)
	return s.errTok(i, hintLoop, "%q is Stan's form of a loop; write for %s in %s..%s { ... }", s.source(i, c), s.text(i+2), lo, hi)
}
