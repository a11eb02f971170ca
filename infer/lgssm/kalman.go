package lgssm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/infer/msc"
)

// probeOffsets are the points, in units of the probe scale around the
// probe's centre, at which each step's transition moments and observation
// log density are evaluated: the first three fit the affine mean and the
// quadratic, the other two verify the fit.
var probeOffsets = [nProbe]float64{0, 1, -1, 2.5, -1.7}

const nProbe = 5

// linearTol is the relative tolerance of the probes' verification.
const linearTol = 1e-9

const halfLogTwoPi = 0.9189385332046727

// NotLinearError says why a model's state does not enter linearly and
// Gaussian given its statics, at the step and the statics where a probe
// found it.
type NotLinearError struct {
	Step   int    // 0-based; -1 when the reason concerns no one step
	Reason string // "the transition's mean is not affine in x[t-1]", ...
	Fatal  bool   // non-finite values rather than a failed fit
}

func (e *NotLinearError) Error() string {
	if e.Step < 0 {
		return e.Reason
	}
	return fmt.Sprintf("%s at step %d", e.Reason, e.Step+1)
}

// LinearGaussian integrates the state of an msc.StaticStateSpace out
// when, given the statics theta, the transition is Gaussian with a mean
// affine in x_{t-1} and an sd that does not depend on it, and each step's
// observation log density is a concave quadratic in x_t:
//
//	x_1 ~ N(A_1, Q_1),  x_t | x_{t-1} ~ N(A_t + B_t x_{t-1}, Q_t),
//	log g_t(y_t | x_t) = a_t + b_t u - c_t u^2 / 2,  u = x_t - centre_t, c_t >= 0.
//
// Filter probes these coefficients at the statics, nProbe particles a
// step (the transition's affine mean and constant sd fitted and checked
// at all of them, the quadratic fitted at three and checked at two, to
// the relative tolerance linearTol: a failed check is an error, never
// carried on), while it runs the Kalman filter in information form (the
// quadratic as the observation's potential), centred at each step's
// predicted mean. Then
//
//	log p(theta, y) = [log p(theta, x0, y) - sum_t step terms at x0] + log Z,
//
// with x0 the filtered means and log Z the filter's log marginal of the
// Gaussian chain. FFBS draws the states from p(x | theta, y) by
// forward-filtering backward-sampling. A state of K > 1 components per
// step is filtered by the matrix form (multi, kalmank.go); the methods'
// state vectors (StepsAt's x, FFBS's eps, Smooth's outputs) then hold
// component k of step t at t*K+k. A LinearGaussian is not safe for
// concurrent use; nothing in the per-step loops allocates.
type LinearGaussian struct {
	ss      msc.StaticStateSpace
	g       msc.GaussianStateSpace
	target  msc.Target
	T, d    int
	statics []int
	states  []int

	// at the statics of the last Filter: the transition (A, B, Q: mean
	// A + B x_{t-1}, variance Q), the observations' quadratic (a, b, c)
	// about the predicted mean, and the filter's predicted (mp, pp) and
	// filtered (mf, pf) moments
	A, B, Q, a, b, c  []float64
	mp, pp, mf, pf    []float64
	logZ, stepsAtMean float64
	prev, cur, mu, sd [nProbe]float64
	obs               [nProbe]float64
	one               [1]float64
	row               []float64
	lastTheta         []float64
	mv                *multi // the filter of a state of K > 1 components; nil for K = 1
}

// NewLinearGaussian returns the evaluator for p's statics (it does not
// check that the model qualifies: DetectLinear does).
func NewLinearGaussian(p *msc.Problem) (*LinearGaussian, error) {
	if err := p.Check("the Kalman marginal", msc.CapStatics|msc.CapLogJoint); err != nil {
		return nil, err
	}
	given := p.Statics.Given()
	g, ok := given.(msc.GaussianStateSpace)
	if !ok {
		return nil, &NotLinearError{Step: -1, Reason: "the transition is not Gaussian"}
	}
	T := given.Len()
	k := &LinearGaussian{ss: p.Statics, g: g, target: p.Target, T: T, d: p.Dim,
		statics: p.Statics.Statics(), states: p.Statics.States(),
		row: make([]float64, p.Dim), lastTheta: make([]float64, len(p.Statics.Statics())),
	}
	if K := given.StateDim(); K > 1 {
		k.mv = newMulti(g, T, K)
		return k, nil
	}
	mk := func() []float64 { return make([]float64, T) }
	k.A, k.B, k.Q, k.a, k.b, k.c, k.mp, k.pp, k.mf, k.pf = mk(), mk(), mk(), mk(), mk(), mk(), mk(), mk(), mk(), mk()
	return k, nil
}

