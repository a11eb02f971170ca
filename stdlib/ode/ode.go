package ode

import (
	"errors"
	"fmt"
	"math"
)

// System is a right-hand side with K states and P parameters.
type System struct {
	K, P int
	// F writes dydt = f(t, y, p).
	F func(t float64, y, p, dydt []float64)
	// Jac writes dydt = f(t, y, p) and its derivatives: jy[i*K+l] = df_i /
	// dy_l, jp[i*P+j] = df_i / dp_j and ft[i] = df_i / dt.
	Jac func(t float64, y, p, dydt, jy, jp, ft []float64)
}

// Method is an integration method.
type Method int

const (
	// RK45 is the Dormand-Prince 5(4) pair.
	RK45 Method = iota
	// Stiff is the Rosenbrock 2(3) pair of ode23s.
	Stiff
)

// Options are the tolerances; zero values take Stan's defaults.
type Options struct {
	RelTol, AbsTol float64
	MaxSteps       int
}

// Stan's defaults for ode_rk45 and ode_bdf (Stan's Functions Reference,
// "Default values"; also integrate_ode_rk45's: Stan's older
// integrate_ode_bdf defaults to 1e-10, 1e-10 and 1e8 instead).
const (
	DefaultRelTol   = 1e-6
	DefaultAbsTol   = 1e-6
	DefaultMaxSteps = 1000000
)

// withDefaults is opt with its zero values replaced by the defaults.
func (opt Options) withDefaults() Options {
	if opt.RelTol == 0 {
		opt.RelTol = DefaultRelTol
	}
	if opt.AbsTol == 0 {
		opt.AbsTol = DefaultAbsTol
	}
	if opt.MaxSteps == 0 {
		opt.MaxSteps = DefaultMaxSteps
	}
	return opt
}

// The bounds of the tolerances CheckArgs accepts: a relative tolerance
// below MinRelTol asks for more digits than float64 has (the steps would
// shrink to nothing), one above MaxRelTol for none.
const (
	MinRelTol = 1e-16
	MaxRelTol = 1
)

// Errors of a solve (wrapped with the time where it stopped).
var (
	ErrMaxSteps  = errors.New("more steps than the maximum")
	ErrStepSize  = errors.New("the step size underflowed (the problem may be stiff or its solution may blow up)")
	ErrTimes     = errors.New("the output times must be finite, after t0 and in increasing order")
	ErrSingular  = errors.New("the iteration matrix is singular")
	ErrNaN       = errors.New("the right-hand side is NaN")
	ErrNotFinite = errors.New("the right-hand side is not finite at the initial state")
	ErrStiff     = errors.New("the problem is stiff (rk45's stiffness test: the step is held at the explicit method's stability boundary)")
	ErrArgs      = errors.New("invalid arguments")
	// ErrOverflow: the solution grows past what a float64 holds (an
	// exponential growth too fast for the time span, or a blow-up).
	ErrOverflow = errors.New("the solution overflows (it, or the right-hand side at it, grows past the largest float64, about 1.8e308)")
	// ErrInterrupted: Done was closed during the solve; not a failure of
	// the problem.
	ErrInterrupted = errors.New("the solve was interrupted")
)

