package lang

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/stretchr/testify/require"
)

// FuzzParse: Parse never panics; it returns either a File or an ErrorList
// whose every position lies inside the input. Two more properties tie the
// pieces together: whatever the recogniser accepts, participle parses (so
// its raw messages never reach users), and FormatExpr output reparses to
// the same rendering.
func FuzzParse(f *testing.F) {
	f.Add([]byte(briefExample))
	f.Add([]byte("model { x ~ normal(0, 1) }"))
	f.Add([]byte("model { y = -x^2 + a-b-c * a^b^c / X*w+b; z[t, 2] ~ f(1e-3, .5) }"))
	f.Add([]byte("data { n: int = 5; v: vector<lower=0, upper=n>[n] from all except \"a\", \"b\" standardized }\nmodel { }"))
	for _, glob := range []string{"testdata/errors/*.msc", "../examples/*.msc", "../cmd/mscppl/testdata/errors/*.msc"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("f.msc", src)
		if err != nil {
			require.Nil(t, file)
			list, ok := err.(ErrorList)
			require.True(t, ok, "error of type %T", err)
			checkPositions(t, src, list)
			for _, e := range list {
				require.NotEqual(t, hintDisagree, e.Hint, "participle rejects what the recogniser accepts: %v", e)
			}
			return
		}
		require.NotNil(t, file)
		require.NotEmpty(t, file.Blocks)
		Inspect(file, func(n Node) bool {
			p := n.Position()
			require.True(t, p.IsValid(), "%T", n)
			require.Equal(t, posAt("f.msc", src, p.Offset), p, "%T", n)
			require.LessOrEqual(t, p.Offset, n.End().Offset, "%T", n)
			if e, ok := n.(*Expr); ok {
				s := FormatExpr(e)
				again, err := Parse("g.msc", []byte("model { x = "+s+" }"))
				require.NoError(t, err, "FormatExpr output %q does not parse", s)
				require.Equal(t, s, FormatExpr(again.Blocks[0].Items[0].Stmt.Simple.Assign))
				return false
			}
			return true
		})
	})
}

// TestRecogniserAgreesWithParticiple: participle, run on its own over the
// raw source, accepts every input the recogniser accepts, with the same
// tree (compared by rendering the expressions).
func TestRecogniserAgreesWithParticiple(t *testing.T) {
	inputs := []string{briefExample}
	paths, _ := filepath.Glob("../examples/*.msc")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		inputs = append(inputs, string(b))
	}
	for _, src := range inputs {
		f, err := Parse("a.msc", []byte(src))
		require.NoError(t, err)
		g, err := parser.ParseString("a.msc", src)
		require.NoError(t, err)
		require.Equal(t, exprs(f), exprs(g))
		require.Equal(t, positions(f), positions(g))
	}
}

func exprs(f *File) []string {
	var out []string
	Inspect(f, func(n Node) bool {
		if e, ok := n.(*Expr); ok {
			out = append(out, FormatExpr(e))
		}
		return true
	})
	return out
}

func positions(f *File) []Pos {
	var out []Pos
	Inspect(f, func(n Node) bool {
		out = append(out, n.Position(), n.End())
		return true
	})
	return out
}

// The replay lexer hands participle the recogniser's tokens.
func TestReplayTokens(t *testing.T) {
	toks, err := diagnose("r.msc", []byte("model { /* c */ s = \"a\\tb\" }\n"))
	require.Nil(t, err)
	var vals []string
	for _, tk := range toks {
		if tk.Type != typSpace {
			vals = append(vals, tk.Value)
		}
	}
	require.Equal(t, []string{"model", "{", "s", "=", "a\tb", "}", ""}, vals)
	require.True(t, toks[len(toks)-1].EOF())
	l := &replay{toks: []lexer.Token{{Type: lexer.EOF}}}
	for range 3 {
		tk, err := l.Next()
		require.NoError(t, err)
		require.True(t, tk.EOF())
	}
	require.False(t, strings.Contains(vals[4], "\\"))
	require.Equal(t, 1, bytes.Count([]byte(vals[4]), []byte{'\t'}))
}
