package ode

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// linear makes the system y' = A(p) y (+ nothing) from a function giving
// A and its derivatives in p.
func linear(K, P int, a func(p, A []float64), dA func(p []float64, j int, D []float64)) System {
	A := make([]float64, K*K)
	D := make([]float64, K*K)
	f := func(t float64, y, p, dy []float64) {
		a(p, A)
		for i := 0; i < K; i++ {
			dy[i] = 0
			for l := 0; l < K; l++ {
				dy[i] += A[i*K+l] * y[l]
			}
		}
	}
	return System{K: K, P: P, F: f, Jac: func(t float64, y, p, dy, jy, jp, ft []float64) {
		f(t, y, p, dy)
		copy(jy, A)
		for j := 0; j < P; j++ {
			dA(p, j, D)
			for i := 0; i < K; i++ {
				s := 0.0
				for l := 0; l < K; l++ {
					s += D[i*K+l] * y[l]
				}
				jp[i*P+j] = s
			}
		}
		clear(ft)
	}}
}

// decay is y' = -theta y.
func decay() System {
	return linear(1, 1, func(p, A []float64) { A[0] = -p[0] }, func(p []float64, j int, D []float64) { D[0] = -1 })
}

// chain is y1' = -k1 y1, y2' = k1 y1 - k2 y2.
func chain() System {
	return linear(2, 2, func(p, A []float64) {
		A[0], A[1], A[2], A[3] = -p[0], 0, p[0], -p[1]
	}, func(p []float64, j int, D []float64) {
		clear(D)
		if j == 0 {
			D[0], D[2] = -1, 1
		} else {
			D[3] = -1
		}
	})
}

// chainExact is the closed form of chain and its sensitivities
// (theta = y10, y20, k1, k2).
func chainExact(y0, p []float64, t float64) (y [2]float64, s [2][4]float64) {
	k1, k2 := p[0], p[1]
	E1, E2 := math.Exp(-k1*t), math.Exp(-k2*t)
	d := k2 - k1
	y[0] = y0[0] * E1
	y[1] = y0[1]*E2 + y0[0]*k1/d*(E1-E2)
	s[0] = [4]float64{E1, 0, -t * y0[0] * E1, 0}
	s[1] = [4]float64{k1 / d * (E1 - E2), E2,
		y0[0] * (k2/(d*d)*(E1-E2) - t*k1*E1/d),
		-y0[1]*t*E2 + y0[0]*k1*(-(E1-E2)/(d*d)+t*E2/d)}
	return
}

func lotka() System {
	f := func(t float64, y, p, dy []float64) {
		u, v := y[0], y[1]
		dy[0] = (p[0] - p[1]*v) * u
		dy[1] = (-p[2] + p[3]*u) * v
	}
	return System{K: 2, P: 4, F: f, Jac: func(t float64, y, p, dy, jy, jp, ft []float64) {
		f(t, y, p, dy)
		u, v := y[0], y[1]
		jy[0], jy[1] = p[0]-p[1]*v, -p[1]*u
		jy[2], jy[3] = p[3]*v, -p[2]+p[3]*u
		jp[0], jp[1], jp[2], jp[3] = u, -v*u, 0, 0
		jp[4], jp[5], jp[6], jp[7] = 0, 0, -v, u*v
		clear(ft)
	}}
}

// rk4 is a fixed-step classical Runge-Kutta reference.
func rk4(sys System, y0, p []float64, t0 float64, ts []float64, h float64) []float64 {
	K := sys.K
	y := append([]float64(nil), y0...)
	k1, k2, k3, k4, tmp := make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K)
	var out []float64
	t := t0
	for _, tout := range ts {
		for t < tout-1e-12 {
			hs := math.Min(h, tout-t)
			sys.F(t, y, p, k1)
			for i := range y {
				tmp[i] = y[i] + hs/2*k1[i]
			}
			sys.F(t+hs/2, tmp, p, k2)
			for i := range y {
				tmp[i] = y[i] + hs/2*k2[i]
			}
			sys.F(t+hs/2, tmp, p, k3)
			for i := range y {
				tmp[i] = y[i] + hs*k3[i]
			}
			sys.F(t+hs, tmp, p, k4)
			for i := range y {
				y[i] += hs / 6 * (k1[i] + 2*k2[i] + 2*k3[i] + k4[i])
			}
			t += hs
		}
		out = append(out, y...)
	}
	return out
}

