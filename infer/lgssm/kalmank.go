package lgssm

import (
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/internal/smallmat"
)

// multi is LinearGaussian's filter for a state of K > 1 components:
//
//	x_1 ~ N(A_1, Q_1),  x_t | x_{t-1} ~ N(A_t + B_t x_{t-1}, Q_t)  (B_t K x K),
//	log g_t(y_t | x_t) = a_t + b_t'v - v'C_t v / 2,  x_t = mp_t + Lp_t v,
//
// with Lp_t the lower Cholesky factor of the predicted covariance Pp_t (the
// quadratic is fitted in these whitened coordinates, C_t positive
// semi-definite). Each step probes the transition at K+1 points about the
// last filtered mean (x = mf + Lf o, Lf the filtered covariance's factor,
// o = 0 and the unit vectors: C_t = B_t Lf column by column) and checks
// it at two more; the covariance factor the Gaussian transition gives must
// be the same at all of them. The observations are probed at 1 + K +
// K(K+1)/2 points (v = 0, +-e_j, e_i + e_j) and checked at two more. Every
// array is allocated once: nothing in Filter, FFBS, LogDensity or StepsAt
// allocates.
type multi struct {
	g    msc.GaussianStateSpace
	T, K int

	// per step t: vectors at t*K, K x K matrices at t*K*K
	mp, mf            []float64
	Pp, Pf, Lp, B     []float64
	LqInv             []float64 // the inverse of the transition covariance's factor
	lqDet             []float64 // log det of that factor
	a, b, C           []float64 // the observations' quadratic, whitened
	logZ, stepsAtMean float64

	// the backward pass (lazy: after Filter, at the first FFBS, LogDensity,
	// StepsAt or Smooth)
	ready             bool
	LpInv, G, Ls, LsI []float64
	lsDet             []float64

	offT, offO       []float64 // probe offsets, nt x K and no x K
	nt, no           int
	prev, cur, mu, L []float64
	obs, traj        []float64
	w1, w2, w3, w4   []float64 // K x K scratch
	v1, v2, v3       []float64 // K scratch
}

// checkOffsets are the two check points' offsets, component j of check i
// checkOffsets[i](j): generic values, not on the fit's lattice.
var checkOffsets = [2]func(j int) float64{
	func(j int) float64 { return 2.5 * math.Cos(1.3*float64(j+1)) },
	func(j int) float64 { return -1.7 * math.Sin(0.9*float64(j)+0.4) },
}

func newMulti(g msc.GaussianStateSpace, T, K int) *multi {
	nt := K + 1 + len(checkOffsets)
	npair := K * (K - 1) / 2
	no := 1 + 2*K + npair + len(checkOffsets)
	m := &multi{g: g, T: T, K: K, nt: nt, no: no}
	vec := func() []float64 { return make([]float64, T*K) }
	mat := func() []float64 { return make([]float64, T*K*K) }
	m.mp, m.mf, m.b = vec(), vec(), vec()
	m.Pp, m.Pf, m.Lp, m.B, m.LqInv, m.C = mat(), mat(), mat(), mat(), mat(), mat()
	m.LpInv, m.G, m.Ls, m.LsI = mat(), mat(), mat(), mat()
	m.lqDet, m.a, m.lsDet = make([]float64, T), make([]float64, T), make([]float64, T)
	m.offT, m.offO = make([]float64, nt*K), make([]float64, no*K)
	for j := 0; j < K; j++ {
		m.offT[(1+j)*K+j] = 1
		m.offO[(1+2*j)*K+j] = 1
		m.offO[(2+2*j)*K+j] = -1
	}
	n := 1 + 2*K
	for i := 0; i < K; i++ {
		for j := i + 1; j < K; j++ {
			m.offO[n*K+i], m.offO[n*K+j] = 1, 1
			n++
		}
	}
	for c, f := range checkOffsets {
		for j := 0; j < K; j++ {
			m.offT[(K+1+c)*K+j] = f(j)
			m.offO[(n+c)*K+j] = f(j)
		}
	}
	np := max(nt, no)
	m.prev, m.cur, m.mu, m.L = make([]float64, np*K), make([]float64, np*K), make([]float64, np*K), make([]float64, np*K*K)
	m.obs, m.traj = make([]float64, np), make([]float64, T*K)
	m.w1, m.w2, m.w3, m.w4 = make([]float64, K*K), make([]float64, K*K), make([]float64, K*K), make([]float64, K*K)
	m.v1, m.v2, m.v3 = make([]float64, K), make([]float64, K), make([]float64, K)
	return m
}

