package repl

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer"
)

// TestEvalShape: which expressions :eval reads as a probability (a
// comparison or logical operator at the top, or a negation) or as a
// posterior mean (mean(x)), and the text x compiles from (the same
// columns).
func TestEvalShape(t *testing.T) {
	for _, c := range []struct {
		src   string
		kind  evalKind
		inner string
	}{
		{"tau > 5", evalProb, ""},
		{"tau>5", evalProb, ""},
		{"mu + 1 <= tau * 2", evalProb, ""},
		{"mu > 0 && tau < 3", evalProb, ""},
		{"mu == 0 || tau != 1", evalProb, ""},
		{"!(tau > 5)", evalProb, ""},
		{"((tau > 5))", evalProb, ""},
		{"(tau > 5) + 1", evalPlain, ""},
		{"-(tau > 5)", evalPlain, ""},
		{"(tau > 5) * 2", evalPlain, ""},
		{"tau", evalPlain, ""},
		{"exp(tau)", evalPlain, ""},
		{"mean(tau)", evalMean, "     tau "},
		{" mean( tau > 5 )", evalMean, "       tau > 5  "},
		{"(mean(tau))", evalMean, "      tau  "},
		{"mean(tau) + 1", evalPlain, ""},
		{"mean(tau)[1]", evalPlain, ""},
		{"sd(tau)", evalPlain, ""},
		{"tau >", evalPlain, ""}, // does not parse: CompileExpr reports it
	} {
		kind, inner := evalShape([]byte(c.src))
		require.Equal(t, c.kind, kind, c.src)
		require.Equal(t, c.inner, string(inner), c.src)
	}
}

// evalRow returns the numbers of :eval's row labelled label.
func evalRow(t *testing.T, stdout, label string) []float64 {
	t.Helper()
	for _, line := range strings.Split(stdout, "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, label+"  "); ok {
			var row []float64
			for _, s := range strings.Fields(rest) {
				x, err := strconv.ParseFloat(s, 64)
				require.NoError(t, err, line)
				row = append(row, x)
			}
			return row
		}
	}
	t.Fatalf("no row %q in\n%s", label, stdout)
	return nil
}

// TestEvalProbability: the posterior of normal_mean is N(1.3456,
// 0.2182^2), so P(z > 1.5) = 1 - Phi((1.5 - 1.3456)/0.2182) = 0.2396 and
// the posterior mean is 1.3456. :eval z > 1.5, its negation and mean(z)
// must find them within their printed Monte Carlo standard errors (four of
// them, plus q's own error after a finite run); the MCSE of a probability
// is at least that of 4000 independent draws, sqrt(p(1 - p)/4000).
func TestEvalProbability(t *testing.T) {
	stdout, stderr := session(t,
		":load ../../../examples/normal_mean.msc",
		":data ../../../examples/data/normal_mean.csv",
		":run --iters 20000",
		":eval z > 1.5",
		":eval !(z > 1.5)",
		":eval mean(z)",
		":eval mean(z > 1.5)",
	)
	require.Empty(t, stderr)
	require.Contains(t, stdout, "probability    mcse")
	p := 1 - 0.5*math.Erfc(-(1.5-1.3456)/0.2182/math.Sqrt2)
	prob := evalRow(t, stdout, "z > 1.5")
	require.Len(t, prob, 2)
	require.InDelta(t, p, prob[0], 4*prob[1]+0.01)
	iid := math.Sqrt(p * (1 - p) / float64(infer.Defaults.EvalDraws))
	require.GreaterOrEqual(t, prob[1], 0.9*iid)
	require.Less(t, prob[1], 3*iid)
	not := evalRow(t, stdout, "!(z > 1.5)")
	require.InDelta(t, 1-prob[0], not[0], 1e-9)
	require.Equal(t, prob[1], not[1])
	mean := evalRow(t, stdout, "mean(z)")
	require.Len(t, mean, 2)
	require.InDelta(t, 1.3456, mean[0], 4*mean[1]+0.01)
	require.InDelta(t, 0.2182/math.Sqrt(float64(infer.Defaults.EvalDraws)), mean[1], 0.003)
	require.Equal(t, prob, evalRow(t, stdout, "mean(z > 1.5)"))
	t.Logf("P(z > 1.5) = %g (mcse %g), want %.4f; mean %g (mcse %g)", prob[0], prob[1], p, mean[0], mean[1])
}
