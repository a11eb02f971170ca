package stdlib

// The ops of this file are the tape operations of some built-in
// functions (append_row, prod, min, max, a gather of elements, a
// concatenation); they keep no state between calls, so the copies of a
// graph share them.

// AppendRow is the op of append_row: out = (a, b).
type AppendRow [2]int

func (AppendRow) Name() string { return "append_row" }

func (o AppendRow) Forward(out []float64, in [][]float64) {
	copy(out[:o[0]], in[0])
	copy(out[o[0]:], in[1])
}

func (o AppendRow) Backward(_, dout []float64, _ [][]float64, din [][]float64) {
	for k, d := range din {
		if d == nil {
			continue
		}
		part := dout[:o[0]]
		if k == 1 {
			part = dout[o[0]:]
		}
		for i, v := range part {
			d[i] += v
		}
	}
}

// Reduce is the op of min, max and prod over a vector. min and
// max pass the adjoint to the first element that attains them (NaN if
// any element is NaN); prod's derivative in x_i is the product of the
// others (exact at zeros).
type Reduce int

// The reductions Reduce computes.
const (
	ReduceProd Reduce = iota
	ReduceMin
	ReduceMax
)

var reduceNames = [...]string{ReduceProd: "prod", ReduceMin: "min", ReduceMax: "max"}

func (o Reduce) Name() string { return reduceNames[o] }

func (o Reduce) Forward(out []float64, in [][]float64) {
	out[0] = o.value(in[0])
}

func (o Reduce) value(x []float64) float64 {
	switch o {
	case ReduceProd:
		p := 1.0
		for _, v := range x {
			p *= v
		}
		return p
	}
	return x[o.arg(x)]
}

// arg is the index of the first extreme element (of a NaN if any).
func (o Reduce) arg(x []float64) int {
	k := 0
	for i, v := range x {
		switch {
		case v != v:
			return i
		case o == ReduceMin && v < x[k], o == ReduceMax && v > x[k]:
			k = i
		}
	}
	return k
}

func (o Reduce) Backward(_, dout []float64, in [][]float64, din [][]float64) {
	dx, x := din[0], in[0]
	if dx == nil {
		return
	}
	if o != ReduceProd {
		dx[o.arg(x)] += dout[0]
		return
	}
	// the product of the others: prod / x_i without zeros; with one zero
	// only its own derivative is not 0; with two or more, none is
	zeros, at, p := 0, -1, 1.0
	for i, v := range x {
		if v == 0 {
			zeros, at = zeros+1, i
			continue
		}
		p *= v
	}
	switch zeros {
	case 0:
		for i, v := range x {
			dx[i] += dout[0] * p / v
		}
	case 1:
		dx[at] += dout[0] * p
	}
}

// Concat is the op that concatenates vectors of the given
// lengths.
type Concat []int

func (Concat) Name() string { return "concat" }

func (o Concat) Forward(out []float64, in [][]float64) {
	off := 0
	for k, n := range o {
		copy(out[off:off+n], in[k])
		off += n
	}
}

func (o Concat) Backward(_, dout []float64, _ [][]float64, din [][]float64) {
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

// Gather is the op out[k] = in[idx[k]].
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

// GatherRows expands row indices (0-based) into the indices of their
// elements in a row-major matrix of cols columns.
func GatherRows(rows Gather, cols int) Gather {
	out := make(Gather, 0, len(rows)*cols)
	for _, r := range rows {
		for j := 0; j < cols; j++ {
			out = append(out, r*cols+j)
		}
	}
	return out
}

// The ops of this file keep no state between calls: the copies of a
// graph share them.

func (o AppendRow) Clone() VecOp { return o }
func (o Reduce) Clone() VecOp    { return o }
func (o Concat) Clone() VecOp    { return o }
func (o Gather) Clone() VecOp    { return o }
