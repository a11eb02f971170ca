package infer

import (
	"fmt"
	"time"

	"github.com/mscppl/mscppl/infer/baselines"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir/structure"
)

func init() {
	registerMethod(method{name: "ep", help: "expectation propagation, probit regression only", solve: (*Fitted).fitEP})
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
	if glm.Family.Name != "bernoulli_probit" {
		return Errorf("EP works for probit regression", "--method ep is not available for this model: its likelihood at %s is %s, not bernoulli_probit", glm.Pos, glm.Family.Name)
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
