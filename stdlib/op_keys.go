package stdlib

// Keys for autodiff's step templates (autodiff.Keyed): ops made anew for
// each call of a function compute the same thing when their keys match,
// so that the time steps of a state-space model that call the function
// share one template.

type naryKey struct{ f *NaryFunc }

// Key identifies the function.
func (o *NaryOp) Key() any { return naryKey{o.F} }

type selectKey struct{ n int }

// Key identifies the length.
func (o *Select) Key() any { return selectKey{o.n} }
