// Package irtest builds checked models for the tests of the IR's stages
// (ir/lower, ir/explain, ir/structure, ir/simulate): a _test.go file
// cannot be shared between packages. It imports no stage after ir/check,
// so that ir/lower's own tests can use it.
package irtest

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/check"
	"github.com/mscppl/mscppl/ir/dataset"
	"github.com/mscppl/mscppl/lang"
)

// ParseBuild parses src as m.msc and binds it to the CSV text csv ("" for
// no data file).
func ParseBuild(t testing.TB, src, csv string) (*lang.File, *ir.Model) {
	t.Helper()
	f, err := lang.Parse("m.msc", []byte(src))
	require.NoError(t, err)
	var table *dataset.Table
	if csv != "" {
		table, err = dataset.Read("d.csv", strings.NewReader(csv))
		require.NoError(t, err)
	}
	m, err := check.Build(f, table)
	require.NoError(t, err)
	return f, m
}

// BuildFile builds a model file with a CSV or JSON data file, its text
// edited first by edit when edit is not nil.
func BuildFile(t testing.TB, model, data string, edit func(string) string) *ir.Model {
	t.Helper()
	src, err := os.ReadFile(model)
	require.NoError(t, err)
	if edit != nil {
		src = []byte(edit(string(src)))
	}
	f, err := lang.Parse(model, src)
	require.NoError(t, err)
	b, err := os.ReadFile(data)
	require.NoError(t, err)
	var m *ir.Model
	if strings.HasSuffix(data, ".json") {
		d, err := dataset.ParseJSON(data, b)
		require.NoError(t, err)
		m, err = check.BuildJSON(f, d)
		require.NoError(t, err)
	} else {
		table, err := dataset.Read(data, strings.NewReader(string(b)))
		require.NoError(t, err)
		m, err = check.Build(f, table)
		require.NoError(t, err)
	}
	return m
}
