package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/mscppl/mscppl/lang"
)

// userError is an error caused by the user's input (exit status 1).
type userError struct {
	msg  string
	hint string
}

func (e *userError) Error() string { return e.msg }

func userErrorf(hint, format string, args ...any) error {
	return &userError{msg: fmt.Sprintf(format, args...), hint: hint}
}

// report prints err for a person: positioned errors with their source line
// and a caret, anything else on one line with an optional hint.
func report(w io.Writer, err error, sources map[string][]byte) {
	var list lang.ErrorList
	var one *lang.Error
	var ue *userError
	switch {
	case errors.As(err, &list):
		list.Format(w, sources)
	case errors.As(err, &one):
		lang.ErrorList{one}.Format(w, sources)
	case errors.As(err, &ue):
		fmt.Fprintf(w, "mscppl: %s\n", ue.msg)
		if ue.hint != "" {
			fmt.Fprintf(w, "hint: %s\n", ue.hint)
		}
	default:
		fmt.Fprintf(w, "mscppl: %v\n", err)
	}
}
