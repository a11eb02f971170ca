package infer

import (
	"fmt"
	"time"

	"github.com/mscppl/mscppl/infer/baselines"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir/structure"
	"github.com/mscppl/mscppl/stdlib"
)

func init() {
	registerMethod(method{name: "ep", help: "expectation propagation, probit regression only", solve: (*Fitted).fitEP})
}

// probitFamily is the likelihood EP and the closed-form prediction take:
// y ~ bernoulli_probit(eta).
var probitFamily = mustDistribution("bernoulli_probit")

// mustDistribution is stdlib's distribution of a name.
func mustDistribution(name string) *stdlib.Family {
	f, ok := stdlib.Lookup(name)
	if !ok {
		panic("infer: no distribution " + name)
	}
	return f
}

// fitEP runs expectation propagation when the model is a probit regression
// with independent normal priors.
func (f *Fitted) fitEP() error {
	comp := f.Model.Comp
	start := time.Now()
	glm, err := structure.RecogniseGLM(comp)
	if err != nil {
		return Errorf("EP works for probit regression: y ~ bernoulli_probit(linear predictor) with normal priors", "--method ep is not available for this model: %v", err)
	}
	if glm.Family != probitFamily {
		return Errorf("EP works for probit regression", "--method ep is not available for this model: its likelihood at %s is %s, not %s", glm.Pos, glm.Family.Name, probitFamily.Name)
	}
	if glm.PriorMean == nil {
		return Errorf("EP works with independent normal priors with constant arguments", "--method ep is not available for this model: %s", glm.PriorReason)
	}
	ep, err := baselines.EPProbit(glm.A, glm.N, glm.D, glm.C, glm.Y, glm.PriorMean, glm.PriorVar, baselines.EPSettings{})
	if err != nil {
		return err
	}
	q := msc.NewFullRank(glm.D)
	if err := q.SetMoments(ep.Mean, ep.Cov); err != nil {
		return fmt.Errorf("EP's covariance is not positive definite")
	}
	f.Q = q
	f.Result = &msc.Result{Kernel: "none", Q: q, Final: q, Iterations: ep.Iterations, Converged: ep.Converged, Elapsed: time.Since(start),
		Reported: fmt.Sprintf("EP fixed point after %d sweeps over the sites", ep.Iterations)}
	return nil
}
