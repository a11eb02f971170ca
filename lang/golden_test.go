package lang

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/errors and the grammar in doc.go")

// TestSyntaxErrorGolden parses every testdata/errors/*.msc, which must
// fail, and compares the formatted errors with the .golden file next to it.
// Run go test ./lang -run Golden -update to rewrite the golden files.
func TestSyntaxErrorGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/errors/*.msc")
	require.NoError(t, err)
	require.NotEmpty(t, inputs)
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".msc")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			require.NoError(t, err)
			file := filepath.ToSlash(in)
			_, err = Parse(file, src)
			require.Error(t, err, "%s must not parse", in)
			list, ok := err.(ErrorList)
			require.True(t, ok, "error of type %T", err)
			checkPositions(t, src, list)
			var b bytes.Buffer
			list.Format(&b, map[string][]byte{file: src})
			golden := strings.TrimSuffix(in, ".msc") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, b.Bytes(), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "missing golden file; run go test ./lang -run Golden -update")
			require.Equal(t, string(want), b.String())
		})
	}
}

// checkPositions asserts that every error points inside src: 1 <= Line <=
// number of lines, 1 <= Col <= length of that line + 1, and Offset agrees.
func checkPositions(t testing.TB, src []byte, list ErrorList) {
	t.Helper()
	require.NotEmpty(t, list)
	lines := 1 + bytes.Count(src, []byte{'\n'})
	for _, e := range list {
		p := e.Pos
		require.NotEmpty(t, e.Msg)
		require.GreaterOrEqual(t, p.Line, 1, "%v", e)
		require.LessOrEqual(t, p.Line, lines, "%v", e)
		line, ok := sourceLine(src, p.Line)
		require.True(t, ok, "%v", e)
		require.GreaterOrEqual(t, p.Col, 1, "%v", e)
		require.LessOrEqual(t, p.Col, len(line)+1, "%v", e)
		require.Equal(t, posAt(p.File, src, p.Offset), p, "%v", e)
	}
}
