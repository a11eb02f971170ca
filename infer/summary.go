package infer

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mscppl/mscppl/infer/diag"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/lower"
)

// Figure is a diagnostic number; NaN and infinities (a figure that could
// not be computed, a k-hat with too few draws) are null in JSON.
type Figure float64

// MarshalJSON writes null for a non-finite figure.
func (f Figure) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// UnmarshalJSON reads null as NaN.
func (f *Figure) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Figure(math.NaN())
		return nil
	}
	return json.Unmarshal(b, (*float64)(f))
}

// Moments summarise one scalar component in its own space: mean, sd,
// quantiles and the Monte Carlo standard error of the mean (null when the
// source has none).
type Moments struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	Q05  Figure  `json:"q05"`
	Q50  Figure  `json:"q50"`
	Q95  Figure  `json:"q95"`
	MCSE Figure  `json:"mcse_mean"`
}

// Diagnostics of a run; docs/outputs.md explains each.
type Diagnostics struct {
	// RhatMax is the largest rank-normalised split R-hat over the
	// components, of RhatOf over the averaging windows of the chains.
	RhatMax Figure            `json:"rhat_max"`
	RhatOf  string            `json:"rhat_of,omitempty"`
	Rhat    map[string]Figure `json:"rhat,omitempty"`
	// ChainSpreadMax is the largest range of the chains' averaged means,
	// in posterior sds.
	ChainSpreadMax Figure `json:"chain_spread_max"`
	// Khat is the Pareto k-hat of the importance weights behind the
	// summaries: p(z, x)/q(z), or p(z, x)/t(z) for the Student-t proposal
	// tried when q's own k-hat (KhatQ) is above 0.7.
	Khat  Figure `json:"khat"`
	KhatQ Figure `json:"khat_q"`
	// ESSBulkMin is the effective sample size behind the summaries: of the
	// PSIS weights, or the smallest bulk ESS of the chains' draws.
	ESSBulkMin     Figure  `json:"ess_bulk_min"`
	StoppedByRule  bool    `json:"stopped_by_rule"`
	ChangeRate     float64 `json:"change_rate"`      // fraction of iterations whose retained sample changed
	ChangeRateLast float64 `json:"change_rate_last"` // the same over the last 10% of the iterations run
	MeanESS        float64 `json:"mean_ess"`         // mean effective sample size of the normalised weights
	AllInfIters    int     `json:"all_inf_iterations,omitempty"`
}

// ChainSummary is one chain's own q, in unconstrained space.
type ChainSummary struct {
	Chain      int                `json:"chain"`
	Iterations int                `json:"iterations"`
	ChangeRate float64            `json:"change_rate"`
	MeanESS    float64            `json:"mean_ess"`
	QMean      map[string]float64 `json:"q_mean_unconstrained,omitempty"`
	QSD        map[string]float64 `json:"q_sd_unconstrained,omitempty"`
	Params     map[string]float64 `json:"params,omitempty"` // the params this chain learned
	Warnings   []string           `json:"warnings,omitempty"`
}

