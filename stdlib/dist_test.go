package stdlib

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mscppl/mscppl/stdlib/special"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"
)

func relClose(t *testing.T, want, got float64, tol float64, msg string, args ...any) {
	t.Helper()
	if math.IsInf(want, 0) || math.IsInf(got, 0) {
		require.Equalf(t, want, got, msg, args...)
		return
	}
	require.InDeltaf(t, want, got, tol*math.Max(1, math.Abs(want)), msg, args...)
}

// reference log densities from gonum's distuv or closed forms.
var refCases = []struct {
	family string
	params [][]float64
	xs     []float64
	ref    func(x float64, p []float64) float64
}{
	{"normal", [][]float64{{0, 1}, {3, 0.01}, {-2, 50}}, []float64{-40, -3, 0, 0.5, 3.01, 1e3},
		func(x float64, p []float64) float64 { return distuv.Normal{Mu: p[0], Sigma: p[1]}.LogProb(x) }},
	{"lognormal", [][]float64{{0, 1}, {2, 0.3}}, []float64{1e-8, 0.5, 1, 7, 1e4},
		func(x float64, p []float64) float64 { return distuv.LogNormal{Mu: p[0], Sigma: p[1]}.LogProb(x) }},
	{"exponential", [][]float64{{1}, {0.01}, {30}}, []float64{0, 1e-6, 1, 100},
		func(x float64, p []float64) float64 { return distuv.Exponential{Rate: p[0]}.LogProb(x) }},
	{"gamma", [][]float64{{2, 1}, {0.5, 3}, {50, 0.1}}, []float64{1e-6, 0.3, 4, 500},
		func(x float64, p []float64) float64 { return distuv.Gamma{Alpha: p[0], Beta: p[1]}.LogProb(x) }},
	{"beta", [][]float64{{2, 3}, {0.5, 0.5}, {20, 1}}, []float64{1e-6, 0.2, 0.5, 0.999999},
		func(x float64, p []float64) float64 { return distuv.Beta{Alpha: p[0], Beta: p[1]}.LogProb(x) }},
	{"student_t", [][]float64{{3, 0, 1}, {1, 2, 0.5}, {100, -1, 3}}, []float64{-1e3, -2, 0, 1.5, 40},
		func(x float64, p []float64) float64 {
			return distuv.StudentsT{Nu: p[0], Mu: p[1], Sigma: p[2]}.LogProb(x)
		}},
	{"cauchy", [][]float64{{0, 1}, {2, 0.1}}, []float64{-1e6, -1, 2, 3},
		func(x float64, p []float64) float64 { return distuv.StudentsT{Nu: 1, Mu: p[0], Sigma: p[1]}.LogProb(x) }},
	{"half_normal", [][]float64{{1}, {0.2}, {30}}, []float64{0, 0.1, 2, 100},
		func(x float64, p []float64) float64 { return math.Ln2 + distuv.Normal{Mu: 0, Sigma: p[0]}.LogProb(x) }},
	{"skew_normal", [][]float64{{0.5, 2, 5}, {0, 1, 0}, {-1, 0.5, -3}}, []float64{-10, -1, 0.5, 2, 8},
		func(x float64, p []float64) float64 {
			z := (x - p[0]) / p[1]
			// closed form with distuv's normal and Phi via its CDF; accurate
			// enough away from the extreme left tail of the alpha z term
			return math.Log(2/p[1]) + distuv.UnitNormal.LogProb(z) + math.Log(distuv.UnitNormal.CDF(p[2]*z))
		}},
	{"bernoulli", [][]float64{{0.3}, {1e-9}, {1}}, []float64{0, 1},
		func(x float64, p []float64) float64 { return distuv.Bernoulli{P: p[0]}.LogProb(x) }},
	{"bernoulli_logit", [][]float64{{0.3}, {-30}, {40}}, []float64{0, 1},
		func(x float64, p []float64) float64 {
			q := 1 / (1 + math.Exp(-p[0]))
			if x == 1 {
				return math.Log(q)
			}
			return -p[0] - math.Log1p(math.Exp(-p[0])) // log(1-q)
		}},
	{"bernoulli_probit", [][]float64{{0.3}, {-3}, {2}}, []float64{0, 1},
		func(x float64, p []float64) float64 {
			if x == 1 {
				return math.Log(distuv.UnitNormal.CDF(p[0]))
			}
			return math.Log(distuv.UnitNormal.Survival(p[0]))
		}},
	{"binomial", [][]float64{{10, 0.3}, {1, 0.5}, {100, 0.99}}, []float64{0, 1, 7},
		func(x float64, p []float64) float64 {
			if x > p[0] {
				return math.Inf(-1)
			}
			return distuv.Binomial{N: p[0], P: p[1]}.LogProb(x)
		}},
	{"poisson", [][]float64{{3}, {0.01}, {500}}, []float64{0, 1, 5, 480},
		func(x float64, p []float64) float64 { return distuv.Poisson{Lambda: p[0]}.LogProb(x) }},
}

