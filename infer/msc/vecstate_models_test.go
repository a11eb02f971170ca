package msc

import (
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/internal/resample"
	"github.com/mscppl/mscppl/internal/smallmat"
	"gonum.org/v1/gonum/mat"
)

// Hand-written state-space models with K-dimensional states, and their
// exact answers by dense Gaussian algebra (gonum), for the tests of the
// vector CSMC.

// the observations of the tests' local linear trends
var (
	lltY = []float64{0.6, 1.4, 1.1, 2.3, 2.2}
	mixY = []float64{0.4, 0.9, 1.8, 1.6, 2.7}
)

// vlayout is a layout of T x K states: colMajor puts component k of step t
// at k*T + t (K latent vectors of length T), else t*K + k (a matrix[T, K]
// row by row).
type vlayout struct {
	T, K     int
	colMajor bool
}

func (l vlayout) Len() int      { return l.T }
func (l vlayout) StateDim() int { return l.K }
func (l vlayout) Index(t, k int) int {
	if l.colMajor {
		return k*l.T + t
	}
	return t*l.K + k
}

// lgvec is a linear-Gaussian state-space model with K-dimensional states
// and scalar observations:
//
//	x_1 ~ N(m0, L0 L0'),  x_t = F x_{t-1} + Lq w_t,  y_t = H x_t + r e_t,
//
// w_t, e_t standard normal. With scale set, the transition factor of
// particle i is Lq times (1 + scale(i, x_{t-1})), which makes the
// transition heteroscedastic (then the dense answers do not apply).
type lgvec struct {
	vlayout
	y      []float64
	F, Lq  []float64 // K x K, Lq lower
	m0, L0 []float64 // K, K x K lower
	H      []float64 // K
	r      float64
	scale  func(i int, prev []float64) float64
}

// newLLT is the local linear trend: level_t = level_{t-1} + slope_{t-1} +
// e1, slope_t = slope_{t-1} + e2, y_t = level_t + e0.
func newLLT(y []float64, colMajor bool) *lgvec {
	return &lgvec{
		vlayout: vlayout{T: len(y), K: 2, colMajor: colMajor}, y: y,
		F: []float64{1, 1, 0, 1}, Lq: []float64{0.4, 0, 0, 0.25},
		m0: []float64{0.3, -0.2}, L0: []float64{1, 0, 0.3, 0.6},
		H: []float64{1, 0}, r: 0.5,
	}
}

func (m *lgvec) ReserveParticles(int) {}

func (m *lgvec) Transition(t int, prev, mean, chol []float64) {
	K := m.K
	n := len(mean) / K
	for i := 0; i < n; i++ {
		mi, ci := mean[i*K:(i+1)*K], chol[i*K*K:(i+1)*K*K]
		if t == 0 {
			copy(mi, m.m0)
			copy(ci, m.L0)
			continue
		}
		p := prev[i*K : (i+1)*K]
		for k := range mi {
			s := 0.0
			for l := range p {
				s += m.F[k*K+l] * p[l]
			}
			mi[k] = s
		}
		f := 1.0
		if m.scale != nil {
			f += m.scale(i, p)
		}
		for j, v := range m.Lq {
			ci[j] = f * v
		}
	}
}

func (m *lgvec) ObsLogDensity(t int, cur, out []float64) {
	K := m.K
	c, ir := -math.Log(m.r)-0.5*ln2Pi, 1/m.r
	for i := range out {
		d := (m.y[t] - smallmat.Dot(m.H, cur[i*K:(i+1)*K])) * ir
		out[i] = -0.5*d*d + c
	}
}

