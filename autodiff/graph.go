package autodiff

// Node identifies a node of a Graph: an index into its flat node table.
type Node int32

// Op is a user-defined vector operation (distribution log densities, special
// functions). It is called once per batch element with the input values of that
// element; it must not allocate.
type Op interface {
	Name() string
	// Forward writes the op's value into out (len(out) is the output length
	// given to Graph.Custom) from the input values in.
	Forward(out []float64, in [][]float64)
	// Backward accumulates the adjoints of the inputs: din[j][i] += sum_k
	// dout[k] * d out[k] / d in[j][i]. din[j] is nil when input j needs no
	// gradient. out holds the forward value.
	Backward(out, dout []float64, in [][]float64, din [][]float64)
}

// Func is an elementwise function with its derivative, applied by Graph.Map.
// Eval sets y[i] = f(x[i]); Deriv accumulates dx[i] += dy[i] * f'(x[i]) given y = f(x).
type Func interface {
	Name() string
	Eval(y, x []float64)
	Deriv(dx, dy, y, x []float64)
}