func TestLogPdfAgainstReference(t *testing.T) {
	for _, tc := range refCases {
		f, ok := Lookup(tc.family)
		require.True(t, ok, tc.family)
		for _, p := range tc.params {
			for _, x := range tc.xs {
				want := tc.ref(x, p)
				got := f.LogPdf(x, p)
				if math.IsInf(want, -1) && tc.family == "skew_normal" {
					// the reference's Phi underflows; LogPhi itself is
					// checked against 40-digit values in TestLogPhiTails
					z := (x - p[0]) / p[1]
					want = math.Log(2/p[1]) + distuv.UnitNormal.LogProb(z) + special.LogPhi(p[2]*z)
				}
				if tc.family == "bernoulli_logit" && x == 0 && p[0] == -30 {
					want = -math.Log1p(math.Exp(p[0]))
				}
				relClose(t, want, got, 1e-9, "%s(%v) at %g", tc.family, p, x)
				dp := make([]float64, len(p))
				lp, _ := f.Grad(x, p, dp)
				relClose(t, got, lp, 1e-12, "%s Grad's value", tc.family)
			}
		}
	}
}

func TestGradientsAgainstFiniteDifferences(t *testing.T) {
	for _, tc := range refCases {
		f, _ := Lookup(tc.family)
		for _, p := range tc.params {
			for _, x := range tc.xs {
				dp := make([]float64, len(p))
				lp, dx := f.Grad(x, p, dp)
				if math.IsInf(lp, 0) {
					continue
				}
				fd := func(v *float64) float64 {
					old := *v
					h := 1e-6 * math.Max(1, math.Abs(old))
					*v = old + h
					fp := f.LogPdf(x, p)
					*v = old - h
					fm := f.LogPdf(x, p)
					*v = old
					return (fp - fm) / (2 * h)
				}
				if !f.Discrete && x-1e-6*math.Max(1, math.Abs(x)) > 0 || !f.Discrete && f.Support == RealLine {
					xx := x
					got := fd(&xx)
					_ = got
					old := x
					h := 1e-6 * math.Max(1, math.Abs(old))
					want := (f.LogPdf(old+h, p) - f.LogPdf(old-h, p)) / (2 * h)
					if f.Support != Unit || (old+h < 1 && old-h > 0) {
						relClose(t, want, dx, 1e-5, "%s(%v) d/dx at %g", tc.family, p, x)
					}
				}
				for j, spec := range f.Params {
					if spec.Domain == NonNegInt {
						continue
					}
					if (spec.Domain == Unit) && (p[j] <= 1e-6 || p[j] >= 1-1e-6) {
						continue
					}
					want := fd(&p[j])
					relClose(t, want, dp[j], 1e-5, "%s(%v) d/d%s at %g", tc.family, p, spec.Name, x)
				}
			}
		}
	}
}

func TestDomainErrorsGiveMinusInf(t *testing.T) {
	cases := []struct {
		family string
		x      float64
		p      []float64
	}{
		{"normal", 0, []float64{0, 0}}, {"normal", 0, []float64{0, -1}}, {"normal", 0, []float64{0, math.Inf(1)}},
		{"half_normal", -1, []float64{1}}, {"lognormal", 0, []float64{0, 1}}, {"lognormal", 1, []float64{0, -1}},
		{"exponential", -1, []float64{1}}, {"exponential", 1, []float64{0}}, {"gamma", 1, []float64{-1, 1}},
		{"gamma", -1, []float64{1, 1}}, {"beta", 1, []float64{2, 2}}, {"beta", 0.5, []float64{0, 2}},
		{"student_t", 0, []float64{0, 0, 1}}, {"cauchy", 0, []float64{0, 0}}, {"skew_normal", 0, []float64{0, -2, 1}},
		{"bernoulli", 2, []float64{0.5}}, {"bernoulli", 1, []float64{1.5}}, {"bernoulli_probit", 0.5, []float64{0}},
		{"bernoulli_logit", -1, []float64{0}}, {"binomial", 3, []float64{2, 0.5}}, {"binomial", 1.5, []float64{2, 0.5}},
		{"poisson", -1, []float64{1}}, {"poisson", 1, []float64{-1}}, {"poisson", 0.5, []float64{1}},
	}
	for _, tc := range cases {
		f, _ := Lookup(tc.family)
		lp := f.LogPdf(tc.x, tc.p)
		require.Truef(t, math.IsInf(lp, -1), "%s(%v) at %g gave %g, want -Inf", tc.family, tc.p, tc.x, lp)
		dp := make([]float64, len(tc.p))
		lp, _ = f.Grad(tc.x, tc.p, dp)
		require.Truef(t, math.IsInf(lp, -1), "%s Grad", tc.family)
	}
}