func near(a, b, rel, abs float64) bool { return math.Abs(a-b) <= abs+rel*math.Abs(b) }

var methods = []struct {
	name string
	m    Method
}{{"rk45", RK45}, {"stiff", Stiff}}

// accuracy: each method at the default tolerances, with the relative
// error its local error control gives (the stiff method is of order 2,
// so its global error is larger), and the stiff one at tight tolerances.
var accuracy = []struct {
	name string
	m    Method
	opt  Options
	rel  float64
}{{"rk45", RK45, Options{}, 1e-5}, {"stiff", Stiff, Options{}, 3e-3},
	{"stiff tight", Stiff, Options{RelTol: 1e-10, AbsTol: 1e-10}, 1e-6}}

func TestDecayExact(t *testing.T) {
	ts := []float64{0.5, 1, 2, 5, 10}
	y0, p := []float64{3}, []float64{0.7}
	for _, m := range accuracy {
		s := NewSolver(decay(), m.m)
		out, sens := make([]float64, len(ts)), make([]float64, 2*len(ts))
		if err := s.Solve(y0, p, 0, ts, m.opt, out, sens); err != nil {
			t.Fatal(m.name, err)
		}
		for n, tt := range ts {
			E := math.Exp(-p[0] * tt)
			if !near(out[n], y0[0]*E, m.rel, 1e-6) {
				t.Errorf("%s: y(%g) = %g, want %g", m.name, tt, out[n], y0[0]*E)
			}
			if !near(sens[2*n], E, m.rel, 1e-6) || !near(sens[2*n+1], -tt*y0[0]*E, m.rel, 1e-6) {
				t.Errorf("%s: sens(%g) = %v, want %g %g", m.name, tt, sens[2*n:2*n+2], E, -tt*y0[0]*E)
			}
		}
	}
}

func TestLinearChainExact(t *testing.T) {
	ts := []float64{0.1, 1, 1, 3, 8}
	y0, p := []float64{2, 0.5}, []float64{1.3, 0.4}
	for _, m := range accuracy {
		s := NewSolver(chain(), m.m)
		out, sens := make([]float64, 2*len(ts)), make([]float64, 8*len(ts))
		if err := s.Solve(y0, p, 0, ts, m.opt, out, sens); err != nil {
			t.Fatal(m.name, err)
		}
		for n, tt := range ts {
			y, sv := chainExact(y0, p, tt)
			for i := 0; i < 2; i++ {
				if !near(out[2*n+i], y[i], m.rel, 1e-5) {
					t.Errorf("%s: y%d(%g) = %g, want %g", m.name, i+1, tt, out[2*n+i], y[i])
				}
				for j := 0; j < 4; j++ {
					if got := sens[8*n+4*i+j]; !near(got, sv[i][j], 10*m.rel, 1e-5) {
						t.Errorf("%s: dy%d(%g)/dtheta%d = %g, want %g", m.name, i+1, tt, j+1, got, sv[i][j])
					}
				}
			}
		}
	}
}

