package lower

import (
	"slices"
	"sync/atomic"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/stdlib"
	"github.com/mscppl/mscppl/stdlib/ode"
)

// compiles and clones count the calls of Compile and of a successful
// Clone, for the tests that check that a run compiles its model once and
// copies it for its chains.
var compiles, clones atomic.Int64

// Compiles is the number of Compile calls so far in this process (neither a
// Clone nor the compile of a state-space view is one).
func Compiles() int64 { return compiles.Load() }

// Clones is the number of compiled models copied by Clone so far in this
// process.
func Clones() int64 { return clones.Load() }

// Clone returns an independent copy of the compiled model, in the state
// of a new compile (its params at their initial values, its random
// streams unseeded, no error met yet), for another chain or worker: the
// copy and c can be evaluated at the same time from two goroutines. The
// graph is copied (autodiff.Graph.Clone) with its own arenas and its own
// copy of each op that keeps state; the data, the constants and what the
// compile found (the terms, the evaluation orders, the structure) are
// shared, read-only.
//
// A state-space model's structure is the copy's, on its graph (its step
// templates compiled on first use, as after a compile), and so is its
// state-space view (cloned in turn).
//
// It reports false when the model cannot be copied, and the caller
// compiles it again: when the graph has an op that cannot be copied (or,
// not met, when c lists an op that its graph does not hold).
// Clone reads c: it may run in several goroutines at once, but not while
// c is evaluated.
func (c *Compiled) Clone() (*Compiled, bool) {
	n, ok := cloneCompiled(c)
	if ok {
		clones.Add(1)
	}
	return n, ok
}

func cloneCompiled(c *Compiled) (*Compiled, bool) {
	rngs := map[*stdlib.RandOp]*stdlib.RandOp{}
	msgs := map[*messageOp]*messageOp{}
	ints := map[*intOp]*intOp{}
	checks := map[*stdlib.ArgCheckOp]*stdlib.ArgCheckOp{}
	rejecters := map[*Rejections]*Rejections{}
	g, ok := c.g.Clone(func(op autodiff.Op) autodiff.Op {
		cp := cloneOp(op)
		if r, ok := op.(rejecter); ok {
			if rc, ok := cp.(rejecter); ok {
				rejecters[r.Counts()] = rc.Counts()
			}
		}
		switch o := op.(type) { // the ops that c lists, to list their copies
		case *stdlib.RandOp:
			rngs[o], _ = cp.(*stdlib.RandOp)
		case *stdlib.ArgCheckOp:
			checks[o], _ = cp.(*stdlib.ArgCheckOp)
		case *messageOp:
			msgs[o], _ = cp.(*messageOp)
		case *intOp:
			ints[o], _ = cp.(*intOp)
		}
		return cp
	})
	if !ok {
		return nil, false
	}
	n := &Compiled{
		Model:        c.Model,
		g:            g,
		LatentNode:   c.LatentNode,
		param:        c.param,
		hasParam:     c.hasParam,
		LogJointNode: c.LogJointNode,
		logPrior:     c.logPrior,
		Factors:      c.Factors,
		varNode:      slices.Clone(c.varNode),
		priorOrder:   c.priorOrder,
		JointOrder:   c.JointOrder,
		maxBatch:     max(c.maxBatch, 1), // the graph's copy is laid out (for 1 row at least)
		priorErr:     c.priorErr,
		structure:    c.structure,
		constTerms:   slices.Clone(c.constTerms),
		constOrder:   slices.Clip(c.constOrder),
		env:          slices.Clone(c.env),
		specialOrder: slices.Clip(c.specialOrder),
		rngAt:        c.rngAt,
		Unpriored:    c.Unpriored,
		Bounded:      c.Bounded,
		derivedMsgs:  c.derivedMsgs,
		cdfAt:        c.cdfAt,
	}
	var listed [4]bool
	n.rngs, listed[0] = remap(c.rngs, rngs)
	n.Rejecters, listed[1] = remap(c.Rejecters, rejecters)
	n.messages, listed[2] = remap(c.messages, msgs)
	n.cdfChecks, listed[3] = remap(c.cdfChecks, checks)
	if listed != [4]bool{true, true, true, true} {
		return nil, false
	}
	for _, s := range c.intOps {
		if ints[s.op] == nil {
			return nil, false
		}
		n.intOps = append(n.intOps, intSite{ints[s.op], s.loops})
	}
	n.ssm = c.ssm.clone(n)
	if c.sv != nil {
		view, ok := cloneCompiled(c.sv.view)
		if !ok {
			return nil, false
		}
		sv := *c.sv
		sv.view = view
		n.sv = &sv
	}
	if err := initParams(n); err != nil {
		return nil, false // not met: c's compile set the same values
	}
	return n, true
}

// remap is the list of the copies of ops, and false when an op has none
// (c lists an op that is not on its graph: not met).
func remap[T comparable](ops []T, copies map[T]T) ([]T, bool) {
	out := make([]T, len(ops))
	var zero T
	for i, o := range ops {
		if out[i] = copies[o]; out[i] == zero {
			return nil, false
		}
	}
	return out, true
}

// cloneOp is the op of a copy of the graph for op (nil: it cannot be
// copied): every op of the tape has a Clone method (stdlib.VecOp's).
func cloneOp(op autodiff.Op) autodiff.Op {
	c, ok := op.(interface{ Clone() stdlib.VecOp })
	if !ok {
		return nil
	}
	if v := c.Clone(); v != nil {
		return v
	}
	return nil
}
func (o cmpOp) Clone() stdlib.VecOp { return o }

// rejecter is an op that counts its rejections (ODE solves, hmm_marginal).
type rejecter interface{ Counts() *Rejections }

func (o *odeOp) Counts() *Rejections { return &o.Rejections }

// Clone is a fresh op that has met no division by zero.
func (o *intOp) Clone() stdlib.VecOp { return &intOp{op: o.op, e: o.e} }

// Clone is a fresh op that has counted no message.
func (o *messageOp) Clone() stdlib.VecOp {
	return &messageOp{s: o.s, conds: o.conds, loops: o.loops, derived: o.derived}
}

// Clone is a fresh op with its own copy of f's tape, its own solver and
// scratch, and no failed solve counted; nil when f's tape cannot be
// copied.
func (o *odeOp) Clone() stdlib.VecOp {
	r := o.rhs
	sg, ok := r.g.Clone(cloneOp)
	if !ok {
		return nil
	}
	n := &odeOp{Rejections: o.Rejections.Fresh(), k: o.k, n: o.n, opt: o.opt, params: o.params, method: o.method,
		p: make([]float64, len(o.p)), sens: make([]float64, len(o.sens)), ys: make([]float64, len(o.ys))}
	n.rhs = &odeRHS{g: sg, in: r.in, out: r.out, s: r.s, order: r.order, k: r.k, p: r.p}
	n.solver = ode.NewSolver(ode.System{K: r.k, P: r.p, F: n.rhs.f, Jac: n.rhs.jac}, o.method)
	return n
}