// scale is the tolerance's scale of values v: the largest of 1 and the |v_i|.
func scale(v []float64) float64 {
	s := 1.0
	for _, x := range v {
		if x > s {
			s = x
		} else if -x > s {
			s = -x
		}
	}
	return s
}

// finite reports whether every value is finite.
func finite(v []float64) bool {
	for _, x := range v {
		if x-x != 0 { // NaN or an infinity
			return false
		}
	}
	return true
}

// Filter sets the statics to theta, probes each step's coefficients about
// the filter's moments and runs the Kalman filter. It returns log Z, the
// log marginal of the Gaussian chain (the state integrated out of the
// step terms), or a *NotLinearError.
func (k *LinearGaussian) Filter(theta []float64) (float64, error) {
	copy(k.lastTheta, theta)
	k.ss.SetStatics(theta)
	if k.mv != nil {
		return k.mv.filter()
	}
	k.g.ReserveParticles(nProbe)
	logZ, steps := 0.0, 0.0
	for t := 0; t < k.T; t++ {
		// the transition, probed about the last filtered moments
		h := 1.0
		if t > 0 {
			h = math.Sqrt(k.pf[t-1])
			for i, o := range probeOffsets {
				k.prev[i] = k.mf[t-1] + h*o
			}
		}
		k.g.Transition(t, k.prev[:], k.mu[:], k.sd[:])
		if !finite(k.mu[:]) || !finite(k.sd[:]) {
			return math.NaN(), &NotLinearError{Step: t, Reason: "the transition's moments are not finite", Fatal: true}
		}
		sd0 := k.sd[0]
		if !(sd0 > 0) {
			return math.Inf(-1), nil // a degenerate transition: no density
		}
		B := 0.0
		if t > 0 {
			B = (k.mu[1] - k.mu[2]) / (k.prev[1] - k.prev[2])
		}
		A := k.mu[0] - B*k.prev[0]
		if t == 0 {
			A = k.mu[0]
		}
		tol := linearTol * scale(k.mu[:])
		for i := range nProbe {
			if math.Abs(k.mu[i]-(A+B*k.prev[i])) > tol*(1+math.Abs(B)*h) {
				return math.NaN(), &NotLinearError{Step: t, Reason: "the transition's mean is not affine in the previous state"}
			}
			if math.Abs(k.sd[i]-sd0) > linearTol*sd0 {
				return math.NaN(), &NotLinearError{Step: t, Reason: "the transition's sd depends on the previous state"}
			}
		}
		k.A[t], k.B[t], k.Q[t] = A, B, sd0*sd0
		// predict
		mp, pp := A, sd0*sd0
		if t > 0 {
			mp = A + B*k.mf[t-1]
			pp = B*B*k.pf[t-1] + k.Q[t]
		}
		// the observations, probed about the predicted moments
		hs := math.Sqrt(pp)
		for i, o := range probeOffsets {
			k.cur[i] = mp + hs*o
		}
		k.g.ObsLogDensity(t, k.cur[:], k.obs[:])
		if !finite(k.obs[:]) {
			for _, v := range k.obs {
				if math.IsNaN(v) {
					return math.NaN(), &NotLinearError{Step: t, Reason: "the observations' log density is NaN", Fatal: true}
				}
			}
			return math.NaN(), &NotLinearError{Step: t, Reason: "the observations' log density is not finite near the predicted state, so it is not a quadratic in the state"}
		}
		a := k.obs[0]
		b := (k.obs[1] - k.obs[2]) / (2 * hs)
		c := (2*a - k.obs[1] - k.obs[2]) / (hs * hs)
		otol := linearTol * scale(k.obs[:])
		if c < 0 {
			if -c*hs*hs > otol {
				return math.NaN(), &NotLinearError{Step: t, Reason: "the observations' log density is convex, not concave, in the state"}
			}
			c = 0
		}
		for i := 3; i < nProbe; i++ {
			u := hs * probeOffsets[i]
			if math.Abs(k.obs[i]-(a+b*u-c*u*u/2)) > otol {
				return math.NaN(), &NotLinearError{Step: t, Reason: "the observations' log density is not a quadratic in the state (the observations are not Gaussian and linear in it)"}
			}
		}
		k.a[t], k.b[t], k.c[t] = a, b, c
		// update: N(mp, pp) times exp(a + b u - c u^2 / 2), u = x - mp
		J := 1/pp + c
		logZ += a + b*b/(2*J) - 0.5*math.Log1p(pp*c)
		k.mp[t], k.pp[t] = mp, pp
		k.mf[t], k.pf[t] = mp+b/J, 1/J
		// the step terms at x0 = the filtered means (the transition's
		// mean at x0_{t-1} = mf[t-1] is mp)
		u := b / J
		steps += normLog(k.mf[t], mp, k.Q[t]) + a + b*u - c*u*u/2
	}
	k.logZ, k.stepsAtMean = logZ, steps
	return logZ, nil
}

