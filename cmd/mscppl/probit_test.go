package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/internal/simdata"
	"github.com/mscppl/mscppl/internal/testtier"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// truncAbove draws x ~ N(0, 1) conditioned on x > a, exactly: plain
// rejection for a <= 0.45 (acceptance >= 1/3), Robert's (1995) exponential
// rejection sampler above.
func truncAbove(rng *rand.Rand, a float64) float64 {
	if a <= 0.45 {
		for {
			if x := rng.NormFloat64(); x > a {
				return x
			}
		}
	}
	alpha := (a + math.Sqrt(a*a+4)) / 2
	for {
		x := a + rng.ExpFloat64()/alpha
		d := x - alpha
		if rng.Float64() <= math.Exp(-0.5*d*d) {
			return x
		}
	}
}

// probitGibbs is Albert & Chib's (1993) data-augmentation Gibbs sampler for
// y_i ~ Bernoulli(Phi(x_i' w)), w ~ N(0, I): an exact MCMC sampler, the
// ground truth for the posterior moments. X is n x d row-major. It returns
// the posterior means and sds and the batch-means Monte Carlo standard
// error of each mean.
func probitGibbs(rng *rand.Rand, X []float64, n, d int, y []float64, sweeps, burn int) (mean, sd, mcse []float64) {
	P := mat.NewSymDense(d, nil)
	for i := 0; i < n; i++ {
		xi := X[i*d : (i+1)*d]
		for a := 0; a < d; a++ {
			for b := a; b < d; b++ {
				P.SetSym(a, b, P.At(a, b)+xi[a]*xi[b])
			}
		}
	}
	for a := 0; a < d; a++ {
		P.SetSym(a, a, P.At(a, a)+1)
	}
	var ch mat.Cholesky
	if !ch.Factorize(P) {
		panic("X'X + I is not positive definite")
	}
	var L mat.TriDense
	ch.LTo(&L)
	w := make([]float64, d)
	xu := mat.NewVecDense(d, nil)
	var m mat.VecDense
	eps := mat.NewVecDense(d, nil)
	var noise mat.VecDense
	const nb = 50
	bs := sweeps / nb
	sum, sum2 := make([]float64, d), make([]float64, d)
	batch := make([][]float64, nb)
	for b := range batch {
		batch[b] = make([]float64, d)
	}
	for it := 0; it < burn+sweeps; it++ {
		for a := range d {
			xu.SetVec(a, 0)
		}
		for i := 0; i < n; i++ {
			xi := X[i*d : (i+1)*d]
			eta := 0.0
			for a, v := range xi {
				eta += v * w[a]
			}
			var u float64
			if y[i] == 1 {
				u = eta + truncAbove(rng, -eta)
			} else {
				u = eta - truncAbove(rng, eta)
			}
			for a, v := range xi {
				xu.SetVec(a, xu.AtVec(a)+v*u)
			}
		}
		// w | u ~ N(P^-1 X'u, P^-1): mean by a solve, noise L^-T eps
		if err := ch.SolveVecTo(&m, xu); err != nil {
			panic(err)
		}
		for a := 0; a < d; a++ {
			eps.SetVec(a, rng.NormFloat64())
		}
		if err := noise.SolveVec(L.T(), eps); err != nil {
			panic(err)
		}
		for a := 0; a < d; a++ {
			w[a] = m.AtVec(a) + noise.AtVec(a)
		}
		if it >= burn {
			k := it - burn
			for a, v := range w {
				sum[a] += v
				sum2[a] += v * v
				batch[min(k/bs, nb-1)][a] += v / float64(bs)
			}
		}
	}
	mean, sd, mcse = make([]float64, d), make([]float64, d), make([]float64, d)
	for a := 0; a < d; a++ {
		mean[a] = sum[a] / float64(sweeps)
		sd[a] = math.Sqrt(sum2[a]/float64(sweeps) - mean[a]*mean[a])
		s := 0.0
		for b := 0; b < nb; b++ {
			s += (batch[b][a] - mean[a]) * (batch[b][a] - mean[a])
		}
		mcse[a] = math.Sqrt(s / (nb - 1) / nb)
	}
	return mean, sd, mcse
}

// TestProbitGibbsAgainstGrid checks the reference tool itself at a small
// size: on a one-coefficient probit (n = 40) the Gibbs sampler's mean and
// sd agree with the posterior by quadrature on a fine grid, within 5 of
// its batch-means Monte Carlo errors (the sd within 5%).
func TestProbitGibbsAgainstGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 40
	X, y := make([]float64, n), make([]float64, n)
	for i := range X {
		X[i] = rng.NormFloat64()
		if rng.Float64() < 0.5*math.Erfc(-0.8*X[i]/math.Sqrt2) {
			y[i] = 1
		}
	}
	// the exact posterior of w ~ N(0, 1), y_i ~ Bernoulli(Phi(x_i w))
	var z, m1, m2 float64
	for k := 0; k < 20001; k++ {
		w := -6 + 12*float64(k)/20000
		lp := -0.5 * w * w
		for i := range X {
			p := 0.5 * math.Erfc(-X[i]*w/math.Sqrt2)
			if y[i] == 0 {
				p = 1 - p
			}
			lp += math.Log(p)
		}
		p := math.Exp(lp)
		z, m1, m2 = z+p, m1+p*w, m2+p*w*w
	}
	mean, sd := m1/z, math.Sqrt(m2/z-(m1/z)*(m1/z))
	gm, gs, mcse := probitGibbs(rand.New(rand.NewPCG(5, 6)), X, n, 1, y, 20000, 500)
	t.Logf("Gibbs %.4f (sd %.4f, mcse %.4f), grid %.4f (sd %.4f)", gm[0], gs[0], mcse[0], mean, sd)
	require.InDelta(t, mean, gm[0], 5*mcse[0])
	require.InDelta(t, sd, gs[0], 0.05*sd)
}