// CheckArgs checks what a solve needs of its arguments before the first
// step, as Stan does: at least one output time, t0 and the output times
// finite, t0 before the first output time, the output times in order
// (equal times are allowed, as in Stan), the relative tolerance within
// [MinRelTol, MaxRelTol], the absolute tolerance positive and finite and
// the maximum number of steps positive (zero values of opt stand for the
// defaults). Its errors wrap ErrTimes or ErrArgs and say what is wrong.
func CheckArgs(t0 float64, ts []float64, opt Options) error {
	switch {
	case len(ts) == 0:
		return fmt.Errorf("%w: there are no output times (ts is empty)", ErrTimes)
	case math.IsNaN(t0) || math.IsInf(t0, 0):
		return fmt.Errorf("%w: the initial time t0 is %g", ErrTimes, t0)
	}
	for i, t := range ts {
		switch {
		case math.IsNaN(t) || math.IsInf(t, 0):
			return fmt.Errorf("%w: output time %d is %g", ErrTimes, i+1, t)
		case i == 0 && !(t > t0):
			return fmt.Errorf("%w: the first output time (%g) is not after t0 (%g)", ErrTimes, t, t0)
		case i > 0 && t < ts[i-1]:
			return fmt.Errorf("%w: output time %d (%g) is before output time %d (%g)", ErrTimes, i+1, t, i, ts[i-1])
		}
	}
	switch {
	case opt.RelTol != 0 && !(opt.RelTol >= MinRelTol && opt.RelTol <= MaxRelTol):
		return fmt.Errorf("%w: the relative tolerance %g is outside [%g, %g]", ErrArgs, opt.RelTol, float64(MinRelTol), float64(MaxRelTol))
	case opt.AbsTol != 0 && !(opt.AbsTol > 0 && !math.IsInf(opt.AbsTol, 0)):
		return fmt.Errorf("%w: the absolute tolerance %g is not positive and finite", ErrArgs, opt.AbsTol)
	case opt.MaxSteps < 0:
		return fmt.Errorf("%w: the maximum number of steps %d is not positive", ErrArgs, opt.MaxSteps)
	}
	return nil
}

// Solver integrates one System with one Method; it is not safe for
// concurrent use.
type Solver struct {
	sys    System
	method Method
	m      int // K + P
	// Steps counts the steps (accepted and rejected) of the last solve.
	Steps int
	// Done, when closed, stops a solve at its next step with
	// ErrInterrupted (nil: never). It is read by the solving goroutine; set
	// it between solves.
	Done <-chan struct{}

	p    []float64
	sens bool
	n    int // size of the state integrated: K, or K + K*M with sensitivities

	z, z1, e []float64
	k        [7][]float64
	jy, jp   []float64 // Jacobians at the last rhs call
	ft       []float64
	jy0, ft0 []float64 // at the start of a Rosenbrock step
	lu       []float64
	piv      []int
	col      []float64
	tmp      []float64
	dense    [4][]float64 // the continuous extension of the last step
	// nanAt is where the right-hand side was NaN at a finite state (NaN
	// when it was not)
	nanAt float64
	// overflowed: a trial step of this solve overflowed (its error norm
	// +Inf) from a finite state
	overflowed bool
}

// NewSolver makes a solver for sys (K >= 1, P >= 0).
func NewSolver(sys System, method Method) *Solver {
	K, P := sys.K, sys.P
	m := K + P
	full := K + K*m
	s := &Solver{sys: sys, method: method, m: m,
		z: make([]float64, full), z1: make([]float64, full), e: make([]float64, full),
		jy: make([]float64, K*K), jp: make([]float64, K*P), ft: make([]float64, K),
		jy0: make([]float64, K*K), ft0: make([]float64, K),
		lu: make([]float64, K*K), piv: make([]int, K), col: make([]float64, K), tmp: make([]float64, full)}
	for i := range s.k {
		s.k[i] = make([]float64, full)
	}
	for i := range s.dense {
		s.dense[i] = make([]float64, full)
	}
	return s
}