// points writes centre + F o_i for each offset o_i (rows of off) into dst.
func (m *multi) points(centre, F, off, dst []float64, n int) {
	K := m.K
	for i := 0; i < n; i++ {
		o, d := off[i*K:(i+1)*K], dst[i*K:(i+1)*K]
		smallmat.MulVec(F, o, d, K)
		for j := range d {
			d[j] += centre[j]
		}
	}
}

// factor writes the lower Cholesky factor of the symmetric S into dst and
// reports whether S is positive definite.
func factor(S, dst []float64, K int) bool {
	copy(dst, S[:K*K])
	return smallmat.CholLower(dst, K)
}

// filter is LinearGaussian.Filter for K > 1 (the statics already set).
func (m *multi) filter() (float64, error) {
	K, KK, nt, no := m.K, m.K*m.K, m.nt, m.no
	m.ready = false
	m.g.ReserveParticles(max(nt, no))
	logZ, steps := 0.0, 0.0
	notPD := func(t int, what string) error {
		return &NotLinearError{Step: t, Reason: "the " + what + " covariance is not positive definite", Fatal: true}
	}
	for t := 0; t < m.T; t++ {
		vt, mt := t*K, t*KK
		Lf := m.w1
		if t > 0 {
			if !factor(m.Pf[mt-KK:mt], Lf, K) {
				return math.NaN(), notPD(t, "filtered")
			}
			m.points(m.mf[vt-K:vt], Lf, m.offT, m.prev, nt)
		} else {
			clear(m.prev[:nt*K])
		}
		m.g.Transition(t, m.prev[:nt*K], m.mu[:nt*K], m.L[:nt*KK])
		if !finite(m.mu[:nt*K]) || !finite(m.L[:nt*KK]) {
			return math.NaN(), &NotLinearError{Step: t, Reason: "the transition's moments are not finite", Fatal: true}
		}
		Lq := m.L[:KK]
		for k := 0; k < K; k++ {
			if !(Lq[k*K+k] > 0) {
				return math.Inf(-1), nil // a degenerate transition: no density
			}
			for j := k + 1; j < K; j++ {
				Lq[k*K+j] = 0 // the upper triangle is not read
			}
		}
		mu0 := m.mu[:K]
		Cm, Pp := m.w2, m.Pp[mt:mt+KK]
		if t > 0 {
			// Cm = B Lf, column j from the probe at mf + Lf e_j
			for j := 0; j < K; j++ {
				for r := 0; r < K; r++ {
					Cm[r*K+j] = m.mu[(1+j)*K+r] - mu0[r]
				}
			}
			tol := linearTol * scale(m.mu[:nt*K]) * (1 + scale(Cm))
			for i := K + 1; i < nt; i++ {
				smallmat.MulVec(Cm, m.offT[i*K:(i+1)*K], m.v1, K)
				for r := 0; r < K; r++ {
					if math.Abs(m.mu[i*K+r]-(mu0[r]+m.v1[r])) > tol*(1+scale(m.offT[i*K:(i+1)*K])) {
						return math.NaN(), &NotLinearError{Step: t, Reason: "the transition's mean is not affine in the previous state"}
					}
				}
			}
			smallmat.InvLower(Lf, m.w3, K)
			smallmat.Mul(Cm, m.w3, m.B[mt:mt+KK], K)
			smallmat.MulT(Cm, Cm, Pp, K)
		} else {
			clear(m.B[mt : mt+KK])
			clear(Pp)
		}
		qs := linearTol * scale(Lq)
		for i := 1; i < nt; i++ {
			Li := m.L[i*KK : (i+1)*KK]
			for r := 0; r < K; r++ {
				for c := 0; c <= r; c++ {
					if math.Abs(Li[r*K+c]-Lq[r*K+c]) > qs {
						return math.NaN(), &NotLinearError{Step: t, Reason: "the transition's covariance depends on the previous state"}
					}
				}
			}
		}
		smallmat.LowerLT(Lq, m.w4, K)
		for i := range Pp {
			Pp[i] += m.w4[i]
		}
		m.lqDet[t] = smallmat.InvLower(Lq, m.LqInv[mt:mt+KK], K)
		mp := m.mp[vt : vt+K]
		copy(mp, mu0)
		// the observations, probed about the predicted moments
		Lp := m.Lp[mt : mt+KK]
		if !factor(Pp, Lp, K) {
			return math.NaN(), notPD(t, "predicted")
		}
		m.points(mp, Lp, m.offO, m.cur, no)
		m.g.ObsLogDensity(t, m.cur[:no*K], m.obs[:no])
		obs := m.obs[:no]
		if !finite(obs) {
			for _, v := range obs {
				if math.IsNaN(v) {
					return math.NaN(), &NotLinearError{Step: t, Reason: "the observations' log density is NaN", Fatal: true}
				}
			}
			return math.NaN(), &NotLinearError{Step: t, Reason: "the observations' log density is not finite near the predicted state, so it is not a quadratic in the state"}
		}
		a, b, C := obs[0], m.b[vt:vt+K], m.C[mt:mt+KK]
		for j := 0; j < K; j++ {
			fp, fm := obs[1+2*j], obs[2+2*j]
			b[j] = (fp - fm) / 2
			C[j*K+j] = 2*a - fp - fm
		}
		n := 1 + 2*K
		for i := 0; i < K; i++ {
			for j := i + 1; j < K; j++ {
				c := a + b[i] + b[j] - C[i*K+i]/2 - C[j*K+j]/2 - obs[n]
				C[i*K+j], C[j*K+i] = c, c
				n++
			}
		}
		otol := linearTol * scale(obs)
		for i := n; i < no; i++ {
			v := m.offO[i*K : (i+1)*K]
			smallmat.SymMulVec(C, v, m.v1, K)
			if math.Abs(obs[i]-(a+smallmat.Dot(b, v)-smallmat.Dot(v, m.v1)/2)) > otol*(1+scale(v)*scale(v)) {
				return math.NaN(), &NotLinearError{Step: t, Reason: "the observations' log density is not a quadratic in the state (the observations are not Gaussian and linear in it)"}
			}
		}
		J := m.w3
		copy(J, C)
		for k := 0; k < K; k++ {
			J[k*K+k] += otol
		}
		if !smallmat.CholLower(J, K) {
			return math.NaN(), &NotLinearError{Step: t, Reason: "the observations' log density is convex, not concave, in the state"}
		}
		m.a[t] = a
		// update: N(0, I) times exp(a + b'v - v'Cv/2) in v
		copy(J, C)
		for k := 0; k < K; k++ {
			J[k*K+k]++
		}
		if !smallmat.CholLower(J, K) {
			return math.NaN(), notPD(t, "filtered")
		}
		Ji := m.w4
		ldJ := smallmat.InvLower(J, Ji, K) // Ji = Lj^-1
		smallmat.LowerMulVec(Ji, b, m.v1, K)
		smallmat.LowerTMulVec(Ji, m.v1, m.v2, K) // w = J^-1 b
		w := m.v2
		logZ += a + smallmat.Dot(b, w)/2 - ldJ
		smallmat.LowerMulVec(Lp, w, m.v3, K)
		mf := m.mf[vt : vt+K]
		for k := range mf {
			mf[k] = mp[k] + m.v3[k]
		}
		smallmat.MulT(Lp, Ji, m.w2, K) // W = Lp Lj^-T
		smallmat.MulT(m.w2, m.w2, m.Pf[mt:mt+KK], K)
		// the step terms at x0 = the filtered means (the transition's mean
		// at x0_{t-1} = mf[t-1] is mp)
		smallmat.SymMulVec(C, w, m.v1, K)
		ob := a + smallmat.Dot(b, w) - smallmat.Dot(w, m.v1)/2
		steps += m.transLog(t, m.v3) + ob
	}
	m.logZ, m.stepsAtMean = logZ, steps
	return logZ, nil
}

