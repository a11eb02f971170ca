package msc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// tssm: z_1 ~ N(0, 1), z_t ~ student_t(4, 0.7 z_{t-1}, 0.5), x_t ~ N(z_t, 0.6).
type tssm struct {
	k1
	x []float64
}

func tLogPdf(x, loc, scale, nu float64) float64 {
	z := (x - loc) / scale
	a, _ := math.Lgamma((nu + 1) / 2)
	b, _ := math.Lgamma(nu / 2)
	return a - b - 0.5*math.Log(nu*math.Pi) - math.Log(scale) - (nu+1)/2*math.Log1p(z*z/nu)
}

func (m *tssm) Len() int               { return len(m.x) }
func (m *tssm) ReserveParticles(n int) {}
func (m *tssm) ObsLogDensity(t int, cur, out []float64) {
	for i, z := range cur {
		out[i] = normLogPdf(m.x[t], z, 0.6)
	}
}
func (m *tssm) TransitionLogDensity(t int, prev, cur, out []float64) {
	for i, z := range cur {
		if t == 0 {
			out[i] = normLogPdf(z, 0, 1)
		} else {
			out[i] = tLogPdf(z, 0.7*prev[i], 0.5, 4)
		}
	}
}

// exact posterior means of the three states by quadrature on a grid.
func (m *tssm) exactMeans() []float64 {
	const lo, h, n = -6.0, 0.075, 161
	var zsum float64
	s := make([]float64, 3)
	for i := 0; i < n; i++ {
		z1 := lo + h*float64(i)
		l1 := normLogPdf(z1, 0, 1) + normLogPdf(m.x[0], z1, 0.6)
		for j := 0; j < n; j++ {
			z2 := lo + h*float64(j)
			l2 := l1 + tLogPdf(z2, 0.7*z1, 0.5, 4) + normLogPdf(m.x[1], z2, 0.6)
			for k := 0; k < n; k++ {
				z3 := lo + h*float64(k)
				w := math.Exp(l2 + tLogPdf(z3, 0.7*z2, 0.5, 4) + normLogPdf(m.x[2], z3, 0.6))
				zsum += w
				s[0] += w * z1
				s[1] += w * z2
				s[2] += w * z3
			}
		}
	}
	for i := range s {
		s[i] /= zsum
	}
	return s
}

// TestCSMCARInvariance: with a fixed, deliberately poor Gaussian proposal,
// the chain of the CSMC kernel for a non-Gaussian (Student-t) transition
// has the exact posterior means, within Monte Carlo error.
func TestCSMCARInvariance(t *testing.T) {
	m := &tssm{x: []float64{0.9, -0.5, 1.4}}
	exact := m.exactMeans()
	p := ar1(3)
	copy(p.A, []float64{0.3, -0.2, 0.1})
	copy(p.B, []float64{0, 0.3, 1.1})
	copy(p.LogDiag, []float64{0.2, -0.3, 0.4})
	for _, n := range []int{3, 10} {
		k, err := NewCSMC(ssProb(m), p, n)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(9, uint64(n)))
		k.Sweep(rng, false)
		const iters, nb = 200000, 50
		batch := make([][]float64, nb)
		for b := range batch {
			batch[b] = make([]float64, 3)
		}
		for it := 0; it < 1000; it++ {
			k.Sweep(rng, true)
		}
		for it := 0; it < iters; it++ {
			k.Sweep(rng, true)
			for s := 0; s < 3; s++ {
				batch[it/(iters/nb)][s] += k.Reference()[s] / float64(iters/nb)
			}
		}
		for s := 0; s < 3; s++ {
			col := make([]float64, nb)
			for b := range batch {
				col[b] = batch[b][s]
			}
			se := batchSE(col)
			mean := 0.0
			for _, v := range col {
				mean += v / nb
			}
			require.Lessf(t, math.Abs(mean-exact[s]), 4.5*se+1e-3, "N=%d z[%d]: chain %.4f exact %.4f se %.4f", n, s+1, mean, exact[s], se)
		}
	}
}

func normLogPdf(x, m, s float64) float64 {
	d := (x - m) / s
	return -0.5*d*d - math.Log(s) - 0.5*ln2Pi
}