// Solve integrates from y0 at t0 with parameters p and writes the states
// at the times ts into out (out[n*K+i] = y_i(ts[n])). When sens is not
// nil it also writes the sensitivities: sens[n*K*M + i*M + j] = d y_i(ts[n])
// / d theta_j, theta = (y0, p), M = K + P.
func (s *Solver) Solve(y0, p []float64, t0 float64, ts []float64, opt Options, out, sens []float64) error {
	K, M := s.sys.K, s.m
	s.Steps = 0
	s.nanAt = math.NaN()
	s.overflowed = false
	if err := CheckArgs(t0, ts, opt); err != nil {
		return err
	}
	if err := s.interrupted(t0); err != nil {
		return err // before the first right-hand side, which may be costly
	}
	opt = opt.withDefaults()
	s.p = p
	s.sens = sens != nil
	s.n = K
	if s.sens {
		s.n = K + K*M
	}
	z := s.z[:s.n]
	copy(z, y0[:K])
	if s.sens {
		S := z[K:]
		clear(S)
		for i := 0; i < K; i++ {
			S[i*M+i] = 1
		}
	}
	for i := range z {
		if math.IsNaN(z[i]) || math.IsInf(z[i], 0) {
			return fmt.Errorf("the initial state is not finite")
		}
	}
	var err error
	if s.method == Stiff {
		err = s.rosenbrock(t0, ts, opt, out, sens)
	} else {
		err = s.dopri(t0, ts, opt, out, sens)
	}
	return err
}

// rhs evaluates the (augmented) right-hand side; with sensitivities or
// when jac is true it also leaves the Jacobians in jy, jp and ft. A NaN
// derivative at a finite state sets nanAt to t (the caller fails at once:
// smaller steps would not help); at a state that is not finite (a trial
// step that overflowed) it is left to reject the step.
func (s *Solver) rhs(t float64, z, dz []float64, jac bool) {
	K, P, M := s.sys.K, s.sys.P, s.m
	if !s.sens && !jac {
		s.sys.F(t, z[:K], s.p, dz[:K])
	} else {
		s.sys.Jac(t, z[:K], s.p, dz[:K], s.jy, s.jp, s.ft)
	}
	if s.nanAt != s.nanAt && hasNaN(dz[:K]) && finite(z[:K]) {
		s.nanAt = t
	}
	if !s.sens {
		return
	}
	S, dS := z[K:s.n], dz[K:s.n]
	for i := 0; i < K; i++ {
		row := dS[i*M : (i+1)*M]
		clear(row)
		for l := 0; l < K; l++ {
			a := s.jy[i*K+l]
			if a == 0 {
				continue
			}
			srow := S[l*M : (l+1)*M]
			for j, x := range srow {
				row[j] += a * x
			}
		}
		for j := 0; j < P; j++ {
			row[K+j] += s.jp[i*P+j]
		}
	}
}

// finite reports whether every element of x is finite.
func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// hasNaN reports whether an element of x is NaN.
func hasNaN(x []float64) bool {
	for _, v := range x {
		if v != v {
			return true
		}
	}
	return false
}

// nanErr is the error of a NaN right-hand side at nanAt.
func (s *Solver) nanErr() error {
	return fmt.Errorf("at t = %g: %w at a finite state", s.nanAt, ErrNaN)
}

// errNorm is the weighted RMS norm of e (+Inf when not finite).
func errNorm(e, y0, y1 []float64, opt Options) float64 {
	sum := 0.0
	for i, x := range e {
		sc := opt.AbsTol + opt.RelTol*math.Max(math.Abs(y0[i]), math.Abs(y1[i]))
		r := x / sc
		sum += r * r
	}
	v := math.Sqrt(sum / float64(len(e)))
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	return v
}

// wnorm is the weighted RMS norm of x with the scale of y.
func wnorm(x, y []float64, opt Options) float64 {
	sum := 0.0
	for i, v := range x {
		r := v / (opt.AbsTol + opt.RelTol*math.Abs(y[i]))
		sum += r * r
	}
	return math.Sqrt(sum / float64(len(x)))
}

