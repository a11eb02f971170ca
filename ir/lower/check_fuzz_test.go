package lower

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mscppl/mscppl/ir/check"
	"github.com/mscppl/mscppl/lang"
)

// FuzzCheck: parse, resolve, check and compile arbitrary source (without
// data): never a panic, and every error is positioned inside the text.
func FuzzCheck(f *testing.F) {
	seeds, _ := filepath.Glob("../../examples/*.msc")
	more, _ := filepath.Glob("../../cmd/mscppl/testdata/errors/*.msc")
	pdb, _ := filepath.Glob("../../examples/posteriordb/*/model.msc")
	for _, p := range append(append(seeds, more...), pdb...) {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<16 {
			f.Add(b)
		}
	}
	// arrays (issue 23)
	f.Add([]byte("functions { f(z: array[] real, th: array[] real) -> array[] real { return {th[1] * z[1], th[2] * z[2]} } }\ndata { N: int = 3 }\nlatent { theta: array[4] real<lower=0>; p: array[2] simplex[3]; m: array[N, 2] real }\nmodel { theta[{1, 3}] ~ normal(1, 0.5); theta[{2, 4}] ~ normal(0, 1); p[1] ~ dirichlet(rep_vector(1, 3)); for k in 1..2 { m[:, k] ~ normal(theta[k], 1) }\n w: array[2] real = f(m[1], theta); target += sum(w) + p[2][3] + size(m) + dims(m)[2] + sum(rep_array(1.0, 2, 2)) }"))
	f.Add([]byte("latent { x: array[2] vector[3] }\nmodel { z: array[2, 3] real; for i in 1..2 { for j in 1..3 { z[i, j] = x[i, j] } }; x[1] ~ normal(z[2], 1); x[2] ~ normal(to_array_1d(z)[1:3], 1); target += sum(to_matrix(z)) + sum(log(exp(to_vector({1.0, 2.0})))) }"))
	f.Add([]byte(hmmHead + "  target += normal_lpdf(y | mu[1], 1)\n}\n" + hmmViterbi))
	f.Add([]byte("latent { z: vector[3] }\nmodel { z ~ normal(0, 1) }\nderived {\n  y: int[3]; b: int[3, 2]; s: real = 0\n  { k: int = 1; for t in 1..3 { if z[t] > s { k = t; b[t, 2] = k }\n y[t] = k; s = s + normal_rng(z[y[t]], 1) } }\n}"))
	// statements in data, compound assignment, ~ on expressions, local int
	// sizes, loop-indexed slices and slice assignment
	f.Add([]byte("data { N: int = 3\n v: vector[N]\n for n in 1..N { v[n] = n; v[n] += 1; { w: real = 1; v[n] *= w } }\n M: matrix[N, 2]\n M[:, 1] = v; M[:, 2] = 1; M[1, :] = M[2]; M[1:2, 1] /= 2\n}\nlatent { a: matrix[2, 3]; s: real<lower=0> }\nmodel { k: int = rows(v); u: vector[k] = v - s; u ~ normal(0, 1); log(s) ~ normal(0, 1)\n for j in 1..3 { a[:, j] ~ normal(0, 1); col(a, j) ~ normal(0, 1) }\n for i in 1..2 { row(a, i) ~ normal(0, 1); a[i, :] ~ normal(0, 1) } }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := lang.Parse("f.msc", src)
		if err != nil {
			return // FuzzParse checks parse errors
		}
		m, err := check.Build(file, nil)
		if err == nil {
			_, err = Compile(m, CompileOptions{MaxNodes: 100000})
		}
		if err == nil {
			return
		}
		list, ok := err.(lang.ErrorList)
		if !ok {
			var one *lang.Error
			if e, ok2 := err.(*lang.Error); ok2 {
				one = e
				list = lang.ErrorList{one}
			} else {
				t.Fatalf("error of type %T: %v", err, err)
			}
		}
		lines := 1 + bytes.Count(src, []byte{'\n'})
		for _, e := range list {
			if e.Pos.Line < 1 || e.Pos.Line > lines || e.Pos.Col < 1 {
				t.Fatalf("error outside the text (%d lines): %v", lines, e)
			}
		}
	})
}
