package ir

// concatN is the autodiff op that concatenates vectors of the given
// lengths.
type ConcatN []int

func (ConcatN) Name() string { return "concat" }

func (o ConcatN) Forward(out []float64, in [][]float64) {
	off := 0
	for k, n := range o {
		copy(out[off:off+n], in[k])
		off += n
	}
}

func (o ConcatN) Backward(_, dout []float64, _ [][]float64, din [][]float64) {
	off := 0
	for k, n := range o {
		if d := din[k]; d != nil {
			for i, x := range dout[off : off+n] {
				d[i] += x
			}
		}
		off += n
	}
}