// initialStep is Hairer's starting step for a method of the given order:
// f0 is f at (t0, z), and k, tmp are scratch.
func (s *Solver) initialStep(t0, tEnd float64, z, f0 []float64, order int, opt Options, jac bool) float64 {
	d0, d1 := wnorm(z, z, opt), wnorm(f0, z, opt)
	h0 := 1e-6
	if d0 >= 1e-5 && d1 >= 1e-5 {
		h0 = 0.01 * d0 / d1
	}
	h0 = math.Min(h0, tEnd-t0)
	y1, f1 := s.tmp[:s.n], s.e[:s.n]
	for i := range y1 {
		y1[i] = z[i] + h0*f0[i]
	}
	s.rhs(t0+h0, y1, f1, jac)
	for i := range f1 {
		f1[i] -= f0[i]
	}
	d2 := wnorm(f1, z, opt) / h0
	var h1 float64
	if m := math.Max(d1, d2); m <= 1e-15 || math.IsNaN(m) || math.IsInf(m, 0) {
		h1 = math.Max(1e-6, h0*1e-3)
	} else {
		h1 = math.Pow(0.01/m, 1/float64(order+1))
	}
	return math.Min(100*h0, h1)
}

// overflowNear is the size of a state from which a trial step that
// overflows to Inf means that the solution itself overflows (a stiff
// problem's explicit trial steps overflow from states of moderate size);
// overflowLarge the size from which a step that underflows after trial
// steps overflowed is put down to the overflow (a square of it overflows).
const (
	overflowNear  = 1e300
	overflowLarge = 1e150
)

// rejectedErr is the error after a step from the state z at t was
// rejected, when the solve cannot go on (nil when it retries with h);
// inf says that the trial step overflowed (its error norm +Inf: its state
// or its error estimate not finite). A trial that overflowed from a state
// beyond overflowNear, or one that overflowed earlier and a step h that
// has underflowed since at a state beyond overflowLarge, is ErrOverflow;
// another step underflow is ErrStepSize.
func (s *Solver) rejectedErr(t, h float64, z []float64, inf bool) error {
	K := s.sys.K
	if inf && finite(z) {
		if big := maxAbs(z); big > overflowNear {
			return s.overflowErr(t, z)
		}
		s.overflowed = true
	}
	if !tooSmall(h, t) {
		return nil
	}
	if s.overflowed && finite(z[:K]) && maxAbs(z[:K]) > overflowLarge {
		return s.overflowErr(t, z)
	}
	return fmt.Errorf("at t = %g: %w", t, ErrStepSize)
}

// overflowErr is ErrOverflow at t from the state z, naming its largest
// component (or the sensitivities, when they are what overflows).
func (s *Solver) overflowErr(t float64, z []float64) error {
	K := s.sys.K
	i, big := 0, 0.0
	for j, v := range z[:K] {
		if a := math.Abs(v); a > big {
			i, big = j, a
		}
	}
	if big <= overflowNear && s.sens && maxAbs(z[K:s.n]) > overflowNear {
		return fmt.Errorf("at t = %g: %w: the sensitivities d y / d (y0, parameters) do (the largest state is %.3g)", t, ErrOverflow, big)
	}
	return fmt.Errorf("at t = %g: %w: |y[%d]| = %.3g", t, ErrOverflow, i+1, big)
}

// maxAbs is the largest |x_i|.
func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// tooSmall reports whether h is too small a step at t.
func tooSmall(h, t float64) bool {
	return !(h > 16*math.Abs(t)*0x1p-52) || h < 1e-300
}

// store copies the state (and sensitivities) into output slot n.
func (s *Solver) store(n int, z, out, sens []float64) {
	K, M := s.sys.K, s.m
	copy(out[n*K:(n+1)*K], z[:K])
	if sens != nil {
		copy(sens[n*K*M:(n+1)*K*M], z[K:s.n])
	}
}

// Dormand-Prince 5(4) coefficients.
const (
	c2, c3, c4, c5 = 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9
	a21            = 1.0 / 5
	a31, a32       = 3.0 / 40, 9.0 / 40
	a41, a42, a43  = 44.0 / 45, -56.0 / 15, 32.0 / 9
	a51, a52, a53  = 19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561
	a54            = -212.0 / 729
	a61, a62, a63  = 9017.0 / 3168, -355.0 / 33, 46732.0 / 5247
	a64, a65       = 49.0 / 176, -5103.0 / 18656
	a71, a73, a74  = 35.0 / 384, 500.0 / 1113, 125.0 / 192
	a75, a76       = -2187.0 / 6784, 11.0 / 84
	e1, e3, e4     = 71.0 / 57600, -71.0 / 16695, 71.0 / 1920
	e5, e6, e7     = -17253.0 / 339200, 22.0 / 525, -1.0 / 40
)

