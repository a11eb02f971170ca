package msc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mscppl/mscppl/autodiff"
	"github.com/stretchr/testify/require"
)

// logQTape builds log q(z; lambda) for a d-dimensional full-rank or
// mean-field Gaussian on the autodiff tape, with lambda a Param: the
// reference for the closed-form score.
func logQTape(g *autodiff.Graph, meanField bool, d int, z []float64) (lam, out autodiff.Node) {
	n := d + d*(d+1)/2
	if meanField {
		n = 2 * d
	}
	lam = g.Param(n)
	mu := make([]autodiff.Node, d)
	for i := range mu {
		mu[i] = g.Index(lam, i)
	}
	L := make([][]autodiff.Node, d)
	k := d
	for i := 0; i < d; i++ {
		L[i] = make([]autodiff.Node, d)
		lo := 0
		if meanField {
			lo = i
		}
		for j := lo; j <= i; j++ {
			v := g.Index(lam, k)
			if i == j {
				v = g.Exp(v)
			}
			L[i][j] = v
			k++
		}
	}
	// forward substitution e = L^-1 (z - mu), then log q
	e := make([]autodiff.Node, d)
	var terms []autodiff.Node
	for i := 0; i < d; i++ {
		s := g.Sub(g.Const([]float64{z[i]}), mu[i])
		if !meanField {
			for j := 0; j < i; j++ {
				s = g.Sub(s, g.Mul(L[i][j], e[j]))
			}
		}
		e[i] = g.Div(s, L[i][i])
		terms = append(terms, g.Mul(g.Const([]float64{-0.5}), g.Mul(e[i], e[i])), g.Neg(g.Log(L[i][i])))
	}
	return lam, g.AddN(terms...)
}

// TestScoreAgainstAutodiff: the closed-form score grad_lambda log q(z) of
// both families equals the tape's reverse-mode gradient.
func TestScoreAgainstAutodiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, meanField := range []bool{false, true} {
		const d = 3
		var q Sampler = NewFullRank(d)
		if meanField {
			q = NewMeanField(d)
		}
		lam := make([]float64, q.NumLambda())
		for i := range lam {
			lam[i] = 0.5 * rng.NormFloat64()
		}
		q.SetLambda(lam)
		z := []float64{0.4, -1.3, 2.1}
		g := autodiff.New()
		lp, out := logQTape(g, meanField, d, z)
		g.Alloc(1)
		copy(g.Value(lp, 0), lam)
		g.Forward(1)
		g.Backward(out, 1)
		require.InDelta(t, g.Value(out, 0)[0]-0.5*d*math.Log(2*math.Pi), q.LogQ(z), 1e-12)
		score := make([]float64, len(lam))
		q.AddScore(1, z, score)
		require.InDeltaSlice(t, g.Grad(lp, 0), score, 1e-10, "mean-field %v", meanField)
	}
}

// TestStudentTScore: the Student-t family's closed-form score, the degrees
// of freedom included, equals central finite differences of LogQ in lambda,
// and its LogQ integrates the density's known normaliser in one dimension.
func TestStudentTScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const d = 3
	q := NewStudentT(d, 4)
	lam := make([]float64, q.NumLambda())
	q.Lambda(lam)
	for i := range lam {
		lam[i] += 0.3 * rng.NormFloat64()
	}
	q.SetLambda(lam)
	z := []float64{0.7, -1.1, 2.4}
	score := make([]float64, len(lam))
	q.AddScore(1, z, score)
	const h = 1e-6
	for i := range lam {
		lp, lm := append([]float64(nil), lam...), append([]float64(nil), lam...)
		lp[i] += h
		lm[i] -= h
		q.SetLambda(lp)
		fp := q.LogQ(z)
		q.SetLambda(lm)
		fm := q.LogQ(z)
		require.InDeltaf(t, (fp-fm)/(2*h), score[i], 1e-6, "component %d", i)
	}
	// in one dimension LogQ is Student's t density with scale L
	q1 := NewStudentT(1, 3)
	require.NoError(t, q1.SetMoments([]float64{0.5}, []float64{4 * 3}))
	x := 1.7
	s := 2.0 // the scale: cov = s^2 nu/(nu-2) = 4 * 3
	u := (x - 0.5) / s
	want, _ := math.Lgamma(2)
	lg, _ := math.Lgamma(1.5)
	want += -lg - 0.5*math.Log(3*math.Pi) - math.Log(s) - 2*math.Log1p(u*u/3)
	require.InDelta(t, want, q1.LogQ([]float64{x}), 1e-12)
}