// TransitionLogDensity evaluates the Gaussian transition (the model is
// also a GeneralStateSpace).
func (m *lgvec) TransitionLogDensity(t int, prev, cur, out []float64) {
	K := m.K
	n := len(out)
	mean, chol := make([]float64, n*K), make([]float64, n*K*K)
	m.Transition(t, prev, mean, chol)
	u := make([]float64, K)
	for i := range out {
		d := make([]float64, K)
		for k := range d {
			d[k] = cur[i*K+k] - mean[i*K+k]
		}
		L := chol[i*K*K : (i+1)*K*K]
		ss := lowerSolveNormSq(L, d, u, K)
		ld := 0.0
		for k := 0; k < K; k++ {
			ld += math.Log(L[k*K+k])
		}
		out[i] = -0.5*ss - ld - 0.5*float64(K)*ln2Pi
	}
}

// denseLG returns the posterior mean (T*K, step by step: t*K + k) and the
// log evidence of the linear-Gaussian model x_1 = b_1 + L_1 w_1,
// x_t = F x_{t-1} + b_t + L_t w_t, y_t = H x_t + r e_t, by dense algebra:
// x = mu + G w with G block lower triangular (G_ts = F^(t-s) L_s), prior
// covariance G G', and Gaussian conditioning on y = Hb x + r e.
func denseLG(F []float64, b, L [][]float64, H []float64, r float64, y []float64) (mean []float64, logZ float64, cov *mat.SymDense) {
	T, K := len(y), len(H)
	n := T * K
	Fm := mat.NewDense(K, K, F)
	mu := mat.NewVecDense(n, nil)
	G := mat.NewDense(n, n, nil)
	prevMu := mat.NewVecDense(K, nil)
	for t := 0; t < T; t++ {
		var m mat.VecDense
		if t == 0 {
			m.CloneFromVec(mat.NewVecDense(K, b[0]))
		} else {
			m.MulVec(Fm, prevMu)
			m.AddVec(&m, mat.NewVecDense(K, b[t]))
		}
		for k := 0; k < K; k++ {
			mu.SetVec(t*K+k, m.AtVec(k))
		}
		prevMu = &m
		// G_ts = F^(t-s) L_s
		for s := 0; s <= t; s++ {
			blk := mat.DenseCopyOf(mat.NewDense(K, K, L[s]))
			for j := s; j < t; j++ {
				var nb mat.Dense
				nb.Mul(Fm, blk)
				blk = &nb
			}
			for i := 0; i < K; i++ {
				for j := 0; j < K; j++ {
					G.Set(t*K+i, s*K+j, blk.At(i, j))
				}
			}
		}
	}
	var C mat.Dense
	C.Mul(G, G.T())
	Hb := mat.NewDense(T, n, nil)
	for t := 0; t < T; t++ {
		for k := 0; k < K; k++ {
			Hb.Set(t, t*K+k, H[k])
		}
	}
	var HC, Sy mat.Dense
	HC.Mul(Hb, &C) // T x n
	Sy.Mul(&HC, Hb.T())
	for t := 0; t < T; t++ {
		Sy.Set(t, t, Sy.At(t, t)+r*r)
	}
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(T, Sy.RawMatrix().Data)) {
		panic("not PD")
	}
	var Hmu, resid, sol mat.VecDense
	Hmu.MulVec(Hb, mu)
	resid.SubVec(mat.NewVecDense(T, append([]float64(nil), y...)), &Hmu)
	if err := ch.SolveVecTo(&sol, &resid); err != nil {
		panic(err)
	}
	var post mat.VecDense
	post.MulVec(HC.T(), &sol)
	post.AddVec(&post, mu)
	mean = make([]float64, n)
	for i := range mean {
		mean[i] = post.AtVec(i)
	}
	logZ = -0.5*mat.Dot(&resid, &sol) - 0.5*ch.LogDet() - 0.5*float64(T)*ln2Pi
	// posterior covariance C - (Hb C)' Sy^-1 (Hb C)
	var X, D mat.Dense
	if err := ch.SolveTo(&X, &HC); err != nil {
		panic(err)
	}
	D.Mul(HC.T(), &X)
	cov = mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			cov.SetSym(i, j, C.At(i, j)-0.5*(D.At(i, j)+D.At(j, i)))
		}
	}
	return mean, logZ, cov
}

