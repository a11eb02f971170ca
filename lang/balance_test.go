package lang

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBalanceOf: braces, top-level words and open comments and strings as
// the parser's lexer sees them: braces and words inside // and /* */
// comments and inside strings do not count, and a /* that is never closed
// swallows the rest.
func TestBalanceOf(t *testing.T) {
	for _, c := range []struct {
		src      string
		depth    int
		words    []string
		complete bool
		comment  bool // ends inside a /* comment
		str      bool // the last line has an unterminated string
	}{
		{"", 0, nil, false, false, false},
		{"model {", 1, []string{"model"}, false, false, false},
		{"model { }", 0, []string{"model"}, true, false, false},
		{"data { x: vector[N] }\nlatent {\n  mu: real\n}", 0, []string{"data", "latent"}, true, false, false},
		{"model { /* } */", 1, []string{"model"}, false, false, false},
		{"model { /* } */\n  mu ~ normal(0, 1)\n}", 0, []string{"model"}, true, false, false},
		{"model { // }", 1, []string{"model"}, false, false, false},
		{"model { // }\n}", 0, []string{"model"}, true, false, false},
		{"model { /* }\n}", 1, []string{"model"}, false, true, false},
		{"model { /* }\n} */ }", 0, []string{"model"}, true, false, false},
		{"model { /** }} **/ }", 0, []string{"model"}, true, false, false},
		{"/* latent */ model /* { */ {", 1, []string{"model"}, false, false, false},
		{"// data {\nlatent { }", 0, []string{"latent"}, true, false, false},
		{`data { y: vector[N] from "}" }`, 0, []string{"data"}, true, false, false},
		{`data { y: vector[N] from "a\"}" }`, 0, []string{"data"}, true, false, false},
		{`data { y: vector[N] from "}`, 1, []string{"data"}, false, false, true},
		{"data { y: vector[N] from \"}\n}", 0, []string{"data"}, true, false, false},
		{"model { x @ }", 0, []string{"model"}, true, false, false},
		{"model { x ~ normal(0, 1) } }", -1, []string{"model"}, true, false, false},
		{"model { }\n/* a note", 0, []string{"model"}, false, true, false},
		{"/* a note */", 0, nil, false, false, false},
		{"model { \"a /* b\" }", 0, []string{"model"}, true, false, false},
	} {
		b := BalanceOf([]byte(c.src))
		require.Equal(t, c.depth, b.Depth, "depth of %q", c.src)
		require.Equal(t, c.words, b.Words, "words of %q", c.src)
		require.Equal(t, c.complete, b.Complete(), "complete %q", c.src)
		require.Equal(t, c.comment, b.InComment, "in comment %q", c.src)
		require.Equal(t, c.str, b.InString, "in string %q", c.src)
		if c.complete && !c.comment && !c.str {
			// what the balance calls complete, the lexer of Parse reads
			// the same way: a complete block parses, or fails for a reason
			// other than an unclosed block
			if _, err := Parse("b.msc", []byte(c.src)); err != nil {
				require.NotContains(t, err.Error(), "end of file", c.src)
			}
		}
	}
	require.Zero(t, BalanceOf([]byte("// only a comment\n/* and another */")).Tokens)
	require.Equal(t, 2, BalanceOf([]byte("/* c */ x }")).Tokens)
}
