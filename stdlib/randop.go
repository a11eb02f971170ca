package stdlib

import (
	"math"
	"math/rand/v2"
)

// RandOp draws from a family on each evaluation, for NAME_rng in derived
// quantities: in = [anchor, params...] with params of length n or 1, out
// (n). The anchor (any batched input) keeps the tape from folding the op
// into a constant; the op has no gradient. Its random source is seeded by
// Seed, so a run's draws depend only on its seed and the order of
// evaluations. An argument outside its parameter's domain (the rule of
// ParamSpec.Admits, as for y ~ NAME, and of Family.Less) makes the draw
// NaN and is remembered for Bad.
type RandOp struct {
	F   *Family
	n   int
	rng *rand.Rand
	p   []float64
	// bad is 1 + the index of the first parameter found outside its
	// domain (0: none yet), badX its value
	bad     int
	badX    float64
	badWant string
}

// NewRandOp returns the op drawing n values of f.
func NewRandOp(f *Family, n int) *RandOp {
	return &RandOp{F: f, n: n, rng: rand.New(rand.NewPCG(1, 0x726e67)), p: make([]float64, len(f.Params))}
}

// Seed restarts the random source.
func (o *RandOp) Seed(seed, stream uint64) { o.rng = rand.New(rand.NewPCG(seed, stream)) }

// Name is the function's name.
func (o *RandOp) Name() string { return o.F.Name + "_rng" }

// Forward draws the values. A scalar argument is checked once, a vector
// one element by element. A NaN argument is a value already missing (a
// derived ODE solve that failed, counted in its own note): its draw is NaN
// too, not an argument out of its domain.
func (o *RandOp) Forward(out []float64, in [][]float64) {
	for j := range o.p {
		if x := in[j+1]; len(x) == 1 {
			o.p[j] = x[0]
			if math.IsNaN(x[0]) {
				for i := range out {
					out[i] = math.NaN()
				}
				return
			}
			if !o.F.Params[j].Admits(x[0]) {
				o.fail(j, x[0], o.F.Params[j].Want(), out)
				return
			}
		}
	}
	for i := range out {
		ok := true
		for j := range o.p {
			if x := in[j+1]; len(x) != 1 {
				v := x[i]
				o.p[j] = v
				if v != v { // NaN: missing, as above
					ok = false
					continue
				}
				// x - x is 0 for a finite x: the whole check of RealLine, inline
				if v-v != 0 || o.F.Params[j].Domain != RealLine && !o.F.Params[j].Admits(v) {
					ok = false
					if o.bad == 0 {
						o.bad, o.badX, o.badWant = j+1, v, o.F.Params[j].Want()
					}
				}
			}
		}
		if ok && len(o.F.Less) > 0 {
			if j, want := o.F.CheckParams(o.p); j >= 0 {
				ok = false
				if o.bad == 0 {
					o.bad, o.badX, o.badWant = j+1, o.p[j], want
				}
			}
		}
		if !ok {
			out[i] = math.NaN()
			continue
		}
		out[i] = o.F.Rand(o.rng, o.p)
	}
}

// fail records argument j's value x as out of its domain and makes every
// draw NaN.
func (o *RandOp) fail(j int, x float64, want string, out []float64) {
	if o.bad == 0 {
		o.bad, o.badX, o.badWant = j+1, x, want
	}
	for i := range out {
		out[i] = math.NaN()
	}
}

// Bad returns the first argument found outside its parameter's domain
// since the op was made: its index among the parameters, its value and
// what it must be.
func (o *RandOp) Bad() (arg int, x float64, want string, ok bool) {
	return o.bad - 1, o.badX, o.badWant, o.bad > 0
}

// Backward does nothing: a draw has no gradient.
func (o *RandOp) Backward(_, _ []float64, _ [][]float64, _ [][]float64) {}

// ArgCheckOp passes on the value of a family's NAME_lcdf, NAME_lccdf or
// NAME_cdf computed in derived quantities and checks the arguments it was
// computed from, as Stan does there (where the CDFs themselves return
// -Inf or NaN for them): in = [value (n), y, params...], each argument of
// length n or 1, out = value. A NaN y, or a parameter outside its domain
// (Family.CheckParams), is remembered for Bad.
type ArgCheckOp struct {
	F       *Family
	p       []float64
	bad     int // 1 + the argument's index (0: y), 0: none yet
	badX    float64
	badWant string
}

// NewArgCheckOp returns the check of f's CDF arguments.
func NewArgCheckOp(f *Family) *ArgCheckOp {
	return &ArgCheckOp{F: f, p: make([]float64, len(f.Params))}
}

// Name is the op's name.
func (o *ArgCheckOp) Name() string { return o.F.Name + "_cdf_args" }

// Forward copies the value and checks the arguments.
func (o *ArgCheckOp) Forward(out []float64, in [][]float64) {
	copy(out, in[0])
	if o.bad > 0 {
		return
	}
	at := func(x []float64, i int) float64 {
		if len(x) == 1 {
			return x[0]
		}
		return x[i]
	}
	for i := range out {
		if y := at(in[1], i); math.IsNaN(y) {
			o.bad, o.badX, o.badWant = 1, y, "a number"
			return
		}
		for j := range o.p {
			o.p[j] = at(in[j+2], i)
		}
		if j, want := o.F.CheckParams(o.p); j >= 0 {
			o.bad, o.badX, o.badWant = j+2, o.p[j], want
			return
		}
	}
}

// Backward passes the adjoint on to the value.
func (o *ArgCheckOp) Backward(_, dout []float64, _ [][]float64, din [][]float64) {
	if din[0] != nil {
		for i, d := range dout {
			din[0][i] += d
		}
	}
}

// Bad returns the first bad argument seen since the op was made: its index
// among the CDF's arguments (0: y), its value and what it must be.
func (o *ArgCheckOp) Bad() (arg int, x float64, want string, ok bool) {
	return o.bad - 1, o.badX, o.badWant, o.bad > 0
}
