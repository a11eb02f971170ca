package msc

import (
	"fmt"
	"github.com/mscppl/mscppl/infer/msc/advice"
	"strings"
)

// Problem is the model as the engine sees it, shaped like gonum's
// optimize.Problem: the latent dimension and names, and typed, optional
// capabilities. A nil field is a capability the model does not have. The
// facade (package infer) builds one per chain from the compiled model; tests
// build them from hand-written targets. Kernels and families declare the
// capabilities they need (Capability), and NewKernel checks them before
// anything runs.
type Problem struct {
	// Dim is the number of unconstrained latent scalars.
	Dim int
	// Names are the components' names, for messages (nil: "component j");
	// ParamNames those of the unconstrained params (log(s) for s > 0).
	Names, ParamNames []string

	// Target is the batched log joint: every kernel that weighs proposals
	// needs it.
	Target Target
	// Grad is the gradient of the log joint in the latents (ADVI, the warm
	// start's mode search).
	Grad GradTarget
	// Params are the model parameters learned by maximum likelihood through
	// the Fisher identity (Algorithm 3); nil when the model has none.
	Params ParamTarget
	// Prior samples and evaluates the prior (CIS with proposal = prior).
	Prior PriorTarget
	// Diagnoser explains a NaN log joint (names the statement).
	Diagnoser Diagnoser
	// StateSpace is the state-space structure (ssm.go): K-dimensional
	// states per time step, K = 1 for a scalar state. What its transition
	// offers is what it implements beside: GaussianStateSpace (the twisted
	// proposal), GeneralStateSpace (the per-step proposal).
	StateSpace StateSpace
	// Statics is the state-space structure of a model with static latents
	// beside its state (particle Gibbs); StateSpace is then nil, since the
	// latents are not the trajectory alone, and the structure of the state
	// changes with the statics (StaticStateSpace.Given).
	Statics StaticStateSpace
	// Linear: with Statics, the state enters linearly and Gaussian given
	// them (DetectLinear), so that a Kalman filter integrates it out (the
	// kalman kernel); NotLinear says why it does not (nil when Linear or
	// when there are no statics).
	Linear    bool
	NotLinear error
	// NotStateSpace says why the model is not a state-space model, for the
	// message of a kernel that needs one ("" when unknown).
	NotStateSpace string
	// Split returns a copy of the problem whose batched log joint (and
	// params) are spread over more cores, for batches of up to S rows, and a
	// function that releases its workers; it may return the problem itself
	// when the model is too cheap for that to pay.
	Split func(S int) (*Problem, func(), error)
	// Facts are what the model's structure says about its posterior (a
	// centred hierarchy, exchangeable components), for the remedies the
	// warnings name.
	Facts advice.Facts
	// Cost is the number of scalars one row of the log joint computes (its
	// tape's length), a deterministic measure of a pass over the data for
	// the stopping rule's schedule (0: unknown, taken as cheap).
	Cost float64
}

// Capability is a set of things a Problem can do, as bits.
type Capability uint

// The capabilities a kernel or family may need.
const (
	CapLogJoint           Capability = 1 << iota // a batched log joint
	CapGradient                                  // the gradient of the log joint
	CapParams                                    // model parameters (Algorithm 3)
	CapPrior                                     // a prior to sample and evaluate
	CapStateSpace                                // a state-space structure
	CapGaussianTransition                        // a state-space structure with a Gaussian transition
	CapTransitionDensity                         // a state-space structure whose transition density can be evaluated
	CapSplit                                     // a log joint that can use more cores
	CapStatics                                   // a state-space structure with static latents beside the state
	CapLinearStatics                             // static latents beside a state that enters linearly and Gaussian given them
)

var capNames = []string{
	"a batched log joint",
	"the gradient of the log joint",
	"model parameters",
	"a prior that can be sampled",
	"a state-space structure",
	"a state-space structure with a Gaussian transition",
	"a state-space structure whose transition density can be evaluated",
	"a log joint that can be split over cores",
	"a state-space structure with static latents beside the state",
	"a state linear and Gaussian given the static latents",
}

// String lists the capabilities in words.
func (c Capability) String() string {
	var out []string
	for i, n := range capNames {
		if c&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "nothing"
	}
	return strings.Join(out, ", ")
}

// Has reports the problem's capabilities.
func (p *Problem) Has() Capability {
	var c Capability
	set := func(ok bool, b Capability) {
		if ok {
			c |= b
		}
	}
	set(p.Target != nil, CapLogJoint)
	set(p.Grad != nil, CapGradient)
	set(p.Params != nil && p.Params.NumParams() > 0, CapParams)
	set(p.Prior != nil, CapPrior)
	set(p.StateSpace != nil, CapStateSpace)
	_, gauss := p.StateSpace.(GaussianStateSpace)
	set(gauss, CapGaussianTransition)
	_, dens := p.StateSpace.(GeneralStateSpace)
	set(dens, CapTransitionDensity)
	set(p.Split != nil, CapSplit)
	set(p.Statics != nil, CapStatics)
	set(p.Statics != nil && p.Linear, CapLinearStatics)
	return c
}

// Check returns an error naming what the problem lacks of need, for the
// named user (a kernel or a family), or nil.
func (p *Problem) Check(who string, need Capability) error {
	has := p.Has()
	missing := need &^ has
	if missing == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s needs %s, which this model does not provide", who, missing)
	if missing&(CapStateSpace|CapGaussianTransition|CapTransitionDensity|CapStatics) != 0 && p.NotStateSpace != "" {
		msg += " (it is " + p.NotStateSpace + ")"
	}
	if missing&CapLinearStatics != 0 && p.NotLinear != nil {
		msg += " (" + p.NotLinear.Error() + ")"
	}
	return &MissingError{Who: who, Missing: missing, msg: msg}
}

// MissingError is the error of Check: a kernel or family needs capabilities
// the problem lacks.
type MissingError struct {
	Who     string
	Missing Capability
	msg     string
}

func (e *MissingError) Error() string { return e.msg }

// NaNError explains a NaN log joint at row z through the problem's
// Diagnoser, or returns ErrNaN.
func (p *Problem) NaNError(z []float64) error {
	if p.Diagnoser != nil {
		if err := p.Diagnoser.Diagnose(z); err != nil {
			return err
		}
	}
	return ErrNaN
}

// name is the name of component j, for messages.
func (p *Problem) name(j int) string {
	if j < len(p.Names) {
		return p.Names[j]
	}
	return fmt.Sprintf("component %d", j+1)
}
