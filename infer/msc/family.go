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

// denseCovariance marks the families whose natural step estimates a dense
// d x d covariance (Defaults.LRNaturalDim bounds their step).
type denseCovariance interface{ denseCovariance() }

// DenseFamily reports whether the named family has a dense covariance.
func DenseFamily(name string) bool {
	c, ok := familyRegistry[name]
	if !ok {
		return false
	}
	_, dense := c.newFn(1).(denseCovariance)
	return dense
}

type familyCtor struct {
	newFn func(d int) Sampler
	help  string
}

var familyRegistry = map[string]familyCtor{}

// RegisterFamily makes a sampleable family available by name (to --family
// and to variational.json). Each family file registers itself in an init
// function.
func RegisterFamily(name, help string, newFn func(d int) Sampler) {
	familyRegistry[name] = familyCtor{newFn, help}
}

// NewFamily returns the named family of dimension d at its standard start
// (for the Gaussians N(0, I)).
func NewFamily(name string, d int) (Sampler, error) {
	c, ok := familyRegistry[name]
	if !ok {
		return nil, fmt.Errorf("unknown family %q (the families are %s)", name, joinNames(FamilyNames()))
	}
	return c.newFn(d), nil
}

// FamilyNames lists the registered families, sorted.
func FamilyNames() []string { return slices.Sorted(maps.Keys(familyRegistry)) }

// UnmarshalFamily reads a family written by its MarshalJSON.
func UnmarshalFamily(name string, d int, data []byte) (Sampler, error) {
	q, err := NewFamily(name, d)
	if err != nil {
		return nil, err
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