// Summary is the machine-readable result of a fit (`mscppl run --json`).
type Summary struct {
	Model      string `json:"model"`
	Data       string `json:"data,omitempty"`
	Method     string `json:"method"`
	Kernel     string `json:"kernel"`
	Family     string `json:"family"`
	Optimizer  string `json:"optimizer"`
	Samples    int    `json:"samples"`
	Iterations int    `json:"iterations"`
	Seed       uint64 `json:"seed"`
	Reported   string `json:"reported"` // which iterates q describes
	// Init is where the chains' q started: "laplace" (a Laplace
	// approximation at the mode) or "zero" (N(0, I)); empty when not MSC
	// with the CIS kernel.
	Init string `json:"init,omitempty"`
	// SummarySource says what Latent describes: "psis" (the posterior,
	// estimated by PSIS-weighted draws of q), "q" (q's own marginals, when
	// k-hat is too large), or "chain" (the retained trajectories of a
	// state-space run).
	SummarySource SummarySource      `json:"summary_source"`
	Latent        map[string]Moments `json:"latent"`
	LatentOrder   []string           `json:"latent_order"`
	// QLatent are q's own marginals in each latent's space.
	QLatent       map[string]Moments `json:"q_latent,omitempty"`
	Draws         int                `json:"draws,omitempty"` // draws of q behind the summaries
	Params        map[string]float64 `json:"params"`
	ParamOrder    []string           `json:"param_order,omitempty"`
	LogEvidence   Figure             `json:"log_evidence"`
	LogEvidenceSE Figure             `json:"log_evidence_se"`
	Chains        []ChainSummary     `json:"chains,omitempty"`
	Diagnostics   Diagnostics        `json:"diagnostics"`
	// Converged is true only when every check passed (R-hat, the chains'
	// agreement, k-hat, no early stop or frozen optimiser).
	Converged      bool     `json:"converged"`
	Verdict        string   `json:"verdict"`
	Warnings       []string `json:"warnings"`
	Notes          []string `json:"notes"` // what the reader should know, not failures
	ElapsedSeconds float64  `json:"elapsed_seconds"`
	// Timing is the wall time of each phase of the run; nil for a summary
	// not made by Fit.
	Timing *Timing `json:"timing,omitempty"`

	// interrupted is set by MarkInterrupted (the verdict then says so)
	interrupted bool

	// unconstrainedOrder orders the maps keyed by unconstrained names
	// (rhat, the chains' q) in summary.json
	unconstrainedOrder []string
}

// Timing is where a run's wall time went, in seconds: reading the model
// and data files, binding and compiling them (the chains' copies
// included), the warm start (the chains' mode searches and curvatures),
// the iterations, the PSIS check with the summaries, and writing the
// outputs (set by the caller that writes them: in summary.json, the
// writing of the other files of --out).
type Timing struct {
	Read       float64 `json:"read"`
	Compile    float64 `json:"compile"`
	WarmStart  float64 `json:"warm_start"`
	Iterations float64 `json:"iterations"`
	PSIS       float64 `json:"psis"`
	Write      float64 `json:"write"`
}

