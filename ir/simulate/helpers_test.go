package simulate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/dataset"
	"github.com/mscppl/mscppl/ir/lower"
	"github.com/mscppl/mscppl/lang"
)

// parseBuild parses src as m.msc and binds it to the CSV text csv ("" for
// no data file).
func parseBuild(t testing.TB, src, csv string) (*lang.File, *ir.Model) {
	t.Helper()
	f, err := lang.Parse("m.msc", []byte(src))
	require.NoError(t, err)
	var table *dataset.Table
	if csv != "" {
		table, err = dataset.Read("d.csv", strings.NewReader(csv))
		require.NoError(t, err)
	}
	m, err := ir.Build(f, table)
	require.NoError(t, err)
	return f, m
}

// compile compiles src bound to csv.
func compile(t testing.TB, src, csv string) *lower.Compiled {
	t.Helper()
	_, m := parseBuild(t, src, csv)
	c, err := lower.Compile(m, lower.CompileOptions{})
	require.NoError(t, err)
	return c
}
