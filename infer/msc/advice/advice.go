package advice

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
