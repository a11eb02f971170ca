package ir

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Message is Stan's print(...) or reject(...) statement. Its parts are
// written one after the other: a string as it is, a value as a number
// (%g), a vector or matrix as [a, b, ...].
//
// print writes its line to stderr (MessageOutput) the first time its
// statement runs, once per call site for the whole run (a model evaluated
// millions of times would otherwise print millions of lines). reject in
// the model block rejects the draw: its term of the log density is -Inf
// where it runs (under the ifs on latents around it), and the run reports
// how many evaluations it rejected (RejectNotes); in the data block's
// statements, or anywhere with values known before inference, it is an
// error at check; in the derived block it stops the run at the first draw
// that reaches it (RNGError), as Stan's generated quantities do.
//
// A reject with a Check is the constraint check of a quantity of the
// transformed block (checks.go): it rejects only when the values of its
// parts violate the constraint, with a message naming the element.
type Message struct {
	StmtBase
	Reject bool
	Parts  []MessagePart
	Check  *Check
}

// MessagePart is a string (X nil) or a value.
type MessagePart struct {
	Str string
	X   Expr
}

// Text is the message with the values vals of its expression parts.
func (s *Message) Text(vals [][]float64) string {
	var b strings.Builder
	k := 0
	for _, p := range s.Parts {
		if p.X == nil {
			b.WriteString(p.Str)
			continue
		}
		v := vals[k]
		k++
		if p.X.Type().Scalar() {
			b.WriteString(formatNum(v[0]))
			continue
		}
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(formatNum(x))
		}
		b.WriteByte(']')
	}
	return b.String()
}

func formatNum(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case math.IsNaN(x):
		return "nan"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// Where is the message's position as file:line:col.
func (s *Message) Where() string {
	p := s.Pos()
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}