// posterior is the model's exact posterior: one Gaussian.
func (m *lgvec) posterior() *gaussMix {
	b, L := make([][]float64, m.T), make([][]float64, m.T)
	for t := range b {
		b[t], L[t] = make([]float64, m.K), m.Lq
	}
	b[0], L[0] = m.m0, m.L0
	mean, logZ, cov := denseLG(m.F, b, L, m.H, m.r, m.y)
	return newGaussMix(m.vlayout, []float64{logZ}, [][]float64{mean}, []*mat.SymDense{cov})
}

// exact returns the posterior means in the model's layout and log p(y).
func (m *lgvec) exact() ([]float64, float64) { return m.posterior().moments() }

// gaussMix is a posterior that is a mixture of Gaussians over the states
// (step by step, t*K + k), with log weights logw (unnormalised: log p(y, c)).
type gaussMix struct {
	lay   vlayout
	logw  []float64
	prob  []float64 // normalised weights
	means [][]float64
	chols []*mat.TriDense
}

func newGaussMix(lay vlayout, logw []float64, means [][]float64, covs []*mat.SymDense) *gaussMix {
	g := &gaussMix{lay: lay, logw: logw, means: means}
	mx := math.Inf(-1)
	for _, l := range logw {
		mx = math.Max(mx, l)
	}
	sum := 0.0
	for _, l := range logw {
		g.prob = append(g.prob, math.Exp(l-mx))
		sum += math.Exp(l - mx)
	}
	for i := range g.prob {
		g.prob[i] /= sum
	}
	for _, c := range covs {
		var ch mat.Cholesky
		if !ch.Factorize(c) {
			panic("not PD")
		}
		var L mat.TriDense
		ch.LTo(&L)
		g.chols = append(g.chols, &L)
	}
	return g
}

// moments returns the posterior means in the model's layout and the log
// evidence log sum_c p(y, c).
func (g *gaussMix) moments() ([]float64, float64) {
	mean := make([]float64, len(g.means[0]))
	mx := math.Inf(-1)
	for _, l := range g.logw {
		mx = math.Max(mx, l)
	}
	sum := 0.0
	for c, p := range g.prob {
		sum += math.Exp(g.logw[c] - mx)
		for i := range mean {
			mean[i] += p * g.means[c][i]
		}
	}
	return toLayout(g.lay, mean), mx + math.Log(sum)
}

// draw writes an exact posterior draw, in the model's layout, into z.
func (g *gaussMix) draw(rng *rand.Rand, z []float64) {
	c := resample.Categorical(rng, g.prob)
	n := len(g.means[c])
	xi := make([]float64, n)
	for i := range xi {
		xi[i] = rng.NormFloat64()
	}
	L := g.chols[c]
	for i := 0; i < n; i++ {
		v := g.means[c][i]
		for j := 0; j <= i; j++ {
			v += L.At(i, j) * xi[j]
		}
		t, k := i/g.lay.K, i%g.lay.K
		z[g.lay.Index(t, k)] = v
	}
}

// toLayout reorders a step-by-step vector (t*K + k) into layout l.
func toLayout(l vlayout, x []float64) []float64 {
	out := make([]float64, len(x))
	for t := 0; t < l.T; t++ {
		for k := 0; k < l.K; k++ {
			out[l.Index(t, k)] = x[t*l.K+k]
		}
	}
	return out
}