// LandOutputs is the number of output times up to which each output time
// ends a step (its value is then the method's own step, as a step-by-step
// solver gives it); with more, steps run to the last output time and the
// others are interpolated by the continuous extension, so that a dense
// grid of output times costs no more steps than its last time alone. The
// interpolant is an order lower than the step: a state within atol of 0
// may come out of it slightly negative where the step would not (a
// population model's log(z) then NaN at draws that the step-by-step
// solve keeps finite, as on posteriordb's lotka_volterra).
const LandOutputs = 100

// target is the time the next step may not pass: the next output time
// when there are at most LandOutputs of them, else the last.
func (s *Solver) target(ts []float64, next int) float64 {
	if len(ts) <= LandOutputs {
		return ts[next]
	}
	return ts[len(ts)-1]
}

// trial counts a step from t of size h towards tEnd, the last output
// time, and returns the size to try, shortened to land on tEnd (last) when
// it would pass it or stop just short; an error once opt.MaxSteps steps
// have been taken.
func (s *Solver) trial(t, tEnd, h float64, opt Options) (hs float64, last bool, err error) {
	if s.Steps >= opt.MaxSteps {
		return 0, false, fmt.Errorf("at t = %g: %w (%d)", t, ErrMaxSteps, opt.MaxSteps)
	}
	if err := s.interrupted(t); err != nil {
		return 0, false, err
	}
	s.Steps++
	if t+h >= tEnd || tEnd-(t+h) < 1e-10*h {
		return tEnd - t, true, nil
	}
	return h, false, nil
}

// interrupted is ErrInterrupted (at t) once Done is closed, else nil.
func (s *Solver) interrupted(t float64) error {
	select {
	case <-s.Done:
		return fmt.Errorf("at t = %g, after %d steps: %w", t, s.Steps, ErrInterrupted)
	default:
		return nil
	}
}

// Dormand and Prince's continuous extension of order 4 (Hairer, Norsett
// and Wanner, DOPRI5's CONTD5).
const (
	dd1 = -12715105075.0 / 11282082432.0
	dd3 = 87487479700.0 / 32700410799.0
	dd4 = -10690763975.0 / 1880347072.0
	dd5 = 701980252875.0 / 199316789632.0
	dd6 = -1453857185.0 / 822651844.0
	dd7 = 69997945.0 / 29380423.0
)

// DOPRI5's stiffness test: after every stiffEvery-th accepted step, and at
// every step once a test has found h |lambda| (estimated by the last two
// stages, at the same time) beyond stiffBound, the stability boundary of
// the method on the negative axis; stiffTests such findings, with fewer
// than 6 in a row against them, make the problem stiff.
const (
	stiffEvery = 1000
	stiffBound = 3.25
	stiffTests = 15
)

// stiffRatio is h times the estimate of the dominant eigenvalue
// ||f(y1) - f(y6)|| / ||y1 - y6||: the 7th and 6th stages are evaluated
// at the same time, at the points y1 and y6.
func stiffRatio(h float64, f7, f6, y1, y6 []float64) float64 {
	num, den := 0.0, 0.0
	for i := range f7 {
		a, b := f7[i]-f6[i], y1[i]-y6[i]
		num += a * a
		den += b * b
	}
	if !(den > 0) {
		return 0
	}
	return h * math.Sqrt(num/den)
}

// start evaluates the right-hand side at the initial state: an error when
// it is NaN or infinite there (no step can leave such a point).
func (s *Solver) start(t float64, z, f []float64, jac bool) error {
	s.rhs(t, z, f, jac)
	if s.nanAt == s.nanAt {
		return s.nanErr()
	}
	if !finite(f[:s.sys.K]) {
		return fmt.Errorf("at t = %g: %w", t, ErrNotFinite)
	}
	return nil
}