// TestStiff: y1' = -y1, y2' = -1e4 (y2 - y1) (eigenvalues -1 and -1e4):
// the stiff method solves it in few steps; rk45's stiffness test (DOPRI5's)
// stops rk45 with ErrStiff soon after its first test at 1000 steps, where
// it would have taken about 3 10^4 steps at the stability boundary.
func TestStiff(t *testing.T) {
	sys := linear(2, 0, func(p, A []float64) { A[0], A[1], A[2], A[3] = -1, 0, 1e4, -1e4 }, nil)
	ts := []float64{0.01, 1, 5, 10}
	s := NewSolver(sys, Stiff)
	out := make([]float64, 2*len(ts))
	if err := s.Solve([]float64{1, 0}, nil, 0, ts, Options{}, out, nil); err != nil {
		t.Fatal(err)
	}
	for n, tt := range ts {
		c := 1e4 / (1e4 - 1)
		want := [2]float64{math.Exp(-tt), c * (math.Exp(-tt) - math.Exp(-1e4*tt))}
		for i := 0; i < 2; i++ {
			if !near(out[2*n+i], want[i], 3e-3, 1e-6) {
				t.Errorf("stiff: y%d(%g) = %g, want %g", i+1, tt, out[2*n+i], want[i])
			}
		}
	}
	if s.Steps > 1000 {
		t.Errorf("stiff: %d steps, want < 1000", s.Steps)
	}
	t.Logf("stiff: %d steps", s.Steps)
	s = NewSolver(sys, RK45)
	err := s.Solve([]float64{1, 0}, nil, 0, ts, Options{}, out, nil)
	t.Logf("rk45: %v", err)
	if !errors.Is(err, ErrStiff) || s.Steps > 3000 {
		t.Errorf("rk45 on a stiff system: %d steps, err %v; want ErrStiff within 3000 steps", s.Steps, err)
	}
}

