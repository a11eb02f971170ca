package stdlib

import "fmt"

// Stacked is an array of N values of one vector transform (Stan's
// array[N] simplex[K]): u is the N blocks of B's unconstrained values one
// after the other, x the N constrained values one after the other (row n
// of an N x B.XLen() matrix), and log |det J| the sum of the blocks'.
type Stacked struct {
	B VecBijection
	N int
}

// StackVec returns the transform of an array of n values of b. b must be
// one of this package's transforms (it needs their vector-Jacobian
// products).
func StackVec(b VecBijection, n int) VecBijection {
	if _, ok := b.(vjper); !ok {
		panic(fmt.Sprintf("stdlib: StackVec of %s", b.Name()))
	}
	return Stacked{B: b, N: n}
}

type vjper interface {
	VecBijection
	vjp(u, out, dout, du []float64)
}

func (s Stacked) Name() string { return s.B.Name() }
func (s Stacked) K() int       { return s.B.K() }
func (s Stacked) UDim() int    { return s.N * s.B.UDim() }
func (s Stacked) XLen() int    { return s.N * s.B.XLen() }
func (s Stacked) Op() VecOp    { return vecOp{s} }

func (s Stacked) Constrain(u, x []float64) float64 {
	ud, xl := s.B.UDim(), s.B.XLen()
	checkLens(s.Name(), s.K(), s.UDim(), s.XLen(), u, x)
	lj := 0.0
	for i := 0; i < s.N; i++ {
		lj += s.B.Constrain(u[i*ud:(i+1)*ud], x[i*xl:(i+1)*xl])
	}
	return lj
}

func (s Stacked) Unconstrain(x, u []float64) error {
	ud, xl := s.B.UDim(), s.B.XLen()
	checkLens(s.Name(), s.K(), s.UDim(), s.XLen(), u, x)
	for i := 0; i < s.N; i++ {
		if err := s.B.Unconstrain(x[i*xl:(i+1)*xl], u[i*ud:(i+1)*ud]); err != nil {
			return fmt.Errorf("element %d: %w", i+1, err)
		}
	}
	return nil
}

// vjp runs each block's vector-Jacobian product. A block's reads dout
// at its own x and then the log Jacobian's adjoint, which follows the
// last block only: the slot after block i is set to it for the call and
// restored after.
func (s Stacked) vjp(u, out, dout, du []float64) {
	b := s.B.(vjper)
	ud, xl := s.B.UDim(), s.B.XLen()
	gl := dout[s.N*xl]
	for i := 0; i < s.N; i++ {
		end := (i + 1) * xl
		saved := dout[end]
		dout[end] = gl
		b.vjp(u[i*ud:(i+1)*ud], out[i*xl:end+1], dout[i*xl:end+1], du[i*ud:(i+1)*ud])
		dout[end] = saved
	}
}
