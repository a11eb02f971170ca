package main

import (
	"encoding/json"
	"github.com/mscppl/mscppl/infer"
	"runtime"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplitsDisjointCoveringSeeded(t *testing.T) {
	sp, err := infer.MakeSplits(103, 20, 0.1, 7)
	require.NoError(t, err)
	require.Len(t, sp, 20)
	distinct := map[string]bool{}
	for _, s := range sp {
		require.Len(t, s.Test, 10) // round(0.1 * 103)
		all := append(append([]int(nil), s.Train...), s.Test...)
		sort.Ints(all)
		for i, v := range all {
			require.Equal(t, i, v, "train and test must partition the rows")
		}
		distinct[fmtInts(s.Test)] = true
	}
	require.Greater(t, len(distinct), 15, "splits must differ")
	again, _ := infer.MakeSplits(103, 20, 0.1, 7)
	require.Equal(t, sp, again, "same seed, same splits")
	other, _ := infer.MakeSplits(103, 20, 0.1, 8)
	require.NotEqual(t, sp, other)
	// split i does not depend on how many splits are made
	fewer, _ := infer.MakeSplits(103, 5, 0.1, 7)
	require.Equal(t, sp[:5], fewer)
	for _, bad := range []float64{0, 1, -0.2, 1.5} {
		_, err := infer.MakeSplits(103, 5, bad, 7)
		require.ErrorContains(t, err, "--test-fraction must be strictly between 0 and 1")
	}
}

func fmtInts(x []int) string {
	b, _ := json.Marshal(x)
	return string(b)
}

// TestCVDeterministicAcrossCores: the same seed gives the same scores with
// one core or two.
func TestCVDeterministicAcrossCores(t *testing.T) {
	args := []string{"cv", "../../examples/probit_pima.msc", "../../examples/data/pima.csv", "--splits", "4", "--iters", "300", "--methods", "msc,ep", "--json"}
	scores := func(procs int) []infer.CVMethod {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		code, out, errOut := mscppl(args...)
		require.Equal(t, 0, code, errOut)
		var r infer.CVResult
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		for i := range r.Methods {
			r.Methods[i].Seconds = 0
		}
		return r.Methods
	}
	one, two := scores(1), scores(2)
	require.Equal(t, one, two)
	require.Equal(t, "msc", one[0].Method)
	require.Len(t, one[0].Scores, 4)
}

func TestCVBadInput(t *testing.T) {
	code, _, errOut := mscppl("cv", "../../examples/probit_pima.msc", "../../examples/data/pima.csv", "--test-fraction", "1.5")
	require.Equal(t, 2, code) // a flag no run can use
	require.Contains(t, errOut, "--test-fraction must be strictly between 0 and 1")
	code, _, errOut = mscppl("cv", "../../examples/probit_pima.msc", "../../examples/data/pima.csv", "--methods", "msc,nuts")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, `unknown method "nuts"`)
}
