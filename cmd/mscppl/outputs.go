package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
)

// Variational is variational.json: enough to reload q and the params, to
// sample from q or to estimate the evidence.
type Variational struct {
	Model       string    `json:"model"`
	Data        string    `json:"data,omitempty"`
	Seed        uint64    `json:"seed"`
	Family      string    `json:"family"` // fullrank, meanfield or twisted-gaussian
	LatentNames []string  `json:"latent_names"`
	Mean        []float64 `json:"mean,omitempty"` // unconstrained space
	Cov         []float64 `json:"cov,omitempty"`  // d x d row-major, unconstrained space
	// The twisted Gaussian proposal of a state-space model.
	Nu        []float64 `json:"nu,omitempty"`
	LogLambda []float64 `json:"log_lambda,omitempty"`
	// The per-step Gaussian proposal N(A_t + B_t z_{t-1}, exp(LogS_t)^2)
	// of a state-space model with a non-Gaussian transition.
	A    []float64 `json:"a,omitempty"`
	B    []float64 `json:"b,omitempty"`
	LogS []float64 `json:"log_s,omitempty"`
	// Params in unconstrained space (what inference works on) and as values.
	ParamNames          []string           `json:"param_names,omitempty"`
	ParamsUnconstrained []float64          `json:"params_unconstrained,omitempty"`
	Params              map[string]float64 `json:"params,omitempty"`
}

// writeOutputs writes summary.json and variational.json into dir, each
// atomically.
func writeOutputs(dir string, sum *Summary, v *Variational) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return userErrorf("", "cannot create the output directory %s: %v", dir, err)
	}
	for name, x := range map[string]any{"summary.json": sum, "variational.json": v} {
		b, err := json.MarshalIndent(x, "", "  ")
		if err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(dir, name), append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

func gaussianVariational(comp *ir.Compiled, sum *Summary, res *msc.Result) *Variational {
	m := comp.Model
	v := &Variational{Model: sum.Model, Data: sum.Data, Seed: sum.Seed, Family: sum.Family,
		LatentNames: m.LatentNames(), Mean: res.Mean, Cov: res.Cov}
	addParams(v, comp, res.Params, sum)
	return v
}

func addParams(v *Variational, comp *ir.Compiled, theta []float64, sum *Summary) {
	if comp.Model.ParamDim == 0 {
		return
	}
	if theta == nil {
		theta = append([]float64(nil), comp.Params()...)
	}
	v.ParamNames = comp.Model.ParamNames()
	v.ParamsUnconstrained = theta
	v.Params = sum.Params
}

func readVariational(path string) (*Variational, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fileError(path, "variational", err)
	}
	var v Variational
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, userErrorf("it is written by mscppl run --out DIR", "%s is not a variational.json file: %v", path, err)
	}
	return &v, nil
}

type evidenceCmd struct {
	Model string `arg:"" help:"The .msc model file."`
	Data  string `arg:"" optional:"" help:"The CSV data file."`

	Params    string `required:"" help:"The variational.json written by mscppl run --out DIR (params and proposal)." placeholder:"FILE.json"`
	Particles int    `default:"10000" help:"Particles (state-space models) or importance samples per estimate."`
	Repeats   int    `default:"10" help:"Independent estimates, for the Monte Carlo standard error."`
	Seed      uint64 `default:"1" help:"Random seed."`
	JSON      bool   `name:"json" help:"Print the machine-readable result on stdout."`
}

type evidenceResult struct {
	LogEvidence float64 `json:"log_evidence"`
	SE          float64 `json:"se"`
	Particles   int     `json:"particles"`
	Repeats     int     `json:"repeats"`
	Estimator   string  `json:"estimator"`
}

