package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/infer"
	kf "github.com/mscppl/mscppl/internal/kalman"
	"github.com/mscppl/mscppl/internal/testtier"
	"github.com/stretchr/testify/require"
)

// exactTable reads a name,mean,sd,... reference file into means and sds.
func exactTable(t *testing.T, path string) map[string][2]float64 {
	t.Helper()
	out, err := kf.ReadExact(path)
	require.NoError(t, err)
	return out
}

// withinExact requires every latent of exact (read by exactTable; its
// names mapped by rename when that is not nil) to be in s within tolMean
// sds of the exact mean and tolSD of the exact sd, and returns the worst
// errors.
func withinExact(t *testing.T, s *infer.Summary, exact map[string][2]float64, rename func(string) string, tolMean, tolSD float64) (worstMean, worstSD float64) {
	t.Helper()
	for name, e := range exact {
		n := name
		if rename != nil {
			n = rename(name)
		}
		got, ok := s.Latent[n]
		require.True(t, ok, n)
		dm := math.Abs(got.Mean-e[0]) / e[1]
		ds := math.Abs(got.SD/e[1] - 1)
		worstMean, worstSD = math.Max(worstMean, dm), math.Max(worstSD, ds)
		require.LessOrEqualf(t, dm, tolMean, "%s: mean %.4f, exact %.4f (sd %.4f); %s", n, got.Mean, e[0], e[1], s.Verdict)
		require.LessOrEqualf(t, ds, tolSD, "%s: sd %.4f, exact %.4f; %s", n, got.SD, e[1], s.Verdict)
	}
	return worstMean, worstSD
}

// TestStateSpaceExactAnswers: the default runs of state-space models as
// Stan users write them, against exact answers (internal/kalman: a Kalman
// likelihood on a grid over the static latents, the Kalman smoother):
// every static latent and every state's smoothing marginal within 0.1
// posterior sd in the mean and 10% in the sd, and converged.
//   - the Bayesian AR(1) plus noise, T = 200, phi and s latent with
//     priors beside x (the kalman kernel: the state integrated out, drawn
//     by FFBS; and particle Gibbs with --kernel pg);
//   - the local level with both variances latent, T = 100, at the scale
//     of (c) and of real data (d) (the kalman kernel);
//   - the local linear trend, a 2-dimensional state (level, slope) with
//     known variances, T = 100, as two vectors and as a matrix[T, 2].
func TestStateSpaceExactAnswers(t *testing.T) {
	testtier.Skip(t) // six runs, about 60 s
	const dir = "../../internal/kalman/testdata/"
	llt, err := os.ReadFile(dir + "local_linear_trend.msc")
	require.NoError(t, err)
	matrix := filepath.Join(t.TempDir(), "llt_matrix.msc")
	// the same model with the state as a matrix row by row
	src := strings.NewReplacer("level: vector[T]\n  slope: vector[T]", "x: matrix[T, 2]",
		"level[1]", "x[1, 1]", "slope[1]", "x[1, 2]",
		"level[t] ~ normal(level[t-1] + slope[t-1], 0.3)", "x[t, 1] ~ normal(x[t-1, 1] + x[t-1, 2], 0.3)",
		"slope[t] ~ normal(slope[t-1], 0.05)", "x[t, 2] ~ normal(x[t-1, 2], 0.05)",
		"y ~ normal(level, 1)", "y ~ normal(col(x, 1), 1)").Replace(string(llt))
	require.NoError(t, os.WriteFile(matrix, []byte(src), 0o644))
	for _, c := range []struct {
		name, model, data, exact, seed, kernel string
		rename                                 func(string) string
		flags                                  []string
	}{
		{"ar1_noise", dir + "ar1_noise.msc", dir + "ar1_noise.csv", dir + "ar1_noise_exact.csv", "2", "kalman", nil, nil},
		{"local_level", dir + "local_level.msc", dir + "local_level.csv", dir + "local_level_exact.csv", "1", "kalman", nil, nil},
		{"local_level_1000", dir + "local_level_1000.msc", dir + "local_level_1000.csv", dir + "local_level_1000_exact.csv", "1", "kalman", nil, nil},
		// particle Gibbs stays covered where the Kalman marginal applies
		{"ar1_noise_pg", dir + "ar1_noise.msc", dir + "ar1_noise.csv", dir + "ar1_noise_exact.csv", "2", "pg", nil, []string{"--kernel", "pg"}},
		{"local_linear_trend", dir + "local_linear_trend.msc", dir + "local_linear_trend.csv", dir + "local_linear_trend_exact.csv", "1", "csmc", nil, nil},
		{"local_linear_trend_matrix", matrix, dir + "local_linear_trend.csv", dir + "local_linear_trend_exact.csv", "1", "csmc",
			func(n string) string { // level[t] is x[t,1], slope[t] x[t,2]
				v, idx, _ := strings.Cut(strings.TrimSuffix(n, "]"), "[")
				k := map[string]string{"level": "1", "slope": "2"}[v]
				return "x[" + idx + "," + k + "]"
			}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := runJSON(t, append([]string{"run", c.model, c.data, "--seed", c.seed}, c.flags...)...)
			require.True(t, s.Converged, s.Verdict)
			require.Equal(t, c.kernel, s.Kernel)
			worstMean, worstSD := withinExact(t, s, exactTable(t, c.exact), c.rename, 0.1, 0.10)
			t.Logf("%s: %d iterations, %.1f s, worst mean error %.3f sd, worst sd error %.1f%%", c.name, s.Iterations, s.ElapsedSeconds, worstMean, 100*worstSD)
		})
	}
}