// TestNotStiff: the stiffness test does not fire on a long non-stiff
// solve (a harmonic oscillator over 1000 periods at tight tolerances,
// tens of thousands of steps), which stays accurate.
func TestNotStiff(t *testing.T) {
	sys := linear(2, 0, func(p, A []float64) { A[0], A[1], A[2], A[3] = 0, 1, -1, 0 }, nil)
	tEnd := 2000 * math.Pi
	s := NewSolver(sys, RK45)
	out := make([]float64, 2)
	if err := s.Solve([]float64{1, 0}, nil, 0, []float64{tEnd}, Options{RelTol: 1e-10, AbsTol: 1e-10}, out, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d steps", s.Steps)
	if s.Steps < 2*stiffEvery || !near(out[0], 1, 1e-5, 1e-5) || !near(out[1], 0, 1e-5, 1e-5) {
		t.Errorf("%d steps, y(T) = %v, want (1, 0) after more than %d steps", s.Steps, out, 2*stiffEvery)
	}
}

// TestDenseOutput: 10^4 output times of the linear chain are interpolated
// (the continuous extensions) against its closed form, states and
// sensitivities, in as many steps as a solve to the last time alone.
func TestDenseOutput(t *testing.T) {
	y0, p := []float64{2, 0.5}, []float64{1.3, 0.4}
	const N = 10000
	ts := make([]float64, N)
	for i := range ts {
		ts[i] = 8 * float64(i+1) / N
	}
	for _, m := range accuracy {
		s := NewSolver(chain(), m.m)
		if err := s.Solve(y0, p, 0, ts[N-1:], m.opt, make([]float64, 2), make([]float64, 8)); err != nil {
			t.Fatal(err)
		}
		alone := s.Steps
		out, sens := make([]float64, 2*N), make([]float64, 8*N)
		if err := s.Solve(y0, p, 0, ts, m.opt, out, sens); err != nil {
			t.Fatal(m.name, err)
		}
		if s.Steps != alone {
			t.Errorf("%s: %d steps for %d output times, %d for the last alone", m.name, s.Steps, N, alone)
		}
		worst := 0.0
		for n, tt := range ts {
			y, sv := chainExact(y0, p, tt)
			for i := 0; i < 2; i++ {
				worst = math.Max(worst, math.Abs(out[2*n+i]-y[i]))
				if !near(out[2*n+i], y[i], 3*m.rel, m.rel) {
					t.Fatalf("%s: y%d(%g) = %g, want %g", m.name, i+1, tt, out[2*n+i], y[i])
				}
				for j := 0; j < 4; j++ {
					if got := sens[8*n+4*i+j]; !near(got, sv[i][j], 30*m.rel, m.rel) {
						t.Fatalf("%s: dy%d(%g)/dtheta%d = %g, want %g", m.name, i+1, tt, j+1, got, sv[i][j])
					}
				}
			}
		}
		t.Logf("%s: %d steps, worst error %.2g", m.name, s.Steps, worst)
		// the continuous extension is of the method's order: a cubic
		// Hermite in rk45's place (no 5th coefficients) errs by 6.6e-6
		if bound := map[string]float64{"rk45": 2e-6, "stiff": 1e-4, "stiff tight": 3e-7}[m.name]; worst > bound {
			t.Errorf("%s: worst error %.2g of the interpolated states, want below %g", m.name, worst, bound)
		}
	}
}

// TestNaNFailsAtOnce: a right-hand side that is NaN at a finite state
// fails the solve at once (at t0, or at the first step that reaches it),
// instead of shrinking the step until it underflows.
func TestNaNFailsAtOnce(t *testing.T) {
	for _, from := range []float64{0, 0.5} {
		f := func(t float64, y, p, dy []float64) {
			dy[0] = -y[0]
			if t > from || from == 0 {
				dy[0] = math.NaN()
			}
		}
		sys := System{K: 1, F: f, Jac: func(t float64, y, p, dy, jy, jp, ft []float64) {
			f(t, y, p, dy)
			jy[0], ft[0] = -1, 0
		}}
		for _, m := range methods {
			s := NewSolver(sys, m.m)
			err := s.Solve([]float64{1}, nil, 0, []float64{1, 2}, Options{}, make([]float64, 2), nil)
			if !errors.Is(err, ErrNaN) || s.Steps > 20 {
				t.Errorf("%s, NaN from t = %g: %d steps, err %v; want ErrNaN within 20 steps", m.name, from, s.Steps, err)
			}
		}
	}
}

// TestCheckArgs: the arguments refused before the first step, each with
// its reason.
func TestCheckArgs(t *testing.T) {
	cases := []struct {
		t0   float64
		ts   []float64
		opt  Options
		want string // "" when accepted
	}{
		{0, []float64{1, 1, 2}, Options{}, ""},
		{0, []float64{1}, Options{RelTol: 1e-16, AbsTol: 1e-30, MaxSteps: 1}, ""},
		{0, []float64{1}, Options{RelTol: 1}, ""},
		{0, nil, Options{}, "no output times"},
		{0, []float64{0, 1}, Options{}, "first output time (0) is not after t0 (0)"},
		{2, []float64{1}, Options{}, "first output time (1) is not after t0 (2)"},
		{0, []float64{1, 3, 2}, Options{}, "output time 3 (2) is before output time 2 (3)"},
		{math.NaN(), []float64{1}, Options{}, "t0 is NaN"},
		{0, []float64{1, math.Inf(1)}, Options{}, "output time 2 is +Inf"},
		{0, []float64{1}, Options{RelTol: 1e-30}, "relative tolerance 1e-30 is outside [1e-16, 1]"},
		{0, []float64{1}, Options{RelTol: 2}, "relative tolerance 2 is outside"},
		{0, []float64{1}, Options{RelTol: -1e-6}, "relative tolerance -1e-06 is outside"},
		{0, []float64{1}, Options{AbsTol: -1}, "absolute tolerance -1 is not positive"},
		{0, []float64{1}, Options{AbsTol: math.Inf(1)}, "absolute tolerance +Inf"},
		{0, []float64{1}, Options{MaxSteps: -5}, "maximum number of steps -5 is not positive"},
	}
	for _, c := range cases {
		err := CheckArgs(c.t0, c.ts, c.opt)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v %v %+v: %v", c.t0, c.ts, c.opt, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v %v %+v: err %v, want %q", c.t0, c.ts, c.opt, err, c.want)
		}
	}
}

