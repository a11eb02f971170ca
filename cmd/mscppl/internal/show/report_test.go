package show

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/lang"
)

// TestReportReadsDroppedFile: an error in a file whose text is not among
// the sources (infer.Load drops a data file's once bound) is shown with its
// line and caret, the file read again; the sources are not changed.
func TestReportReadsDroppedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.csv")
	require.NoError(t, os.WriteFile(path, []byte("x,y\n1,oops\n"), 0o644))
	sources := map[string][]byte{"m.msc": []byte("data {}\n")}
	var b strings.Builder
	Report(&b, &lang.Error{Pos: lang.Pos{File: path, Line: 2, Col: 3}, Msg: "not a number"}, sources)
	require.Equal(t, path+":2:3: not a number\n    1,oops\n      ^\n", b.String())
	require.Len(t, sources, 1)
}
