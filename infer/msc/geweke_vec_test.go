package msc

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mscppl/mscppl/internal/testtier"
	"github.com/stretchr/testify/require"
)

// Geweke's test (geweke_test.go) of particle Gibbs with a state of K = 2
// components and static latents beside it (issue 33 point 4): a VAR(1)
// whose first component is observed, at unit scale and at a scale of 1000,
//
//	sq, sr ~ half-normal(0, a),  x_1 ~ N(m0 1, s0^2 I),
//	x_t ~ N(m0 1 + F (x_{t-1} - m0 1), sq^2 C),  y_t ~ N(x_t[1], sr^2),
//
// F = [0.8 0.3; -0.1 0.6], C = [1 0.6; 0.6 1] (the transition's Cholesky
// factor is not diagonal, so the non-centred block's noise needs the full
// triangular solve). The latent vector z puts log sq first, then x row by
// row (x[t, k] at 1 + 2t + k), then log sr last, while the structure given
// the statics lays the state out as two vectors (Index(t, k) = k T + t):
// the kernel must map the one onto the other.

const vecRho = 0.6

var vecF = [4]float64{0.8, 0.3, -0.1, 0.6}

// gewekeVAR is the model: a Target over z, a StaticStateSpace, and the
// GaussianStateSpace of x given the statics last set.
type gewekeVAR struct {
	gewekeScale
	T      int
	y      []float64
	sq, sr float64 // the statics last set (natural scale)
}

func newGewekeVAR(sc gewekeScale, T int) *gewekeVAR {
	return &gewekeVAR{gewekeScale: sc, T: T, y: make([]float64, T), sq: sc.a, sr: sc.a}
}

func (m *gewekeVAR) Dim() int      { return 2 + 2*m.T }
func (m *gewekeVAR) Reserve(n int) {}
func (m *gewekeVAR) x(z []float64, t, k int) float64 {
	return z[1+2*t+k]
}

// cholC is the Cholesky factor of the transition's covariance at sd s.
func cholC(s float64) [4]float64 {
	return [4]float64{s, 0, s * vecRho, s * math.Sqrt(1-vecRho*vecRho)}
}

// mvn2 is the log density of N(m, L L') at v (L lower, 2 x 2).
func mvn2(v, m [2]float64, L [4]float64) float64 {
	e0 := (v[0] - m[0]) / L[0]
	e1 := (v[1] - m[1] - L[2]*e0) / L[3]
	return -0.5*(e0*e0+e1*e1) - math.Log(L[0]*L[3]) - 2*halfLog2Pi
}

// moments are the transition's mean and Cholesky factor at step t.
func (m *gewekeVAR) moments(t int, prev [2]float64) ([2]float64, [4]float64) {
	if t == 0 {
		return [2]float64{m.m0, m.m0}, [4]float64{m.s0, 0, 0, m.s0}
	}
	d0, d1 := prev[0]-m.m0, prev[1]-m.m0
	return [2]float64{m.m0 + vecF[0]*d0 + vecF[1]*d1, m.m0 + vecF[2]*d0 + vecF[3]*d1}, cholC(m.sq)
}

func (m *gewekeVAR) LogJoint(z, out []float64) {
	d := m.Dim()
	for b := range out {
		row := z[b*d : (b+1)*d]
		lsq, lsr := row[0], row[d-1]
		sq, sr := math.Exp(lsq), math.Exp(lsr)
		lp := -0.5*(sq*sq+sr*sr)/(m.a*m.a) + lsq + lsr
		saved := m.sq
		m.sq = sq
		var prev [2]float64
		for t := range m.T {
			cur := [2]float64{m.x(row, t, 0), m.x(row, t, 1)}
			mean, L := m.moments(t, prev)
			lp += mvn2(cur, mean, L) + normLogPDF(m.y[t], cur[0], sr)
			prev = cur
		}
		m.sq = saved
		out[b] = lp
	}
}

func (m *gewekeVAR) Statics() []int { return []int{0, m.Dim() - 1} }
func (m *gewekeVAR) States() []int {
	s := make([]int, 2*m.T)
	for i := range s {
		s[i] = 1 + i
	}
	return s
}
func (m *gewekeVAR) SetStatics(theta []float64) {
	m.sq, m.sr = math.Exp(theta[0]), math.Exp(theta[1])
}
func (m *gewekeVAR) Given() GeneralStateSpace { return m }

