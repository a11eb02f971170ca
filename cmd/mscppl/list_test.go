package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/stdlib"
)

// TestList: mscppl list names every registered method, Markov kernel,
// family, distribution and built-in function, each with its doc line; a
// kind and a text narrow it.
func TestList(t *testing.T) {
	code, out, stderr := mscppl("list")
	require.Equal(t, 0, code, stderr)
	has := func(name, doc string) {
		t.Helper()
		require.Regexp(t, `(?m)^  `+regexp.QuoteMeta(name)+`(\(.*\))?\s+`+regexp.QuoteMeta(doc)+`$`, out)
	}
	for _, n := range infer.Methods() {
		has(n, infer.MethodHelp(n))
	}
	for _, k := range msc.Kernels() {
		if k.Markov {
			has(k.Name, k.Help)
		}
	}
	for _, f := range msc.Families() {
		has(f.Name, f.Help)
	}
	for _, n := range stdlib.FamilyNames() {
		f, _ := stdlib.Lookup(n)
		has(n, f.Doc)
	}
	for _, f := range ir.Functions() {
		has(f.Name, f.Doc)
	}
	code, out, _ = mscppl("list", "functions", "log1p")
	require.Equal(t, 0, code)
	require.Equal(t, "built-in functions:", strings.Split(out, "\n")[0])
	require.Contains(t, out, "log1p_exp(x)")
	require.NotContains(t, out, "inv_logit")
	code, _, stderr = mscppl("list", "nonsense")
	require.Equal(t, 2, code, "a kind that is not one is a usage error")
	require.Contains(t, stderr, "must be one of")
}
