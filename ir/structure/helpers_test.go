package structure

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/dataset"
	"github.com/mscppl/mscppl/ir/lower"
	"github.com/mscppl/mscppl/lang"
)

// compile compiles src with the CSV text csv ("" for no data file).
func compile(t testing.TB, src, csv string) *lower.Compiled {
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
	c, err := lower.Compile(m, lower.CompileOptions{})
	require.NoError(t, err)
	return c
}

// compileFile compiles a model file with a CSV or JSON data file.
func compileFile(t *testing.T, model, data string, edit func(string) string) *lower.Compiled {
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
		m, err = ir.BuildJSON(f, d)
		require.NoError(t, err)
	} else {
		table, err := dataset.Read(data, strings.NewReader(string(b)))
		require.NoError(t, err)
		m, err = ir.Build(f, table)
		require.NoError(t, err)
	}
	c, err := lower.Compile(m, lower.CompileOptions{})
	require.NoError(t, err)
	return c
}
