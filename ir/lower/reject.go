package lower

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

// addRejecter registers r on the compiled model (once).
func (cp *compiler) addRejecter(r *Rejections) {
	for _, x := range cp.c.Rejecters {
		if x == r {
			return
		}
	}
	cp.c.Rejecters = append(cp.c.Rejecters, r)
}

// SolverNotes words the rejections so far of the compiled copies of one
// model (a copy listed twice counts once), one line per call that
// rejected: its position, the number of rejections out of all
// evaluations, what was done with them (the draw rejected, or its
// derived values NaN) and the first reason.
func SolverNotes(cs ...*Compiled) []string {
	var fails, evals []int64
	var first []string
	var ops []*Rejections
	seen := map[*Compiled]bool{}
	for _, c := range cs {
		if c == nil || seen[c] {
			continue
		}
		seen[c] = true
		for i, o := range c.Rejecters {
			if i == len(ops) {
				ops, fails, evals, first = append(ops, o), append(fails, 0), append(evals, 0), append(first, "")
			}
			n := o.Fails.Load()
			fails[i] += n
			evals[i] += o.Evals.Load()
			if msg, _ := o.First.Load().(string); n > 0 && first[i] == "" {
				first[i] = msg
			}
		}
	}
	var out []string
	for i, o := range ops {
		if n := fails[i]; n > 0 {
			what := "each rejecting its draw (log density -Inf)"
			if o.Derived {
				what = "each leaving its draw's derived values NaN"
			}
			m := max(n, evals[i])
			out = append(out, fmt.Sprintf("%s: %s failed on %d of %d %s%s, %s; the first: %s", o.Pos, o.Op, n, m, o.Unit, ir.Plural1(int(m)), what, first[i]))
		}
	}
	return out
}

// ---- the projected cost of calls whose work is not in the graph's size ----

// An ODE solve or an hmm_marginal is one node of the graph but may cost
// as much as millions: each call adds its projection (seconds per
// evaluation of the log density, bytes) and the model is refused, at the
// call or at the loop that repeats it (projected after loopProbe
// iterations, as the graph's size is), when the total passes the bounds.
const (
	maxHeavySeconds = 1.0     // per evaluation: a fit evaluates thousands of times
	maxHeavyBytes   = 2 << 30 // the calls' own buffers
	// an ODE solve is projected at odeNominalSteps steps (the real count
	// depends on the problem and the tolerances), each of the evaluations
	// of its right-hand side at odeNodeSeconds per node of its tape and
	// odeValueSeconds per value its nodes read and write (autodiff's Work),
	// and the stiff method's linear algebra at odeFlopSeconds per
	// multiply-add: measured within a factor of 2 on rk45 and the stiff
	// method with 30 to 1000 states and a matrix-vector product (0.8 ms a
	// step of rk45 for 1000 states, 23 ms of the stiff method for 300)
	odeNominalSteps = 100
	odeNodeSeconds  = 10e-9
	odeValueSeconds = 0.15e-9
	odeFlopSeconds  = 1e-9
)

// odeStepSeconds is the projected time of one step of an ODE solve of K
// states whose right-hand side evaluates the nodes order of g: rk45's 7
// evaluations; the stiff method's 3 Jacobians (K forward and K reverse
// sweeps each), the LU factorisation of its K x K matrix and 3 solves.
func odeStepSeconds(order []autodiff.Node, g *autodiff.Graph, K int, stiff bool) float64 {
	rhs := float64(len(order))*odeNodeSeconds + float64(g.Work(order))*odeValueSeconds
	if !stiff {
		return 7 * rhs
	}
	k := float64(K)
	return 3*2*k*rhs + (k*k*k/3+3*k*k)*odeFlopSeconds
}

// SetDone makes c's ops that may work long (ODE solves, up to their
// maximum of steps) stop at their next step once done is closed, leaving
// their draw rejected (or NaN); nil undoes it. Either way Interrupted
// reports false until an op stops on the new channel. Copies of c made
// after it inherit done. A run sets its context's Done before it starts
// and nil when its iterations end, so that no evaluation after them is
// cut short. Not while c is evaluated.
func SetDone(c *Compiled, done <-chan struct{}) {
	for _, r := range c.Rejecters {
		r.Done = done
		r.ResetInterrupt()
	}
}

// Interrupted reports whether an op of c stopped its work since the last
// SetDone because its done channel was closed: the draws evaluated since
// are not the model's.
func Interrupted(c *Compiled) bool {
	for _, r := range c.Rejecters {
		if r.Interrupted() {
			return true
		}
	}
	return false
}

// heavyCost is the projected cost of such calls.
type heavyCost struct {
	seconds, bytes float64
	name           string   // the last call's name
	pos            lang.Pos // and position
}

// heavy adds one call's projection; outside loops it refuses the model at
// the call when the total passes the bounds, saying what the projection
// assumed (basis, "" for nothing to say).
func (cp *compiler) heavy(pos lang.Pos, name, basis string, seconds, bytes float64) {
	h := &cp.heavyCost
	h.seconds += seconds
	h.bytes += bytes
	h.name, h.pos = name, pos
	if len(cp.loopCtx) == 0 && (h.seconds > maxHeavySeconds || h.bytes > maxHeavyBytes) {
		if basis != "" {
			basis = " (" + basis + ")"
		}
		cp.fail(pos, "%s would take about %.3g s per evaluation of the log density%s and %s of buffers with the calls before it, more than the limits of %g s and %s; a fit evaluates the log density thousands of times",
			name, h.seconds, basis, ir.ByteSize(h.bytes), maxHeavySeconds, ir.ByteSize(maxHeavyBytes))
	}
}

// heavyLoop refuses a loop of lo..hi whose iterations so far (done, from
// the cost before) project past the bounds: checked after loopProbe
// iterations, at the last, and whenever the bounds are passed already.
func (cp *compiler) heavyLoop(s *ir.For, lo, hi, done int, before heavyCost) {
	h := cp.heavyCost
	n := float64(hi - lo + 1)
	sec := before.seconds + (h.seconds-before.seconds)/float64(done)*n
	bytes := before.bytes + (h.bytes-before.bytes)/float64(done)*n
	over := h.seconds > maxHeavySeconds || h.bytes > maxHeavyBytes
	if !over && done != loopProbe && done != hi-lo+1 || sec <= maxHeavySeconds && bytes <= maxHeavyBytes {
		return
	}
	cp.fail(s.Pos(), "the loop over %s in %d..%d calls %s (at %d:%d) %d times: projected about %.3g s per evaluation of the log density and %s of buffers, more than the limits of %g s and %s; a fit evaluates the log density thousands of times, so reduce the loop or vectorise the calls",
		s.Var.Name, lo, hi, h.name, h.pos.Line, h.pos.Col, hi-lo+1, sec, ir.ByteSize(bytes), maxHeavySeconds, ir.ByteSize(maxHeavyBytes))
}

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
	// by SetDone, copied by Fresh); interrupted records that it did.
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
