package repl

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEditInEditor: :edit BLOCK runs the editor (a shell command, given
// the block's file) and takes the block back; an edit that unbalances the
// block or renames it is refused and the block kept; a failing editor
// leaves the block as it was.
func TestEditInEditor(t *testing.T) {
	model := []string{"latent {", "  mu: real", "}", "model {", "  mu ~ normal(0, 10)", "}"}
	for _, c := range []struct {
		editor, want, err string
	}{
		{`sed -i 's/normal(0, 10)/normal(3, 1)/'`, "mu ~ normal(3, 1)", ""},
		{`sed -i 's/^}$/}}/'`, "mu ~ normal(0, 10)", "would no longer be one complete model block"},
		{`sed -i 's/^model/latent/'`, "mu ~ normal(0, 10)", "would no longer be one complete model block"},
		{`false`, "mu ~ normal(0, 10)", `the editor "false" failed`},
	} {
		var out, errb bytes.Buffer
		script := strings.Join(append(model, ":edit model", ":show"), "\n") + "\n"
		require.NoError(t, Run(context.Background(), strings.NewReader(script), &out, &errb, Options{Fit: fit, Editor: c.editor}))
		show := out.String()[strings.LastIndex(out.String(), "<repl>:\n"):]
		require.Contains(t, show, c.want, c.editor)
		if c.err == "" {
			require.Empty(t, errb.String(), c.editor)
			require.Contains(t, out.String(), "replaced the model block")
		} else {
			require.Contains(t, errb.String(), c.err, c.editor)
		}
	}
}

// TestPrintCut: rows keep the columns that fit in the width, at least one,
// and say which were left out.
func TestPrintCut(t *testing.T) {
	rows := [][]string{{"a", "bb", "c[10]"}, {"1.0000", "2", "3"}}
	for _, c := range []struct {
		width int
		want  string
	}{
		{80, "       a  bb  c[10]\n  1.0000   2      3\n"},
		{12, "       a  bb\n  1.0000   2\n(2 of 3 columns fit in 12: c[10] to c[10] are left out; :eval NAME summarises one)\n"},
		{3, "       a\n  1.0000\n(1 of 3 columns fit in 3: bb to c[10] are left out; :eval NAME summarises one)\n"},
	} {
		var b bytes.Buffer
		printCut(&b, rows, c.width)
		require.Equal(t, c.want, b.String(), "width %d", c.width)
		for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
			if !strings.HasPrefix(l, "(") && c.width >= 8 {
				require.LessOrEqual(t, len(l), c.width)
			}
		}
	}
}
