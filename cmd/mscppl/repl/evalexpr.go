package repl

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

// evalKind is what :eval prints for an expression.
type evalKind int

const (
	evalPlain evalKind = iota // the posterior of the value: mean, sd, 5%, 95%
	evalProb                  // a 0/1 value (comparison, &&, ||, !): its posterior probability
	evalMean                  // mean(x) of a scalar x: its posterior mean
)

// evalShape reads the top of an :eval expression: a comparison or logical
// operator (lowest in precedence, so the value is 0 or 1), a negation, or a
// call mean(x). For mean(x) it also returns src with "mean(" and ")"
// blanked out, so that x compiles alone with its columns unchanged.
func evalShape(src []byte) (evalKind, []byte) {
	x, err := lang.ParseExpr(evalName, src)
	if err != nil {
		return evalPlain, nil
	}
	for {
		for _, op := range x.Rest {
			switch op.Operator() {
			case "==", "!=", "<", "<=", ">", ">=", "&&", "||":
				return evalProb, nil
			}
		}
		if len(x.Rest) > 0 || len(x.Left.Rest) > 0 {
			return evalPlain, nil
		}
		u := x.Left.Left
		if u.Op == "!" {
			return evalProb, nil
		}
		if u.Power == nil || u.Power.Exp != nil || len(u.Power.Base.Indexes) > 0 || u.Power.Base.Trans {
			return evalPlain, nil
		}
		p := u.Power.Base.Prim
		switch {
		case p.Paren != nil:
			x = p.Paren
			continue
		case p.Call != nil && p.Call.Name == "mean" && len(p.Call.Args) == 1 && !p.Call.Bar:
			a := p.Call.Args[0]
			from, to := a.Pos.Offset, a.EndPos.Offset
			if from < 0 || to > len(src) || from >= to {
				return evalPlain, nil
			}
			inner := []byte(strings.Repeat(" ", len(src)))
			copy(inner[from:to], src[from:to])
			// keep newlines so that lines stay where they were
			for i, c := range src {
				if c == '\n' {
					inner[i] = '\n'
				}
			}
			return evalMean, inner
		}
		return evalPlain, nil
	}
}

// evalNames are the names worth suggesting in :eval: latents (derived
// quantities included), params and the model block's top-level locals; not
// data or their sizes, which have no posterior.
func evalNames(m *ir.Model) []string {
	var out []string
	for _, v := range m.Vars {
		if v.Kind == ir.LatentVar || v.Kind == ir.ParamVar {
			out = append(out, v.Name)
		}
	}
	out = append(out, topLocals(m)...)
	sort.Strings(out)
	return out
}

// topLocals are the names defined at the top level of the model block
// (theta = ...), which :eval can use.
func topLocals(m *ir.Model) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range m.Body {
		if a, ok := s.(*ir.Assign); ok && a.Local != nil && !seen[a.Local.Name] {
			seen[a.Local.Name] = true
			out = append(out, a.Local.Name)
		}
	}
	return out
}

// evalError words CompileExpr's errors for :eval: "did you mean" offers
// only names with a posterior (evalNames).
func evalError(err error, m *ir.Model) error {
	var list lang.ErrorList
	if !errors.As(err, &list) {
		return err
	}
	out := make(lang.ErrorList, len(list))
	for i, e := range list {
		c := *e
		if rest, ok := strings.CutPrefix(c.Msg, "unknown name "); ok {
			if name, err := strconv.Unquote(rest); err == nil {
				if s := lang.Suggest(name, evalNames(m)); s != "" {
					c.Hint = fmt.Sprintf("did you mean %q?", s)
				} else {
					c.Hint = "an expression may use the model's latents, params, derived quantities, top-level local definitions and data"
				}
			}
		}
		for _, f := range []string{"mean", "sd", "variance"} {
			if strings.HasPrefix(c.Msg, f+" takes a vector") && (strings.HasSuffix(c.Msg, "got real") || strings.HasSuffix(c.Msg, "got int")) {
				c.Hint = "in :eval, x alone prints its posterior mean and sd, mean(x) its posterior mean and x > 0 (any comparison) its posterior probability"
			}
		}
		if rest, ok := strings.CutPrefix(c.Msg, "unknown function "); ok {
			switch name, _ := strconv.Unquote(rest); name {
			case "P", "Pr", "prob", "Prob", "probability", "E", "expectation":
				c.Hint = "for a probability type the condition itself, as in :eval tau > 5; for a posterior mean, :eval mean(tau)"
			}
		}
		out[i] = &c
	}
	return out
}

// functionNames are the functions and distributions a model or :eval
// can call, for completion: the vocabulary's built-in functions, the
// distributions and their functions (NAME_lpdf, NAME_lcdf, NAME_rng, ...).
func functionNames() []string {
	out := append(ir.CallableNames(), ir.DistributionNames()...)
	sort.Strings(out)
	return slices.Compact(out)
}