// summarize reports the latents in their own (constrained) space: from
// PSIS-weighted draws of q when k-hat allows, q's own marginals otherwise;
// for a state-space run the moments of the retained trajectories over the
// averaged iterations.
func (f *Fitted) summarize(o *plan, elapsed time.Duration) *Summary {
	m, comp, res := f.Model.IR, f.Model.Comp, f.Result
	nan := Figure(math.NaN())
	// the kernel is named when it is one of MSC's Markov kernels; a
	// baseline's own kernel and a method without one report none
	kernel, optimizer, samples := "none", "none", 0
	if f.kernel != nil {
		optimizer, samples = f.Settings.Optimizer.String(), f.Settings.Samples
		if f.kernel.Markov {
			kernel = f.kernel.Name
		}
	}
	sum := &Summary{
		Model: f.Model.Path, Data: f.Model.DataPath, Method: o.method.name, Kernel: kernel, Family: f.Q.Name(),
		Optimizer: optimizer, Samples: samples, Iterations: res.Iterations, Seed: o.seed,
		Reported: res.Reported, Latent: map[string]Moments{}, Params: map[string]float64{},
		Converged: res.Converged, Warnings: append([]string{}, res.Warnings...), ElapsedSeconds: elapsed.Seconds(),
		LogEvidence: nan, LogEvidenceSE: nan,
		Diagnostics: Diagnostics{ChangeRate: res.ChangeRate, ChangeRateLast: res.ChangeRateLast, MeanESS: res.MeanESS, AllInfIters: res.Degenerate,
			RhatMax: nan, ChainSpreadMax: nan, Khat: nan, KhatQ: nan, ESSBulkMin: nan, StoppedByRule: res.StoppedByRule},
	}
	sum.Notes = append(sum.Notes, m.Notes...)   // remarks on the model itself
	sum.Notes = append(sum.Notes, res.Notes...) // and the kernel's on its choices
	if alias := aliasOf(o.method.name, o.proposal); alias != "" {
		sum.Method = alias
	}
	names := m.LatentNames()
	sum.LatentOrder = names
	sum.unconstrainedOrder = m.UnconstrainedNames()
	if res.Rhat != nil {
		dg := &sum.Diagnostics
		dg.RhatMax, dg.ChainSpreadMax, dg.RhatOf = Figure(res.RhatMax), Figure(res.SpreadMax), res.RhatOf
		dg.Rhat = map[string]Figure{}
		for j, n := range m.UnconstrainedNames() {
			dg.Rhat[n] = Figure(res.Rhat[j])
		}
		for i, r := range res.Chains {
			cs := ChainSummary{Chain: i + 1, Iterations: r.Iterations, ChangeRate: r.ChangeRate, MeanESS: r.MeanESS, Warnings: r.Warnings}
			if sq, ok := r.Q.(msc.Sampler); ok {
				mean, sd := make([]float64, m.LatentDim), make([]float64, m.LatentDim)
				sq.Moments(mean, sd)
				cs.QMean, cs.QSD = map[string]float64{}, map[string]float64{}
				for j, n := range m.UnconstrainedNames() {
					cs.QMean[n], cs.QSD[n] = mean[j], sd[j]
				}
			}
			if m.ParamDim > 0 && r.Params != nil {
				x := make([]float64, m.ParamDim)
				comp.ConstrainParams(r.Params, x)
				cs.Params = map[string]float64{}
				for j, name := range m.ParamNames() {
					cs.Params[name] = x[j]
				}
			}
			sum.Chains = append(sum.Chains, cs)
		}
	}
	im, iq := f.imp, f.impQ
	switch {
	case im == nil && iq != nil: // the check was skipped
		sum.SummarySource, sum.Draws = SourceQ, iq.draws
		sum.QLatent = iq.qMarginals(m)
		maps.Copy(sum.Latent, sum.QLatent)
		sum.Notes = append(sum.Notes, "the PSIS check was skipped: the summaries are q's own marginals")
	case im != nil:
		sum.Draws = im.draws
		sum.Diagnostics.Khat, sum.Diagnostics.KhatQ = Figure(im.khat), Figure(iq.khat)
		sum.LogEvidence, sum.LogEvidenceSE = Figure(im.logZ), Figure(im.seZ)
		sum.QLatent = iq.qMarginals(m)
		if im.khat <= KhatMax {
			sum.SummarySource = SourcePSIS
			sum.Diagnostics.ESSBulkMin = Figure(im.ess)
			if note := correctedNote(res, f.problem); note != "" {
				sum.Notes = append(sum.Notes, note)
			}
			ms := im.allMarginals(im.w)
			for j, n := range names {
				sum.Latent[n] = ms[j]
			}
			// (q's moments and tails against a multimodal posterior's are
			// the modes warning's subject)
			if note := qOffNote(names, sum.QLatent, sum.Latent); note != "" && f.missed == nil {
				sum.Notes = append(sum.Notes, note)
			}
			if im.proposal != "" && iq.khat > khatGood && f.missed == nil {
				above := khatGood
				if iq.khat > KhatMax {
					above = KhatMax
				}
				sum.Notes = append(sum.Notes, fmt.Sprintf(
					"q's own k-hat is %.2f (above %.1f): its tails are lighter than the posterior's, so the summaries weigh draws of %s instead (k-hat %.2f)",
					iq.khat, above, im.proposal, im.khat))
			}
		} else {
			sum.SummarySource = SourceQ
			maps.Copy(sum.Latent, sum.QLatent)
			sum.Converged = false
			sum.Warnings = append(sum.Warnings, fmt.Sprintf(
				"k-hat is %.2f (threshold %.1f): the importance weights p(z, x)/q(z) of %d draws of q have a tail too heavy to trust, so q does not cover the posterior well; the summaries are q's own marginals, not posterior estimates, and the evidence estimate is unreliable; %s",
				im.khat, KhatMax, im.draws, f.khatAdvice()))
		}
		if im.nonFinite > 0 {
			sum.Warnings = append(sum.Warnings, fmt.Sprintf("the log joint was not finite at %d of %d draws of q (given weight 0): %s", im.nonFinite, im.draws, im.firstNaN))
		}
	default: // a state-space proposal: the chain's smoothing marginals
		sum.SummarySource = SourceChain
		sum.Family = f.Q.Name()
		x := make([]float64, m.XDim)
		comp.SetParams(f.unconstrainedParams())
		comp.Constrain(res.ChainMean, x)
		recorded := chainMarginals(comp, m.XDim, res.ChainDraws)
		for j, n := range names {
			k := m.IdentityIndex(j)
			switch {
			case k >= 0: // an unconstrained latent: the moments of every iteration of the window
				mo := Moments{Mean: res.ChainMean[k], SD: res.ChainSD[k], Q05: nan, Q50: nan, Q95: nan, MCSE: nan}
				if res.ChainQuantiles != nil {
					q := res.ChainQuantiles[k]
					mo.Q05, mo.Q50, mo.Q95, mo.MCSE = Figure(q[0]), Figure(q[1]), Figure(q[2]), Figure(res.ChainMCSE[k])
				}
				sum.Latent[n] = mo
			case !m.DerivedUsesLatents(j): // a derived quantity of params and data: exact
				sum.Latent[n] = Moments{Mean: x[j], SD: 0, Q05: Figure(x[j]), Q50: Figure(x[j]), Q95: Figure(x[j]), MCSE: 0}
			case recorded != nil: // constrained, or derived: from the recorded draws in its own space
				sum.Latent[n] = recorded[j]
			default:
				sum.Latent[n] = Moments{Mean: math.NaN(), SD: math.NaN(), Q05: nan, Q50: nan, Q95: nan, MCSE: nan}
				sum.Notes = append(sum.Notes, fmt.Sprintf("%s needs the chains' recorded draws, and the run recorded too few", n))
			}
		}
		sum.Diagnostics.ESSBulkMin = Figure(res.ESSBulkMin)
		from := "the retained trajectories"
		if f.kernel != nil && !f.kernel.Markov {
			from = "the kernel's fresh trajectories"
		}
		sum.Reported += "; latent moments from " + from + " of those iterations"
		if f.evidence != nil {
			sum.LogEvidence, sum.LogEvidenceSE = Figure(f.evidence.LogEvidence), Figure(f.evidence.SE)
		}
		if w := f.smooth.warning(); w != "" {
			sum.Converged = false
			sum.Warnings = append(sum.Warnings, w)
		}
		if n := f.smooth.note(); n != "" {
			sum.Notes = append(sum.Notes, n)
		}
	}
	if m.ParamDim > 0 {
		x := make([]float64, m.ParamDim)
		comp.ConstrainParams(f.unconstrainedParams(), x)
		for j, name := range m.ParamNames() {
			sum.Params[name] = x[j]
		}
		sum.ParamOrder = m.ParamNames()
	}
	if len(f.missed) > 0 {
		sum.Converged = false
		sum.Warnings = append(sum.Warnings, f.modesWarning(f.missed))
	}
	if f.neck != nil {
		sum.Converged = false
		sum.Warnings = append(sum.Warnings, f.neckWarning(f.neck))
	}
	if f.tails != "" && sum.SummarySource == SourcePSIS {
		sum.Converged = false
		sum.Warnings = append(sum.Warnings, fmt.Sprintf(
			"a second opinion on the tails, from draws mixed half and half with a multivariate Student-t (%g degrees of freedom, %g times the sds), disagrees with the PSIS estimates from draws of %s: %s; the posterior has mass in tails that the summaries' draws reach too rarely for their weights to show, so the summaries may be off there although their k-hat is %.2f; %s",
			secondDF, secondWiden, f.psisProposal(), f.tails, f.imp.khat, f.khatAdvice()))
	}
	sum.Verdict = verdict(sum)
	return sum
}

