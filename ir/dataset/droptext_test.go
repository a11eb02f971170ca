package dataset

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDropTextElemPos: after DropText the file's text is freed, and ElemPos
// reads the file again for the same positions (with a BOM too); a file gone
// since gives the field's position.
func TestDropTextElemPos(t *testing.T) {
	for _, bom := range []string{"", "\xef\xbb\xbf"} {
		path := filepath.Join(t.TempDir(), "d.json")
		raw := []byte(bom + "{\"b\": 1,\n \"a\": [1,\n  2.5,\n 7]}")
		require.NoError(t, os.WriteFile(path, raw, 0o644))
		d, err := ParseJSON(path, raw)
		require.NoError(t, err)
		f, _ := d.Field("a")
		want := []any{f.ElemPos(0), f.ElemPos(1), f.ElemPos(2)}
		d.DropText()
		require.Nil(t, d.data)
		require.Equal(t, want, []any{f.ElemPos(0), f.ElemPos(1), f.ElemPos(2)})
		require.Equal(t, 3, f.ElemPos(1).Line)
		d.DropText()
		require.NoError(t, os.Remove(path))
		require.Equal(t, f.Pos, f.ElemPos(2))
	}
}
