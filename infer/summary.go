package infer

import (
	"math"
	"time"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
)

// Moments of one scalar component.
type Moments struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
}

// Diagnostics of a run.
type Diagnostics struct {
	ChangeRate     float64 `json:"change_rate"`      // fraction of iterations whose retained sample changed
	ChangeRateLast float64 `json:"change_rate_last"` // the same over the last 10% of the iterations run
	MeanESS        float64 `json:"mean_ess"`         // mean effective sample size of the normalised weights
	AllInfIters    int     `json:"all_inf_iterations,omitempty"`
}

// Summary is the machine-readable result of a fit (`mscppl run --json`).
type Summary struct {
	Model          string             `json:"model"`
	Data           string             `json:"data,omitempty"`
	Method         string             `json:"method"`
	Kernel         string             `json:"kernel"`
	Family         string             `json:"family"`
	Optimizer      string             `json:"optimizer"`
	Samples        int                `json:"samples"`
	Iterations     int                `json:"iterations"`
	Seed           uint64             `json:"seed"`
	Reported       string             `json:"reported"` // which iterates the summary describes
	Latent         map[string]Moments `json:"latent"`
	LatentOrder    []string           `json:"latent_order"`
	Params         map[string]float64 `json:"params"`
	ParamOrder     []string           `json:"param_order,omitempty"`
	Diagnostics    Diagnostics        `json:"diagnostics"`
	Converged      bool               `json:"converged"`
	Warnings       []string           `json:"warnings,omitempty"`
	ElapsedSeconds float64            `json:"elapsed_seconds"`
}

// summaryDraws is the number of draws of q behind the marginals of
// constrained latents.
const summaryDraws = 10000

// summarize reports the latents in their own (constrained) space: for a
// Gaussian-like q exactly for unconstrained components and by seeded draws
// of q for constrained ones; for a state-space run the moments of the
// retained trajectories over the averaged iterations.
func (f *Fitted) summarize(o Options, kernel, optimizer string, elapsed time.Duration) *Summary {
	m, comp, res := f.Model.IR, f.Model.Comp, f.Result
	sum := &Summary{
		Model: f.Model.Path, Data: f.Model.DataPath, Method: o.Method, Kernel: kernel, Family: o.Family,
		Optimizer: optimizer, Samples: f.Settings.Samples, Iterations: res.Iterations, Seed: o.Seed,
		Reported: res.Reported, Latent: map[string]Moments{}, Params: map[string]float64{},
		Converged: res.Converged, Warnings: res.Warnings, ElapsedSeconds: elapsed.Seconds(),
		Diagnostics: Diagnostics{ChangeRate: res.ChangeRate, ChangeRateLast: res.ChangeRateLast, MeanESS: res.MeanESS, AllInfIters: res.Degenerate},
	}
	if o.Proposal == "prior" && o.Method == "msc" {
		sum.Method = "msc-prior"
	}
	if kernel != "cis" && kernel != "csmc" {
		sum.Kernel = "none"
	}
	if o.Method == "ep" {
		sum.Optimizer, sum.Samples, sum.Family = "none", 0, "fullrank"
	}
	d := m.LatentDim
	mean, sd := make([]float64, d), make([]float64, d)
	sq, gaussian := f.Q.(msc.Sampler)
	switch {
	case !gaussian: // a state-space proposal: the chain's smoothing marginals
		sum.Family = f.Q.Name()
		copy(mean, res.ChainMean)
		copy(sd, res.ChainSD)
		sum.Reported += "; latent moments from the retained trajectories of those iterations"
	default:
		sq.Moments(mean, sd)
		if constrained(m) {
			f.constrainedMoments(sq, o.Seed, mean, sd)
		}
	}
	names := m.LatentNames()
	for j, name := range names {
		sum.Latent[name] = Moments{Mean: mean[j], SD: sd[j]}
	}
	sum.LatentOrder = names
	if m.ParamDim > 0 {
		x := make([]float64, m.ParamDim)
		comp.ConstrainParams(f.unconstrainedParams(), x)
		for j, name := range m.ParamNames() {
			sum.Params[name] = x[j]
		}
		sum.ParamOrder = m.ParamNames()
	}
	return sum
}

