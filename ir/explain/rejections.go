package explain

import (
	"math"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir/lower"
)

// lastRejection is the reason of the first op of c that rejected at its
// last evaluation since clearRejections, or "".
func lastRejection(c *lower.Compiled) string {
	for _, r := range c.Rejecters {
		if r.Last != "" {
			return r.Reason()
		}
	}
	return ""
}

// clearRejections forgets the last reasons of c's ops.
func clearRejections(c *lower.Compiled) {
	for _, r := range c.Rejecters {
		r.Last = ""
	}
}

// rejectReason is the message of the reject statement (or constraint
// check of a transformed quantity) whose term is n, from the values of its
// inputs at row 0 ("reject: ..."), or "" when n is no such term. The term
// of a reject under ifs on latents is the op's value selected by their
// conditions: the inputs of such selects, ifs nested up to depth deep,
// are searched for one that rejected.
func rejectReason(c *lower.Compiled, n autodiff.Node, depth int) string {
	g := c.Graph()
	op, custom := g.OpOf(n)
	if !custom || depth < 0 || !math.IsInf(g.Value(n, 0)[0], -1) {
		return ""
	}
	args := g.ArgsOf(n)
	r, ok := op.(interface{ Reason([][]float64) string })
	if !ok {
		for _, a := range args {
			if why := rejectReason(c, a, depth-1); why != "" {
				return why
			}
		}
		return ""
	}
	in := make([][]float64, len(args))
	for i, a := range args {
		in[i] = g.Value(a, 0)
	}
	return "reject: " + r.Reason(in)
}
