package lower

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

// MessageOutput is where print statements write (stderr).
var MessageOutput io.Writer = os.Stderr

var (
	messageMu sync.Mutex // serialises MessageOutput between chains
	// printed holds the positions of the print statements that have
	// written their line, for the whole process: each chain builds and
	// compiles a model of its own
	printed sync.Map
)

// messageOp is a print or reject statement on the tape. Its inputs are
// the conditions of the ifs on latents around it (each must be nonzero,
// or zero for an else branch: conds) and then the values of its parts;
// its value is 0, or -Inf where a reject runs. It counts the evaluations
// it rejected and keeps the first message.
type messageOp struct {
	s     *ir.Message
	conds []bool // the branch each condition input selects
	n     atomic.Int64
	first atomic.Value // string
	loops string
	// derived is set for a statement of the derived block
	derived bool
}

func (o *messageOp) Name() string {
	if o.s.Reject {
		return "reject"
	}
	return "print"
}

func (o *messageOp) Forward(out []float64, in [][]float64) {
	out[0] = 0
	for i, taken := range o.conds {
		if (in[i][0] != 0) != taken {
			return
		}
	}
	if !o.s.Reject {
		if _, done := printed.LoadOrStore(o.s.Pos(), true); done {
			return
		}
		msg := o.s.Text(in[len(o.conds):])
		messageMu.Lock()
		fmt.Fprintf(MessageOutput, "%s: print: %s (printed once per call site)\n", o.s.Where(), msg)
		messageMu.Unlock()
		return
	}
	if vals := in[len(o.conds):]; o.s.Rejects(vals) {
		out[0] = math.Inf(-1)
		if o.n.Add(1) == 1 {
			o.first.Store(o.s.Reason(vals))
		}
	}
}

// Reason is the message of the reject whose inputs are in (those of the
// row that rejected), for explain.ZeroDensity.
func (o *messageOp) Reason(in [][]float64) string { return o.s.Reason(in[len(o.conds):]) }

func (*messageOp) Backward(_, _ []float64, _ [][]float64, _ [][]float64) {}

// firstText is the first rejection's message.
func (o *messageOp) firstText() string {
	s, _ := o.first.Load().(string)
	return s
}

// message compiles a print or reject statement: in the model block a
// term of the log density (0, or -Inf where a reject runs), in the
// derived block a node Constrain evaluates. A reject whose inputs are all
// known before inference is an error now.
func (cp *compiler) message(s *ir.Message) {
	g := cp.g
	op := &messageOp{s: s, loops: strings.Join(cp.loopCtx, ", ")}
	var in []autodiff.Node
	for _, c := range cp.conds {
		in = append(in, c.node)
		op.conds = append(op.conds, c.taken)
	}
	var deps []int
	for _, p := range s.Parts {
		if p.X != nil {
			in = append(in, cp.expr(p.X))
			deps = cp.depsOf(p.X, deps)
		}
	}
	if len(in) == 0 { // reject("...") alone: a constant input to fold on
		in = append(in, cp.num(0))
	}
	n := g.Custom(op, 1, in...)
	if g.IsConst(n) {
		if s.Reject && op.n.Load() > 0 {
			cp.fail(s.Pos(), "reject: %s", op.firstText())
		}
		return
	}
	cp.c.messages = append(cp.c.messages, op)
	if cp.inDerived {
		op.derived = true
		cp.c.derivedMsgs = append(cp.c.derivedMsgs, n)
		return
	}
	for _, c := range cp.conds {
		deps = ir.MergeDeps(deps, c.deps)
	}
	cp.addTerm(Factor{Node: n, Pos: s.Pos(), Text: op.Name() + "(...)", deps: deps})
}

// condition is the condition of an if on latents being compiled, and the
// branch being compiled.
type condition struct {
	node  autodiff.Node
	taken bool
	deps  []int
}

// rejectError is the first reject of the derived block that ran, at its
// position with its message; nil when none did.
func rejectError(c *Compiled) error {
	for _, o := range c.messages {
		if !o.s.Reject || o.n.Load() == 0 || !o.derived {
			continue
		}
		e := lang.Errorf(o.s.Pos(), "reject: %s (at a posterior draw", o.firstText())
		if o.loops != "" {
			e.Msg += ", at " + o.loops
		}
		e.Msg += ")"
		return lang.ErrorList{e}
	}
	return nil
}

// RejectNotes words the rejections of the model block's reject
// statements so far, over the compiled copies of one model (a copy listed
// twice counts once): one line per statement that rejected, with its
// position, the count and the first message.
func RejectNotes(cs ...*Compiled) []string {
	type tally struct {
		n     int64
		first string
	}
	var order []*ir.Message
	byStmt := map[lang.Pos]*tally{} // each chain's model is a build of its own
	seen := map[*Compiled]bool{}
	for _, c := range cs {
		if c == nil || seen[c] {
			continue
		}
		seen[c] = true
		for _, o := range c.messages {
			if !o.s.Reject || o.derived {
				continue
			}
			t := byStmt[o.s.Pos()]
			if t == nil {
				t = &tally{}
				byStmt[o.s.Pos()] = t
				order = append(order, o.s)
			}
			t.n += o.n.Load()
			if t.first == "" {
				t.first = o.firstText()
			}
		}
	}
	var out []string
	for _, s := range order {
		if t := byStmt[s.Pos()]; t.n > 0 {
			out = append(out, fmt.Sprintf("%s: reject rejected %d evaluation%s (each counted with log density -Inf): %s", s.Where(), t.n, ir.Plural1(int(t.n)), t.first))
		}
	}
	return out
}
