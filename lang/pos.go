package lang

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a position in a source file (a .msc model or a CSV data file).
// Line and Col are 1-based; Col counts bytes. The zero Pos means "no position".
type Pos struct {
	File   string
	Offset int
	Line   int
	Col    int
}

// IsValid reports whether the position is known.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String renders file:line:col (or as much of it as is known).
func (p Pos) String() string {
	switch {
	case !p.IsValid() && p.File == "":
		return "-"
	case !p.IsValid():
		return p.File
	case p.File == "":
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is one user-facing diagnostic.
type Error struct {
	Pos  Pos
	Msg  string
	Hint string // optional: "did you mean ...?", "remove the trailing comma", ...
}

func (e *Error) Error() string {
	s := e.Pos.String() + ": " + e.Msg
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Errorf builds an *Error.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// ErrorList is a list of diagnostics, in the spirit of go/scanner.ErrorList.
type ErrorList []*Error

// Add appends an error.
func (l *ErrorList) Add(pos Pos, msg string) { *l = append(*l, &Error{Pos: pos, Msg: msg}) }

// Addf appends a formatted error and returns it so a hint can be attached.
func (l *ErrorList) Addf(pos Pos, format string, args ...any) *Error {
	e := Errorf(pos, format, args...)
	*l = append(*l, e)
	return e
}

// Sort orders the list by file and position.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// Err returns nil for an empty list, the list otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}
