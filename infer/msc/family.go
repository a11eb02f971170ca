package msc

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
)

// Family is a variational family q(z; lambda): the object MSC climbs. The
// run loop sees it only through this interface, so a new family is one new
// file that implements it and registers a constructor with RegisterFamily.
//
// The state-space proposals (Twisted, ARProposal) are families too: they
// cannot be sampled on their own (their draws need the model's transition),
// so they implement Family but not Sampler.
type Family interface {
	// Name is the family's name as given to --family.
	Name() string
	// Dim is the dimension of z.
	Dim() int
	// NumLambda is the number of unconstrained variational parameters.
	NumLambda() int
	// Lambda writes the unconstrained parameters; SetLambda is its inverse.
	Lambda(dst []float64)
	SetLambda(src []float64)
	// AddScore adds w * grad_lambda log q(z) into grad for one row z.
	AddScore(w float64, z, grad []float64)
	// NumStats is the length of the statistics averaged over the iterates
	// for the reported q (for a Gaussian: the mean and the covariance).
	NumStats() int
	Stats(dst []float64)
	// SetStats sets q from averaged statistics.
	SetStats(src []float64) error
	// Clone returns an independent copy.
	Clone() Family
	// MarshalJSON writes the parameters for variational.json;
	// UnmarshalFamily reads them back.
	json.Marshaler
}

// Sampler is a family that can be sampled on its own: the proposal of the
// CIS kernel, of the IS baseline and of ADVI.
type Sampler interface {
	Family
	// Sample draws len(z)/Dim() rows into z and writes the standard noise
	// that produced each row into eps (same shape).
	Sample(rng *rand.Rand, z, eps []float64)
	// LogQNoise is log q(z) for a row z drawn by Sample with noise eps
	// (cheaper than LogQ: no solve).
	LogQNoise(z, eps []float64) float64
	// LogQ is log q(z) for one row.
	LogQ(z []float64) float64
	// Moments writes q's mean and marginal standard deviations.
	Moments(mean, sd []float64)
	// Cov writes q's covariance (Dim x Dim, row-major).
	Cov(dst []float64)
	// SetMoments sets q's location and scale from a mean and a covariance
	// (the initialisation; a family with fixed shape keeps its shape).
	SetMoments(mean, cov []float64) error
}

// ConditionalFamily is a q whose states are drawn exactly given its
// statics (FamilySpec.Conditional): its family over the statics, and the
// same q with another family over them.
type ConditionalFamily interface {
	Sampler
	Statics() Sampler
	With(theta Sampler) Sampler
}

// NaturalFamily is a family with a closed-form natural-gradient step: the
// score preconditioned by the inverse Fisher information, applied to the
// weighted samples z (rows) with normalised weights w and step rho.
type NaturalFamily interface {
	NaturalStep(z, w []float64, rho float64) error
}

// Reparam is a family written as z = mu + L eps, for the reparameterisation
// gradient of ADVI.
type Reparam interface {
	// AddPathGrad adds w * (dz/dlambda)' g into grad for the row drawn with
	// noise eps, where g = grad_z log p(z, x).
	AddPathGrad(w float64, eps, g, grad []float64)
	// AddEntropyGrad adds grad_lambda of the entropy of q into grad.
	AddEntropyGrad(grad []float64)
}

// FamilySpec is a family's registration: how to build it, and what it is.
// Settings' defaults, the facade, the plots and the hints read these traits;
// nothing compares family names.
type FamilySpec struct {
	// Name is the family's name (--family, variational.json).
	Name string
	// Help is one line for --help and the docs.
	Help string
	// New builds a sampleable family of dimension d at its standard start
	// (for the Gaussians N(0, I)).
	New func(d int) Sampler
	// Proposal families are the state-space proposals, built for a problem
	// by NewFor (they cannot be sampled on their own: their draws need the
	// model's transition). A state-space kernel takes the proposal of
	// highest Priority whose Needs the problem meets.
	Proposal bool
	NewFor   func(p *Problem) (Family, error)
	Needs    Capability
	Priority int
	// Start describes a Proposal at its standard start, for messages.
	Start string
	// Dense: the natural step estimates a dense d x d covariance, so
	// Defaults.LRNaturalDim bounds its step and S grows with d above 40
	// dimensions.
	Dense bool
	// Gaussian: q is a Gaussian, so its marginals are exact normals of its
	// Moments.
	Gaussian bool
	// Conditional: q draws the states exactly given its statics (the
	// kalman family), so the PSIS check weighs q's own draws: a widened,
	// heavy-tailed or moment-matched Gaussian over all the latents would
	// replace that exact conditional by an approximation.
	Conditional bool
	// HeavyTails: q has polynomial tails (a remedy for heavy-tailed
	// importance weights, never suggested for q itself).
	HeavyTails bool
	// MixingHint is the likely cause and remedy when a kernel proposing
	// from this family does not mix in more than one dimension ("": the
	// generic one).
	MixingCause, MixingRemedy string
}

