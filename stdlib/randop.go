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
// ParamSpec.Admits, as for y ~ NAME) makes the draw NaN and is remembered
// for Bad.
type RandOp struct {
	F   *Family
	n   int
	rng *rand.Rand
	p   []float64
	// bad is 1 + the index of the first parameter found outside its
	// domain (0: none yet), badX its value
	bad  int
	badX float64
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
// one element by element.
func (o *RandOp) Forward(out []float64, in [][]float64) {
	for j := range o.p {
		if x := in[j+1]; len(x) == 1 {
			o.p[j] = x[0]
			if !o.F.Params[j].Admits(x[0]) {
				o.fail(j, x[0], out)
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
				// x - x is 0 for a finite x: the whole check of RealLine, inline
				if v-v != 0 || o.F.Params[j].Domain != RealLine && !o.F.Params[j].Admits(v) {
					ok = false
					if o.bad == 0 {
						o.bad, o.badX = j+1, v
					}
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
func (o *RandOp) fail(j int, x float64, out []float64) {
	if o.bad == 0 {
		o.bad, o.badX = j+1, x
	}
	for i := range out {
		out[i] = math.NaN()
	}
}

// Bad returns the first argument found outside its parameter's domain
// since the op was made: its index among the parameters and its value.
func (o *RandOp) Bad() (arg int, x float64, ok bool) { return o.bad - 1, o.badX, o.bad > 0 }

// Backward does nothing: a draw has no gradient.
func (o *RandOp) Backward(_, _ []float64, _ [][]float64, _ [][]float64) {}
