package stdlib

import (
	"math"

	"github.com/mscppl/mscppl/stdlib/special"
)

// MaxNaryArity is the largest number of arguments of a NaryFunc.
const MaxNaryArity = 8

// NaryFunc is a scalar function of Arity scalar arguments with all its
// partial derivatives: pow(x, y), fmin, fmax, log_mix(theta, lp1, lp2),
// log_sum_exp(a, b), normal_lcdf(x, mu, sigma), and the log densities
// NAME_lpdf(y, params...) / NAME_lpmf of every family (LogDensityFunc).
//
// Eval(x) returns f(x) with len(x) == Arity. Grad(x, dx) returns f(x) and
// writes df/dx[j] into dx[j] (len(dx) == Arity; zero for integer
// arguments such as binomial's n and for discrete y). Neither allocates.
//
// To put one on the tape, wrap it in a NaryOp (NewNaryOp), which applies it
// elementwise with broadcasting and has the method set of autodiff.Op:
//
//	g.Custom(stdlib.NewNaryOp(fn), n, args...)
//
// where n is the length of the longest argument (every argument has length
// n or 1).
type NaryFunc struct {
	Name  string
	Arity int
	Eval  func(x []float64) float64
	Grad  func(x, dx []float64) float64
	// Slice, when not nil, may compute NaryOp's whole output at once:
	// out[i] = Eval(in[0][i], in[1][i], ...) to the bit, with buf as
	// scratch (naryBlock elements). It reports false, having written
	// nothing, for the inputs it does not take (NaryOp then loops).
	Slice func(out []float64, in [][]float64, buf []float64) bool
	// GradForward says that Eval is Grad with a scratch of its own (the
	// log CDFs): NaryOp's Forward then calls Grad with the op's scratch,
	// which allocates nothing.
	GradForward bool
}

// naryBlock is the length of the scratch of NaryFunc.Slice.
const naryBlock = 256

// NaryOp applies a NaryFunc elementwise: out[i] = f(in[0][i], in[1][i], ...)
// where an input of length 1 is broadcast. It has the method set of
// autodiff.Op and allocates nothing. It keeps scratch space, so a NaryOp
// must not be shared between goroutines: make one per tape node.
type NaryOp struct {
	F   *NaryFunc
	x   [MaxNaryArity]float64
	dx  [MaxNaryArity]float64
	buf []float64 // F.Slice's scratch, made on its first use
}

// NewNaryOp returns the elementwise op of f.
func NewNaryOp(f *NaryFunc) *NaryOp { return &NaryOp{F: f} }

// Name is the function's name.
func (o *NaryOp) Name() string { return o.F.Name }

// Forward writes f elementwise into out (len(out) = the longest input).
func (o *NaryOp) Forward(out []float64, in [][]float64) {
	if o.F.Slice != nil && len(out) > 1 {
		if o.buf == nil {
			o.buf = make([]float64, naryBlock)
		}
		if o.F.Slice(out, in, o.buf) {
			return
		}
	}
	k := len(in)
	for i := range out {
		for j := 0; j < k; j++ {
			o.x[j] = bc(in[j], i)
		}
		if o.F.GradForward {
			out[i] = o.F.Grad(o.x[:k], o.dx[:k])
		} else {
			out[i] = o.F.Eval(o.x[:k])
		}
	}
}

// Backward accumulates din[j] += dout * df/dx_j (summed over the broadcast
// elements for inputs of length 1). din[j] may be nil.
func (o *NaryOp) Backward(out, dout []float64, in [][]float64, din [][]float64) {
	k := len(in)
	for i := range out {
		d := dout[i]
		if d == 0 {
			continue
		}
		for j := 0; j < k; j++ {
			o.x[j] = bc(in[j], i)
		}
		o.F.Grad(o.x[:k], o.dx[:k])
		for j := 0; j < k; j++ {
			if din[j] != nil {
				accum(din[j], i, d*o.dx[j])
			}
		}
	}
}

// NaryFuncs are the scalar numeric ops of several arguments behind the
// language's functions (package ir's vocabulary names them); the log
// densities and log CDFs belong to their distributions' entries
// (Family.LogDensity, LogCDF, LogCCDF).
var NaryFuncs = append([]*NaryFunc{PowFunc, FminFunc, FmaxFunc, LogMixFunc}, extraNary...)

