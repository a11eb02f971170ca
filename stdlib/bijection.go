package stdlib

import (
	"fmt"
	"math"

	"github.com/mscppl/mscppl/stdlib/special"
)

// Bijection maps unconstrained u in R to a constrained x: identity,
// x = a + exp(u) (lower bound a), x = b - exp(u) (upper bound b), or
// x = a + (b - a) inv_logit(u) (both).
type Bijection struct {
	Lower, Upper       float64
	HasLower, HasUpper bool
}

// String is the constraint as written in a declaration: <lower=a>,
// <upper=b>, <lower=a, upper=b>, or "" without one.
func (b Bijection) String() string {
	switch {
	case b.HasLower && b.HasUpper:
		return fmt.Sprintf("<lower=%g, upper=%g>", b.Lower, b.Upper)
	case b.HasLower:
		return fmt.Sprintf("<lower=%g>", b.Lower)
	case b.HasUpper:
		return fmt.Sprintf("<upper=%g>", b.Upper)
	}
	return ""
}

// Identity reports whether there is no constraint.
func (b Bijection) Identity() bool { return !b.HasLower && !b.HasUpper }

// Constrain maps u to x.
func (b Bijection) Constrain(u float64) float64 {
	switch {
	case b.HasLower && b.HasUpper:
		x := b.Lower + (b.Upper-b.Lower)*special.InvLogit(u)
		// keep x inside the open interval despite rounding
		if x >= b.Upper {
			x = math.Nextafter(b.Upper, b.Lower)
		}
		if x <= b.Lower {
			x = math.Nextafter(b.Lower, b.Upper)
		}
		return x
	case b.HasLower:
		return b.Lower + math.Exp(u)
	case b.HasUpper:
		return b.Upper - math.Exp(u)
	}
	return u
}

// Unconstrain maps x to u; x must be strictly inside the constraint.
func (b Bijection) Unconstrain(x float64) (float64, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("value %g is not finite", x)
	}
	switch {
	case b.HasLower && b.HasUpper:
		if !(x > b.Lower && x < b.Upper) {
			return 0, fmt.Errorf("value %g is not strictly between %g and %g", x, b.Lower, b.Upper)
		}
		t := (x - b.Lower) / (b.Upper - b.Lower)
		return math.Log(t) - math.Log1p(-t), nil
	case b.HasLower:
		if !(x > b.Lower) {
			return 0, fmt.Errorf("value %g is not above the lower bound %g", x, b.Lower)
		}
		return math.Log(x - b.Lower), nil
	case b.HasUpper:
		if !(x < b.Upper) {
			return 0, fmt.Errorf("value %g is not below the upper bound %g", x, b.Upper)
		}
		return math.Log(b.Upper - x), nil
	}
	return x, nil
}

// LogJacobian is log |dx/du|.
func (b Bijection) LogJacobian(u float64) float64 {
	switch {
	case b.HasLower && b.HasUpper:
		return math.Log(b.Upper-b.Lower) + special.LogInvLogit(u) + special.LogInvLogit(-u)
	case b.HasLower, b.HasUpper:
		return u
	}
	return 0
}

// Func is the elementwise map u -> x (autodiff.Func method set).
func (b Bijection) Func() *ElemFunc {
	switch {
	case b.HasLower && b.HasUpper:
		w := b.Upper - b.Lower
		return NewElemFunc("constrain", b.Constrain, func(u, _ float64) float64 {
			s := special.InvLogit(u)
			return w * s * (1 - s)
		})
	case b.HasLower:
		return NewElemFunc("constrain", b.Constrain, func(u, _ float64) float64 { return math.Exp(u) })
	case b.HasUpper:
		return NewElemFunc("constrain", b.Constrain, func(u, _ float64) float64 { return -math.Exp(u) })
	}
	return NewElemFunc("identity", func(u float64) float64 { return u }, func(_, _ float64) float64 { return 1 })
}

// LogJacFunc is the elementwise map u -> log |dx/du|.
func (b Bijection) LogJacFunc() *ElemFunc {
	if b.HasLower && b.HasUpper {
		return NewElemFunc("log_jacobian", b.LogJacobian, func(u, _ float64) float64 {
			// d/du [log s(u) + log s(-u)] = (1 - s) - s
			return 1 - 2*special.InvLogit(u)
		})
	}
	if b.HasLower || b.HasUpper {
		return NewElemFunc("log_jacobian", func(u float64) float64 { return u }, func(_, _ float64) float64 { return 1 })
	}
	return NewElemFunc("log_jacobian", func(float64) float64 { return 0 }, func(_, _ float64) float64 { return 0 })
}