// TestLocalLevel1000NeverConvergedAndWrong: issue 33's defect, the local
// level at the scale of real data (internal/kalman case (d): a series
// around 1000, both sds latent with half-normal(0, 200) priors), whose
// particle Gibbs run (the default until the kalman kernel; --kernel pg
// now) said converged with the state noise's sd
// 0.5-0.8 posterior sd low and 20-25% too narrow (the kernel proposed from
// q's iterates, which followed the chain). Every static and state within
// 0.2 sd in the mean and 15% in the sd whatever the verdict (0.07 sd and
// 9% measured), and within 0.1 sd and 10% when it says converged. About
// 110 s on the 2-core machine.
func TestLocalLevel1000NeverConvergedAndWrong(t *testing.T) {
	testtier.Skip(t)
	const dir = "../../internal/kalman/testdata/"
	s := runJSON(t, "run", dir+"local_level_1000.msc", dir+"local_level_1000.csv", "--seed", "1", "--kernel", "pg")
	require.Equal(t, "pg", s.Kernel)
	tolMean, tolSD := 0.2, 0.15
	if s.Converged {
		tolMean, tolSD = 0.1, 0.10
	}
	worstMean, worstSD := withinExact(t, s, exactTable(t, dir+"local_level_1000_exact.csv"), nil, tolMean, tolSD)
	t.Logf("%s; %d iterations, %.1f s, worst mean error %.3f sd, worst sd error %.1f%%", s.Verdict, s.Iterations, s.ElapsedSeconds, worstMean, 100*worstSD)
}

