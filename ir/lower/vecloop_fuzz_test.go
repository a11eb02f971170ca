package lower

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/ir/check"
	"github.com/mscppl/mscppl/ir/dataset"
	"github.com/mscppl/mscppl/lang"
)

// loopGen turns fuzz bytes into the body of a loop over data rows built
// from the forms the vectorised lowering takes (and some it refuses).
type loopGen struct {
	fuzzBytes
	scalars []string // scalars the body has defined so far
	filled  bool     // mu[n] assigned
}

func (g *loopGen) expr(depth int) string {
	if depth > 3 {
		return g.leaf()
	}
	switch g.next() % 7 {
	case 0, 1:
		return g.leaf()
	case 2:
		return "(" + g.expr(depth+1) + " + " + g.expr(depth+1) + ")"
	case 3:
		return "(" + g.expr(depth+1) + " * " + g.expr(depth+1) + ")"
	case 4:
		return "exp(" + g.expr(depth+1) + " / 8)"
	case 5:
		return "-" + g.leaf()
	}
	return "log1p_exp(" + g.expr(depth+1) + ")"
}

func (g *loopGen) leaf() string {
	leaves := []string{"a", "b[1]", "b[2]", "x[n]", "y[n + 1]", "x[n + 2 - 1]", "r[g[n]]", "n / 10.0", "0.5", "c", "P[n] * b"}
	leaves = append(leaves, g.scalars...)
	if g.filled {
		leaves = append(leaves, "mu[n]")
	}
	return leaves[g.next()%len(leaves)]
}

func (g *loopGen) body() string {
	var sb strings.Builder
	for i, n := 0, 1+g.next()%4; i < n; i++ {
		switch g.next() % 7 {
		case 0:
			name := []string{"eta", "zeta"}[g.next()%2]
			sb.WriteString("  " + name + " = " + g.expr(0) + "\n")
			if !strings.Contains(strings.Join(g.scalars, " "), name) {
				g.scalars = append(g.scalars, name)
			}
		case 1:
			if len(g.scalars) > 0 {
				s := g.scalars[g.next()%len(g.scalars)]
				sb.WriteString("  for k in 1..2 { " + s + " = " + s + " + b[k] * y[n + k - 1] / 4 }\n")
			}
		case 2:
			if !g.filled {
				sb.WriteString("  mu[n] = " + g.expr(0) + "\n")
				g.filled = true
			}
		case 3:
			sb.WriteString("  target += " + g.expr(0) + " / 10\n")
		case 4:
			sb.WriteString("  acc = acc + " + g.expr(0) + " / 100\n")
		default:
			sb.WriteString("  y[n] ~ normal(" + g.expr(0) + ", s)\n")
		}
	}
	return sb.String()
}

// FuzzVectorLoop: a random loop body compiles, vectorised or unrolled, to
// the same log joint and gradient (or fails to compile both ways).
func FuzzVectorLoop(f *testing.F) {
	f.Add([]byte{1, 0, 0, 2, 3, 6, 0})
	f.Add([]byte{3, 0, 0, 4, 1, 0, 1, 6, 2, 5, 0, 7})
	f.Add([]byte{2, 2, 3, 9, 0, 1, 6, 0, 0, 8})
	f.Add([]byte{3, 4, 2, 0, 6, 10, 5, 3, 1, 2})
	const data = "x,y,g,p1,p2\n0.5,1.2,1,1,0.3\n-1.1,-0.3,3,0.2,-1\n2.0,2.9,2,-0.5,0.5\n0.1,0.0,2,1.5,0\n-0.4,-1.1,1,0,2\n1.5,1.1,3,-1,1\n0.3,0.2,1,0.7,-0.2\n-0.7,0.4,2,0.4,0.9\n"
	f.Fuzz(func(t *testing.T, b []byte) {
		g := &loopGen{fuzzBytes: b}
		body := g.body()
		tail := ""
		if g.filled {
			tail = "  y[2:N] ~ normal(mu, s)\n"
		}
		src := "data { x: vector[N]; y: vector[N]; g: int[N]; P: matrix[N, 2] from \"p*\" }\nlatent { a: real; b: vector[2]; s: real<lower=0>; r: vector[3] }\nmodel {\n" +
			"  a ~ normal(0, 1); b ~ normal(0, 1); s ~ normal(0, 1); r ~ normal(0, 1)\n" +
			"  mu: vector[N - 1]\n  acc = 0.0\n  c = a / 2\n" +
			"  for n in 1..(N - 1) {\n" + body + "  }\n" +
			"  target += -acc * acc\n" + tail + "}\n"
		if strings.Contains(src, "mu[n]") && !strings.Contains(src, "mu[n] =") {
			return
		}
		build := func(opt CompileOptions) (*Compiled, error) {
			file, err := lang.Parse("f.msc", []byte(src))
			if err != nil {
				t.Fatalf("generated source does not parse: %v\n%s", err, src)
			}
			table, err := dataset.Read("d.csv", strings.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			m, err := check.Build(file, table)
			if err != nil {
				return nil, err
			}
			return Compile(m, opt)
		}
		v, errV := build(CompileOptions{})
		u, errU := build(CompileOptions{UnrollLoops: true})
		if (errV == nil) != (errU == nil) {
			t.Fatalf("vectorised error %v, unrolled error %v\n%s", errV, errU, src)
		}
		if errV != nil {
			return
		}
		if dbgVL {
			t.Logf("%d vs %d nodes\n%s", v.g.NumNodes(), u.g.NumNodes(), src)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		z := make([]float64, v.Dim())
		lv, lu := make([]float64, 1), make([]float64, 1)
		gv, gu := make([]float64, len(z)), make([]float64, len(z))
		for range 3 {
			for i := range z {
				z[i] = rng.NormFloat64()
			}
			v.LogJoint(z, lv)
			u.LogJoint(z, lu)
			if !agree(lv[0], lu[0], 1e-9) {
				t.Fatalf("log joint %v vectorised, %v unrolled\n%s", lv[0], lu[0], src)
			}
			if math.IsInf(lu[0], 0) || math.IsNaN(lu[0]) {
				continue // no gradient to compare where the log joint is not finite
			}
			v.GradLogJoint(z, gv)
			u.GradLogJoint(z, gu)
			for i := range gv {
				if !agree(gv[i], gu[i], 1e-8) {
					t.Fatalf("gradient %d: %v vectorised, %v unrolled\n%s", i, gv[i], gu[i], src)
				}
			}
		}
	})
}

var dbgVL = false

// agree reports whether the vectorised value a and the unrolled b are the
// same within the relative tolerance tol: both NaN, the same infinity
// (-Inf - -Inf is NaN, which no tolerance admits), or close.
func agree(a, b, tol float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) <= tol*(1+math.Abs(b))
}