// transLog is log N(d; 0, Q_t) for the deviation d from the transition's
// mean (v1 is overwritten).
func (m *multi) transLog(t int, d []float64) float64 {
	K := m.K
	smallmat.LowerMulVec(m.LqInv[t*K*K:(t+1)*K*K], d, m.v1, K)
	return -0.5*smallmat.Dot(m.v1, m.v1) - m.lqDet[t] - float64(K)*halfLogTwoPi
}

// backward computes, after filter, the backward pass's gains G_t =
// Pf_t B' Pp_{t+1}^-1 and the factors Ls_t of the covariances of x_t given
// x_{t+1} (Pf_t - G Pp_{t+1} G'), and Lp^-1.
func (m *multi) backward() {
	if m.ready {
		return
	}
	K, KK := m.K, m.K*m.K
	for t := 0; t < m.T; t++ {
		smallmat.InvLower(m.Lp[t*KK:(t+1)*KK], m.LpInv[t*KK:(t+1)*KK], K)
	}
	for t := 0; t < m.T; t++ {
		mt := t * KK
		S, Pf := m.w1, m.Pf[mt:mt+KK]
		copy(S, Pf)
		if t < m.T-1 {
			M, inv := m.w2, m.LpInv[mt+KK:mt+2*KK]
			smallmat.Mul(m.B[mt+KK:mt+2*KK], Pf, m.w3, K)
			smallmat.Mul(inv, m.w3, M, K) // M = Lp^-1 B Pf
			smallmat.TMul(M, inv, m.G[mt:mt+KK], K)
			smallmat.TMul(M, M, m.w3, K)
			for i := range S {
				S[i] -= m.w3[i]
			}
		}
		for i := 0; i < K; i++ { // symmetric to rounding
			for j := 0; j < i; j++ {
				s := (S[i*K+j] + S[j*K+i]) / 2
				S[i*K+j], S[j*K+i] = s, s
			}
		}
		Ls := m.Ls[mt : mt+KK]
		jit := scale(S) * 1e-14
		for try := 0; !factor(S, Ls, K); try++ {
			// rounding made a (near) deterministic component's conditional
			// variance non-positive: the smallest jitter that factors, up
			// to 1e-4 of S's scale; beyond that (or a non-finite S) the
			// draws are NaN, which the caller reports
			if try == 10 || !finite(S) {
				for i := range Ls {
					Ls[i] = math.NaN()
				}
				break
			}
			for k := 0; k < K; k++ {
				S[k*K+k] += jit
			}
			jit *= 10
		}
		m.lsDet[t] = smallmat.InvLower(Ls, m.LsI[mt:mt+KK], K)
	}
	m.ready = true
}

