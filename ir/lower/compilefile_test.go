package lower

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

// compileFile compiles a model file with a CSV or JSON data file.
func compileFile(t *testing.T, model, data string, edit func(string) string) *Compiled {
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
	c, err := Compile(m, CompileOptions{})
	require.NoError(t, err)
	return c
}
