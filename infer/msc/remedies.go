package msc

import (
	"fmt"
	"strings"
)

// Facts are what the model's structure says about the shape of its
// posterior (package ir finds them; the facade copies them into the
// Problem). The warnings choose their causes and remedies from them: the
// non-centred form only for a centred hierarchy, an ordering only for
// exchangeable components.
type Facts struct {
	// Centred are the latents drawn from a location-scale family whose
	// scale depends on other latents (a centred hierarchy: a funnel).
	Centred []Centred
	// Exchangeable are the groups of latent vectors whose elements can be
	// relabelled without changing the log joint (a mixture's components:
	// one mode per labelling).
	Exchangeable []Exchangeable
}

// Centred is a latent of a centred hierarchy and its non-centred form.
type Centred struct {
	Latent string   // "theta"
	Scale  []string // the latents its prior's scale depends on: "tau"
	// Raw and Define are the non-centred form: "theta_raw ~ normal(0, 1)"
	// and "theta = mu + tau * theta_raw".
	Raw, Define string
}

// Exchangeable is a group of latent vectors of length K whose elements can
// be relabelled together (the scalars in Reflected mapped to 1 - value)
// without changing the log joint; Declare is the declaration that orders
// one of them ("mu: ordered[2]"; "" when none can be ordered).
type Exchangeable struct {
	Latents, Reflected []string
	K                  int
	Order, Declare     string
}

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

// Advice is a warning's likely causes and remedies, in words.
type Advice struct {
	Causes, Remedies []string
}

// Add appends a cause and a remedy (either may be empty).
func (a *Advice) Add(cause, remedy string) {
	if cause != "" {
		a.Causes = append(a.Causes, cause)
	}
	if remedy != "" {
		a.Remedies = append(a.Remedies, remedy)
	}
}

// Cause joins the causes, or returns fallback when there are none.
func (a Advice) Cause(fallback string) string {
	if len(a.Causes) == 0 {
		return fallback
	}
	return strings.Join(a.Causes, "; or ")
}

// Remedy joins the remedies, or returns fallback when there are none.
func (a Advice) Remedy(fallback string) string {
	if len(a.Remedies) == 0 {
		return fallback
	}
	return strings.Join(a.Remedies, "; or ")
}

// maxNamed is how many latents a cause or remedy names before "...".
const maxNamed = 3

// Structural is the advice the facts give: an ordering for exchangeable
// components (listed first: label switching is what keeps such chains
// apart), then the non-centred form for a centred hierarchy.
func (f Facts) Structural() Advice {
	var a Advice
	for _, e := range f.Exchangeable {
		with := ""
		if others := without(e.Latents, e.Order); len(others) > 0 {
			with = " (with " + strings.Join(others, ", ") + "'s"
			if len(e.Reflected) > 0 {
				with += ", and " + strings.Join(e.Reflected, ", ") + " as 1 - " + strings.Join(e.Reflected, ", ")
			}
			with += ")"
		} else if len(e.Reflected) > 0 {
			with = " (with " + strings.Join(e.Reflected, ", ") + " as 1 - " + strings.Join(e.Reflected, ", ") + ")"
		}
		name := e.Order
		if name == "" {
			name = strings.Join(e.Latents, ", ")
		}
		cause := fmt.Sprintf("label switching: the %d elements of %s%s play symmetric roles (a mixture's components), so the posterior has one mode per labelling and each chain settles in one", e.K, name, with)
		remedy := fmt.Sprintf("order the components to pick one labelling (one of %s as an ordered vector)", strings.Join(e.Latents, ", "))
		if e.Declare != "" {
			remedy = fmt.Sprintf("declare %s in the latent block to pick one labelling", e.Declare)
		}
		a.Add(cause, remedy)
	}
	if len(f.Centred) > 0 {
		var latents, forms []string
		for i, c := range f.Centred {
			if i == maxNamed {
				latents, forms = append(latents, "..."), append(forms, "...")
				break
			}
			which := "the latent "
			if len(c.Scale) > 1 {
				which = "the latents "
			}
			latents = append(latents, fmt.Sprintf("%s's prior scale depends on %s%s", c.Latent, which, strings.Join(c.Scale, ", ")))
			forms = append(forms, fmt.Sprintf("%s in place of %s, with %s", c.Raw, c.Latent, c.Define))
		}
		a.Add("a funnel, from a centred hierarchy: "+strings.Join(latents, "; "),
			"write it non-centred: "+strings.Join(forms, "; "))
	}
	return a
}

func without(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
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
func agreementAdvice(f Facts, t *Trend, cap int, q Family) (cause, remedy string) {
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
