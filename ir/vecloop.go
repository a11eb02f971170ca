package ir

// gather is the autodiff op out[k] = in[idx[k]].
type Gather []int

func (Gather) Name() string { return "gather" }

func (o Gather) Forward(out []float64, in [][]float64) {
	x := in[0]
	for k, i := range o {
		out[k] = x[i]
	}
}

func (o Gather) Backward(_, dout []float64, _ [][]float64, din [][]float64) {
	if dx := din[0]; dx != nil {
		for k, i := range o {
			dx[i] += dout[k]
		}
	}
}