// optimalTwist is the backward information filter of the model: psi_t(x) =
// p(y_{t:T} | x_t) ∝ exp(-x' Lambda_t x / 2 + nu_t' x), for which the
// twisted proposal is the exact posterior conditional (the inclusive-KL
// optimum of the family). With P = Q^-1 + Lambda_{t+1},
//
//	Lambda_t = F' (Q^-1 - Q^-1 P^-1 Q^-1) F + H H' / r^2,
//	nu_t = F' Q^-1 P^-1 nu_{t+1} + H y_t / r^2,
//
// which holds for a singular Lambda_{t+1} (the last step's, when H
// observes some components only). Lambda is T matrices K x K.
func (m *lgvec) optimalTwist() (nu []*mat.VecDense, lam []*mat.SymDense) {
	T, K := m.T, m.K
	nu, lam = make([]*mat.VecDense, T), make([]*mat.SymDense, T)
	Hv := mat.NewVecDense(K, m.H)
	obs := func(t int) (*mat.SymDense, *mat.VecDense) {
		var hh mat.SymDense
		hh.SymOuterK(1/(m.r*m.r), Hv)
		var v mat.VecDense
		v.ScaleVec(m.y[t]/(m.r*m.r), Hv)
		return &hh, &v
	}
	lam[T-1], nu[T-1] = obs(T - 1)
	Lq := mat.NewTriDense(K, mat.Lower, m.Lq)
	var Q mat.Dense
	Q.Mul(Lq, Lq.T())
	var Qi mat.Dense
	if err := Qi.Inverse(&Q); err != nil {
		panic(err)
	}
	F := mat.NewDense(K, K, m.F)
	for t := T - 2; t >= 0; t-- {
		var P, Pi, QPi, QPQ, inner, a mat.Dense
		P.Add(&Qi, lam[t+1])
		if err := Pi.Inverse(&P); err != nil {
			panic(err)
		}
		QPi.Mul(&Qi, &Pi)
		QPQ.Mul(&QPi, &Qi)
		inner.Sub(&Qi, &QPQ)
		a.Mul(F.T(), &inner)
		a.Mul(&a, F)
		hh, v := obs(t)
		l := mat.NewSymDense(K, nil)
		for i := 0; i < K; i++ {
			for j := i; j < K; j++ {
				l.SetSym(i, j, 0.5*(a.At(i, j)+a.At(j, i))+hh.At(i, j))
			}
		}
		lam[t] = l
		var g, n mat.VecDense
		g.MulVec(&QPi, nu[t+1])
		n.MulVec(F.T(), &g)
		n.AddVec(&n, v)
		nu[t] = &n
	}
	return nu, lam
}

// transitionPrecision is the inverse covariance of x_t given x_{t-1}.
func (m *lgvec) transitionPrecision(t int) *mat.Dense {
	L := m.Lq
	if t == 0 {
		L = m.L0
	}
	Lt := mat.NewTriDense(m.K, mat.Lower, L)
	var S, P mat.Dense
	S.Mul(Lt, Lt.T())
	if err := P.Inverse(&S); err != nil {
		panic(err)
	}
	return &P
}