// TestRobertson is the classic stiff chemical kinetics problem, against
// Hairer and Wanner's reference values at t = 40.
func TestRobertson(t *testing.T) {
	f := func(t float64, y, p, dy []float64) {
		dy[0] = -0.04*y[0] + 1e4*y[1]*y[2]
		dy[2] = 3e7 * y[1] * y[1]
		dy[1] = -dy[0] - dy[2]
	}
	sys := System{K: 3, F: f, Jac: func(t float64, y, p, dy, jy, jp, ft []float64) {
		f(t, y, p, dy)
		jy[0], jy[1], jy[2] = -0.04, 1e4*y[2], 1e4*y[1]
		jy[6], jy[7], jy[8] = 0, 6e7*y[1], 0
		jy[3], jy[4], jy[5] = -jy[0]-jy[6], -jy[1]-jy[7], -jy[2]-jy[8]
		clear(ft)
	}}
	s := NewSolver(sys, Stiff)
	out := make([]float64, 3)
	if err := s.Solve([]float64{1, 0, 0}, nil, 0, []float64{40}, Options{RelTol: 1e-8, AbsTol: 1e-12}, out, nil); err != nil {
		t.Fatal(err)
	}
	want := []float64{0.7158270687, 9.185534764e-6, 0.2841637457}
	for i := range want {
		if !near(out[i], want[i], 1e-5, 0) {
			t.Errorf("y%d(40) = %.10g, want %.10g", i+1, out[i], want[i])
		}
	}
	t.Logf("Robertson: %d steps", s.Steps)
	if s.Steps > 5000 {
		t.Errorf("%d steps", s.Steps)
	}
}

// TestLotkaVolterra: states against a fixed-step RK4 with h = 1e-4, and
// sensitivities against central differences of tight solves.
func TestLotkaVolterra(t *testing.T) {
	ts := []float64{1, 2, 5, 10, 20}
	y0, p := []float64{30, 4}, []float64{0.55, 0.028, 0.8, 0.024}
	ref := rk4(lotka(), y0, p, 0, ts, 1e-4)
	for _, m := range methods {
		s := NewSolver(lotka(), m.m)
		out, sens := make([]float64, 2*len(ts)), make([]float64, 12*len(ts))
		if err := s.Solve(y0, p, 0, ts, Options{}, out, sens); err != nil {
			t.Fatal(m.name, err)
		}
		for i := range ref {
			if !near(out[i], ref[i], 1e-4, 1e-4) {
				t.Errorf("%s: state %d = %.8g, reference %.8g", m.name, i, out[i], ref[i])
			}
		}
		// finite differences of tight solves
		tight := Options{RelTol: 1e-11, AbsTol: 1e-11}
		theta := append(append([]float64(nil), y0...), p...)
		up, dn := make([]float64, 2*len(ts)), make([]float64, 2*len(ts))
		for j := range theta {
			h := 1e-5 * math.Max(1, math.Abs(theta[j]))
			th := append([]float64(nil), theta...)
			th[j] += h
			if err := s.Solve(th[:2], th[2:], 0, ts, tight, up, nil); err != nil {
				t.Fatal(err)
			}
			th[j] -= 2 * h
			if err := s.Solve(th[:2], th[2:], 0, ts, tight, dn, nil); err != nil {
				t.Fatal(err)
			}
			for n := range ts {
				for i := 0; i < 2; i++ {
					fd := (up[2*n+i] - dn[2*n+i]) / (2 * h)
					got := sens[12*n+6*i+j]
					if !near(got, fd, 2e-3, 1e-3) {
						t.Errorf("%s: dy%d(%g)/dtheta%d = %g, finite differences %g", m.name, i+1, ts[n], j+1, got, fd)
					}
				}
			}
		}
	}
}

