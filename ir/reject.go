package ir

import (
	"math"
	"sync/atomic"

	"github.com/mscppl/mscppl/lang"
)

// Ops that reject a draw (an ODE solve that fails, hmm_marginal given a
// Gamma that is no stochastic matrix) count their evaluations and
// rejections, keep the first reason for the note of the run's end
// (SolverNotes) and the last for the message that names the statement
// when every draw is rejected (ZeroDensity).

// Rejections is what one such op counts; safe for concurrent use except
// last, which belongs to the compiled copy evaluating it.
type Rejections struct {
	Op      string   // the call's name
	Pos     lang.Pos // the call's position
	Unit    string   // what an evaluation is ("solve")
	Derived bool     // in the derived block: a rejection leaves NaN, not -Inf
	Evals   atomic.Int64
	Fails   atomic.Int64
	First   atomic.Value // string: the first reason
	Last    string       // the last reason of this copy
	// Done, when closed, stops the op's work in progress (a long ODE
	// solve) and the evaluations after it: the run was interrupted (set
	// by lower.SetDone, copied by Fresh); interrupted records that it did.
	Done        <-chan struct{}
	interrupted atomic.Bool
}

// Interrupt records that the op stopped on Done (not a failure of the
// model: not counted in the notes, but the reason of a rejection).
func (r *Rejections) Interrupt(msg string) {
	r.Last = msg
	r.interrupted.Store(true)
}

// Interrupted reports whether the op stopped on Done since ResetInterrupt.
func (r *Rejections) Interrupted() bool { return r.interrupted.Load() }

// ResetInterrupt forgets that the op stopped on Done.
func (r *Rejections) ResetInterrupt() { r.interrupted.Store(false) }

// Reject counts a rejection with its reason.
func (r *Rejections) Reject(msg string) {
	r.Last = msg
	if r.Fails.Add(1) == 1 {
		r.First.Store(msg)
	}
}

// Reason is the last rejection's reason, worded for a message.
func (r *Rejections) Reason() string { return r.Op + " failed: " + r.Last }

// Rejected is the value of a rejected evaluation: -Inf in the model block
// (the draw is rejected), NaN in the derived block (its values are
// missing, never a made-up number).
func (r *Rejections) Rejected() float64 {
	if r.Derived {
		return math.NaN()
	}
	return math.Inf(-1)
}
