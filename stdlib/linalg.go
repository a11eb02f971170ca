package stdlib

import "math"

// MatMul is the product of an r x k and a k x c matrix (row-major), an
// op of the tape: in = [A (r*k), B (k*c)], out (r*c).
type MatMul struct{ r, k, c int }

// NewMatMul returns the op for (r x k) * (k x c).
func NewMatMul(r, k, c int) VecOp { return &MatMul{r, k, c} }

// Name is "matmul".
func (o *MatMul) Name() string { return "matmul" }

// Forward writes A B.
func (o *MatMul) Forward(out []float64, in [][]float64) {
	a, b := in[0], in[1]
	for i := 0; i < o.r; i++ {
		for j := 0; j < o.c; j++ {
			s := 0.0
			for l := 0; l < o.k; l++ {
				s += a[i*o.k+l] * b[l*o.c+j]
			}
			out[i*o.c+j] = s
		}
	}
}

// Backward adds dOut B' to A's adjoint and A' dOut to B's.
func (o *MatMul) Backward(_, dout []float64, in [][]float64, din [][]float64) {
	a, b := in[0], in[1]
	for i := 0; i < o.r; i++ {
		for j := 0; j < o.c; j++ {
			g := dout[i*o.c+j]
			if g == 0 {
				continue
			}
			for l := 0; l < o.k; l++ {
				if din[0] != nil {
					din[0][i*o.k+l] += g * b[l*o.c+j]
				}
				if din[1] != nil {
					din[1][l*o.c+j] += g * a[i*o.k+l]
				}
			}
		}
	}
}

// Transpose is the transpose of an r x c matrix: in = [A (r*c)], out (c*r).
type Transpose struct{ r, c int }

// NewTranspose returns the op transposing an r x c matrix.
func NewTranspose(r, c int) VecOp { return &Transpose{r, c} }

// Name is "transpose".
func (o *Transpose) Name() string { return "transpose" }

// Forward writes A'.
func (o *Transpose) Forward(out []float64, in [][]float64) {
	for i := 0; i < o.r; i++ {
		for j := 0; j < o.c; j++ {
			out[j*o.r+i] = in[0][i*o.c+j]
		}
	}
}

// Backward adds dOut' to A's adjoint.
func (o *Transpose) Backward(_, dout []float64, _ [][]float64, din [][]float64) {
	if din[0] == nil {
		return
	}
	for i := 0; i < o.r; i++ {
		for j := 0; j < o.c; j++ {
			din[0][i*o.c+j] += dout[j*o.r+i]
		}
	}
}

// Select is the branch of an if whose condition depends on latents, an op
// of the tape: in = [c (1), a (n or 1), b (n or 1)], out (n) = a where
// c != 0, else b. The gradient flows to the branch taken only (a branch
// not taken may be -Inf or NaN without spoiling the result).
type Select struct{ n int }

// NewSelect returns the op for values of length n.
func NewSelect(n int) VecOp { return &Select{n} }

// Name is "select".
func (o *Select) Name() string { return "select" }

func pick(x []float64, i int) float64 {
	if len(x) == 1 {
		return x[0]
	}
	return x[i]
}

// Forward writes the branch taken.
func (o *Select) Forward(out []float64, in [][]float64) {
	src := in[2]
	if in[0][0] != 0 {
		src = in[1]
	}
	for i := range out {
		out[i] = pick(src, i)
	}
}

// Backward adds dOut to the adjoint of the branch taken.
func (o *Select) Backward(_, dout []float64, in [][]float64, din [][]float64) {
	j := 2
	if in[0][0] != 0 {
		j = 1
	}
	d := din[j]
	if d == nil {
		return
	}
	for i, g := range dout {
		if len(d) == 1 {
			d[0] += g
		} else {
			d[i] += g
		}
	}
}

// CategoricalLpmf is Stan's categorical_lpmf(y | theta) = log theta_y, an
// op of the tape: in = [y (1, an integer in 1..k), theta (k)], out (1). A y
// outside 1..k gives -Inf.
type CategoricalLpmf struct{ k int }

// NewCategoricalLpmf returns the op for k categories.
func NewCategoricalLpmf(k int) VecOp { return &CategoricalLpmf{k} }

// Name is "categorical".
func (o *CategoricalLpmf) Name() string { return "categorical" }

func (o *CategoricalLpmf) index(y float64) int {
	if y != float64(int(y)) || y < 1 || int(y) > o.k {
		return -1
	}
	return int(y) - 1
}

// Forward writes log theta_y.
func (o *CategoricalLpmf) Forward(out []float64, in [][]float64) {
	i := o.index(in[0][0])
	if i < 0 {
		out[0] = negInf
		return
	}
	out[0] = math.Log(in[1][i])
}

// Backward adds dout / theta_y to theta_y's adjoint.
func (o *CategoricalLpmf) Backward(_, dout []float64, in [][]float64, din [][]float64) {
	i := o.index(in[0][0])
	if i < 0 || din[1] == nil {
		return
	}
	din[1][i] += dout[0] / in[1][i]
}
