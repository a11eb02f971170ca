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
// whose every position lies inside the input, and FormatExpr output
// reparses to the same rendering.
func FuzzParse(f *testing.F) {
	f.Add([]byte(briefExample))
	f.Add([]byte("model { x ~ normal(0, 1) }"))
	f.Add([]byte("model { y = -x^2 + a-b-c * a^b^c / X*w+b; z[t, 2] ~ f(1e-3, .5) }"))
	f.Add([]byte("data { n: int = 5; v: vector<lower=0, upper=n>[n] from all except \"a\", \"b\" standardized }\nmodel { }"))
	f.Add([]byte("model { v: vector[3]; for t in 1..3 { if t > 1 && !(t == 2) || t <= 0 { v[t] = t .* 2 ./ 1 } else if t != 3 { v[t] = 0 } else { v[t] = 1 } }\n target += normal_lpdf(v | 0, 1) }\nderived { w = v[1] >= 0 }"))
	f.Add([]byte("model { for t in 1..T { z[t] ~ normal(t > 1 ? z[t - 1] : 0, t == 1 ? 2 : 1) }\n target += a > 0 ? 1 : a < 0 ? -1 : x[c ? 1 : 2] }"))
	f.Add([]byte("model { { s: real = 1; target += s } for k in 1..2 { u: real = k; { v: real = u; target += v } } }"))
	// arrays (issue 23)
	f.Add([]byte("functions { f(t: real, z: array[] real, m: array[,] real, v: array[] vector) -> array[] real { return {z[1], t} } }\ndata { N: int; ts: array[N] real; y: array[N, 2] real<lower=0>; g: array[N] int<lower=1> }\nlatent { theta: array[4] real<lower=0>; p: array[2] simplex[3] }\nmodel { theta[{1, 3}] ~ normal(1, 0.5); for k in 1..2 { y[:, k] ~ normal(theta[k], 1) } }"))
	f.Add([]byte("model { z: array[2, 3] real; z[1] = {1.0, 2, 3}; w: array[2] vector[3]; target += sum(z[:, 2]) + x[{1, 3}][2] + {{1, 2}, {3, 4}}[2, 1] }"))
	f.Add([]byte("latent { z: vector[3] }\nmodel { z ~ normal(0, 1) }\nderived {\n  y: int[3]; b: int[3, 2]; s: real = 0\n  { k: int = 1; for t in 1..3 { if z[t] > s { k = t; b[t, 2] = k }\n y[t] = k; s = s + normal_rng(z[y[t]], 1) } }\n}"))
	f.Add([]byte("data { N: int\n v: vector[N]\n for n in 1..N { v[n] = n; v[n] += 1; { w: real = 1 } }\n M: matrix[N, 2]\n M[:, 1] = v; M[1, :] -= 2 }\nmodel { k: int = rows(v); u: vector[k] = v; u *= 2; u /= 3; u ~ normal(0, 1) }"))
	for _, glob := range []string{"testdata/errors/*.msc", "../examples/*.msc", "../examples/posteriordb/*/model.msc", "../cmd/mscppl/testdata/errors/*.msc"} {
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

// The slice lexer hands participle the scanned tokens, strings unquoted,
// and keeps returning EOF at the end.
func TestScanTokens(t *testing.T) {
	s, e := scan("r.msc", []byte("model { /* c */ s = \"a\\tb\" }\n"))
	require.Nil(t, e)
	var vals []string
	for _, tk := range s.raw {
		if tk.Type != typSpace && tk.Type != typComment {
			vals = append(vals, tk.Value)
		}
	}
	require.Equal(t, []string{"model", "{", "s", "=", "a\tb", "}", ""}, vals)
	require.True(t, s.raw[len(s.raw)-1].EOF())
	require.Len(t, s.toks, 7)
	l := &sliceLexer{toks: []lexer.Token{{Type: lexer.EOF}}}
	for range 3 {
		tk, err := l.Next()
		require.NoError(t, err)
		require.True(t, tk.EOF())
	}
	require.False(t, strings.Contains(vals[4], "\\"))
	require.Equal(t, 1, bytes.Count([]byte(vals[4]), []byte{'\t'}))
}