var familyRegistry = map[string]*FamilySpec{}

// RegisterFamily makes a family available by name (to --family and to
// variational.json, or to the state-space kernels for a Proposal). Each
// family file registers itself in an init function.
func RegisterFamily(spec FamilySpec) {
	if spec.Name == "" || (spec.New == nil) == (spec.NewFor == nil) {
		panic("msc: a family registration needs a name and one constructor")
	}
	familyRegistry[spec.Name] = &spec
}

// LookupFamily returns the registered family of that name.
func LookupFamily(name string) (*FamilySpec, bool) {
	s, ok := familyRegistry[name]
	return s, ok
}

// NewFamily returns the named sampleable family of dimension d at its
// standard start (for the Gaussians N(0, I)).
func NewFamily(name string, d int) (Sampler, error) {
	c, ok := familyRegistry[name]
	if !ok || c.New == nil {
		return nil, fmt.Errorf("unknown family %q (the families are %s)", name, joinNames(FamilyNames()))
	}
	return c.New(d), nil
}

// NewProposal returns the state-space proposal for p: the registered
// Proposal family of highest Priority whose needs p meets.
func NewProposal(p *Problem) (Family, error) {
	var best *FamilySpec
	var firstErr error
	for _, n := range slices.Sorted(maps.Keys(familyRegistry)) {
		f := familyRegistry[n]
		if !f.Proposal {
			continue
		}
		if err := p.Check("the "+f.Name+" proposal", f.Needs); err != nil {
			firstErr = cmpOr(firstErr, err)
			continue
		}
		if best == nil || f.Priority > best.Priority {
			best = f
		}
	}
	if best == nil {
		if firstErr == nil {
			firstErr = fmt.Errorf("no state-space proposal is registered")
		}
		return nil, firstErr
	}
	return best.NewFor(p)
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// FamilyNames lists the sampleable families (those --family takes), sorted.
func FamilyNames() []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(familyRegistry)) {
		if familyRegistry[n].New != nil {
			out = append(out, n)
		}
	}
	return out
}

// Families lists every registered family (proposals included), sorted by
// name.
func Families() []*FamilySpec {
	out := make([]*FamilySpec, 0, len(familyRegistry))
	for _, n := range slices.Sorted(maps.Keys(familyRegistry)) {
		out = append(out, familyRegistry[n])
	}
	return out
}

// HeavyTailedFamily is the name of a registered family with heavy tails,
// for remedies ("" when there is none).
func HeavyTailedFamily() string {
	for _, f := range Families() {
		if f.HeavyTails && f.New != nil {
			return f.Name
		}
	}
	return ""
}

// familyOf returns the registration of q's family (a zero spec for a
// family that is not registered, such as a test's).
func familyOf(q Family) *FamilySpec {
	if s, ok := familyRegistry[q.Name()]; ok {
		return s
	}
	return &FamilySpec{Name: q.Name()}
}

// FamilyOf is familyOf for the facade.
func FamilyOf(q Family) *FamilySpec { return familyOf(q) }

// UnmarshalFamily reads a family written by its MarshalJSON, for problem p
// (its dimension, or its state-space structure for a proposal).
func UnmarshalFamily(name string, p *Problem, data []byte) (Family, error) {
	spec, ok := familyRegistry[name]
	if !ok {
		return nil, fmt.Errorf("unknown family %q (the families are %s)", name, joinNames(FamilyNames()))
	}
	var q Family
	if spec.New != nil {
		q = spec.New(p.Dim)
	} else {
		var err error
		if err = p.Check("the "+name+" proposal", spec.Needs); err != nil {
			return nil, err
		}
		if q, err = spec.NewFor(p); err != nil {
			return nil, err
		}
	}
	u, ok := q.(json.Unmarshaler)
	if !ok {
		return nil, fmt.Errorf("family %s cannot be read back", name)
	}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return q, nil
}

func joinNames(ns []string) string {
	s := ""
	for i, n := range ns {
		switch {
		case i == 0:
		case i == len(ns)-1:
			s += " and "
		default:
			s += ", "
		}
		s += n
	}
	return s
}