func (c *evidenceCmd) Run(e *env) error {
	if c.Particles < 2 || c.Repeats < 2 {
		return userErrorf("", "--particles and --repeats must be at least 2")
	}
	m, _, err := e.load(c.Model, c.Data)
	if err != nil {
		return err
	}
	comp, err := ir.Compile(m, ir.CompileOptions{})
	if err != nil {
		return err
	}
	v, err := readVariational(c.Params)
	if err != nil {
		return err
	}
	if len(v.ParamsUnconstrained) != m.ParamDim {
		return userErrorf("", "%s has %d params, the model has %d", c.Params, len(v.ParamsUnconstrained), m.ParamDim)
	}
	if m.ParamDim > 0 {
		comp.SetParams(v.ParamsUnconstrained)
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x657669))
	var r evidenceResult
	r.Particles, r.Repeats = c.Particles, c.Repeats
	if st := comp.Structure(); st.StateSpace && !st.GaussianTransition {
		p := msc.NewARProposal(comp.Len())
		if len(v.A) == comp.Len() && len(v.B) == comp.Len() && len(v.LogS) == comp.Len() {
			copy(p.A, v.A)
			copy(p.B, v.B)
			copy(p.LogS, v.LogS)
			r.Estimator = "particle filter with the learned per-step Gaussian proposal"
		} else {
			r.Estimator = "particle filter with N(0, 1) proposals"
		}
		r.LogEvidence, r.SE = msc.LogEvidenceGeneral(rng, comp, p, c.Particles, c.Repeats)
	} else if comp.Structure().StateSpace {
		tw := msc.NewTwisted(comp.Len())
		if len(v.Nu) == comp.Len() && len(v.LogLambda) == comp.Len() {
			copy(tw.Nu, v.Nu)
			copy(tw.LogLambda, v.LogLambda)
			r.Estimator = "particle filter with the learned twisted proposal"
		} else {
			r.Estimator = "bootstrap particle filter"
		}
		r.LogEvidence, r.SE = msc.LogEvidence(rng, comp, tw, c.Particles, c.Repeats)
	} else {
		d := m.LatentDim
		if len(v.Mean) != d || len(v.Cov) != d*d {
			return userErrorf("", "%s does not hold a Gaussian q of dimension %d", c.Params, d)
		}
		q := msc.NewGaussian(msc.FullRank, d)
		copy(q.Mu, v.Mean)
		if !q.SetCov(v.Cov) {
			return userErrorf("", "the covariance in %s is not positive definite", c.Params)
		}
		r.Estimator = "importance sampling with q"
		r.LogEvidence, r.SE = isEvidence(rng, comp, q, c.Particles, c.Repeats)
	}
	if math.IsNaN(r.LogEvidence) {
		return fmt.Errorf("the evidence estimate is NaN")
	}
	if c.JSON {
		b, _ := json.MarshalIndent(r, "", "  ")
		_, err := e.stdout.Write(append(b, '\n'))
		return err
	}
	fmt.Fprintf(e.stdout, "log p(x; theta) = %.4f +- %.4f (%s, %d repeats of %d)\n", r.LogEvidence, r.SE, r.Estimator, r.Repeats, r.Particles)
	return nil
}

// isEvidence estimates log p(x) by importance sampling with q: each repeat
// averages p(z, x)/q(z) over n draws; the result is the log of the average
// over repeats, with its standard error by the delta method.
func isEvidence(rng *rand.Rand, comp *ir.Compiled, q *msc.Gaussian, n, reps int) (float64, float64) {
	d := comp.Dim()
	const batch = 100
	comp.Reserve(batch)
	z, eps := make([]float64, batch*d), make([]float64, batch*d)
	lp := make([]float64, batch)
	logs := make([]float64, reps)
	for r := range logs {
		lw := make([]float64, 0, n)
		for done := 0; done < n; done += batch {
			b := min(batch, n-done)
			q.Sample(rng, z[:b*d], eps[:b*d])
			comp.LogJoint(z[:b*d], lp[:b])
			for i := 0; i < b; i++ {
				lw = append(lw, lp[i]-q.LogQEps(eps[i*d:(i+1)*d]))
			}
		}
		logs[r] = logMeanExp(lw)
	}
	return msc.LogMeanExpSE(logs)
}

func logMeanExp(x []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = math.Max(mx, v)
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - mx)
	}
	return mx + math.Log(s/float64(len(x)))
}
