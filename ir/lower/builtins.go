package lower

import (
	"strings"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// builtin lowers a Builtin to the tape.
func (cp *compiler) builtin(e *ir.Builtin) autodiff.Node {
	a := make([]autodiff.Node, len(e.Args))
	for i, x := range e.Args {
		a[i] = cp.expr(x)
	}
	return cp.lowerEntry(e.Def, lowering{Args: e.Args, A: a, Ints: e.Ints, T: e.T})
}

// rng lowers an Rng to a random op anchored on the latent input.
func (cp *compiler) rng(e *ir.Rng) autodiff.Node {
	in := []autodiff.Node{cp.g.Index(cp.c.LatentNode, 0)}
	var konst []autodiff.Node
	for i, a := range e.Args {
		n := cp.expr(a)
		if cp.g.IsConst(n) { // as for y ~ NAME(...): a constant argument is checked at once
			spec := e.Dist.Params[i]
			for _, x := range cp.g.Value(n, 0) {
				if !spec.Admits(x) {
					cp.fail(a.Pos(), "%s_rng: argument %d (%s) must be %s, got %g", e.Dist.Name, i+1, spec.Name, spec.Want(), x)
				}
			}
			if len(cp.g.Value(n, 0)) == 1 {
				konst = append(konst, n)
			}
		}
		in = append(in, n)
	}
	if len(konst) == len(e.Args) && len(e.Dist.Less) > 0 { // all constant: their order too
		p := make([]float64, len(konst))
		for i, n := range konst {
			p[i] = cp.g.Value(n, 0)[0]
		}
		if j, want := e.Dist.CheckParams(p); j >= 0 {
			cp.fail(e.Args[j].Pos(), "%s_rng: argument %d (%s) must be %s, got %g", e.Dist.Name, j+1, e.Dist.Params[j].Name, want, p[j])
		}
	}
	op := stdlib.NewRandOp(e.Dist, e.T.Len())
	cp.c.rngs = append(cp.c.rngs, op)
	cp.c.rngAt = append(cp.c.rngAt, rngSite{e, strings.Join(cp.loopCtx, ", ")})
	return cp.g.Custom(op, e.T.Len(), in...)
}

// cdfArgCheck puts the check of a derived CDF's arguments after its value
// v: constant arguments are checked at once, others at each draw
// (RNGError).
func (cp *compiler) cdfArgCheck(e *ir.NaryCall, v autodiff.Node, n int, args []autodiff.Node) autodiff.Node {
	fam := e.CDFOf
	konst := true
	for _, a := range args {
		konst = konst && cp.g.IsConst(a)
	}
	if konst {
		op := stdlib.NewArgCheckOp(fam)
		in := make([][]float64, 1, len(args)+1)
		m := 1 // the longest argument: every element is checked
		for _, a := range args {
			in = append(in, cp.g.Value(a, 0))
			m = max(m, len(in[len(in)-1]))
		}
		in[0] = make([]float64, m)
		op.Forward(make([]float64, m), in)
		if j, x, want, bad := op.Bad(); bad {
			cp.fail(e.Args[j].Pos(), "%s", ir.CdfArgMessage(e, j, x, want))
		}
		return v
	}
	op := stdlib.NewArgCheckOp(fam)
	cp.c.cdfChecks = append(cp.c.cdfChecks, op)
	cp.c.cdfAt = append(cp.c.cdfAt, cdfSite{e, strings.Join(cp.loopCtx, ", ")})
	return cp.g.Custom(op, n, append([]autodiff.Node{v}, args...)...)
}

// RNGError reports the first NAME_rng call that was given an argument
// outside its parameter's domain (a negative sd, a probability above 1,
// uniform's bounds reversed) at some draw, at the argument's position,
// then the first CDF of derived quantities given such an argument or a
// NaN value (as Stan, which rejects them there); nil when every draw so
// far was valid. The draw itself is NaN (the CDF's value -Inf or NaN). It
// reports first the first integer division by zero at a draw (an int
// divisor that depends on the latents), at the operator, and a reject
// statement of the derived block reached at a draw.
func RNGError(c *Compiled) error {
	if err := IntError(c); err != nil {
		return err
	}
	if err := rejectError(c); err != nil {
		return err
	}
	for i, op := range c.rngs {
		j, x, want, bad := op.Bad()
		if !bad {
			continue
		}
		site := c.rngAt[i]
		e := lang.Errorf(site.Call.Args[j].Pos(), "%s_rng: argument %d (%s) must be %s, got %g at a posterior draw", site.Call.Dist.Name, j+1, site.Call.Dist.Params[j].Name, want, x)
		if site.Loops != "" {
			e.Msg += " (at " + site.Loops + ")"
		}
		e.Hint = "the arguments of a NAME_rng call must be in the domains of the distribution's parameters, as for ~; bound the latent (real<lower=0>) or transform it (exp, inv_logit)"
		return lang.ErrorList{e}
	}
	for i, op := range c.cdfChecks {
		j, x, want, bad := op.Bad()
		if !bad {
			continue
		}
		site := c.cdfAt[i]
		e := lang.Errorf(site.Call.Args[j].Pos(), "%s at a posterior draw", ir.CdfArgMessage(site.Call, j, x, want))
		if site.Loops != "" {
			e.Msg += " (at " + site.Loops + ")"
		}
		e.Hint = "in derived quantities a CDF's arguments must be numbers in the domains of the distribution's parameters, as in Stan's generated quantities"
		return lang.ErrorList{e}
	}
	return nil
}

// SeedRNG seeds the draws of the derived quantities' NAME_rng calls.
func (c *Compiled) SeedRNG(seed uint64) {
	for i, op := range c.rngs {
		op.Seed(seed, 0x726e67+uint64(i))
	}
}

// UsesRNG reports whether the model draws random numbers (NAME_rng in
// derived quantities): then Constrain consumes a random stream, and the
// draws of a run must be constrained in order on one compiled model.
func UsesRNG(c *Compiled) bool { return len(c.rngs) > 0 }

// rngSite is where a NAME_rng op draws: its call and the loops around it.
type rngSite struct {
	Call  *ir.Rng
	Loops string
}

// cdfSite is where a CDF of derived quantities is checked: its call and
// the loops around it.
type cdfSite struct {
	Call  *ir.NaryCall
	Loops string
}