func TestLogPhiTails(t *testing.T) {
	// references computed with mpmath at 40 digits
	refs := []struct{ x, want float64 }{
		{-40, -804.60844201375378817}, {-20.0001, -203.91916035139179578}, {-19.9999, -203.91515040077809948},
		{-10, -53.231285150512470578}, {-5, -15.064998393988725736}, {0, -0.69314718055994530942},
		{5, -2.8665161296376359338e-7}, {5.0001, -2.865029781317368195e-7}, {8, -6.2209605742717860585e-16},
	}
	for _, r := range refs {
		require.InDeltaf(t, r.want, special.LogPhi(r.x), 1e-13*math.Max(1, math.Abs(r.want)), "LogPhi(%g)", r.x)
		// derivative against finite differences
		h := 1e-5
		fd := (special.LogPhi(r.x+h) - special.LogPhi(r.x-h)) / (2 * h)
		require.InDeltaf(t, fd, special.InvMills(r.x), 1e-6*math.Max(1, math.Abs(fd)), "InvMills(%g)", r.x)
	}
	require.Equal(t, 0.0, special.LogPhi(40))
	require.False(t, math.IsNaN(special.LogPhi(-1e10)))
}

func TestSumLogDensityMatchesScalarAndGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, name := range []string{"normal", "bernoulli_probit", "bernoulli_logit", "skew_normal", "gamma"} {
		f, _ := Lookup(name)
		op := NewSumLogDensity(f)
		const n = 6
		x := make([]float64, n)
		params := make([][]float64, len(f.Params))
		for i := range x {
			switch f.Support {
			case Binary:
				x[i] = float64(rng.IntN(2))
			case Positive:
				x[i] = 0.5 + rng.Float64()
			default:
				x[i] = rng.NormFloat64()
			}
		}
		for j, spec := range f.Params {
			l := n
			if j == len(f.Params)-1 {
				l = 1 // broadcast the last parameter
			}
			params[j] = make([]float64, l)
			for i := range params[j] {
				if spec.Domain == Positive {
					params[j][i] = 0.5 + rng.Float64()
				} else {
					params[j][i] = rng.NormFloat64()
				}
			}
		}
		in := append([][]float64{x}, params...)
		var out [1]float64
		op.Forward(out[:], in)
		want := 0.0
		p := make([]float64, len(params))
		for i := range x {
			for j := range params {
				p[j] = bc(params[j], i)
			}
			want += f.LogPdf(x[i], p)
		}
		require.InDeltaf(t, want, out[0], 1e-10*math.Max(1, math.Abs(want)), "%s forward", name)
		din := make([][]float64, len(in))
		for j := range in {
			din[j] = make([]float64, len(in[j]))
		}
		if f.Discrete {
			din[0] = nil
		}
		op.Backward(out[:], []float64{1}, in, din)
		for j := range in {
			if din[j] == nil {
				continue
			}
			for i := range in[j] {
				old := in[j][i]
				h := 1e-6 * math.Max(1, math.Abs(old))
				in[j][i] = old + h
				op.Forward(out[:], in)
				fp := out[0]
				in[j][i] = old - h
				op.Forward(out[:], in)
				fm := out[0]
				in[j][i] = old
				fd := (fp - fm) / (2 * h)
				require.InDeltaf(t, fd, din[j][i], 1e-5*math.Max(1, math.Abs(fd)), "%s d/din[%d][%d]", name, j, i)
			}
		}
		allocs := testing.AllocsPerRun(20, func() { op.Forward(out[:], in) })
		require.Zero(t, allocs)
	}
}

func TestRandMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cases := []struct {
		family   string
		p        []float64
		mean, vr float64
	}{
		{"normal", []float64{1, 2}, 1, 4},
		{"skew_normal", []float64{0.5, 2, 5}, 0.5 + 2*(5/math.Sqrt(26))*math.Sqrt(2/math.Pi), 4 * (1 - 2*25.0/26/math.Pi)},
		{"gamma", []float64{3, 2}, 1.5, 0.75},
		{"exponential", []float64{2}, 0.5, 0.25},
		{"poisson", []float64{4}, 4, 4},
		{"bernoulli_probit", []float64{0.5}, special.Phi(0.5), special.Phi(0.5) * (1 - special.Phi(0.5))},
	}
	const n = 200000
	for _, tc := range cases {
		f, _ := Lookup(tc.family)
		s, s2 := 0.0, 0.0
		for i := 0; i < n; i++ {
			x := f.Rand(rng, tc.p)
			s += x
			s2 += x * x
		}
		m := s / n
		v := s2/n - m*m
		require.InDeltaf(t, tc.mean, m, 5*math.Sqrt(tc.vr/n), "%s mean", tc.family)
		require.InDeltaf(t, tc.vr, v, 0.03*tc.vr, "%s variance", tc.family)
	}
}

func TestBijections(t *testing.T) {
	bs := []Bijection{{}, {Lower: 0, HasLower: true}, {Upper: 2, HasUpper: true}, {Lower: -1, Upper: 1, HasLower: true, HasUpper: true}}
	for _, b := range bs {
		for _, u := range []float64{-5, -0.3, 0, 1.2, 6} {
			x := b.Constrain(u)
			back, err := b.Unconstrain(x)
			require.NoError(t, err)
			require.InDelta(t, u, back, 1e-9)
			h := 1e-6
			fd := (b.Constrain(u+h) - b.Constrain(u-h)) / (2 * h)
			if !b.Identity() {
				require.InDelta(t, math.Log(math.Abs(fd)), b.LogJacobian(u), 1e-6)
			}
			var dx [1]float64
			b.Func().Deriv(dx[:], []float64{1}, []float64{x}, []float64{u})
			require.InDelta(t, fd, dx[0], 1e-6*math.Max(1, math.Abs(fd)))
			var dj [1]float64
			b.LogJacFunc().Deriv(dj[:], []float64{1}, []float64{b.LogJacobian(u)}, []float64{u})
			fdj := (b.LogJacobian(u+h) - b.LogJacobian(u-h)) / (2 * h)
			require.InDelta(t, fdj, dj[0], 1e-6)
		}
	}
	_, err := Bijection{Lower: 0, HasLower: true}.Unconstrain(-1)
	require.Error(t, err)
	_, err = Bijection{Lower: -1, Upper: 1, HasLower: true, HasUpper: true}.Unconstrain(1)
	require.Error(t, err)
}

func BenchmarkSumLogDensityProbit351(b *testing.B) {
	benchSumLogDensity(b, "bernoulli_probit", 351)
}

// TestSumLogDensityBinaryOutsideSupport: an outcome of a Bernoulli
// likelihood that is not 0 or 1 (0.5, 2, -1, NaN) has no mass, wherever it
// falls in a block of the summed probit or logit density.
func TestSumLogDensityBinaryOutsideSupport(t *testing.T) {
	for _, name := range []string{"bernoulli_probit", "bernoulli_logit"} {
		f, _ := Lookup(name)
		op := NewSumLogDensity(f)
		for _, bad := range []float64{0.5, 2, -1, math.NaN(), math.Inf(1)} {
			for _, at := range []int{0, 255, 256, 599} {
				x, eta := make([]float64, 600), make([]float64, 600)
				for i := range x {
					x[i], eta[i] = float64(i%2), 0.1*float64(i%7-3)
				}
				var out [1]float64
				op.Forward(out[:], [][]float64{x, eta})
				require.False(t, math.IsInf(out[0], 0) || math.IsNaN(out[0]), "%s valid: %v", name, out[0])
				x[at] = bad
				op.Forward(out[:], [][]float64{x, eta})
				require.True(t, math.IsInf(out[0], -1), "%s with y[%d] = %v: %v", name, at, bad, out[0])
			}
		}
	}
}

// TestSumLogDensityNormalSharedSD: the cached log of a shared sd follows
// the sd from call to call (a latent sd changes with every proposal).
func TestSumLogDensityNormalSharedSD(t *testing.T) {
	f, _ := Lookup("normal")
	op := NewSumLogDensity(f)
	x, mu := []float64{0.3, -1.2, 2.5}, []float64{0.1}
	for _, sd := range []float64{1, 2, 2, 0.5, 1, 3e-300} {
		var out [1]float64
		op.Forward(out[:], [][]float64{x, mu, {sd}})
		want := 0.0
		for _, xi := range x {
			want += normalLogPdf(xi, []float64{mu[0], sd})
		}
		require.InDelta(t, want, out[0], 1e-12*math.Abs(want), "sd %v", sd)
	}
}