func TestFailures(t *testing.T) {
	// y' = y^2 from 1 blows up at t = 1
	blow := System{K: 1, F: func(t float64, y, p, dy []float64) { dy[0] = y[0] * y[0] },
		Jac: func(t float64, y, p, dy, jy, jp, ft []float64) {
			dy[0], jy[0], ft[0] = y[0]*y[0], 2*y[0], 0
		}}
	for _, m := range methods {
		s := NewSolver(blow, m.m)
		out := make([]float64, 1)
		err := s.Solve([]float64{1}, nil, 0, []float64{2}, Options{MaxSteps: 100000}, out, nil)
		if !errors.Is(err, ErrStepSize) && !errors.Is(err, ErrOverflow) {
			t.Errorf("%s blow-up: err %v", m.name, err)
		}
		s = NewSolver(lotka(), m.m)
		out = make([]float64, 2)
		err = s.Solve([]float64{30, 4}, []float64{0.55, 0.028, 0.8, 0.024}, 0, []float64{100}, Options{MaxSteps: 10}, out, nil)
		if !errors.Is(err, ErrMaxSteps) {
			t.Errorf("%s max steps: err %v", m.name, err)
		}
		for _, ts := range [][]float64{{}, {0}, {2, 1}, {math.NaN()}, {-1}} {
			if err := s.Solve([]float64{30, 4}, []float64{0.55, 0.028, 0.8, 0.024}, 0, ts, Options{}, make([]float64, 2*len(ts)), nil); !errors.Is(err, ErrTimes) {
				t.Errorf("%s ts %v: err %v", m.name, ts, err)
			}
		}
		if err := s.Solve([]float64{math.NaN(), 4}, []float64{0.55, 0.028, 0.8, 0.024}, 0, []float64{1}, Options{}, make([]float64, 2), nil); err == nil {
			t.Errorf("%s: NaN initial state: no error", m.name)
		}
		// a NaN parameter makes every step fail, not panic
		err = s.Solve([]float64{30, 4}, []float64{math.NaN(), 0.028, 0.8, 0.024}, 0, []float64{1}, Options{}, make([]float64, 2), nil)
		if err == nil {
			t.Errorf("%s: NaN parameter: no error", m.name)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	ts := []float64{1, 2, 5}
	y0, p := []float64{30, 4}, []float64{0.55, 0.028, 0.8, 0.024}
	for _, m := range methods {
		s := NewSolver(lotka(), m.m)
		out, sens := make([]float64, 6), make([]float64, 36)
		if n := testing.AllocsPerRun(3, func() { _ = s.Solve(y0, p, 0, ts, Options{}, out, sens) }); n != 0 {
			t.Errorf("%s: %v allocations per solve", m.name, n)
		}
	}
}

// growth is y' = p y (a latent rate with a wide prior: e^(p t) passes the
// largest float64 at p t = 709.8).
func growth() System {
	return linear(1, 1, func(p, A []float64) { A[0] = p[0] }, func(p []float64, j int, D []float64) { D[0] = 1 })
}

// TestOverflow: a solution that grows past the largest float64 fails with
// ErrOverflow where it overflows (p t near 709.8), naming the state, in
// about as many steps as reaching that point takes, with and without
// sensitivities; a finite-time blow-up whose right-hand side overflows
// (y' = y^2) fails too, with ErrOverflow or ErrStepSize.
func TestOverflow(t *testing.T) {
	for _, m := range methods {
		for _, p := range []float64{100, 1000} {
			for _, sens := range []bool{false, true} {
				s := NewSolver(growth(), m.m)
				var sv []float64
				if sens {
					sv = make([]float64, 6)
				}
				err := s.Solve([]float64{1}, []float64{p}, 0, []float64{1, 5, 10}, Options{}, make([]float64, 3), sv)
				var at float64
				if !errors.Is(err, ErrOverflow) || !strings.Contains(err.Error(), "|y[1]| = ") {
					t.Fatalf("%s, p = %g, sens %v: err %v, want ErrOverflow naming y[1]", m.name, p, sens, err)
				}
				if _, e := fmt.Sscanf(err.Error(), "at t = %g:", &at); e != nil || !(at*p > 695 && at*p < 709.8) {
					t.Errorf("%s, p = %g: failed at t = %g (%v), want p t in [695, 709.8] (y in [1e302, 1.8e308])", m.name, p, at, err)
				}
				if s.Steps > 40000 {
					t.Errorf("%s, p = %g: %d steps", m.name, p, s.Steps)
				}
			}
		}
	}
	blow := System{K: 1, F: func(t float64, y, p, dy []float64) { dy[0] = y[0] * y[0] },
		Jac: func(t float64, y, p, dy, jy, jp, ft []float64) { dy[0], jy[0], ft[0] = y[0]*y[0], 2*y[0], 0 }}
	for _, m := range methods {
		s := NewSolver(blow, m.m)
		err := s.Solve([]float64{1}, nil, 0, []float64{2}, Options{}, make([]float64, 1), nil)
		if !errors.Is(err, ErrOverflow) && !errors.Is(err, ErrStepSize) || s.Steps > 40000 {
			t.Errorf("%s: y' = y^2: %d steps, err %v", m.name, s.Steps, err)
		}
	}
}

// TestInterrupt: a solve whose Done channel is closed stops at its next
// step with ErrInterrupted: at once when it was closed before (not even
// evaluating the right-hand side, whose Jacobian may be costly), and within
// 100 ms when it is closed during a solve of 10^9 steps (a fast
// oscillation over a long span; it would take minutes).
func TestInterrupt(t *testing.T) {
	calls := 0
	osc := linear(2, 0, func(p, A []float64) { calls++; A[0], A[1], A[2], A[3] = 0, 1, -1e8, 0 }, nil)
	osc.Jac = func(t float64, y, p, dy, jy, jp, ft []float64) {
		calls++
		dy[0], dy[1] = y[1], -1e8*y[0]
		jy[0], jy[1], jy[2], jy[3] = 0, 1, -1e8, 0
		clear(ft)
	}
	for _, m := range methods {
		s := NewSolver(osc, m.m)
		done := make(chan struct{})
		close(done)
		s.Done = done
		calls = 0
		err := s.Solve([]float64{1, 0}, nil, 0, []float64{1e6}, Options{MaxSteps: 1e9}, make([]float64, 2), nil)
		if !errors.Is(err, ErrInterrupted) || s.Steps != 0 || calls != 0 {
			t.Errorf("%s, closed before: %d steps, %d right-hand sides, err %v", m.name, s.Steps, calls, err)
		}
		done = make(chan struct{})
		s.Done = done
		var closed time.Time
		timer := time.AfterFunc(50*time.Millisecond, func() { closed = time.Now(); close(done) })
		err = s.Solve([]float64{1, 0}, nil, 0, []float64{1e6}, Options{MaxSteps: 1e9}, make([]float64, 2), nil)
		timer.Stop()
		if !errors.Is(err, ErrInterrupted) || closed.IsZero() {
			t.Fatalf("%s, closed during: %d steps, err %v", m.name, s.Steps, err)
		}
		if d := time.Since(closed); d > 100*time.Millisecond {
			t.Errorf("%s: stopped %v after Done was closed", m.name, d)
		}
		s.Done = nil // no channel: never interrupted
		if err := s.Solve([]float64{1, 0}, nil, 0, []float64{1e-3}, Options{}, make([]float64, 2), nil); err != nil {
			t.Errorf("%s: Done nil: %v", m.name, err)
		}
	}
}