func (m *gewekeVAR) Len() int               { return m.T }
func (m *gewekeVAR) StateDim() int          { return 2 }
func (m *gewekeVAR) Index(t, k int) int     { return k*m.T + t }
func (m *gewekeVAR) ReserveParticles(n int) {}

func (m *gewekeVAR) Transition(t int, prev, mean, chol []float64) {
	for i := range len(mean) / 2 {
		var p [2]float64
		if t > 0 {
			p = [2]float64{prev[2*i], prev[2*i+1]}
		}
		mu, L := m.moments(t, p)
		copy(mean[2*i:], mu[:])
		copy(chol[4*i:], L[:])
		chol[4*i+1] = math.NaN() // the upper triangle is not read
	}
}

func (m *gewekeVAR) TransitionLogDensity(t int, prev, cur, out []float64) {
	for i := range out {
		var p [2]float64
		if t > 0 {
			p = [2]float64{prev[2*i], prev[2*i+1]}
		}
		mu, L := m.moments(t, p)
		out[i] = mvn2([2]float64{cur[2*i], cur[2*i+1]}, mu, L)
	}
}

func (m *gewekeVAR) ObsLogDensity(t int, cur, out []float64) {
	for i := range out {
		out[i] = normLogPDF(m.y[t], cur[2*i], m.sr)
	}
}

func (m *gewekeVAR) problem() *Problem { return &Problem{Dim: m.Dim(), Target: m, Statics: m} }

func (m *gewekeVAR) samplePrior(rng *rand.Rand, z []float64) {
	z[0] = math.Log(m.a * math.Abs(rng.NormFloat64()))
	z[m.Dim()-1] = math.Log(m.a * math.Abs(rng.NormFloat64()))
	saved := m.sq
	m.sq = math.Exp(z[0])
	var prev [2]float64
	for t := range m.T {
		mu, L := m.moments(t, prev)
		e0, e1 := rng.NormFloat64(), rng.NormFloat64()
		prev = [2]float64{mu[0] + L[0]*e0, mu[1] + L[2]*e0 + L[3]*e1}
		z[1+2*t], z[2+2*t] = prev[0], prev[1]
	}
	m.sq = saved
}

func (m *gewekeVAR) sampleData(rng *rand.Rand, z []float64) {
	sr := math.Exp(z[m.Dim()-1])
	for t := range m.T {
		m.y[t] = m.x(z, t, 0) + sr*rng.NormFloat64()
	}
}

// ffbs draws x exactly from p(x | statics, y): the Kalman filter, then
// backward sampling (2 x 2 algebra by hand).
func (m *gewekeVAR) ffbs(rng *rand.Rand, z []float64) {
	sq, sr := math.Exp(z[0]), math.Exp(z[m.Dim()-1])
	T := m.T
	Q := [4]float64{sq * sq, sq * sq * vecRho, sq * sq * vecRho, sq * sq}
	fm, fP := make([][2]float64, T), make([][4]float64, T)
	for t := range T {
		pm, pP := [2]float64{m.m0, m.m0}, [4]float64{m.s0 * m.s0, 0, 0, m.s0 * m.s0}
		if t > 0 {
			pm = m.predict(fm[t-1])
			pP = add2(mul2(mul2(vecF, fP[t-1]), tr2(vecF)), Q)
		}
		S := pP[0] + sr*sr
		k0, k1 := pP[0]/S, pP[2]/S
		r := m.y[t] - pm[0]
		fm[t] = [2]float64{pm[0] + k0*r, pm[1] + k1*r}
		fP[t] = [4]float64{pP[0] - k0*k0*S, pP[1] - k0*k1*S, pP[2] - k1*k0*S, pP[3] - k1*k1*S}
	}
	draw := func(t int, mu [2]float64, P [4]float64) {
		l0 := math.Sqrt(P[0])
		l1 := P[2] / l0
		l2 := math.Sqrt(P[3] - l1*l1)
		e0, e1 := rng.NormFloat64(), rng.NormFloat64()
		z[1+2*t], z[2+2*t] = mu[0]+l0*e0, mu[1]+l1*e0+l2*e1
	}
	draw(T-1, fm[T-1], fP[T-1])
	for t := T - 2; t >= 0; t-- {
		// J = P F' (F P F' + Q)^-1
		PF := mul2(fP[t], tr2(vecF))
		J := mul2(PF, inv2(add2(mul2(vecF, PF), Q)))
		pm := m.predict(fm[t])
		d0, d1 := m.x(z, t+1, 0)-pm[0], m.x(z, t+1, 1)-pm[1]
		mu := [2]float64{fm[t][0] + J[0]*d0 + J[1]*d1, fm[t][1] + J[2]*d0 + J[3]*d1}
		JFP := mul2(J, mul2(vecF, fP[t]))
		P := [4]float64{fP[t][0] - JFP[0], fP[t][1] - JFP[1], fP[t][2] - JFP[2], fP[t][3] - JFP[3]}
		P[1] = P[2] // symmetric
		draw(t, mu, P)
	}
}