// condMean writes the mean of x_t given x_{t+1} = next (t < T-1) into dst.
func (m *multi) condMean(t int, next, dst []float64) {
	K := m.K
	copy(dst, m.mf[t*K:(t+1)*K])
	if t == m.T-1 {
		return
	}
	for k := 0; k < K; k++ {
		m.v1[k] = next[k] - m.mp[(t+1)*K+k]
	}
	smallmat.MulVec(m.G[t*K*K:(t+1)*K*K], m.v1, m.v2, K)
	for k := range dst {
		dst[k] += m.v2[k]
	}
}

// ffbs is LinearGaussian.FFBS for K > 1.
func (m *multi) ffbs(rng *rand.Rand, z, eps []float64, states []int) float64 {
	m.backward()
	K := m.K
	lq := 0.0
	for t := m.T - 1; t >= 0; t-- {
		vt := t * K
		var next []float64
		if t < m.T-1 {
			next = m.traj[vt+K : vt+2*K] // x_{t+1}, drawn at the last step
		}
		x := m.traj[vt : vt+K]
		m.condMean(t, next, m.v3)
		e := eps[vt : vt+K]
		for k := range e {
			e[k] = rng.NormFloat64()
		}
		smallmat.LowerMulVec(m.Ls[t*K*K:(t+1)*K*K], e, x, K)
		for k := range x {
			x[k] += m.v3[k]
			z[states[vt+k]] = x[k]
		}
		lq += -0.5*smallmat.Dot(e, e) - m.lsDet[t] - float64(K)*halfLogTwoPi
	}
	return lq
}