// qMarginals are q's own marginals from unweighted draws of q, exact for
// unconstrained components.
func (im *importance) qMarginals(m *ir.Model) map[string]Moments {
	out := map[string]Moments{}
	ms := im.allMarginals(im.uniform)
	for j, n := range m.LatentNames() {
		qm := ms[j]
		if k := m.IdentityIndex(j); k >= 0 {
			qm.Mean, qm.SD, qm.MCSE = im.qMean[k], im.qSD[k], 0 // q's exact moments
		}
		out[n] = qm
	}
	return out
}

// MarkInterrupted marks the summary of a run stopped by a signal (Ctrl-C):
// it is not converged, and its verdict names the iteration it stopped at
// rather than a count of warnings that the stop cut short.
func (s *Summary) MarkInterrupted() {
	s.interrupted, s.Converged = true, false
	s.Verdict = verdict(s)
}

// verdict is the one-line verdict of a summary.
func verdict(s *Summary) string {
	d := s.Diagnostics
	var parts []string
	if !math.IsNaN(float64(d.RhatMax)) || d.RhatOf != "" {
		parts = append(parts, fmt.Sprintf("R-hat %s", rhatFig(d.RhatMax)))
		if s.SummarySource == SourceChain { // the chains' own averages: their Monte Carlo error is what matters
			parts = append(parts, fmt.Sprintf("ESS at least %s", fig(d.ESSBulkMin, "%.0f")))
		} else {
			parts = append(parts, fmt.Sprintf("chains agree within %s sd", fig(d.ChainSpreadMax, "%.3f")))
		}
	}
	if s.SummarySource != SourceChain {
		parts = append(parts, fmt.Sprintf("k-hat %s", fig(d.Khat, "%.2f")))
	}
	what := map[SummarySource]string{SourcePSIS: "the summaries are PSIS-weighted posterior estimates",
		SourceQ: "the summaries are q's own marginals", SourceChain: "the summaries are the chains' smoothing marginals"}[s.SummarySource]
	head := "converged"
	switch {
	case s.interrupted && len(s.Warnings) > 0:
		head = fmt.Sprintf("interrupted at iteration %d, NOT converged (%d warnings)", s.Iterations, len(s.Warnings))
	case s.interrupted:
		head = fmt.Sprintf("interrupted at iteration %d, NOT converged", s.Iterations)
	case !s.Converged:
		head = fmt.Sprintf("NOT converged (%d warnings)", len(s.Warnings))
	}
	if len(s.ParamOrder) > 0 {
		// the latents' posterior is p(z | x; theta) at the params' maximum-
		// likelihood values: their uncertainty is in no interval
		what += " given the params' fitted values"
	}
	return fmt.Sprintf("%s: %s; %s", head, strings.Join(parts, ", "), what)
}