// setTwist sets the proposal's psi_t to nu_t and Lambda_t + eps I (eps
// keeps a singular Lambda_t within the family).
func setTwist(tw *Twisted, nu []*mat.VecDense, lam []*mat.SymDense, eps float64) {
	K := tw.K
	for t := range nu {
		a := mat.NewSymDense(K, nil)
		for i := 0; i < K; i++ {
			tw.Nu[t*K+i] = nu[t].AtVec(i)
			for j := i; j < K; j++ {
				v := lam[t].At(i, j)
				if i == j {
					v += eps
				}
				a.SetSym(i, j, v)
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(a) {
			panic("not PD")
		}
		var R mat.TriDense
		ch.LTo(&R)
		// Lambda = U D U' with U = R diag(R)^-1, D = diag(R)^2
		o := t * K * (K - 1) / 2
		for i := 0; i < K; i++ {
			for j := 0; j < i; j++ {
				tw.Off[o] = R.At(i, j) / R.At(j, j)
				o++
			}
			tw.LogDiag[t*K+i] = 2 * math.Log(R.At(i, i))
		}
	}
}

// mixLLT is the local linear trend with a non-Gaussian transition: the
// level's noise is the two-component mixture
// w N(mu_a, s_a^2) + (1 - w) N(mu_b, s_b^2) (occasional level shifts), the
// slope's noise N(0, s_2^2); it is only a GeneralStateSpace.
type mixLLT struct {
	vlayout
	y          []float64
	w, ma, mb  float64
	sa, sb, s2 float64
	m0, L0     []float64
	r          float64
}

func newMixLLT(y []float64) *mixLLT {
	return &mixLLT{vlayout: vlayout{T: len(y), K: 2}, y: y, w: 0.8, ma: -0.1, mb: 0.6, sa: 0.25, sb: 0.7, s2: 0.2,
		m0: []float64{0.3, -0.2}, L0: []float64{1, 0, 0.3, 0.6}, r: 0.5}
}

func (m *mixLLT) ReserveParticles(int) {}

func (m *mixLLT) ObsLogDensity(t int, cur, out []float64) {
	for i := range out {
		out[i] = normLogPdf(m.y[t], cur[2*i], m.r)
	}
}

func (m *mixLLT) TransitionLogDensity(t int, prev, cur, out []float64) {
	var u, d [2]float64
	if t == 0 {
		c := -math.Log(m.L0[0]*m.L0[3]) - ln2Pi
		for i := range out {
			d[0], d[1] = cur[2*i]-m.m0[0], cur[2*i+1]-m.m0[1]
			out[i] = -0.5*lowerSolveNormSq(m.L0, d[:], u[:], 2) + c
		}
		return
	}
	// w N(e; ma, sa^2) + (1-w) N(e; mb, sb^2) = ca exp(-(e-ma)^2/2sa^2) (1 + cb/ca exp(...))
	ca, cb := m.w/(m.sa*math.Sqrt(2*math.Pi)), (1-m.w)/(m.sb*math.Sqrt(2*math.Pi))
	c2 := -math.Log(m.s2) - 0.5*ln2Pi
	for i := range out {
		x, p := cur[2*i:2*i+2], prev[2*i:2*i+2]
		e := x[0] - p[0] - p[1]
		za, zb := (e-m.ma)/m.sa, (e-m.mb)/m.sb
		z2 := (x[1] - p[1]) / m.s2
		out[i] = math.Log(ca*math.Exp(-0.5*za*za)+cb*math.Exp(-0.5*zb*zb)) - 0.5*z2*z2 + c2
	}
}

// posterior enumerates the mixture components of the T-1 transitions:
// given them the model is linear-Gaussian (denseLG), and the posterior is
// the mixture of those posteriors weighted by w(c) p(y | c).
func (m *mixLLT) posterior() *gaussMix {
	T := m.T
	F := []float64{1, 1, 0, 1}
	var logs []float64
	var means [][]float64
	var covs []*mat.SymDense
	for c := 0; c < 1<<(T-1); c++ {
		b, L := make([][]float64, T), make([][]float64, T)
		b[0], L[0] = m.m0, m.L0
		lw := 0.0
		for t := 1; t < T; t++ {
			if c&(1<<(t-1)) != 0 {
				b[t], L[t] = []float64{m.mb, 0}, []float64{m.sb, 0, 0, m.s2}
				lw += math.Log(1 - m.w)
			} else {
				b[t], L[t] = []float64{m.ma, 0}, []float64{m.sa, 0, 0, m.s2}
				lw += math.Log(m.w)
			}
		}
		mc, lz, cov := denseLG(F, b, L, []float64{1, 0}, m.r, m.y)
		logs = append(logs, lw+lz)
		means = append(means, mc)
		covs = append(covs, cov)
	}
	return newGaussMix(m.vlayout, logs, means, covs)
}

// exact returns the posterior means in the model's layout and log p(y).
func (m *mixLLT) exact() ([]float64, float64) { return m.posterior().moments() }