// TestSVBayesAgainstPMMH: the Bayesian stochastic-volatility model (phi,
// sigma and mu latents with priors beside the 1974-step state, particle
// Gibbs after each chain's pilot) by its default run on the DEM/GBP series, against the long
// particle-marginal Metropolis-Hastings reference of examples/tools/svref
// (its own Monte Carlo error below 0.025 sd): converged, and every static
// and every state within 0.1 sd in the mean and 10% in the sd. About 12000
// iterations, 2.5-5 minutes on the 2-core machine.
func TestSVBayesAgainstPMMH(t *testing.T) {
	testtier.Skip(t) // the default run of a 1974-step particle Gibbs
	s := runJSON(t, "run", "../../examples/stochastic_volatility_bayes.msc", "../../examples/data/dem2gbp.csv")
	require.True(t, s.Converged, s.Verdict)
	// the default kernel chooses per chain between particle Gibbs and
	// pmcis; at T = 1974 pmcis would need thousands of particles per
	// filter, and every chain's pilot says so
	require.Equal(t, "pgpm", s.Kernel)
	chose := 0
	for _, n := range s.Notes {
		if strings.Contains(n, "pgpm: particle Gibbs, the less work") {
			chose++
		}
	}
	require.Equal(t, 4, chose, "every chain keeps particle Gibbs: %q", s.Notes)
	worstMean, worstSD := 0.0, 0.0
	for _, ref := range []string{"sv_bayes_pmmh.csv", "sv_bayes_pmmh_x.csv"} {
		for n, e := range exactTable(t, "../../examples/reference/"+ref) {
			got, ok := s.Latent[n]
			require.True(t, ok, n)
			dm, ds := math.Abs(got.Mean-e[0])/e[1], math.Abs(got.SD/e[1]-1)
			worstMean, worstSD = math.Max(worstMean, dm), math.Max(worstSD, ds)
			require.LessOrEqualf(t, dm, 0.1, "%s: mean %.4f, reference %.4f (sd %.4f)", n, got.Mean, e[0], e[1])
			require.LessOrEqualf(t, ds, 0.10, "%s: sd %.4f, reference %.4f", n, got.SD, e[1])
		}
	}
	t.Logf("%d iterations, %.0f s, worst mean error %.3f sd, worst sd error %.1f%%", s.Iterations, s.ElapsedSeconds, worstMean, 100*worstSD)
}

// TestSVIdentifiability: the paper's stochastic-volatility form, where only
// mu + log(beta) is identified, ends NOT converged with a warning that names
// the combination (a particle filter's likelihood is flat along the
// direction the chains' params spread in); the identified form does not.
func TestSVIdentifiability(t *testing.T) {
	paper := runJSON(t, "run", "../../examples/stochastic_volatility_paper.msc", "../../examples/data/dem2gbp_monthly.csv")
	require.False(t, paper.Converged)
	require.Contains(t, strings.Join(paper.Warnings, "\n"), "mu and log(beta) are not separately identified; only mu + log(beta) is")
	ident := runJSON(t, "run", "../../examples/stochastic_volatility.msc", "../../examples/data/dem2gbp_monthly.csv")
	require.NotContains(t, strings.Join(ident.Warnings, "\n"), "not separately identified")
}