// normLog is log N(x; m, v) for the variance v.
func normLog(x, m, v float64) float64 {
	d := x - m
	return -0.5*d*d/v - 0.5*math.Log(v) - halfLogTwoPi
}

// StepsAt is the sum of the step terms (transition and observations, by
// the coefficients of the last Filter) at the trajectory x (in the order
// of the States: component k at step t at t*K+k).
func (k *LinearGaussian) StepsAt(x []float64) float64 {
	if k.mv != nil {
		return k.mv.stepsAt(x)
	}
	s := 0.0
	for t := 0; t < k.T; t++ {
		m := k.A[t]
		if t > 0 {
			m += k.B[t] * x[t-1]
		}
		u := x[t] - k.mp[t]
		s += normLog(x[t], m, k.Q[t]) + k.a[t] + k.b[t]*u - k.c[t]*u*u/2
	}
	return s
}

// Means writes the filtered means of the last Filter into the states of
// row z (the trajectory x0 at which the log joint is evaluated).
func (k *LinearGaussian) Means(z []float64) {
	if k.mv != nil {
		for i, p := range k.states {
			z[p] = k.mv.mf[i]
		}
		return
	}
	for t, p := range k.states {
		z[p] = k.mf[t]
	}
}

// Rest is what the log joint at the filtered means needs added to give
// log p(theta, y): log Z minus the step terms there.
func (k *LinearGaussian) Rest() float64 {
	if k.mv != nil {
		return k.mv.logZ - k.mv.stepsAtMean
	}
	return k.logZ - k.stepsAtMean
}

// FFBS draws the states from p(x | theta, y) by backward sampling after
// Filter, with the standard normal noise eps (one per state, in the order
// of the States, written), into the states of row z, and returns their log
// density.
func (k *LinearGaussian) FFBS(rng *rand.Rand, z, eps []float64) float64 {
	if k.mv != nil {
		return k.mv.ffbs(rng, z, eps, k.states)
	}
	T := k.T
	lq := 0.0
	next := 0.0
	for t := T - 1; t >= 0; t-- {
		m, v := k.mf[t], k.pf[t]
		if t < T-1 {
			G := k.pf[t] * k.B[t+1] / k.pp[t+1]
			m += G * (next - k.mp[t+1])
			v = k.pf[t] * k.Q[t+1] / k.pp[t+1]
		}
		e := rng.NormFloat64()
		eps[t] = e
		x := m + math.Sqrt(v)*e
		z[k.states[t]] = x
		lq += -0.5*e*e - 0.5*math.Log(v) - halfLogTwoPi
		next = x
	}
	return lq
}

