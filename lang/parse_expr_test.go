package lang

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParseExpr: one expression with the file grammar's lexer and error
// wording, positioned in its own text.
func TestParseExpr(t *testing.T) {
	for _, src := range []string{"z", "exp(b + w[1])", "  x[2, 3] ^ -1 // note", "log_sum_exp(a, b) / N"} {
		x, err := ParseExpr("<eval>", []byte(src))
		require.NoError(t, err, src)
		require.NotNil(t, x)
	}
	for src, want := range map[string]string{
		"z +": "<eval>:1:4: unexpected end of file; expected an expression\n",
		"z z": "<eval>:1:3: unexpected \"z\" after the expression\n",
		"(z":  "<eval>:1:3: missing \")\" at end of file\n",
		"~":   "<eval>:1:1: unexpected \"~\"; expected an expression\n",
		"  ":  "<eval>:1:1: empty expression\n",
	} {
		_, err := ParseExpr("<eval>", []byte(src))
		require.Error(t, err, src)
		var b bytes.Buffer
		err.(ErrorList).Format(&b, nil)
		first, _, _ := bytes.Cut(b.Bytes(), []byte("\n"))
		require.Equal(t, want, string(first)+"\n", src)
	}
}