// rhatFig is an R-hat as the verdict prints it: three decimals near 1,
// three significant digits when the chains are far apart (1.23e+16, not
// 17 digits before the point).
func rhatFig(f Figure) string {
	if math.Abs(float64(f)) >= 1000 {
		return fig(f, "%.3g")
	}
	return fig(f, "%.3f")
}

func fig(f Figure, format string) string {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return "n/a"
	}
	return fmt.Sprintf(format, float64(f))
}

// Marginals returns the reported marginals of the latents in their own
// space, in declaration order.
func (f *Fitted) Marginals() (names []string, m []Moments) {
	for _, n := range f.Summary.LatentOrder {
		names = append(names, n)
		m = append(m, f.Summary.Latent[n])
	}
	return names, m
}

// Evidence estimates log p(x; theta) at the fitted params with the fitted
// q as proposal (see the function Evidence).
func (f *Fitted) Evidence(n, reps int, seed uint64) (*EvidenceResult, error) {
	if f.Result != nil && f.Result.Params != nil {
		f.Model.Comp.SetParams(f.Result.Params)
	}
	return evidence(EvidenceRand(seed), f.Model.Comp, f.problem, f.Q, n, reps)
}

// unconstrainedParams are the fitted params (the model's initial values
// when the method learns none).
func (f *Fitted) unconstrainedParams() []float64 {
	if f.Result != nil && f.Result.Params != nil {
		return f.Result.Params
	}
	return append([]float64(nil), f.Model.Comp.Params()...)
}

// Draws returns n draws in each latent's own (constrained) space, one row
// per draw, seeded by seed: resampled by their PSIS weights when the
// summaries are PSIS estimates, draws of q otherwise (which needs a q that
// can be sampled, not a state-space proposal).
func (f *Fitted) Draws(n int, seed uint64) ([][]float64, error) { return f.draws(n, seed, true) }

