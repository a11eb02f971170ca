package lang

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// maxShownLine is the number of bytes of a source line that Format prints.
const maxShownLine = 200

// Format prints each error as "file:line:col: message", then the source
// line (indented by four spaces, tabs kept) with a caret under the column,
// then "hint: ..." if the error has a hint, in the style of go/scanner's
// ErrorList. Control characters and invalid UTF-8 in the shown line are
// printed as '?'; a line longer than 200 bytes is shown as a window around
// the column. Errors whose file is not in sources, or whose position is
// unknown, get only the first line (and the hint).
//
// At most MaxShownErrors are printed, then a line counting the others
// (a file of a million bad cells gives a page, not a million).
func (l ErrorList) Format(w io.Writer, sources map[string][]byte) {
	for i, e := range l {
		if i == MaxShownErrors {
			fmt.Fprintf(w, "... and %d more errors\n", len(l)-i)
			break
		}
		fmt.Fprintf(w, "%s: %s\n", e.Pos, e.Msg)
		if src, ok := sources[e.Pos.File]; ok && e.Pos.IsValid() {
			if line, ok := sourceLine(src, e.Pos.Line); ok {
				shown, pad := caretLines(strings.TrimRight(line, "\r"), e.Pos.Col)
				fmt.Fprintf(w, "    %s\n    %s^\n", shown, pad)
			}
		}
		if e.Hint != "" {
			fmt.Fprintf(w, "    hint: %s\n", e.Hint)
		}
	}
}

// MaxShownErrors is the most errors ErrorList.Format prints.
const MaxShownErrors = 20

// caretLines returns the line as shown and the padding that puts a caret
// under byte column col (1-based).
func caretLines(line string, col int) (shown, pad string) {
	c := min(max(col-1, 0), len(line)) // byte index of the caret
	from, to := 0, len(line)
	if len(line) > maxShownLine {
		from = max(0, c-maxShownLine/2)
		to = min(len(line), from+maxShownLine)
		from = max(0, to-maxShownLine)
		for from > 0 && !utf8.RuneStart(line[from]) {
			from--
		}
		for to < len(line) && !utf8.RuneStart(line[to]) {
			to++
		}
	}
	var sb, pb strings.Builder
	if from > 0 {
		sb.WriteString("...")
		pb.WriteString("   ")
	}
	for i := from; i < to; {
		r, size := utf8.DecodeRuneInString(line[i:])
		ch := r
		switch {
		case r == utf8.RuneError && size <= 1, r != '\t' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0):
			ch = '?'
		}
		sb.WriteRune(ch)
		if i < c {
			if ch == '\t' {
				pb.WriteByte('\t')
			} else {
				pb.WriteByte(' ')
			}
		}
		i += size
	}
	if to < len(line) {
		sb.WriteString("...")
	}
	return sb.String(), pb.String()
}

// sourceLine returns line n (1-based) of src without its newline.
func sourceLine(src []byte, n int) (string, bool) {
	if n < 1 {
		return "", false
	}
	start := 0
	for line := 1; line < n; line++ {
		i := bytes.IndexByte(src[start:], '\n')
		if i < 0 {
			return "", false
		}
		start += i + 1
	}
	end := bytes.IndexByte(src[start:], '\n')
	if end < 0 {
		return string(src[start:]), true
	}
	return string(src[start : start+end]), true
}

// Suggest returns the candidate closest to name by edit distance (case
// insensitive, counting a transposition as one edit), if it is close enough
// to be a likely typo: at most 1 + len(name)/3 edits. Ties go to the
// earlier candidate; a candidate equal to name is skipped. It returns ""
// when nothing is close.
func Suggest(name string, candidates []string) string {
	if name == "" {
		return ""
	}
	best, bestD := "", 1<<30
	ln := strings.ToLower(name)
	for _, c := range candidates {
		if c == name || c == "" {
			continue
		}
		d := editDistance(ln, strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= 1+len([]rune(name))/3 {
		return best
	}
	return ""
}

// editDistance is the optimal string alignment distance (Levenshtein with
// adjacent transpositions).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// three rows: i-2, i-1, i
	pp := make([]int, len(rb)+1)
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
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		pp, prev, cur = prev, cur, pp
	}
	return prev[len(rb)]
}