// TestVAR2WithStaticsExact: issue 33 point 4, particle Gibbs for a state
// of K = 2 components with static latents beside it. The two-dimensional
// VAR(1) with both sds latent (internal/kalman case (e), T = 150, only the
// first component observed) by `--kernel pg`, written as a matrix[T, 2]
// (var2.msc), as two vectors, as an array[T] vector[2] drawn element by
// element and one drawn a row at a time by multi_normal, against the
// exact answer (a Kalman likelihood on a grid over sq, sr and the Kalman
// smoother): every static and every state within 0.1 sd in the mean and
// 10% in the sd when the run says converged (never converged and wrong),
// and within 0.2 sd and 15% whatever the verdict. About 2 minutes a form
// on the loaded 2-core machine. The default runs of the matrix and the
// multi_normal forms take the kalman kernel (the state integrated out)
// and must say converged and be within 0.1 sd and 10%.
func TestVAR2WithStaticsExact(t *testing.T) {
	testtier.Skip(t)
	const dir = "../../internal/kalman/testdata/"
	src, err := os.ReadFile(dir + "var2.msc")
	require.NoError(t, err)
	write := func(name string, r *strings.Replacer) string {
		path := filepath.Join(t.TempDir(), name)
		out := r.Replace(string(src))
		require.NotEqual(t, string(src), out, "the replacements apply")
		require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
		return path
	}
	vectors := write("var2_vectors.msc", strings.NewReplacer("x: matrix[T, 2]", "a: vector[T]\n  b: vector[T]",
		"x[1, 1]", "a[1]", "x[1, 2]", "b[1]", "x[t, 1]", "a[t]", "x[t, 2]", "b[t]",
		"x[t-1, 1]", "a[t-1]", "x[t-1, 2]", "b[t-1]", "col(x, 1)", "a"))
	array := write("var2_array.msc", strings.NewReplacer("x: matrix[T, 2]", "x: array[T] vector[2]",
		"y ~ normal(col(x, 1), sr)", "for t in 1..T { y[t] ~ normal(x[t, 1], sr) }"))
	multi := write("var2_multi_normal.msc", strings.NewReplacer("data { y: vector[T] }",
		"data {\n  y: vector[T]\n  F: matrix[2, 2] = rep_matrix(0, 2, 2)\n  F[1, 1] = 0.8\n  F[1, 2] = 0.3\n  F[2, 1] = -0.1\n  F[2, 2] = 0.6\n}",
		"x: matrix[T, 2]", "x: array[T] vector[2]",
		"x[1, 1] ~ normal(0, 3)\n  x[1, 2] ~ normal(0, 3)", "x[1] ~ multi_normal(rep_vector(0, 2), diag_matrix(rep_vector(9, 2)))",
		"x[t, 1] ~ normal(0.8 * x[t-1, 1] + 0.3 * x[t-1, 2], sq)\n    x[t, 2] ~ normal(-0.1 * x[t-1, 1] + 0.6 * x[t-1, 2], sq)",
		"x[t] ~ multi_normal(F * x[t-1], diag_matrix(rep_vector(sq^2, 2)))",
		"y ~ normal(col(x, 1), sr)", "for t in 1..T { y[t] ~ normal(x[t, 1], sr) }"))
	for _, c := range []struct {
		name, model string
		rename      func(string) string
		kernel      string // "" for the default run, which must take the kalman kernel
	}{
		{"matrix", dir + "var2.msc", nil, "pg"},
		{"vectors", vectors, func(n string) string { // x[t,1] is a[t], x[t,2] b[t]
			idx, k, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(n, "x["), "]"), ",")
			if !ok {
				return n
			}
			return map[string]string{"1": "a", "2": "b"}[k] + "[" + idx + "]"
		}, "pg"},
		{"array", array, nil, "pg"},
		{"multi_normal", multi, nil, "pg"},
		{"matrix_default", dir + "var2.msc", nil, ""},
		{"multi_normal_default", multi, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"run", c.model, dir + "var2.csv", "--seed", "1"}
			tolMean, tolSD := 0.2, 0.15
			if c.kernel != "" {
				args = append(args, "--kernel", c.kernel)
			}
			s := runJSON(t, args...)
			if c.kernel == "" {
				// the Kalman marginal: converged, and within the strict bounds
				require.Equal(t, "kalman", s.Kernel)
				require.True(t, s.Converged, s.Verdict)
			} else {
				require.Equal(t, c.kernel, s.Kernel)
			}
			if s.Converged {
				tolMean, tolSD = 0.1, 0.10
			}
			exact := exactTable(t, dir+"var2_exact.csv")
			require.Len(t, exact, 2+2*150)
			worstMean, worstSD := withinExact(t, s, exact, c.rename, tolMean, tolSD)
			t.Logf("%s: %s; %d iterations, %.1f s, worst mean error %.3f sd, worst sd error %.1f%%", c.name, s.Verdict, s.Iterations, s.ElapsedSeconds, worstMean, 100*worstSD)
		})
	}
}

// TestVectorStaticsRunsPG is the fast tier's check of the same: the VAR(1)
// with statics on four steps runs particle Gibbs when asked for, and by
// default the kalman kernel (the state integrated out), and both report
// the statics and every element x[t,k].
func TestVectorStaticsRunsPG(t *testing.T) {
	const dir = "testdata/errors/cli/"
	for _, kernel := range []string{"pg", ""} {
		args := []string{"run", dir + "ssm_vector_statics.msc", dir + "ssm.csv", "--seed", "1", "--iters", "200", "--quiet"}
		want := "kalman"
		if kernel != "" {
			args, want = append(args, "--kernel", kernel), kernel
		}
		s := runJSON(t, args...)
		require.Equal(t, want, s.Kernel)
		for _, n := range []string{"sq", "sr", "x[1,1]", "x[4,2]"} {
			got, ok := s.Latent[n]
			require.True(t, ok, n)
			require.False(t, math.IsNaN(got.Mean) || got.SD <= 0, "%s: mean %g, sd %g", n, got.Mean, got.SD)
		}
	}
}
