package infer

import (
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/infer/msc/advice"
)

// khatAdvice is the likely cause and the remedy of a failed k-hat for the
// fitted q (see khatAdvice).
func (f *Fitted) khatAdvice() string {
	var facts advice.Facts
	if f.problem != nil {
		facts = f.problem.Facts
	}
	var trend *msc.Trend
	if f.Result != nil {
		trend = f.Result.Trend
	}
	return khatAdvice(f.Q, facts, trend, f.Settings.Iters)
}

// khatAdvice is the likely cause and the remedy of a failed k-hat, chosen
// from what the model is and what the run recorded: an ordering for
// exchangeable components and the non-centred form for a centred
// hierarchy (the model's facts), a heavy-tailed family when q's family has
// light tails (the weights' tail is what k-hat measures; not for
// exchangeable components, whose k-hat is that of q spread over the
// labellings the chains found), and more
// iterations (the cap was iters) only when the chains were still coming
// together at the cap (trend).
func khatAdvice(q msc.Family, facts advice.Facts, trend *msc.Trend, iters int) string {
	a := facts.Structural()
	if heavy := msc.HeavyTailedFamily(); heavy != "" && !msc.FamilyOf(q).HeavyTails && len(facts.Exchangeable) == 0 {
		a.Add("a posterior with heavier tails than q's", "--family "+heavy)
	}
	a.Add(trend.TooShort(), trend.MoreIters(iters))
	return "likely cause: " + a.Cause("a posterior with heavier tails than q's") + "; remedy: " + a.Remedy("reparameterise towards a posterior closer to a Gaussian")
}
