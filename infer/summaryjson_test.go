package infer

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// objectKeys are the keys of the JSON object at key (a path of keys) in
// the order written.
func objectKeys(t *testing.T, b []byte, path ...string) []string {
	t.Helper()
	var raw json.RawMessage = b
	for _, k := range path {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(raw, &m))
		raw = m[k]
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok, "%v is not an object", path)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

// TestSummaryJSONOrder: a fitted model with a vector of eleven latents and
// a constrained one writes latent, q_latent, rhat and the chains' q in the
// model's order (a[2] before a[10], as latent_order says, not Go's sorted
// map order), warnings and notes as arrays, and reads back the same.
func TestSummaryJSONOrder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "order.msc")
	require.NoError(t, os.WriteFile(path, []byte("latent {\n  s: real<lower=0>\n  a: vector[11]\n}\nmodel {\n  s ~ half_normal(1)\n  a ~ normal(0, 1)\n}\n"), 0o644))
	m, err := Load(path, "")
	require.NoError(t, err)
	f, err := Fit(context.Background(), m, Options{Method: "msc", Iters: 400, Fixed: true, Seed: 1, Draws: 500})
	require.NoError(t, err)
	b, err := json.Marshal(f.Summary)
	require.NoError(t, err)
	want := []string{"s", "a[1]", "a[2]", "a[3]", "a[4]", "a[5]", "a[6]", "a[7]", "a[8]", "a[9]", "a[10]", "a[11]"}
	require.Equal(t, want, f.Summary.LatentOrder)
	require.Equal(t, want, objectKeys(t, b, "latent"))
	require.Equal(t, want, objectKeys(t, b, "q_latent"))
	uwant := append([]string{}, want...) // s is unconstrained by its name too
	require.Equal(t, uwant, objectKeys(t, b, "diagnostics", "rhat"))
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &raw))
	var chains []json.RawMessage
	require.NoError(t, json.Unmarshal(raw["chains"], &chains))
	require.NotEmpty(t, chains)
	require.Equal(t, uwant, objectKeys(t, chains[0], "q_mean_unconstrained"))
	for _, k := range []string{"warnings", "notes"} {
		require.True(t, strings.HasPrefix(string(raw[k]), "["), "%s is %s", k, raw[k])
	}
	var back Summary
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, f.Summary.LatentOrder, back.LatentOrder)
	require.Equal(t, len(f.Summary.Latent), len(back.Latent))
	for n, mo := range f.Summary.Latent {
		require.InDelta(t, mo.Mean, back.Latent[n].Mean, 1e-12, n)
	}
}

// TestSummaryJSONArraysAndNulls: an empty summary writes warnings and
// notes as [], params as {}, and a mean that could not be computed as
// null (read back as NaN) rather than failing to write; keys the order
// does not name follow in natural order.
func TestSummaryJSONArraysAndNulls(t *testing.T) {
	nan := math.NaN()
	s := &Summary{Latent: map[string]Moments{
		"b[10]": {Mean: 1}, "b[2]": {Mean: 2}, "x": {Mean: nan, SD: nan, Q05: Figure(nan), Q50: Figure(nan), Q95: Figure(nan), MCSE: Figure(nan)},
	}, LatentOrder: []string{"x"}}
	b, err := json.Marshal(s)
	require.NoError(t, err)
	require.Equal(t, []string{"x", "b[2]", "b[10]"}, objectKeys(t, b, "latent"))
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &raw))
	require.Equal(t, "[]", string(raw["warnings"]))
	require.Equal(t, "[]", string(raw["notes"]))
	require.Equal(t, "{}", string(raw["params"]))
	require.Contains(t, string(b), `"x":{"mean":null,"sd":null,"q05":null,"q50":null,"q95":null,"mcse_mean":null}`)
	var back Summary
	require.NoError(t, json.Unmarshal(b, &back))
	require.True(t, math.IsNaN(back.Latent["x"].Mean))
	require.Equal(t, 2.0, back.Latent["b[2]"].Mean)
}

// TestNaturalCompare: numbers inside names compare as numbers.
func TestNaturalCompare(t *testing.T) {
	for _, c := range []struct {
		a, b string
		less bool
	}{{"a[2]", "a[10]", true}, {"a[10]", "a[2]", false}, {"L[1,2]", "L[1,10]", true}, {"a", "b", true}, {"a", "a[1]", true}, {"a[1]", "a[1]", false}} {
		require.Equal(t, c.less, naturalCompare(c.a, c.b) < 0, "%s < %s", c.a, c.b)
	}
}
