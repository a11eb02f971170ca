// Package ode solves initial value problems dy/dt = f(t, y, p) with
// forward sensitivities d y(t) / d (y0, p), for the language's ode_rk45
// and ode_bdf calls (package ir puts a Solver behind one tape node).
//
// Two methods, both with adaptive steps and error control on the
// weighted RMS norm of the local error estimate (component i scaled by
// atol + rtol max(|y_i|, |y_i'|)), and dense output. With at most
// LandOutputs (100) output times, each output time ends a step (a step
// that would pass it is shortened to land on it), so the states there are
// the method's own steps, as a step-by-step solver gives them; with more,
// the steps are chosen by the error control alone (only the last is
// shortened to end on the last output time) and the states at the output
// times in between are interpolated by each method's continuous extension,
// so that a dense grid of output times costs no more steps than its last
// time alone:
//
//   - RK45: Dormand and Prince's explicit 5(4) pair with FSAL and local
//     extrapolation (Hairer, Norsett and Wanner's DOPRI5 step control,
//     starting step, continuous extension of order 4 and stiffness test),
//     for non-stiff problems. A problem found stiff fails with ErrStiff:
//     as in DOPRI5, every 1000th accepted step (and every step once a test
//     has found it) tests whether h |lambda| is beyond the stability
//     boundary, and 15 such findings, never with 6 in a row against them,
//     make the problem stiff.
//   - Stiff: the modified Rosenbrock 2(3) pair of Shampine and Reichelt
//     (MATLAB's ode23s): L-stable, one LU factorisation of W = I - h d J
//     per step, J the exact Jacobian df/dy from System.Jac at the step's
//     start (a singular W rejects the step for a smaller one). The
//     language's ode_bdf uses it (Stan's ode_bdf is CVODES' variable-order
//     BDF; this is a different stiff method with the same role and
//     tolerances), with ode23s' continuous extension of order 2.
//
// Sensitivities are the augmented system of size K + K (K + P): S = d y /
// d (y0, p) obeys dS/dt = J_y S + [0 | J_p], S(t0) = [I | 0], and is
// integrated with y under the same error control. For the stiff method
// the W matrix of the augmented system is block diagonal with J_y in
// every block (the second derivatives that couple S to y are left out):
// the ode23s formula is a W-method, of order 2 for any W, and the blocks
// keep the stiff eigenvalues of the augmented system, which are J_y's.
//
// Failures (an initial state, or a right-hand side there, that is not
// finite; a right-hand side that is NaN at a finite state, which fails at
// once instead of shrinking the step; a step size that underflows; a
// solution that overflows float64 (ErrOverflow, naming the state); more
// than MaxSteps steps; stiffness found by RK45; arguments that CheckArgs
// refuses) are error values, most of them wrapping one of the Err
// variables; nothing panics. A solve's work is bounded by MaxSteps steps,
// and a Solver whose Done channel is closed stops before its first
// right-hand side or at its next step (ErrInterrupted: a run interrupted
// in the middle of a long solve). A Solver allocates its buffers once and
// allocates nothing per solve but for the error it returns.
package ode
