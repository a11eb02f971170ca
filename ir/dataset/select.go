package dataset

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SelKind is the kind of a column selection.
type SelKind int

const (
	// SelColumn selects the named columns, in the given order (usually one).
	SelColumn SelKind = iota
	// SelGlob selects the columns whose names match Pattern (path.Match
	// syntax), in header order.
	SelGlob
	// SelAllExcept selects every column except the named ones, in header
	// order. An excluded name that is a glob (see IsGlob) and not itself a
	// column name excludes every column it matches.
	SelAllExcept
)

func (k SelKind) String() string {
	switch k {
	case SelColumn:
		return "column"
	case SelGlob:
		return "glob"
	case SelAllExcept:
		return "all-except"
	}
	return "SelKind(" + strconv.Itoa(int(k)) + ")"
}

// Selection chooses columns of a table.
type Selection struct {
	Kind    SelKind
	Names   []string // SelColumn: the columns; SelAllExcept: the exclusions
	Pattern string   // SelGlob
}

// IsGlob reports whether a column name given by the user is a glob.
func IsGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// SelectError is an error of Select. It carries no position: the caller
// knows where in the model the selection was written.
type SelectError struct {
	Msg  string
	Hint string // "did you mean ...?" and the like; may be empty
}

func (e *SelectError) Error() string {
	if e.Hint == "" {
		return e.Msg
	}
	return e.Msg + " (" + e.Hint + ")"
}

func selErr(hint, format string, args ...any) *SelectError {
	return &SelectError{Msg: fmt.Sprintf(format, args...), Hint: hint}
}

// Select resolves a selection to column indices. Errors are *SelectError.
func (t *Table) Select(sel Selection) (cols []int, err error) {
	switch sel.Kind {
	case SelColumn:
		if len(sel.Names) == 0 {
			return nil, selErr("", "empty column selection")
		}
		seen := make(map[int]bool, len(sel.Names))
		for _, name := range sel.Names {
			j := t.Index(name)
			if j < 0 {
				return nil, t.missing(name)
			}
			if seen[j] {
				return nil, selErr("", "column %q is selected twice", name)
			}
			seen[j] = true
			cols = append(cols, j)
		}
		return cols, nil
	case SelGlob:
		cols, err := t.glob(sel.Pattern)
		if err != nil {
			return nil, err
		}
		if len(cols) == 0 {
			return nil, t.noMatch(sel.Pattern)
		}
		return cols, nil
	case SelAllExcept:
		excl := make([]bool, len(t.Header))
		for _, name := range sel.Names {
			if j := t.Index(name); j >= 0 {
				excl[j] = true
				continue
			}
			if !IsGlob(name) {
				return nil, t.missing(name)
			}
			m, err := t.glob(name)
			if err != nil {
				return nil, err
			}
			if len(m) == 0 {
				return nil, t.noMatch(name)
			}
			for _, j := range m {
				excl[j] = true
			}
		}
		for j := range t.Header {
			if !excl[j] {
				cols = append(cols, j)
			}
		}
		if len(cols) == 0 {
			return nil, selErr("", "no columns of %s are left after the exclusions", t.File)
		}
		return cols, nil
	}
	return nil, selErr("", "unknown selection kind %v", sel.Kind)
}

// glob returns the columns matching pattern, in header order.
func (t *Table) glob(pattern string) ([]int, error) {
	if _, err := path.Match(pattern, ""); err != nil {
		return nil, selErr("patterns use *, ? and [...] as in path.Match", "bad column pattern %q: %v", pattern, err)
	}
	var out []int
	for j, h := range t.Header {
		if ok, _ := path.Match(pattern, h); ok {
			out = append(out, j)
		}
	}
	return out, nil
}