func (m *gewekeVAR) predict(x [2]float64) [2]float64 {
	d0, d1 := x[0]-m.m0, x[1]-m.m0
	return [2]float64{m.m0 + vecF[0]*d0 + vecF[1]*d1, m.m0 + vecF[2]*d0 + vecF[3]*d1}
}

func mul2(a, b [4]float64) [4]float64 {
	return [4]float64{a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3], a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3]}
}
func add2(a, b [4]float64) [4]float64 {
	return [4]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]}
}
func tr2(a [4]float64) [4]float64 { return [4]float64{a[0], a[2], a[1], a[3]} }
func inv2(a [4]float64) [4]float64 {
	det := a[0]*a[3] - a[1]*a[2]
	return [4]float64{a[3] / det, -a[1] / det, -a[2] / det, a[0] / det}
}

// stats are the statics' moments and the first and last states' moments
// (centred, on the scale s0), their exact prior expectations from
// Var(x_T) = F^(T-1) s0^2 F^(T-1)' + E[sq^2] sum_j F^j C F^j'.
func (m *gewekeVAR) stats() []gewekeStat {
	T, a, m0, s0 := m.T, m.a, m.m0, m.s0
	V := [4]float64{1, 0, 0, 1}
	C := [4]float64{a * a / (s0 * s0), vecRho * a * a / (s0 * s0), vecRho * a * a / (s0 * s0), a * a / (s0 * s0)}
	for t := 1; t < T; t++ {
		V = add2(mul2(mul2(vecF, V), tr2(vecF)), C)
	}
	u := func(z []float64, t, k int) float64 { return (m.x(z, t, k) - m0) / s0 }
	mh := math.Sqrt(2 / math.Pi)
	last := func(z []float64) float64 { return z[m.Dim()-1] }
	return []gewekeStat{
		{"x[1,1]", func(z []float64) float64 { return u(z, 0, 0) }, 0},
		{"x[1,2]^2", func(z []float64) float64 { v := u(z, 0, 1); return v * v }, 1},
		{"x[T,1]", func(z []float64) float64 { return u(z, T-1, 0) }, 0},
		{"x[T,2]", func(z []float64) float64 { return u(z, T-1, 1) }, 0},
		{"x[T,1]^2", func(z []float64) float64 { v := u(z, T-1, 0); return v * v }, V[0]},
		{"x[T,2]^2", func(z []float64) float64 { v := u(z, T-1, 1); return v * v }, V[3]},
		{"x[T,1]x[T,2]", func(z []float64) float64 { return u(z, T-1, 0) * u(z, T-1, 1) }, V[1]},
		{"sq", func(z []float64) float64 { return math.Exp(z[0]) / a }, mh},
		{"sr", func(z []float64) float64 { return math.Exp(last(z)) / a }, mh},
		{"sq^2", func(z []float64) float64 { v := math.Exp(z[0]) / a; return v * v }, 1},
		{"sr^2", func(z []float64) float64 { v := math.Exp(last(z)) / a; return v * v }, 1},
		{"log sq", func(z []float64) float64 { return z[0] - math.Log(a) }, -0.6351814227307391},
	}
}