// UnconstrainedDraws is Draws in unconstrained space.
func (f *Fitted) UnconstrainedDraws(n int, seed uint64) ([][]float64, error) {
	return f.draws(n, seed, false)
}

func (f *Fitted) draws(n int, seed uint64, constrained bool) ([][]float64, error) {
	rng := NewRand(seed, 0x73616d)
	if constrained {
		rng = NewRand(seed, 0x647261)
	}
	if f.imp != nil && f.Summary != nil && f.Summary.SummarySource == SourcePSIS {
		return f.imp.resample(rng, f.imp.w, n, !constrained), nil
	}
	q, ok := f.Q.(msc.Sampler)
	if !ok {
		return nil, Errorf("", "the %s proposal of a state-space run cannot be sampled on its own; the summary reports the chain's smoothing marginals instead", f.Q.Name())
	}
	comp := f.Model.Comp
	if f.Result != nil && f.Result.Params != nil {
		comp.SetParams(f.Result.Params)
	}
	d := q.Dim()
	u, eps := make([]float64, d), make([]float64, d)
	out := make([][]float64, n)
	for i := range out {
		q.Sample(rng, u, eps)
		if constrained {
			out[i] = make([]float64, comp.Model.XDim)
			comp.Constrain(u, out[i])
		} else {
			out[i] = append([]float64(nil), u...)
		}
	}
	if err := f.rngError(); err != nil {
		return nil, err
	}
	return out, nil
}

// PriorDraws samples the model's prior by ancestral sampling: n draws of
// each latent component in its own space, one slice per component (nil
// when the prior cannot be sampled).
func PriorDraws(m *Model, n int, seed uint64) [][]float64 {
	comp := m.Comp
	if lower.PriorError(comp) != nil {
		return nil
	}
	d := comp.Dim()
	out := make([][]float64, m.IR.XDim)
	rng := NewRand(seed, 0x707269)
	u, x := make([]float64, d), make([]float64, m.IR.XDim)
	for k := 0; k < n; k++ {
		comp.SamplePrior(rng, u)
		comp.Constrain(u, x)
		for j := range out {
			out[j] = append(out[j], x[j])
		}
	}
	return out
}

// qOffNote says, when q's own marginals (qm) are narrower than the PSIS
// posterior estimates (pm) by more than QOffSD in some latent's sd, or off
// by more than QOffMean posterior sds in its mean, by how much and where:
// the summaries are corrected for it, but q itself (variational.json,
// q_latent) is not. At the inclusive-KL optimum of a Gaussian family q's
// mean and covariance are the posterior's, so a large gap means q has not
// reached it (typically its sds are still growing: the CIS chain moves
// slowly in many dimensions). The thresholds sit far above the Monte Carlo
// error of the PSIS figures at the check's ESS of 2500 or more (about 2%
// of an sd), and only widths narrower than the posterior's are reported:
// a wider q is what the inclusive KL errs towards and is harmless.
// Components that are constant on the posterior (nearlyConstant) are
// skipped.
func qOffNote(names []string, qm, pm map[string]Moments) string {
	worstSD, worstMean := 0.0, 0.0
	var atSD, atMean string
	for _, n := range names {
		q, p := qm[n], pm[n]
		if nearlyConstant(p) || math.IsNaN(q.SD) || math.IsNaN(q.Mean) {
			continue
		}
		if r := 1 - q.SD/p.SD; r > worstSD {
			worstSD, atSD = r, n
		}
		if r := math.Abs(q.Mean-p.Mean) / p.SD; r > worstMean {
			worstMean, atMean = r, n
		}
	}
	var parts []string
	if worstSD > QOffSD {
		parts = append(parts, fmt.Sprintf("its sds are up to %.0f%% narrower (%s)", 100*worstSD, atSD))
	}
	if worstMean > QOffMean {
		parts = append(parts, fmt.Sprintf("its means are up to %.2f sds off (%s)", worstMean, atMean))
	}
	if parts == nil {
		return ""
	}
	return "q has not reached the posterior's moments: against the PSIS estimates, " + strings.Join(parts, " and ") +
		"; the summaries and draws are corrected for it, q itself (q_latent, variational.json) is not; a longer run (--iters N --fixed) brings q closer"
}

