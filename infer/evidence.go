package infer

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/internal/resample"
	"github.com/mscppl/mscppl/ir/lower"
)

// Variational is variational.json: the family and its parameters, and the
// learned params; enough to reload q, sample from it, or estimate the
// evidence.
type Variational struct {
	Model       string          `json:"model"`
	Data        string          `json:"data,omitempty"`
	Seed        uint64          `json:"seed"`
	Family      string          `json:"family"` // fullrank, meanfield, student_t, twisted-gaussian, per-step-gaussian
	LatentNames []string        `json:"latent_names"`
	Q           json.RawMessage `json:"q"` // the family's parameters (unconstrained space)
	// Params in unconstrained space (what inference works on) and as values.
	ParamNames          []string           `json:"param_names,omitempty"`
	ParamsUnconstrained []float64          `json:"params_unconstrained,omitempty"`
	Params              map[string]float64 `json:"params,omitempty"`
}

// Variational returns the fit as variational.json.
func (f *Fitted) Variational() (*Variational, error) {
	b, err := json.Marshal(f.Q)
	if err != nil {
		return nil, err
	}
	v := &Variational{Model: f.Summary.Model, Data: f.Summary.Data, Seed: f.Summary.Seed, Family: f.Q.Name(),
		LatentNames: f.Model.IR.UnconstrainedNames(), Q: b}
	if f.Model.IR.ParamDim > 0 {
		v.ParamNames = f.Model.IR.ParamNames()
		v.ParamsUnconstrained = f.unconstrainedParams()
		v.Params = f.Summary.Params
	}
	return v, nil
}

// ReadVariational reads a variational.json file and returns its family for
// model m, with m's params set from it.
func ReadVariational(path string, m *Model) (msc.Family, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, FileError(path, "variational", err)
	}
	var v Variational
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, Errorf("it is written by mscppl run --out DIR", "%s is not a variational.json file: %v", path, err)
	}
	if len(v.ParamsUnconstrained) != m.IR.ParamDim {
		return nil, Errorf("", "%s has %d params, the model has %d", path, len(v.ParamsUnconstrained), m.IR.ParamDim)
	}
	if m.IR.ParamDim > 0 {
		m.Comp.SetParams(v.ParamsUnconstrained)
	}
	q, err := msc.UnmarshalFamily(v.Family, newProblem(m.Comp), v.Q)
	if err != nil {
		return nil, Errorf("", "%s does not hold a q for this model: %v", path, err)
	}
	return q, nil
}

// EvidenceResult is an estimate of log p(x; theta).
type EvidenceResult struct {
	LogEvidence float64 `json:"log_evidence"`
	SE          float64 `json:"se"`
	Particles   int     `json:"particles"`
	Repeats     int     `json:"repeats"`
	Estimator   string  `json:"estimator"`
}

// EvidenceRand is the random stream of the evidence estimates for a seed,
// as Fitted.Evidence draws it.
func EvidenceRand(seed uint64) *rand.Rand { return NewRand(seed, 0x657669) }

// Evidence estimates log p(x; theta) at the model's current params: with a
// particle filter for state-space models (q a state-space proposal, or nil
// for the bootstrap filter), by importance sampling with q otherwise; reps
// independent estimates of n particles or draws each give the standard
// error. Factors that depend on no latent (data and params only) are
// added exactly.
func Evidence(rng *rand.Rand, m *Model, q msc.Family, n, reps int) (*EvidenceResult, error) {
	return evidence(rng, m.Comp, nil, q, n, reps)
}

// evidence is Evidence on comp, whose problem p is given when it is made
// already (nil: made here).
func evidence(rng *rand.Rand, comp *lower.Compiled, p *msc.Problem, q msc.Family, n, reps int) (*EvidenceResult, error) {
	if n < 2 || reps < 2 {
		return nil, Errorf("", "--particles and --repeats must be at least 2")
	}
	if p == nil {
		p = newProblem(comp)
	}
	r := &EvidenceResult{Particles: n, Repeats: reps}
	var err error
	if p.StateSpace != nil {
		if _, ok := q.(msc.Sampler); ok || q == nil {
			if q, err = msc.NewProposal(p); err != nil {
				return nil, err
			}
			r.Estimator = "particle filter with " + msc.FamilyOf(q).Start
		} else {
			r.Estimator = "particle filter with the learned " + q.Name() + " proposal"
		}
		r.LogEvidence, r.SE, err = msc.LogEvidence(rng, p, q, n, reps)
		if err != nil {
			return nil, err
		}
		r.LogEvidence += lower.ConstLogDensity(comp)
	} else {
		sq, ok := q.(msc.Sampler)
		if !ok {
			return nil, Errorf("", "importance sampling needs a q that can be sampled, not %s", q.Name())
		}
		r.Estimator = "importance sampling with q"
		r.LogEvidence, r.SE = isEvidence(rng, comp, sq, n, reps)
	}
	if math.IsNaN(r.LogEvidence) {
		return nil, fmt.Errorf("the evidence estimate is NaN")
	}
	return r, nil
}

// isEvidence estimates log p(x) by importance sampling with q: each repeat
// averages p(z, x)/q(z) over n draws; the result is the log of the average
// over repeats, with its standard error by the delta method.
func isEvidence(rng *rand.Rand, comp *lower.Compiled, q msc.Sampler, n, reps int) (float64, float64) {
	d := comp.Dim()
	const batch = 100
	comp.Reserve(batch)
	z, eps := make([]float64, batch*d), make([]float64, batch*d)
	lp := make([]float64, batch)
	logs := make([]float64, reps)
	lw := make([]float64, 0, n)
	for r := range logs {
		lw = lw[:0]
		for done := 0; done < n; done += batch {
			b := min(batch, n-done)
			q.Sample(rng, z[:b*d], eps[:b*d])
			comp.LogJoint(z[:b*d], lp[:b])
			for i := 0; i < b; i++ {
				lw = append(lw, lp[i]-q.LogQNoise(z[i*d:(i+1)*d], eps[i*d:(i+1)*d]))
			}
		}
		logs[r], _ = resample.LogMeanExpSE(lw)
	}
	return resample.LogMeanExpSE(logs)
}