// dopri integrates with the Dormand-Prince pair.
func (s *Solver) dopri(t0 float64, ts []float64, opt Options, out, sens []float64) error {
	n, K := s.n, s.sys.K
	z, z1, y := s.z[:n], s.z1[:n], s.tmp[:n]
	k1, k2, k3, k4, k5, k6, k7 := s.k[0][:n], s.k[1][:n], s.k[2][:n], s.k[3][:n], s.k[4][:n], s.k[5][:n], s.k[6][:n]
	r1, r2, r3, r4 := s.dense[0][:n], s.dense[1][:n], s.dense[2][:n], s.dense[3][:n]
	tEnd := ts[len(ts)-1]
	t := t0
	if err := s.start(t, z, k1, false); err != nil {
		return err
	}
	h := s.initialStep(t0, tEnd, z, k1, 4, opt, false)
	next, rejected := 0, false
	accepted, stiff, nonstiff := 0, 0, 0
	for next < len(ts) {
		target := s.target(ts, next)
		hs, last, err := s.trial(t, target, h, opt)
		if err != nil {
			return err
		}
		for i := range y {
			y[i] = z[i] + hs*a21*k1[i]
		}
		s.rhs(t+c2*hs, y, k2, false)
		for i := range y {
			y[i] = z[i] + hs*(a31*k1[i]+a32*k2[i])
		}
		s.rhs(t+c3*hs, y, k3, false)
		for i := range y {
			y[i] = z[i] + hs*(a41*k1[i]+a42*k2[i]+a43*k3[i])
		}
		s.rhs(t+c4*hs, y, k4, false)
		for i := range y {
			y[i] = z[i] + hs*(a51*k1[i]+a52*k2[i]+a53*k3[i]+a54*k4[i])
		}
		s.rhs(t+c5*hs, y, k5, false)
		for i := range y {
			y[i] = z[i] + hs*(a61*k1[i]+a62*k2[i]+a63*k3[i]+a64*k4[i]+a65*k5[i])
		}
		s.rhs(t+hs, y, k6, false)
		for i := range z1 {
			z1[i] = z[i] + hs*(a71*k1[i]+a73*k3[i]+a74*k4[i]+a75*k5[i]+a76*k6[i])
		}
		s.rhs(t+hs, z1, k7, false)
		if s.nanAt == s.nanAt {
			return s.nanErr()
		}
		e := s.e[:n]
		for i := range e {
			e[i] = hs * (e1*k1[i] + e3*k3[i] + e4*k4[i] + e5*k5[i] + e6*k6[i] + e7*k7[i])
		}
		en := errNorm(e, z, z1, opt)
		if en > 1 {
			rejected = true
			h = rejectedStep(hs, en, 0.9, 0.2)
			if err := s.rejectedErr(t, h, z, math.IsInf(en, 1)); err != nil {
				return err
			}
			continue
		}
		if accepted++; accepted%stiffEvery == 0 || stiff > 0 {
			if stiffRatio(hs, k7[:K], k6[:K], z1[:K], y[:K]) > stiffBound {
				nonstiff = 0
				if stiff++; stiff == stiffTests {
					return fmt.Errorf("at t = %g, after %d steps: %w", t, s.Steps, ErrStiff)
				}
			} else if nonstiff++; nonstiff == 6 {
				stiff = 0
			}
		}
		tn := t + hs
		if last {
			tn = target
		}
		if ts[next] <= tn {
			for i := range r1 {
				d := z1[i] - z[i]
				b := hs*k1[i] - d
				r1[i], r2[i], r3[i] = d, b, d-hs*k7[i]-b
				r4[i] = hs * (dd1*k1[i] + dd3*k3[i] + dd4*k4[i] + dd5*k5[i] + dd6*k6[i] + dd7*k7[i])
			}
			for ; next < len(ts) && ts[next] <= tn; next++ {
				if ts[next] == tn {
					s.store(next, z1, out, sens)
					continue
				}
				th := (ts[next] - t) / hs
				th1 := 1 - th
				for i := range e {
					e[i] = z[i] + th*(r1[i]+th1*(r2[i]+th*(r3[i]+th1*r4[i])))
				}
				s.store(next, e, out, sens)
			}
		}
		t = tn
		copy(z, z1)
		copy(k1, k7)
		h = acceptedStep(hs, h, en, 0.9, 0.2, rejected, last)
		rejected = false
	}
	return nil
}

