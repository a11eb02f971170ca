package msc

import (
	"fmt"
	"github.com/mscppl/mscppl/infer/msc/advice"
)

// Trend is what a run that reached its cap recorded of the chains'
// agreement: their means' spread (Result.SpreadMax) at an earlier
// evaluation, From (0 when there was none), and at the end, To, and the
// final R-hat.
type Trend struct {
	From, To             int
	SpreadFrom, SpreadTo float64
	Rhat                 float64
}

// Moving reports whether the chains were still coming together at the cap,
// so that more iterations would help: their means' spread fell by more than
// a tenth since the earlier evaluation, or their samples agree (R-hat
// passes) and only the averages of q differ, by a Monte Carlo error that
// falls with the run's length.
func (t *Trend) Moving() bool {
	return t != nil && (t.falling() || t.Rhat <= Defaults.RhatMax)
}

func (t *Trend) falling() bool { return t != nil && t.From > 0 && t.SpreadTo < 0.9*t.SpreadFrom }

// MoreIters is the remedy of more iterations when the chains were still
// coming together at the cap ("" otherwise): more of the same run helps
// only then.
func (t *Trend) MoreIters(cap int) string {
	if !t.Moving() {
		return ""
	}
	return fmt.Sprintf("more --iters (the cap was %d)", cap)
}

// TooShort is the cause "the run is too short" with the figures that show
// it ("" when the chains were not still coming together).
func (t *Trend) TooShort() string {
	switch {
	case t.falling():
		return fmt.Sprintf("the run is too short: the chains were still coming together (their means' spread fell from %.3g to %.3g posterior sd between iterations %d and %d)",
			t.SpreadFrom, t.SpreadTo, t.From, t.To)
	case t.Moving():
		return fmt.Sprintf("the run is too short: the chains' samples agree (R-hat %.3f), and their averaged q differ by Monte Carlo error, which falls with more iterations", t.Rhat)
	}
	return ""
}

// Stalled is the cause "more of the same run would not help", with the
// figures that show it ("" when there is no earlier evaluation or the
// chains were still coming together).
func (t *Trend) Stalled() string {
	if t == nil || t.From == 0 || t.Moving() {
		return ""
	}
	return fmt.Sprintf("the chains' means' spread went from %.3g to %.3g posterior sd between iterations %d and %d and their R-hat is %.3g, so more of the same run would not help",
		t.SpreadFrom, t.SpreadTo, t.From, t.To, t.Rhat)
}

// heavierFamily is the remedy of a heavy-tailed family for q of family
// fam ("" when q's family has heavy tails already, or none is registered).
func heavierFamily(q Family) string {
	if heavy := HeavyTailedFamily(); heavy != "" && !familyOf(q).HeavyTails {
		return "--family " + heavy
	}
	return ""
}

// agreementAdvice is the advice of the R-hat and spread warnings: the
// facts' causes and remedies, more iterations when the chains were still
// coming together, and otherwise a reparameterisation or heavier tails.
func agreementAdvice(f advice.Facts, t *Trend, cap int, q Family) (cause, remedy string) {
	a := f.Structural()
	a.Add(t.TooShort(), t.MoreIters(cap))
	fallback := "reparameterise towards a posterior closer to a Gaussian"
	if h := heavierFamily(q); h != "" {
		fallback += ", or " + h
	}
	hard := "the posterior is hard for q (a funnel, several modes or heavy tails)"
	if st := t.Stalled(); st != "" {
		hard += ": " + st
	}
	return a.Cause(hard), a.Remedy(fallback)
}