// gather copies the states of row z at steps t and t+1 (t+1 < T) into
// m.prev's first 2K values.
func (m *multi) gather(z []float64, states []int, t int) (x, next []float64) {
	K := m.K
	x, next = m.prev[:K], m.prev[K:2*K]
	for k := 0; k < K; k++ {
		x[k] = z[states[t*K+k]]
		if t < m.T-1 {
			next[k] = z[states[(t+1)*K+k]]
		}
	}
	return x, next
}

// logDensity is LinearGaussian.LogDensity for K > 1.
func (m *multi) logDensity(z []float64, states []int) float64 {
	m.backward()
	K := m.K
	lq := 0.0
	for t := m.T - 1; t >= 0; t-- {
		x, next := m.gather(z, states, t)
		m.condMean(t, next, m.v3)
		for k := range x {
			m.v3[k] = x[k] - m.v3[k]
		}
		smallmat.LowerMulVec(m.LsI[t*K*K:(t+1)*K*K], m.v3, m.v2, K)
		lq += -0.5*smallmat.Dot(m.v2, m.v2) - m.lsDet[t] - float64(K)*halfLogTwoPi
	}
	return lq
}

// stepsAt is LinearGaussian.StepsAt for K > 1 (x in the order of States).
func (m *multi) stepsAt(x []float64) float64 {
	m.backward()
	K, KK := m.K, m.K*m.K
	s := 0.0
	for t := 0; t < m.T; t++ {
		xt := x[t*K : (t+1)*K]
		// the transition's mean mp_t + B_t (x_{t-1} - mf_{t-1})
		d := m.v3
		for k := range d {
			d[k] = xt[k] - m.mp[t*K+k]
		}
		if t > 0 {
			for k := 0; k < K; k++ {
				m.v1[k] = x[(t-1)*K+k] - m.mf[(t-1)*K+k]
			}
			smallmat.MulVec(m.B[t*KK:(t+1)*KK], m.v1, m.v2, K)
			for k := range d {
				d[k] -= m.v2[k]
			}
		}
		s += m.transLog(t, d)
		// the observations at v = Lp^-1 (x_t - mp_t)
		for k := range d {
			d[k] = xt[k] - m.mp[t*K+k]
		}
		smallmat.LowerMulVec(m.LpInv[t*KK:(t+1)*KK], d, m.v2, K)
		smallmat.SymMulVec(m.C[t*KK:(t+1)*KK], m.v2, m.v1, K)
		s += m.a[t] + smallmat.Dot(m.b[t*K:(t+1)*K], m.v2) - smallmat.Dot(m.v2, m.v1)/2
	}
	return s
}

// smooth is LinearGaussian.Smooth for K > 1: the smoothing means and
// variances of each component, in the order of States.
func (m *multi) smooth(mean, vr []float64) {
	m.backward()
	K, KK, T := m.K, m.K*m.K, m.T
	Ps, next := m.w1, m.w4
	copy(Ps, m.Pf[(T-1)*KK:])
	copy(mean[(T-1)*K:], m.mf[(T-1)*K:])
	for k := 0; k < K; k++ {
		vr[(T-1)*K+k] = Ps[k*K+k]
	}
	for t := T - 2; t >= 0; t-- {
		m.condMean(t, mean[(t+1)*K:(t+2)*K], mean[t*K:(t+1)*K])
		// Ps_t = Pf_t + G (Ps_{t+1} - Pp_{t+1}) G'
		G := m.G[t*KK : (t+1)*KK]
		for i := range next {
			next[i] = Ps[i] - m.Pp[(t+1)*KK+i]
		}
		smallmat.Mul(G, next, m.w2, K)
		smallmat.MulT(m.w2, G, m.w3, K)
		for i := range Ps {
			Ps[i] = m.Pf[t*KK+i] + m.w3[i]
		}
		for k := 0; k < K; k++ {
			vr[t*K+k] = Ps[k*K+k]
		}
	}
}