// ode23s constants.
var (
	rosD   = 1 / (2 + math.Sqrt2)
	rosE32 = 6 + math.Sqrt2
)

// rosenbrock integrates with the ode23s pair.
func (s *Solver) rosenbrock(t0 float64, ts []float64, opt Options, out, sens []float64) error {
	n, K := s.n, s.sys.K
	z, z1, y := s.z[:n], s.z1[:n], s.tmp[:n]
	f0, k1, f1, k2, f2, k3 := s.k[0][:n], s.k[1][:n], s.k[2][:n], s.k[3][:n], s.k[4][:n], s.k[5][:n]
	tEnd := ts[len(ts)-1]
	t := t0
	if err := s.start(t, z, f0, true); err != nil {
		return err
	}
	copy(s.jy0, s.jy)
	copy(s.ft0, s.ft)
	h := s.initialStep(t0, tEnd, z, f0, 2, opt, true)
	next, rejected := 0, false
	for next < len(ts) {
		target := s.target(ts, next)
		hs, last, err := s.trial(t, target, h, opt)
		if err != nil {
			return err
		}
		hd := hs * rosD
		// W = I - h d J
		for i := range s.lu {
			s.lu[i] = -hd * s.jy0[i]
		}
		for i := 0; i < K; i++ {
			s.lu[i*K+i]++
		}
		en := math.Inf(1)
		solved := luFactor(s.lu, s.piv, K) // else W is singular: no trial state
		if solved {
			// k1 = W^-1 (F0 + h d T)
			copy(k1, f0)
			for i := 0; i < K; i++ {
				k1[i] += hd * s.ft0[i]
			}
			s.wsolve(k1)
			for i := range y {
				y[i] = z[i] + 0.5*hs*k1[i]
			}
			s.rhs(t+0.5*hs, y, f1, true)
			// k2 = W^-1 (F1 - k1) + k1
			for i := range k2 {
				k2[i] = f1[i] - k1[i]
			}
			s.wsolve(k2)
			for i := range k2 {
				k2[i] += k1[i]
			}
			for i := range z1 {
				z1[i] = z[i] + hs*k2[i]
			}
			s.rhs(t+hs, z1, f2, true)
			if s.nanAt == s.nanAt {
				return s.nanErr()
			}
			// k3 = W^-1 (F2 - e32 (k2 - F1) - 2 (k1 - F0) + h d T)
			for i := range k3 {
				k3[i] = f2[i] - rosE32*(k2[i]-f1[i]) - 2*(k1[i]-f0[i])
			}
			for i := 0; i < K; i++ {
				k3[i] += hd * s.ft0[i]
			}
			s.wsolve(k3)
			e := s.e[:n]
			for i := range e {
				e[i] = hs / 6 * (k1[i] - 2*k2[i] + k3[i])
			}
			en = errNorm(e, z, z1, opt)
		}
		if en > 1 {
			rejected = true
			h = rejectedStep(hs, en, 0.8, 1.0/3)
			if err := s.rejectedErr(t, h, z, solved && math.IsInf(en, 1)); err != nil {
				return err
			}
			continue
		}
		tn := t + hs
		if last {
			tn = target
		}
		// ode23s' continuous extension: y + h (s (1 - s) k1 + s (s - 2d) k2) / (1 - 2d)
		for ; next < len(ts) && ts[next] <= tn; next++ {
			if ts[next] == tn {
				s.store(next, z1, out, sens)
				continue
			}
			th := (ts[next] - t) / hs
			a, b := hs*th*(1-th)/(1-2*rosD), hs*th*(th-2*rosD)/(1-2*rosD)
			e := s.e[:n]
			for i := range e {
				e[i] = z[i] + a*k1[i] + b*k2[i]
			}
			s.store(next, e, out, sens)
		}
		t = tn
		copy(z, z1)
		copy(f0, f2)
		copy(s.jy0, s.jy) // rhs at (t, z1) left its Jacobians
		copy(s.ft0, s.ft)
		h = acceptedStep(hs, h, en, 0.8, 1.0/3, rejected, last)
		rejected = false
	}
	return nil
}

