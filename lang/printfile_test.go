package lang

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFormatFileReparses prints each example of examples/posteriordb with
// FormatFile, parses the text again and prints it again: the text must
// parse and the second print equal the first (the tree is the same).
func TestFormatFileReparses(t *testing.T) {
	files, err := filepath.Glob("../examples/posteriordb/*/model*.msc")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		f, err := Parse(path, src)
		require.NoError(t, err)
		text := FormatFile(f)
		g, err := Parse("printed.msc", []byte(text))
		require.NoError(t, err, "%s printed as\n%s", path, text)
		require.Equal(t, text, FormatFile(g), path)
	}
}