// designMatrix returns [1, X] for a probit example, with X exactly as the
// compiled model sees it (standardized).
func designMatrix(t *testing.T, model, data string) (X []float64, n, d int, y []float64) {
	m, err := infer.Load(model, data)
	require.NoError(t, err)
	var xs []float64
	var cols int
	for _, v := range m.IR.Data {
		switch v.Name {
		case "y":
			y = v.Value
		case "X":
			xs, n, cols = v.Value, v.Type.Rows, v.Type.Cols
		}
	}
	d = cols + 1
	X = make([]float64, n*d)
	for i := 0; i < n; i++ {
		X[i*d] = 1
		copy(X[i*d+1:(i+1)*d], xs[i*cols:(i+1)*cols])
	}
	return X, n, d, y
}

func TestTruncatedNormalSampler(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, a := range []float64{-1, 0.3, 2, 8} {
		// E[x | x > a] = phi(a) / (1 - Phi(a)); check within MC error
		const n = 200000
		s, s2 := 0.0, 0.0
		for i := 0; i < n; i++ {
			x := truncAbove(rng, a)
			require.Greater(t, x, a)
			s += x
			s2 += x * x
		}
		m := s / n
		require.Greater(t, s2/n-m*m, 0.0)
		phi := math.Exp(-0.5*a*a) / math.Sqrt(2*math.Pi)
		tail := 0.5 * math.Erfc(a/math.Sqrt2)
		want := phi / tail
		wantVar := 1 + a*want - want*want
		require.InDeltaf(t, want, m, 5*math.Sqrt(wantVar/n), "a=%g", a)
	}
}

// probitCase is a probit regression example with its exact reference
// posterior (examples/reference/probit_*.csv).
type probitCase struct {
	model, data string
	isBiased    bool // IS with S = 2 visibly misses here
}

var probitCases = []probitCase{
	{"../../examples/probit.msc", "../../examples/data/ionosphere.csv", true},
	{"../../examples/probit_pima.msc", "../../examples/data/pima.csv", false},
}

// probitReference returns the exact posterior's means and sds of c's
// coefficients, in the model's latent order, from its reference file: Albert
// and Chib's Gibbs sampler, 150000 sweeps after 2000 of burn-in, seed
// (11, 12), made by this test with -update (the file's README gives the
// command). It costs a minute, so the tests read the file.
func probitReference(t *testing.T, c probitCase, order []string) (mean, sd []float64) {
	t.Helper()
	ref := filepath.Join("../../examples/reference", "probit_"+strings.TrimSuffix(filepath.Base(c.data), ".csv")+".csv")
	if *update {
		X, n, d, y := designMatrix(t, c.model, c.data)
		var mcse []float64
		mean, sd, mcse = probitGibbs(rand.New(rand.NewPCG(11, 12)), X, n, d, y, 150000, 2000)
		for a := range mcse {
			require.Lessf(t, mcse[a], 0.04*sd[a], "%s: the Gibbs reference is not precise enough for coefficient %d", c.data, a)
		}
		var sb strings.Builder
		sb.WriteString("name,mean,sd\n")
		for a, name := range order {
			fmt.Fprintf(&sb, "%s,%.6g,%.6g\n", name, mean[a], sd[a])
		}
		require.NoError(t, os.WriteFile(ref, []byte(sb.String()), 0o644))
		return mean, sd
	}
	exact := exactTable(t, ref)
	require.Len(t, exact, len(order))
	for _, name := range order {
		e, ok := exact[name]
		require.True(t, ok, name)
		mean, sd = append(mean, e[0]), append(sd, e[1])
	}
	return mean, sd
}

// requireProbitMatches checks a run's summaries against the exact
// posterior: each mean within 0.1 sd, each sd within 10%.
func requireProbitMatches(t *testing.T, c probitCase, s *infer.Summary, mean, sd []float64) {
	t.Helper()
	worstM, worstS := 0.0, 0.0
	for a, name := range s.LatentOrder {
		q := s.Latent[name]
		em := math.Abs(q.Mean-mean[a]) / sd[a]
		es := math.Abs(q.SD-sd[a]) / sd[a]
		worstM, worstS = math.Max(worstM, em), math.Max(worstS, es)
		require.Lessf(t, em, 0.1, "%s %s: mean %.4f, exact %.4f (sd %.4f)", c.data, name, q.Mean, mean[a], sd[a])
		require.Lessf(t, es, 0.1, "%s %s: sd %.4f, exact %.4f", c.data, name, q.SD, sd[a])
	}
	t.Logf("%s: %d iterations, %.2fs, worst mean error %.3f sd, worst sd error %.1f%%", c.data, s.Iterations, s.ElapsedSeconds, worstM, 100*worstS)
}

