package repl

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/lower"
)

// loaded returns a session state with a model file and its data loaded.
func loaded(t *testing.T, model, data string) *state {
	t.Helper()
	var out, errb bytes.Buffer
	r := &state{ctx: context.Background(), stdout: &out, stderr: &errb, sources: map[string][]byte{}, defaults: map[string]string{},
		modelPath: model, dataPath: data}
	require.True(t, r.reload(), errb.String())
	return r
}

// TestComplete: the completer offers commands, block names, the model's
// names including top-level locals of the model block (theta), and the
// functions and distributions, for the identifier before the cursor.
func TestComplete(t *testing.T) {
	r := loaded(t, "../../../examples/eight_schools_noncentered.msc", "../../../examples/data/eight_schools.csv")
	for _, c := range []struct {
		line string
		want []string // each must be offered
		not  []string // none of these may be
	}{
		{":ev", []string{":eval"}, []string{":exit"}},
		{":s", []string{":show", ":set", ":save", ":summary", ":sample"}, []string{":clear"}},
		{":cl", []string{":clear"}, nil},
		{":eval th", []string{":eval theta", ":eval theta_trans"}, []string{":eval tau"}},
		{":eval exp(th", []string{":eval exp(theta", ":eval exp(theta_trans"}, nil},
		{":eval ta", []string{":eval tau", ":eval tail"}, []string{":eval theta"}},
		{":eval log1", []string{":eval log1p", ":eval log1m_exp"}, nil},
		{":eval 1 - normal_lc", []string{":eval 1 - normal_lcdf", ":eval 1 - normal_lccdf"}, nil},
		{":eval me", []string{":eval mean"}, nil},
		{"  x ~ multi_n", []string{"  x ~ multi_normal", "  x ~ multi_normal_cholesky"}, nil},
		{"  y ~ stud", []string{"  y ~ student_t"}, nil},
		{"lat", []string{"latent"}, nil},
		{"mo", []string{"model"}, nil},
		{"", []string{":help", ":show"}, []string{"theta"}},
		// inside an index only the names in scope: no function
		{":eval theta[", []string{":eval theta[J", ":eval theta[mu"}, []string{":eval theta[ordered_logistic", ":eval theta[log"}},
		{"  y[j] ~ normal(theta[J", []string{"  y[j] ~ normal(theta[J"}, nil},
		{":eval theta[1] + l", []string{":eval theta[1] + log"}, nil},
		{":eval Sigma[1, ", []string{":eval Sigma[1, J"}, []string{":eval Sigma[1, exp"}},
	} {
		got := r.complete(c.line)
		for _, w := range c.want {
			require.Contains(t, got, w, "%q", c.line)
		}
		for _, n := range c.not {
			require.NotContains(t, got, n, "%q", c.line)
		}
	}
}

// TestFunctionNamesResolve: every function offered by completion is one
// the language knows (a call of it may fail on its arguments, never as an
// unknown function).
func TestFunctionNamesResolve(t *testing.T) {
	r := loaded(t, "../../../examples/normal_mean.msc", "../../../examples/data/normal_mean.csv")
	names := functionNames()
	require.Greater(t, len(names), 40)
	dists := map[string]bool{}
	for _, n := range ir.DistributionNames() {
		dists[n] = true
	}
	for _, n := range names {
		if dists[n] {
			continue // used after ~
		}
		_, err := lower.CompileExpr(r.m.Comp, evalName, []byte(n+"(z)"))
		if err != nil {
			require.NotContains(t, err.Error(), "unknown function", n)
		}
	}
}

// TestFunctionNamesFromTheVocabulary: completion offers every entry of the
// vocabulary: the built-in functions (all of them, the vector and matrix
// ones included), the distributions and their functions.
func TestFunctionNamesFromTheVocabulary(t *testing.T) {
	names := map[string]bool{}
	for _, n := range functionNames() {
		names[n] = true
	}
	for _, list := range [][]string{ir.FunctionNames(), ir.DistributionNames(), ir.DerivedNames()} {
		for _, n := range list {
			require.True(t, names[n], n)
		}
	}
	for _, n := range []string{"head", "segment", "block", "rows_dot_self", "multi_normal_lpdf", "categorical_lpmf", "normal_rng", "pi"} {
		require.True(t, names[n], n)
	}
}
