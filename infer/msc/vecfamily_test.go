package msc

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mscppl/mscppl/internal/smallmat"

	"github.com/stretchr/testify/require"
)

// randomTwist sets deliberately non-trivial twists: nu ~ N(0, 0.7^2),
// LogDiag ~ N(0, 0.5^2), Off ~ N(0, 0.4^2).
func randomTwist(tw *Twisted, rng *rand.Rand) {
	for i := range tw.Nu {
		tw.Nu[i] = 0.7 * rng.NormFloat64()
	}
	for i := range tw.LogDiag {
		tw.LogDiag[i] = 0.5 * rng.NormFloat64()
	}
	for i := range tw.Off {
		tw.Off[i] = 0.4 * rng.NormFloat64()
	}
}

// TestVecTwistNormaliser: the proposal's mean, covariance and log
// normaliser (twistApply) against two-dimensional quadrature of
// N(x; m, S) psi(x) on a grid.
func TestVecTwistNormaliser(t *testing.T) {
	const K = 2
	L := []float64{0.8, 0, -0.3, 0.5}
	m := []float64{0.4, -0.7}
	tw, err := NewTwisted(vlayout{T: 1, K: K})
	require.NoError(t, err)
	copy(tw.Nu, []float64{0.6, -0.9})
	copy(tw.LogDiag, []float64{0.2, -0.5})
	copy(tw.Off, []float64{0.7})
	w := newTwistWork(K)
	tw.factorR(0, w.R)
	smallmat.LowerLT(w.R, w.lam, K)
	ld, lc, ok := covFactor(L, w.lam, w.linv, w.sinv, w.p, w.ci, K)
	require.True(t, ok)
	mu := make([]float64, K)
	logZ := twistApply(m, tw.Nu, w.linv, w.sinv, w.ci, ld, lc, mu, w.h, w.u, K)
	// quadrature
	const h, lo, n = 0.02, -6.0, 601
	u := make([]float64, K)
	var z, e0, e1, e00, e01, e11 float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x := []float64{lo + h*float64(i), lo + h*float64(j)}
			d := []float64{x[0] - m[0], x[1] - m[1]}
			lp := -0.5*lowerSolveNormSq(L, d, u, K) - math.Log(L[0]*L[3]) - ln2Pi + tw.logPsi(0, w.R, x, u)
			p := math.Exp(lp) * h * h
			z += p
			e0 += p * x[0]
			e1 += p * x[1]
			e00 += p * x[0] * x[0]
			e01 += p * x[0] * x[1]
			e11 += p * x[1] * x[1]
		}
	}
	require.InDelta(t, math.Log(z), logZ, 1e-9)
	require.InDelta(t, e0/z, mu[0], 1e-9)
	require.InDelta(t, e1/z, mu[1], 1e-9)
	cov := make([]float64, K*K)
	smallmat.LowerTL(w.ci, cov, K)
	require.InDelta(t, e00/z-mu[0]*mu[0], cov[0], 1e-9)
	require.InDelta(t, e01/z-mu[0]*mu[1], cov[1], 1e-9)
	require.InDelta(t, e11/z-mu[1]*mu[1], cov[3], 1e-9)
}

// TestVecFamilyJSONAndClone: the proposals read back what they write
// (UnmarshalFamily, by name, for the problem), with K = 2 and K = 1, and a
// clone is independent; a file for other states is refused.
func TestVecFamilyJSONAndClone(t *testing.T) {
	k1 := &lgvec{vlayout: vlayout{T: 4, K: 1}, y: lltY[:4], F: []float64{0.7}, Lq: []float64{0.6},
		m0: []float64{0}, L0: []float64{1}, H: []float64{1}, r: 0.5}
	for _, m := range []*lgvec{newLLT(lltY, false), k1} {
		p := ssProb(m)
		rng := rand.New(rand.NewPCG(8, 8))
		tw, err := NewTwisted(m)
		require.NoError(t, err)
		ar, err := NewARProposal(m)
		require.NoError(t, err)
		for _, q := range []Family{tw, ar} {
			lam := make([]float64, q.NumLambda())
			for i := range lam {
				lam[i] = rng.NormFloat64()
			}
			q.SetLambda(lam)
			b, err := json.Marshal(q)
			require.NoError(t, err)
			require.Contains(t, string(b), fmt.Sprintf(`{"state_dim":%d,`, m.K))
			back, err := UnmarshalFamily(q.Name(), p, b)
			require.NoError(t, err)
			l1, l2 := make([]float64, q.NumLambda()), make([]float64, q.NumLambda())
			q.Lambda(l1)
			back.Lambda(l2)
			require.Equal(t, lam, l2)
			st := make([]float64, q.NumStats())
			q.Stats(st)
			require.Equal(t, l1, st)
			c := q.Clone()
			l2[0] += 1
			c.SetLambda(l2)
			q.Lambda(l1)
			require.NotEqual(t, l1[0], l2[0])
			short := *m
			short.T = m.T - 1
			_, err = UnmarshalFamily(q.Name(), ssProb(&short), b)
			require.ErrorContains(t, err, fmt.Sprintf("has %d steps, not %d", m.T, m.T-1))
			other := newLLT(lltY[:4], false)
			if m.K == 2 {
				other = k1
			}
			_, err = UnmarshalFamily(q.Name(), ssProb(other), b)
			require.ErrorContains(t, err, "-dimensional states, the file's state_dim")
			_, err = UnmarshalFamily(q.Name(), p, []byte(`{"nu": [0.5], "log_lambda": [0]}`)) // the scalar form before issue 32
			require.ErrorContains(t, err, "state_dim is missing (an older mscppl's form: fit again)")
		}
	}
}