// constrainedMoments replaces the moments of the constrained components by
// Monte Carlo estimates over summaryDraws seeded draws of q.
func (f *Fitted) constrainedMoments(q msc.Sampler, seed uint64, mean, sd []float64) {
	comp := f.Model.Comp
	d := q.Dim()
	rng := NewRand(seed, streamSummary)
	u, eps, x := make([]float64, d), make([]float64, d), make([]float64, d)
	s1, s2 := make([]float64, d), make([]float64, d)
	for i := 0; i < summaryDraws; i++ {
		q.Sample(rng, u, eps)
		comp.Constrain(u, x)
		for j, v := range x {
			s1[j] += v
			s2[j] += v * v
		}
	}
	for _, v := range f.Model.IR.Latents {
		if v.Bij.Identity() {
			continue
		}
		for i := 0; i < v.Type.Len(); i++ {
			j := v.Offset + i
			mean[j] = s1[j] / summaryDraws
			sd[j] = math.Sqrt(math.Max(0, s2[j]/summaryDraws-mean[j]*mean[j]))
		}
	}
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
	return Evidence(NewRand(seed, 0x657669), f.Model, f.Q, n, reps)
}

// unconstrainedParams are the fitted params (the model's initial values
// when the method learns none).
func (f *Fitted) unconstrainedParams() []float64 {
	if f.Result != nil && f.Result.Params != nil {
		return f.Result.Params
	}
	return append([]float64(nil), f.Model.Comp.Params()...)
}

// Draws returns n draws from q in each latent's own (constrained) space,
// one row per draw, seeded by seed. It needs a q that can be sampled (not a
// state-space proposal).
func (f *Fitted) Draws(n int, seed uint64) ([][]float64, error) {
	q, ok := f.Q.(msc.Sampler)
	if !ok {
		return nil, Errorf("", "the %s proposal of a state-space run cannot be sampled on its own; the summary reports the chain's smoothing marginals instead", f.Q.Name())
	}
	comp := f.Model.Comp
	if f.Result != nil && f.Result.Params != nil {
		comp.SetParams(f.Result.Params)
	}
	d := q.Dim()
	rng := NewRand(seed, 0x647261)
	u, eps := make([]float64, d), make([]float64, d)
	out := make([][]float64, n)
	for i := range out {
		q.Sample(rng, u, eps)
		out[i] = make([]float64, d)
		comp.Constrain(u, out[i])
	}
	return out, nil
}

// UnconstrainedDraws returns n draws of q in unconstrained space.
func (f *Fitted) UnconstrainedDraws(n int, seed uint64) ([][]float64, error) {
	q, ok := f.Q.(msc.Sampler)
	if !ok {
		return nil, Errorf("", "the %s proposal of a state-space run cannot be sampled on its own", f.Q.Name())
	}
	d := q.Dim()
	rng := NewRand(seed, 0x73616d)
	eps := make([]float64, d)
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, d)
		q.Sample(rng, out[i], eps)
	}
	return out, nil
}

func constrained(m *ir.Model) bool {
	for _, v := range m.Latents {
		if !v.Bij.Identity() {
			return true
		}
	}
	return false
}

// PriorDraws samples the model's prior by ancestral sampling: n draws of
// each latent component in its own space, one slice per component (nil
// when the prior cannot be sampled).
func PriorDraws(m *Model, n int, seed uint64) [][]float64 {
	comp := m.Comp
	if comp.PriorError() != nil {
		return nil
	}
	d := comp.Dim()
	out := make([][]float64, d)
	rng := NewRand(seed, 0x707269)
	u, x := make([]float64, d), make([]float64, d)
	for k := 0; k < n; k++ {
		comp.SamplePrior(rng, u)
		comp.Constrain(u, x)
		for j := range out {
			out[j] = append(out[j], x[j])
		}
	}
	return out
}
