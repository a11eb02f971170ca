package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/lang"
)

// userError is an error caused by the user's input (exit status 1).
type userError = infer.UserError

func userErrorf(hint, format string, args ...any) error { return infer.Errorf(hint, format, args...) }

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
		fmt.Fprintf(w, "mscppl: %s\n", ue.Msg)
		if ue.Hint != "" {
			fmt.Fprintf(w, "hint: %s\n", ue.Hint)
		}
	default:
		fmt.Fprintf(w, "mscppl: %v\n", err)
	}
}
