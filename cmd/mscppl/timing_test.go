package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunTiming: summary.json records the time of each phase, in order,
// the writing of the other outputs included; a run shorter than
// timingAfter prints no time line (so that outputs compared in tests stay
// deterministic).
func TestRunTiming(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := mscppl("run", "testdata/outputs/names.msc", "testdata/outputs/names.csv", "--iters", "200", "--draws", "500", "--out", out)
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stdout, "time:")
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	require.NoError(t, err)
	var sum struct {
		Timing json.RawMessage `json:"timing"`
	}
	require.NoError(t, json.Unmarshal(b, &sum))
	var phases map[string]float64
	require.NoError(t, json.Unmarshal(sum.Timing, &phases), string(b))
	keys := []string{"read", "compile", "warm_start", "iterations", "psis", "write"}
	require.Len(t, phases, len(keys))
	last := -1
	for _, k := range keys {
		v, ok := phases[k]
		require.True(t, ok, "no %s in %s", k, sum.Timing)
		require.Greater(t, v, 0.0, k)
		i := strings.Index(string(sum.Timing), `"`+k+`"`)
		require.Greater(t, i, last, "%s out of order in %s", k, sum.Timing)
		last = i
	}
}
