package msc

import (
	"github.com/mscppl/mscppl/infer/msc/advice"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAgreementAdvice: the R-hat and spread warnings' cause and remedy,
// from the facts and the trend: an ordering only for exchangeable
// components, the non-centred form only for a centred hierarchy, more
// iterations only when the chains were still coming together at the cap,
// a reparameterisation or heavier tails when nothing else applies.
func TestAgreementAdvice(t *testing.T) {
	centred := advice.Facts{Centred: []advice.Centred{{Latent: "theta", Scale: []string{"tau"}, Raw: "theta_raw ~ normal(0, 1)", Define: "theta = mu + tau * theta_raw"}}}
	mixture := advice.Facts{Exchangeable: []advice.Exchangeable{{Latents: []string{"mu", "sigma"}, Reflected: []string{"theta"}, K: 2, Order: "mu", Declare: "mu: ordered[2]"}}}
	falling := &Trend{From: 500, To: 1000, SpreadFrom: 0.3, SpreadTo: 0.2, Rhat: 1.05}
	flat := &Trend{From: 500, To: 1000, SpreadFrom: 3, SpreadTo: 2.9, Rhat: 1.5}
	agreeing := &Trend{From: 500, To: 1000, SpreadFrom: 0.06, SpreadTo: 0.07, Rhat: 1.004}
	q := NewFullRank(2)
	for _, c := range []struct {
		name     string
		facts    advice.Facts
		trend    *Trend
		has, not []string
	}{
		{"centred, still coming together", centred, falling,
			[]string{"theta's prior scale depends on the latent tau", "write it non-centred: theta_raw ~ normal(0, 1) in place of theta, with theta = mu + tau * theta_raw",
				"more --iters (the cap was 1000)", "fell from 0.3 to 0.2 posterior sd between iterations 500 and 1000"},
			[]string{"ordered", "--family"}},
		{"exchangeable, stalled", mixture, flat,
			[]string{"label switching: the 2 elements of mu (with sigma's, and theta as 1 - theta)", "declare mu: ordered[2]"},
			[]string{"non-centred", "--iters", "--family"}},
		{"nothing known, stalled", advice.Facts{}, flat,
			[]string{"went from 3 to 2.9 posterior sd", "more of the same run would not help", "reparameterise", "--family " + HeavyTailedFamily()},
			[]string{"non-centred", "ordered", "--iters"}},
		{"nothing known, samples agree", advice.Facts{}, agreeing,
			[]string{"R-hat 1.004", "more --iters (the cap was 1000)"},
			[]string{"non-centred", "ordered", "--family", "would not help"}},
		{"nothing known, stopped before the cap", advice.Facts{}, nil,
			[]string{"reparameterise"},
			[]string{"non-centred", "ordered", "--iters"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cause, remedy := agreementAdvice(c.facts, c.trend, 1000, q)
			got := "likely cause: " + cause + "; remedy: " + remedy
			for _, s := range c.has {
				require.Contains(t, got, s)
			}
			for _, s := range c.not {
				require.NotContains(t, got, s)
			}
		})
	}
}