func (t *Table) noMatch(pattern string) error {
	hint := ""
	lp := strings.ToLower(pattern)
	n := 0
	for _, h := range t.Header {
		if ok, _ := path.Match(lp, strings.ToLower(h)); ok {
			n++
		}
	}
	switch {
	case n > 0:
		hint = fmt.Sprintf("matching is case-sensitive; ignoring case, %d column(s) would match", n)
	default:
		hint = t.listColumns()
	}
	return selErr(hint, "no column of %s matches %q", t.File, pattern)
}

func (t *Table) missing(name string) error {
	var hint string
	switch s := suggest(name, t.Header); {
	case s != "":
		hint = fmt.Sprintf("did you mean %q?", s)
	case t.headerLooksLikeData():
		hint = "the first line of the file must name the columns, and it looks like data"
	default:
		hint = t.listColumns()
	}
	return selErr(hint, "%s has no column %q", t.File, name)
}

// listColumns describes the header for a hint.
func (t *Table) listColumns() string {
	const show = 10
	q := make([]string, 0, show)
	for i, h := range t.Header {
		if i == show {
			break
		}
		q = append(q, strconv.Quote(h))
	}
	s := strings.Join(q, ", ")
	if len(t.Header) > show {
		return fmt.Sprintf("its %d columns are %s, ...", len(t.Header), s)
	}
	if len(t.Header) == 1 {
		return "its only column is " + s
	}
	return "its columns are " + s
}

// headerLooksLikeData reports whether every header name is a number.
func (t *Table) headerLooksLikeData() bool {
	for _, h := range t.Header {
		if _, err := strconv.ParseFloat(h, 64); err != nil {
			return false
		}
	}
	return len(t.Header) > 0
}

// suggest returns the candidate closest to name, or "" when none is close:
// a candidate equal up to case always qualifies; otherwise the edit
// distance (with transpositions) must be at most (len(name)+1)/3 runes.
// Ties go to the earliest candidate.
func suggest(name string, cands []string) string {
	for _, c := range cands {
		if strings.EqualFold(c, name) {
			return c
		}
	}
	limit := (utf8.RuneCountInString(name) + 1) / 3
	best, bestD := "", limit+1
	a := []rune(name)
	for _, c := range cands {
		if d := editDistance(a, []rune(c), bestD); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and adjacent transpositions; case
// differences cost nothing). Results >= bound may be reported as bound.
func editDistance(a, b []rune, bound int) int {
	if d := len(a) - len(b); d >= bound || -d >= bound {
		return bound
	}
	eq := func(x, y rune) bool {
		return x == y || unicode.SimpleFold(x) == y || unicode.ToLower(x) == unicode.ToLower(y)
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if eq(a[i-1], b[j-1]) {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && eq(a[i-1], b[j-2]) && eq(a[i-2], b[j-1]) {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], bound)
}

// Describe says which columns of file a selection matched, for messages and
// the layout printed by check: `column "y" of d.csv`, or `columns x1, x2,
// x3 of d.csv, all except "y"` (the names shortened with ... when there
// are more than 8).
func (sel Selection) Describe(names []string, file string) string {
	if len(names) == 1 && sel.Kind == SelColumn {
		return fmt.Sprintf("column %q of %s", names[0], file)
	}
	show := make([]string, 0, len(names))
	for _, n := range names {
		if strings.ContainsAny(n, " ,\"'") || n == "" {
			n = strconv.Quote(n)
		}
		show = append(show, n)
	}
	if len(show) > 8 {
		show = append(append(show[:3:3], "..."), show[len(show)-2:]...)
	}
	s := "columns"
	if len(names) == 1 {
		s = "column"
	}
	s = fmt.Sprintf("%s %s of %s", s, strings.Join(show, ", "), file)
	switch sel.Kind {
	case SelGlob:
		s += fmt.Sprintf(", matching %q", sel.Pattern)
	case SelAllExcept:
		q := make([]string, len(sel.Names))
		for i, n := range sel.Names {
			q[i] = strconv.Quote(n)
		}
		s += ", all except " + strings.Join(q, ", ")
	}
	return s
}