// pgVAR builds the PG kernel for m with q(theta) fixed and a fixed
// twisted proposal, roughly at the state's scale.
func pgVAR(t *testing.T, m *gewekeVAR, S int) *PG {
	f, err := NewPGFamily(m.problem(), gewekeQ(t, m.a))
	require.NoError(t, err)
	tw, err := NewTwisted(m)
	require.NoError(t, err)
	lam := 0.5 / (m.s0 * m.s0)
	for j := range tw.Nu {
		tw.LogDiag[j] = math.Log(lam)
		tw.Nu[j] = lam * (m.m0 + 0.3*m.s0*float64(j%3-1))
	}
	f.Proposal = tw
	f.init()
	require.False(t, f.contig, "the state lies in z in another order than the proposal's")
	k, err := NewPG(m.problem(), f, S)
	require.NoError(t, err)
	return k
}

// pgVARKernels are the kernels under test: PG (its three blocks), and its
// non-centred block alone with an exact draw of the state given the
// statics (the block that walks the state's noise through the
// transition's Cholesky factor).
var pgVARKernels = []struct {
	name string
	run  func(k *PG, m *gewekeVAR) func(rng *rand.Rand) error
}{
	{"pg", func(k *PG, _ *gewekeVAR) func(rng *rand.Rand) error {
		return func(rng *rand.Rand) error { _, err := k.Step(rng); return err }
	}},
	{"pg-noncentred-block", func(k *PG, m *gewekeVAR) func(rng *rand.Rand) error {
		return func(rng *rand.Rand) error {
			m.ffbs(rng, k.cur)
			_, err := k.nonCentred(rng)
			return err
		}
	}},
}

func testGewekeVAR(t *testing.T, T, S, iters int) {
	for _, kern := range pgVARKernels {
		for si, sc := range gewekeScales {
			t.Run(kern.name+"/"+sc.name, func(t *testing.T) {
				m := newGewekeVAR(sc, T)
				k := pgVAR(t, m, S)
				z := make([]float64, m.Dim())
				scores := gewekeRun(m, uint64(11+si), iters, z, pgStep(k, kern.run(k, m)))
				for _, s := range m.stats() {
					t.Logf("%-14s z = %+.2f", s.name, scores[s.name])
					if math.Abs(scores[s.name]) > gewekeZMax || math.IsNaN(scores[s.name]) {
						t.Errorf("%s: Geweke z-score %.2f for %s (|z| <= %.1f when the kernel leaves the posterior invariant)", kern.name, scores[s.name], s.name, gewekeZMax)
					}
				}
			})
		}
	}
}

// TestGewekePGVector is the fast tier's Geweke test of particle Gibbs
// with a 2-dimensional state: T = 3, S = 4.
func TestGewekePGVector(t *testing.T) { testGewekeVAR(t, 3, 4, 20000) }

// TestGewekePGVectorLong is the long tier's: T = 6, more cycles.
func TestGewekePGVectorLong(t *testing.T) {
	testtier.Skip(t)
	testGewekeVAR(t, 6, 5, 400000)
}

// TestPGTrajectoryOrder: the particle-Gibbs family reads a row's state in
// its proposal's order (Index), from wherever the model keeps it: in
// gewekeVAR, x[t, k] at z[1 + 2t + k] and the proposal's layout k T + t;
// and the PG kernel writes the CSMC's trajectory back to the same places.
func TestPGTrajectoryOrder(t *testing.T) {
	m := newGewekeVAR(gewekeScales[0], 4)
	k := pgVAR(t, m, 3)
	z := make([]float64, m.Dim())
	for i := range z {
		z[i] = float64(i)
	}
	x := slices.Clone(k.q.trajectory(z))
	back := make([]float64, m.Dim())
	k.setState(back, x)
	for tt := range m.T {
		for c := range 2 {
			require.Equal(t, z[1+2*tt+c], x[m.Index(tt, c)], "x[%d, %d]", tt+1, c+1)
			require.Equal(t, z[1+2*tt+c], back[1+2*tt+c])
		}
	}
}
