package explain

import (
	"fmt"
	"math"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/mscppl/mscppl/ir/lower"
	"github.com/mscppl/mscppl/lang"
)

// ImproperError reports a latent that has no prior statement, an unbounded
// space, and on which no term of the model depends (its terms are the
// same, bit for bit, whatever its value at two base points): the posterior
// is then flat along it, and improper. nil when there is none (a latent
// without a prior that the likelihood bounds is not reported).
func ImproperError(c *lower.Compiled) error {
	d, rows := c.Dim(), 2*len(lower.FlatShifts)
	if len(c.Unpriored) == 0 {
		return nil
	}
	z := make([]float64, rows*d)
	for _, v := range c.Unpriored {
		for r := range rows {
			row := z[r*d : (r+1)*d]
			for i := range row {
				row[i] = 0
				if r >= len(lower.FlatShifts) { // the second base point
					row[i] = 0.3 + 0.1*float64(i%7)
				}
			}
			for i := 0; i < v.UDim(); i++ {
				row[v.Offset+i] = lower.FlatShifts[r%len(lower.FlatShifts)] + 0.01*float64(i)
			}
		}
		c.Reserve(rows)
		lower.Load(c, z, rows)
		c.Graph().ForwardNodes(c.JointOrder, rows)
		if termsFlat(c, rows) {
			e := lang.Errorf(v.Pos, "the posterior looks improper: %s has no prior and the likelihood does not bound it (no term of the model changes with %s, so the posterior is flat along it)", v.Name, v.Name)
			e.Hint = fmt.Sprintf("give %s a prior (%s ~ normal(0, 10)), use it in the model, or remove it", v.Name, v.Name)
			return lang.ErrorList{e}
		}
	}
	return nil
}

// termsFlat reports whether every term of the model is finite and has one
// value over the rows of each base point.
func termsFlat(c *lower.Compiled, rows int) bool {
	half := rows / 2
	for _, f := range c.Factors {
		for r := range rows {
			v, first := c.Graph().Value(f.Node, r)[0], c.Graph().Value(f.Node, r/half*half)[0]
			if math.IsNaN(v) || math.IsInf(v, 0) || v != first {
				return false
			}
		}
	}
	return true
}

// ZeroDensity evaluates one row z and, when its log joint is -Inf, returns
// the position and text of the first statement whose log density is -Inf.
// When that statement is a ~ whose values and arguments are all in their
// domains, the -Inf is no zero density but an overflow, and overflow says
// so (naming the largest magnitude among them); else it is "". why is the
// statement's own reason for its -Inf when it has one (a failed ODE solve:
// the solver's), else "".
func ZeroDensity(c *lower.Compiled, z []float64) (pos lang.Pos, text, overflow, why string, ok bool) {
	c.Reserve(1)
	lower.Load(c, z, 1)
	clearRejections(c)
	c.Graph().ForwardNodes(c.JointOrder, 1)
	for _, f := range c.Factors {
		if v := c.Graph().Value(f.Node, 0)[0]; math.IsInf(v, -1) {
			why = lastRejection(c)
			if f.Why != nil {
				why = f.Why()
			}
			if r := rejectReason(c, f.Node, 8); r != "" {
				why = r
			}
			return f.Pos, f.Text, overflowed(c, f), why, true
		}
	}
	return pos, "", "", "", false
}

// overflowed explains the -Inf of a ~ term (at row 0) as an overflow when
// its values and arguments are all in their domains and one of them is
// huge; "" otherwise.
func overflowed(c *lower.Compiled, f lower.Factor) string {
	if f.Tilde == nil || f.Tilde.Family.Params == nil && f.Tilde.Family.Vec != nil {
		return ""
	}
	big := 0.0
	for j, a := range f.Tilde.Args {
		for _, x := range c.Graph().Value(a, 0) {
			valid := j == 0 && f.Tilde.Family.InSupport(x) || j > 0 && f.Tilde.Family.Params[j-1].Admits(x)
			if !valid || math.IsInf(x, 0) {
				return ""
			}
			big = max(big, math.Abs(x))
		}
	}
	if big < lower.OverflowAt {
		return ""
	}
	return fmt.Sprintf("its values and arguments are all in their domains, so a term overflowed: they reach %g in magnitude, and squares or exponentials of such numbers exceed the largest float64 (1.8e308)", big)
}

// Diagnose evaluates one row z and explains a non-finite log joint by naming
// the first statement whose log density is NaN or +Inf.
func Diagnose(c *lower.Compiled, z []float64) error {
	c.Reserve(1)
	lower.Load(c, z, 1)
	c.Graph().ForwardNodes(c.JointOrder, 1)
	for _, f := range c.Factors {
		v := c.Graph().Value(f.Node, 0)[0]
		if !math.IsNaN(v) && !math.IsInf(v, 1) {
			continue
		}
		if err := lower.IntError(c); err != nil && math.IsNaN(v) {
			return err // an int divided by 0 (NaN) is the cause named
		}
		what := "NaN"
		if math.IsInf(v, 1) {
			what = "+Inf"
		}
		detail := ""
		var args []autodiff.Node
		if f.Tilde != nil {
			args = f.Tilde.Args
		}
		for j, a := range args {
			for _, x := range c.Graph().Value(a, 0) {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					name := "the left-hand side"
					if j > 0 {
						name = fmt.Sprintf("argument %d (%s)", j, f.Tilde.Family.Params[j-1].Name)
					}
					detail = fmt.Sprintf("; %s is %g", name, x)
					break
				}
			}
			if detail != "" {
				break
			}
		}
		e := lang.Errorf(f.Pos, "the log density of `%s` is %s%s", f.Text, what, detail)
		e.Hint = "check for log or sqrt of a negative number, or exp overflow"
		if what == "+Inf" {
			e = lang.Errorf(f.Pos, "`%s` added +Inf to the target (the log joint)%s", f.Text, detail)
			e.Hint = "a log density is +Inf only at a pole (a point mass, an sd of 0, a density unbounded at the edge of its support); " +
				"the target must be finite wherever the posterior has mass: correct this term"
		}
		if f.Loops != "" {
			e.Msg += " (at " + f.Loops + ")"
		}
		return lang.ErrorList{e}
	}
	v := c.Graph().Value(c.LogJointNode, 0)[0]
	if !math.IsNaN(v) {
		return nil
	}
	for _, b := range c.Bounded {
		lo, hi := c.Graph().Value(b.Lo, 0), c.Graph().Value(b.Hi, 0)
		for i := range max(len(lo), len(hi)) {
			l, h := lo[min(i, len(lo)-1)], hi[min(i, len(hi)-1)]
			if l < h {
				continue
			}
			what := b.V.Name
			if !b.V.Type.Scalar() {
				what = fmt.Sprintf("%s[%d]", b.V.Name, i+1)
			}
			e := lang.Errorf(b.V.Pos, "the bounds of %s are empty at this point: the lower bound %g is not below the upper bound %g (lower >= upper)", what, l, h)
			e.Hint = "the bounds of a latent must leave room for it at every value of the variables they depend on; make the upper bound exceed the lower one (as in upper = a + 1 for lower = a)"
			return lang.ErrorList{e}
		}
	}
	return lang.ErrorList{lang.Errorf(lang.Pos{File: c.Model.File}, "the log joint is NaN (from a log-Jacobian term)")}
}