// TestProbitPimaDefault, the fast tier's probit check: the default run on
// Pima (d = 9, about 3 s) converges with every coefficient within 0.1 sd
// and 10% of the exact posterior.
func TestProbitPimaDefault(t *testing.T) {
	c := probitCases[1]
	s := runJSON(t, "run", c.model, c.data, "--seed", "2")
	require.True(t, s.Converged, s.Verdict)
	mean, sd := probitReference(t, c, s.LatentOrder)
	requireProbitMatches(t, c, s, mean, sd)
}

// TestProbitMatchesExactPosterior is the probit issue's accuracy check: with
// default settings, q's marginal means are within 0.1 posterior sd and its
// sds within 10% of a long run of the exact Gibbs sampler, on Ionosphere
// (d = 35, with a constant column) and Pima (d = 9). The IS baseline with
// S = 2 shows its bias in q's own sds where MSC does not. Long tier (six
// runs); the fast tier has TestProbitPimaDefault.
func TestProbitMatchesExactPosterior(t *testing.T) {
	testtier.Skip(t)
	for _, c := range probitCases {
		s := runJSON(t, "run", c.model, c.data, "--seed", "2")
		mean, sd := probitReference(t, c, s.LatentOrder)
		requireProbitMatches(t, c, s, mean, sd)
		t.Logf("%s: change rate %.2f", c.data, s.Diagnostics.ChangeRateLast)
		// the cold start reaches the required accuracy within 6000 iterations
		// (the figure measured for this design: 4-6k on Ionosphere)
		short := runJSON(t, "run", c.model, c.data, "--seed", "2", "--iters", "6000")
		requireProbitMatches(t, c, short, mean, sd)
		// the bias is q's own (the PSIS-weighted summaries correct some of it)
		is := runJSON(t, "run", c.model, c.data, "--seed", "2", "--method", "is", "--samples", "2")
		worstIS, worstQ := 0.0, 0.0
		for a, name := range is.LatentOrder {
			worstIS = math.Max(worstIS, math.Abs(is.QLatent[name].SD-sd[a])/sd[a])
			worstQ = math.Max(worstQ, math.Abs(s.QLatent[name].SD-sd[a])/sd[a])
		}
		t.Logf("%s: q's worst sd error: MSC %.1f%%, IS (S=2) %.1f%%", c.data, 100*worstQ, 100*worstIS)
		require.Less(t, worstQ, 0.1, "MSC's q")
		if c.isBiased {
			require.Greater(t, worstIS, 0.15, "IS with S = 2 should leave some sd of q more than 15% off")
		}
	}
}

// TestProbitHighDimDefaults: on a simulated 61-dimensional probit (208 rows,
// the size of the Sonar comparison) the default run converges, with
// summaries within 0.1 posterior sd and 10% of a long Gibbs run, and with
// q's own sds within 10%. With rho_0 = 0.03 at every dimension instead of
// 0.2/d, q's dense covariance, estimated from too few effective samples,
// collapsed in some directions: the run reached its 40000-iteration cap not
// converged, with q's sds 24% narrow.
func TestProbitHighDimDefaults(t *testing.T) {
	testtier.Skip(t) // a 61-dimensional Gibbs reference and a default run
	model, data, err := simdata.Probit(t.TempDir(), 208, 61)
	require.NoError(t, err)
	X, n, d, y := designMatrix(t, model, data)
	mean, sd, mcse := probitGibbs(rand.New(rand.NewPCG(11, 12)), X, n, d, y, 30000, 1000)
	for a := range mcse {
		require.Lessf(t, mcse[a], 0.04*sd[a], "the Gibbs reference is not precise enough for coefficient %d", a)
	}
	s := runJSON(t, "run", model, data, "--seed", "1")
	require.True(t, s.Converged, "%v", s.Warnings)
	worstM, worstS, worstQ := 0.0, 0.0, 0.0
	for a, name := range s.LatentOrder {
		p, q := s.Latent[name], s.QLatent[name]
		worstM = math.Max(worstM, math.Abs(p.Mean-mean[a])/sd[a])
		worstS = math.Max(worstS, math.Abs(p.SD-sd[a])/sd[a])
		worstQ = math.Max(worstQ, math.Abs(q.SD-sd[a])/sd[a])
	}
	t.Logf("%d iterations, %.2fs: worst mean error %.3f sd, worst sd error %.1f%%, q's worst sd error %.1f%%",
		s.Iterations, s.ElapsedSeconds, worstM, 100*worstS, 100*worstQ)
	require.Less(t, worstM, 0.1)
	require.Less(t, worstS, 0.1)
	require.Less(t, worstQ, 0.1)
}