// wsolve solves W x = b in place for the y block and for each column of
// the sensitivity block (stored row-major K x M after the K states).
func (s *Solver) wsolve(b []float64) {
	K, M := s.sys.K, s.m
	luSolve(s.lu, s.piv, K, b[:K])
	if !s.sens {
		return
	}
	S := b[K:s.n]
	for j := 0; j < M; j++ {
		for i := 0; i < K; i++ {
			s.col[i] = S[i*M+j]
		}
		luSolve(s.lu, s.piv, K, s.col)
		for i := 0; i < K; i++ {
			S[i*M+j] = s.col[i]
		}
	}
}

// luFactor factors the K x K row-major a in place with partial pivoting;
// false when it is singular or not finite.
func luFactor(a []float64, piv []int, K int) bool {
	for c := 0; c < K; c++ {
		p, best := c, math.Abs(a[c*K+c])
		for r := c + 1; r < K; r++ {
			if v := math.Abs(a[r*K+c]); v > best {
				p, best = r, v
			}
		}
		if !(best > 0) || math.IsInf(best, 0) {
			return false
		}
		piv[c] = p
		if p != c {
			for j := 0; j < K; j++ {
				a[c*K+j], a[p*K+j] = a[p*K+j], a[c*K+j]
			}
		}
		d := a[c*K+c]
		for r := c + 1; r < K; r++ {
			l := a[r*K+c] / d
			a[r*K+c] = l
			if l == 0 {
				continue
			}
			for j := c + 1; j < K; j++ {
				a[r*K+j] -= l * a[c*K+j]
			}
		}
	}
	return true
}

// luSolve solves (LU) x = b in place.
func luSolve(a []float64, piv []int, K int, b []float64) {
	for c := 0; c < K; c++ {
		if p := piv[c]; p != c {
			b[c], b[p] = b[p], b[c]
		}
	}
	for r := 1; r < K; r++ {
		for c := 0; c < r; c++ {
			b[r] -= a[r*K+c] * b[c]
		}
	}
	for r := K - 1; r >= 0; r-- {
		for c := r + 1; c < K; c++ {
			b[r] -= a[r*K+c] * b[c]
		}
		b[r] /= a[r*K+r]
	}
}

// acceptedStep is the next step after an accepted step hs of error norm en
// (the controller shared by both solvers): hs times safety*en^(-expo),
// within [0.2, 5] (at most 1 right after a rejection); after the last step
// to an output time that had to be shortened, no less than the step h it
// was shortened from.
func acceptedStep(hs, h, en, safety, expo float64, rejected, last bool) float64 {
	f := 5.0
	if en > 0 {
		f = math.Min(5, math.Max(0.2, safety*math.Pow(en, -expo)))
	}
	if rejected {
		f = math.Min(f, 1)
	}
	hn := hs * f
	if last && hs < h {
		hn = math.Max(hn, h)
	}
	return hn
}

// rejectedStep is the step to retry after a rejected step hs of error norm
// en: hs times safety*en^(-expo), at least a fifth of hs.
func rejectedStep(hs, en, safety, expo float64) float64 {
	f := 0.2
	if !math.IsInf(en, 1) {
		f = math.Max(0.2, safety*math.Pow(en, -expo))
	}
	return hs * f
}
