package dataset

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStreamedElemPos: a streamed file keeps no text, and ElemPos reads
// the file again for the positions ParseJSON gives from the text (with a
// BOM too); a file gone since gives the field's position.
func TestStreamedElemPos(t *testing.T) {
	for _, bom := range []string{"", "\xef\xbb\xbf"} {
		path := filepath.Join(t.TempDir(), "d.json")
		raw := []byte(bom + "{\"b\": 1,\n \"a\": [1,\n  2.5,\n 7]}")
		require.NoError(t, os.WriteFile(path, raw, 0o644))
		ref, err := ParseJSON(path, raw)
		require.NoError(t, err)
		g, _ := ref.Field("a")
		want := []any{g.ElemPos(0), g.ElemPos(1), g.ElemPos(2)}
		d, err := ReadJSONFile(path)
		require.NoError(t, err)
		require.Nil(t, d.data)
		f, _ := d.Field("a")
		require.Equal(t, want, []any{f.ElemPos(0), f.ElemPos(1), f.ElemPos(2)})
		require.Equal(t, 3, f.ElemPos(1).Line)
		d, err = ReadJSONFile(path)
		require.NoError(t, err)
		f, _ = d.Field("a")
		require.NoError(t, os.Remove(path))
		require.Equal(t, f.Pos, f.ElemPos(2))
	}
}