// FindNary returns the op of NaryFuncs called name, nil if there is none.
func FindNary(name string) *NaryFunc {
	for _, f := range NaryFuncs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// LogDensityFunc returns the log density of a family as a scalar function
// of (y, params...): NAME_lpdf for continuous families and NAME_lpmf for
// discrete ones, so that the language can offer normal_lpdf(y | mu, sigma)
// and poisson_lpmf(k | lambda). name is the family's name ("normal") or the
// function's ("normal_lpdf"; the suffix must fit the family). The value is
// the family's LogPdf; the partial derivatives are its Grad (0 in y for
// discrete families and in integer parameters). Arity is 1 + the number of
// parameters. Multivariate distributions have none.
func LogDensityFunc(name string) (*NaryFunc, bool) {
	f, ok := families[name]
	if !ok && isDensityName(name) {
		f, ok = families[name[:len(name)-5]]
		ok = ok && f.DensityName() == name
	}
	if !ok || f.density == nil {
		return nil, false
	}
	return f.density, true
}

func isDensityName(n string) bool {
	l := len(n)
	return l > 5 && (n[l-5:] == "_lpdf" || n[l-5:] == "_lpmf")
}

func densityFunc(fam *Family) *NaryFunc {
	suffix := "_lpdf"
	if fam.Discrete {
		suffix = "_lpmf"
	}
	return &NaryFunc{
		Name:  fam.Name + suffix,
		Arity: 1 + len(fam.Params),
		Eval:  func(x []float64) float64 { return fam.LogPdf(x[0], x[1:]) },
		Slice: fam.LogPdfSlice,
		Grad: func(x, dx []float64) float64 {
			lp, d := fam.Grad(x[0], x[1:], dx[1:])
			if fam.Discrete {
				d = 0
			}
			dx[0] = d
			return lp
		},
	}
}

// powGrad is x^y with d/dx = y x^(y-1) and d/dy = x^y log x (0 at x = 0
// for y > 0).
func powGrad(a, d []float64) float64 {
	x, y := a[0], a[1]
	v := math.Pow(x, y)
	d[0] = y * math.Pow(x, y-1)
	if y == 0 {
		d[0] = 0
	}
	switch {
	case x == 0 && y > 0:
		d[1] = 0
	case x == 0:
		d[1] = math.NaN()
	default:
		d[1] = v * math.Log(x)
	}
	return v
}

// Fmin is C's fmin: the smaller argument, the other one when one is NaN.
func Fmin(a, b float64) float64 {
	if math.IsNaN(a) || b < a {
		return b
	}
	return a
}

// Fmax is C's fmax: the larger argument, the other one when one is NaN.
func Fmax(a, b float64) float64 {
	if math.IsNaN(a) || b > a {
		return b
	}
	return a
}

// LogSumExp2 is log(exp(a) + exp(b)) computed stably.
func LogSumExp2(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(a, -1) || math.IsInf(a, 1) {
		return a
	}
	return a + special.Log1pExp(b-a)
}

// LogMix is log(theta exp(lp1) + (1 - theta) exp(lp2)) computed stably.
// It is -Inf for theta outside [0, 1], like a log density outside its
// domain.
func LogMix(theta, lp1, lp2 float64) float64 {
	// the value alone (the log density's hot path): logMixGrad's first half
	if math.IsNaN(theta) || math.IsNaN(lp1) || math.IsNaN(lp2) {
		return math.NaN()
	}
	if !(theta >= 0 && theta <= 1) {
		return negInf
	}
	return LogSumExp2(math.Log(theta)+lp1, math.Log1p(-theta)+lp2)
}

// logMixSlice is LogMix elementwise for a valid theta shared by all
// elements: log(theta) and log1p(-theta) once, and the log1p(exp(.)) of
// LogSumExp2 through Log1pExpSlice on blocks of buf (the same bits).
func logMixSlice(out []float64, in [][]float64, buf []float64) bool {
	th, lp1, lp2 := in[0], in[1], in[2]
	if len(th) != 1 || !(th[0] >= 0 && th[0] <= 1) {
		return false
	}
	la, lb := math.Log(th[0]), math.Log1p(-th[0])
	for lo := 0; lo < len(out); lo += len(buf) {
		hi := min(len(out), lo+len(buf))
		d := buf[:hi-lo]
		for k := range d {
			a, b := la+bc(lp1, lo+k), lb+bc(lp2, lo+k)
			if a < b {
				a, b = b, a
			}
			out[lo+k] = a
			switch {
			case a != a || b != b: // LogMix's NaN
				out[lo+k], d[k] = math.NaN(), 0
			case math.IsInf(a, 0):
				d[k] = negInf // LogSumExp2's a alone: a + Log1pExp(-Inf) = a
			default:
				d[k] = b - a
			}
		}
		special.Log1pExpSlice(d, d)
		for k, v := range d {
			out[lo+k] += v
		}
	}
	return true
}

func logMixGrad(theta, lp1, lp2 float64, d []float64) float64 {
	d[0], d[1], d[2] = 0, 0, 0
	v := LogMix(theta, lp1, lp2)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	a := math.Log(theta) + lp1
	b := math.Log1p(-theta) + lp2
	d[0] = math.Exp(lp1-v) - math.Exp(lp2-v)
	d[1] = math.Exp(a - v)
	d[2] = math.Exp(b - v)
	return v
}

// NormalLcdf is log Phi((x - mu) / sigma), accurate far into both tails;
// -Inf for sigma <= 0.
func NormalLcdf(x, mu, sigma float64) float64 {
	var d [3]float64
	return normalLcdfGrad(x, mu, sigma, d[:], false)
}

// NormalLccdf is log(1 - Phi((x - mu) / sigma)), accurate far into both
// tails; -Inf for sigma <= 0.
func NormalLccdf(x, mu, sigma float64) float64 {
	var d [3]float64
	return normalLcdfGrad(x, mu, sigma, d[:], true)
}

func normalLcdfGrad(x, mu, sigma float64, d []float64, upper bool) float64 {
	d[0], d[1], d[2] = 0, 0, 0
	if math.IsNaN(x) || math.IsNaN(mu) || math.IsNaN(sigma) {
		return math.NaN()
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) || math.IsInf(mu, 0) {
		return negInf
	}
	z := (x - mu) / sigma
	s := 1.0
	if upper {
		z, s = -z, -1
	}
	if math.IsInf(z, 0) {
		if z > 0 {
			return 0
		}
		return negInf
	}
	m := s * special.InvMills(z) // d/d((x-mu)/sigma)
	d[0] = m / sigma
	d[1] = -m / sigma
	d[2] = -m * s * z / sigma
	return special.LogPhi(z)
}

var (
	// PowFunc is pow(x, y) = x^y.
	PowFunc = &NaryFunc{Name: "pow", Arity: 2,
		Eval: func(a []float64) float64 { return math.Pow(a[0], a[1]) },
		Grad: powGrad}
	// FminFunc is fmin(a, b); the derivative goes to the selected argument
	// (the first on ties).
	FminFunc = &NaryFunc{Name: "fmin", Arity: 2,
		Eval: func(a []float64) float64 { return Fmin(a[0], a[1]) },
		Grad: func(a, d []float64) float64 {
			if math.IsNaN(a[0]) || a[1] < a[0] {
				d[0], d[1] = 0, 1
				return a[1]
			}
			d[0], d[1] = 1, 0
			return a[0]
		}}
	// FmaxFunc is fmax(a, b); the derivative goes to the selected argument
	// (the first on ties).
	FmaxFunc = &NaryFunc{Name: "fmax", Arity: 2,
		Eval: func(a []float64) float64 { return Fmax(a[0], a[1]) },
		Grad: func(a, d []float64) float64 {
			if math.IsNaN(a[0]) || a[1] > a[0] {
				d[0], d[1] = 0, 1
				return a[1]
			}
			d[0], d[1] = 1, 0
			return a[0]
		}}
	// LogSumExp2Func is log_sum_exp(a, b).
	LogSumExp2Func = &NaryFunc{Name: "log_sum_exp", Arity: 2,
		Eval: func(a []float64) float64 { return LogSumExp2(a[0], a[1]) },
		Grad: func(a, d []float64) float64 {
			v := LogSumExp2(a[0], a[1])
			if math.IsInf(v, 0) || math.IsNaN(v) {
				d[0], d[1] = 0, 0
				return v
			}
			d[0], d[1] = math.Exp(a[0]-v), math.Exp(a[1]-v)
			return v
		}}
	// LogMixFunc is log_mix(theta, lp1, lp2).
	LogMixFunc = &NaryFunc{Name: "log_mix", Arity: 3,
		Eval:  func(a []float64) float64 { return LogMix(a[0], a[1], a[2]) },
		Grad:  func(a, d []float64) float64 { return logMixGrad(a[0], a[1], a[2], d) },
		Slice: logMixSlice}
	// NormalLcdfFunc is normal_lcdf(x, mu, sigma).
	NormalLcdfFunc = &NaryFunc{Name: "normal_lcdf", Arity: 3,
		Eval: func(a []float64) float64 { return NormalLcdf(a[0], a[1], a[2]) },
		Grad: func(a, d []float64) float64 { return normalLcdfGrad(a[0], a[1], a[2], d, false) }}
	// NormalLccdfFunc is normal_lccdf(x, mu, sigma).
	NormalLccdfFunc = &NaryFunc{Name: "normal_lccdf", Arity: 3,
		Eval: func(a []float64) float64 { return NormalLccdf(a[0], a[1], a[2]) },
		Grad: func(a, d []float64) float64 { return normalLcdfGrad(a[0], a[1], a[2], d, true) }}
)