// nearlyConstant reports whether a component's posterior sd is zero, or so
// small against its mean (below ConstantSD times it) that it is rounding
// error: a derived quantity that is constant on the posterior (a 0/1
// indicator that is always 1), whose gaps cannot be measured in its sds.
func nearlyConstant(p Moments) bool {
	return !(p.SD > ConstantSD*math.Abs(p.Mean)) || math.IsInf(p.SD, 0)
}

// ConstantSD is the sd, relative to the mean, below which qOffNote takes a
// component for a constant and neither judges nor names it.
const ConstantSD = 1e-8

// QOffSD and QOffMean are qOffNote's thresholds: a relative sd and a mean
// gap in posterior sds.
const (
	QOffSD   = 0.1
	QOffMean = 0.1
)

// chainMarginals are the marginals of every constrained component (derived
// quantities included) from the chains' recorded draws, each mapped to its
// own space: mean, sd, quantiles of the pooled draws and the MCSE of the
// mean from the chains' bulk ESS. nil without records.
func chainMarginals(comp *lower.Compiled, xdim int, draws [][]float64) []Moments {
	if draws == nil {
		return nil
	}
	d := comp.Dim()
	C, rows := len(draws), len(draws[0])/d
	cols := make([][][]float64, xdim) // component, chain, draw
	for j := range cols {
		cols[j] = make([][]float64, C)
		for c := range cols[j] {
			cols[j][c] = make([]float64, rows)
		}
	}
	x := make([]float64, xdim)
	for c, ch := range draws {
		for r := range rows {
			comp.Constrain(ch[r*d:(r+1)*d], x)
			for j, v := range x {
				cols[j][c][r] = v
			}
		}
	}
	out := make([]Moments, xdim)
	pooled := make([]float64, 0, C*rows)
	for j := range out {
		pooled = pooled[:0]
		for _, ch := range cols[j] {
			pooled = append(pooled, ch...)
		}
		n := float64(len(pooled))
		mean, ss := 0.0, 0.0
		for _, v := range pooled {
			mean += v / n
		}
		for _, v := range pooled {
			ss += (v - mean) * (v - mean)
		}
		sd := math.Sqrt(ss / math.Max(n-1, 1))
		slices.Sort(pooled)
		out[j] = Moments{Mean: mean, SD: sd,
			Q05: Figure(diag.Quantile(pooled, 0.05)), Q50: Figure(diag.Quantile(pooled, 0.5)), Q95: Figure(diag.Quantile(pooled, 0.95)),
			MCSE: Figure(sd / math.Sqrt(diag.ESSBulk(cols[j])))}
	}
	return out
}

// psisProposal names the proposal behind the PSIS summaries.
func (f *Fitted) psisProposal() string {
	if f.imp != nil && f.imp.proposal != "" {
		return f.imp.proposal
	}
	return "q"
}

// correctedNote says why a costly run stopped on the looser agreement that
// the PSIS correction allows, or why it did not ("" when the rule was not
// in play).
func correctedNote(res *msc.Result, p *msc.Problem) string {
	if res.Confirmed == "" || p == nil {
		return ""
	}
	costly := fmt.Sprintf("the iterations are costly (each evaluates the log joint, %.3g scalars, at %d samples on each of %d chains)", p.Cost, res.Settings.Samples, res.Settings.Chains)
	if res.AgreeSD > msc.Defaults.AgreeSD {
		return fmt.Sprintf("%s, so the chains were asked to agree within %g posterior sd instead of %g once draws of their q had reliable weights (%s): the PSIS weights correct what q's averaged means owe to Monte Carlo error; q's own moments (q_latent, variational.json) carry that error",
			costly, res.AgreeSD, msc.Defaults.AgreeSD, res.Confirmed)
	}
	return fmt.Sprintf("%s, and the chains agreed within %g posterior sd, but draws of their q did not have weights reliable enough to stop there (%s), so the run went on to agree within %g",
		costly, msc.Defaults.AgreeSDCorrected, res.Confirmed, res.AgreeSD)
}