// LogDensity is log p(x | theta, y) of the states of row z, after Filter
// at theta.
func (k *LinearGaussian) LogDensity(z []float64) float64 {
	if k.mv != nil {
		return k.mv.logDensity(z, k.states)
	}
	T := k.T
	lq := 0.0
	for t := T - 1; t >= 0; t-- {
		m, v := k.mf[t], k.pf[t]
		if t < T-1 {
			G := k.pf[t] * k.B[t+1] / k.pp[t+1]
			m += G * (z[k.states[t+1]] - k.mp[t+1])
			v = k.pf[t] * k.Q[t+1] / k.pp[t+1]
		}
		lq += normLog(z[k.states[t]], m, v)
	}
	return lq
}

// Smooth writes the smoothing means and variances of the states given
// theta and y after Filter (the Rauch-Tung-Striebel recursions), in the
// order of the States.
func (k *LinearGaussian) Smooth(mean, vr []float64) {
	if k.mv != nil {
		k.mv.smooth(mean, vr)
		return
	}
	T := k.T
	mean[T-1], vr[T-1] = k.mf[T-1], k.pf[T-1]
	for t := T - 2; t >= 0; t-- {
		G := k.pf[t] * k.B[t+1] / k.pp[t+1]
		mean[t] = k.mf[t] + G*(mean[t+1]-k.mp[t+1])
		vr[t] = k.pf[t] + G*G*(vr[t+1]-k.pp[t+1])
	}
}

// LogMarginal is log p(theta, y) at one theta (a row of the latents is
// built at the filtered means).
func (k *LinearGaussian) LogMarginal(theta []float64) (float64, error) {
	lz, err := k.Filter(theta)
	if err != nil || math.IsInf(lz, -1) {
		return lz, err
	}
	for i, p := range k.statics {
		k.row[p] = theta[i]
	}
	k.Means(k.row)
	k.target.LogJoint(k.row, k.one[:])
	return k.one[0] + k.Rest(), nil
}

// DetectDraws are the statics (unconstrained, N(0, detectSD^2) with a
// fixed seed) at which DetectLinear probes a model.
const (
	DetectDraws = 4
	detectSD    = 1.5
)

// DetectLinear decides whether the state of p's statics-and-state
// structure enters linearly and Gaussian given the statics (so that a
// Kalman filter integrates it out): at DetectDraws random statics it
// probes every step (Filter) and checks that the log joint minus the step
// terms does not depend on the state (at the filtered means and at a draw
// of the states). It returns nil, or the reason the model does not
// qualify.
func DetectLinear(p *msc.Problem) error {
	k, err := NewLinearGaussian(p)
	if err != nil {
		return err
	}
	p.Target.Reserve(1)
	rng := rand.New(rand.NewPCG(0x6b616c, 0x6d616e))
	theta := make([]float64, len(k.statics))
	eps := make([]float64, len(k.states))
	var lj [1]float64
	tried := 0
	for range DetectDraws {
		for i := range theta {
			theta[i] = detectSD * rng.NormFloat64()
		}
		lz, err := k.Filter(theta)
		if err != nil {
			return err
		}
		if math.IsInf(lz, -1) {
			continue
		}
		tried++
		for i, pos := range k.statics {
			k.row[pos] = theta[i]
		}
		k.Means(k.row)
		k.target.LogJoint(k.row, lj[:])
		rest0 := lj[0] + k.Rest() - lz // less the steps at the means
		k.FFBS(rng, k.row, eps)
		x := make([]float64, len(k.states))
		for t, pos := range k.states {
			x[t] = k.row[pos]
		}
		k.target.LogJoint(k.row, lj[:])
		steps := k.StepsAt(x)
		rest1 := lj[0] - steps
		if !(math.Abs(rest1-rest0) <= 1e-7*(1+math.Abs(lj[0])+math.Abs(steps))) {
			return &NotLinearError{Step: -1, Reason: fmt.Sprintf("the log joint's dependence on the state is not the Gaussian steps' (the log joint less the steps' terms moved by %.3g between two trajectories)", rest1-rest0)}
		}
	}
	if tried == 0 {
		return &NotLinearError{Step: -1, Reason: "the transition's sd was zero at every probed value of the statics"}
	}
	return nil
}
