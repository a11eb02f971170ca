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

// forwardGen turns fuzz bytes into a forward loop of the shape hmmloop.go
// recognises, with random terms in acc[j]'s sum and random statements
// before it (and some forms it must refuse).
type forwardGen struct {
	fuzzBytes
	lt bool // the j body defined lt
}

func (g *forwardGen) term() string {
	terms := []string{
		"log(j == 1 ? p[k] : 1 - p[k])", "normal_lpdf(y[t] | m[k], s)", "0.1 * y[t - 1] * (j == k)",
		"b[j] * x[t]", "c", "-a * m[k] / 4", "exp(a * x[t] / 8) * (k == 2)", "(j > k ? -1 : 0.5)",
		"gamma[t - 1, j] / 2", "0.01 * gamma[t - 1, k]", "a * t / 100", "log1p_exp(b[k] * y[t + 1])",
	}
	if g.lt {
		terms = append(terms, "lt", "lt * x[t]")
	}
	return terms[g.next()%len(terms)]
}

func (g *forwardGen) pre() string {
	var sb strings.Builder
	for i, n := 0, g.next()%3; i < n; i++ {
		switch g.next() % 4 {
		case 0:
			sb.WriteString("      lt = b[k] * " + g.term() + "\n")
			g.lt = true
		case 1:
			if g.lt {
				sb.WriteString("      if j == 1 { lt = lt + a }\n")
			}
		case 2:
			sb.WriteString("      lt: real = " + g.term() + "\n")
			g.lt = true
		default:
			if g.lt {
				sb.WriteString("      lt = lt * " + g.term() + "\n")
			}
		}
	}
	return sb.String()
}

// FuzzForwardLoop: a random forward loop compiles, recognised or
// unrolled, to the same log joint and gradient (or fails to compile both
// ways).
func FuzzForwardLoop(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 1})
	f.Add([]byte{2, 0, 3, 1, 1, 4, 5, 0, 1})
	f.Add([]byte{1, 2, 0, 8, 0, 2, 6})
	f.Add([]byte{3, 3, 1, 9, 0, 2, 11})
	const data = "x,y\n0.5,1.2\n-1.1,-0.3\n2.0,2.9\n0.1,0.0\n-0.4,-1.1\n1.5,1.1\n0.3,0.2\n-0.7,0.4\n"
	f.Fuzz(func(t *testing.T, b []byte) {
		g := &forwardGen{fuzzBytes: b}
		pre := g.pre()
		terms := []string{"gamma[t - 1, j]"}
		for i, n := 0, g.next()%4; i < n; i++ {
			terms = append(terms, g.term())
		}
		// the gamma term at a random place
		k := g.next() % len(terms)
		terms[0], terms[k] = terms[k], terms[0]
		src := "data { x: vector[N]; y: vector[N] }\nlatent { a: real; b: vector[2]; s: real<lower=0>; p: vector<lower=0, upper=1>[2]; m: vector[2] }\nmodel {\n" +
			"  a ~ normal(0, 1); b ~ normal(0, 1); s ~ normal(1, 0.2); m ~ normal(0, 1)\n" +
			"  c = a / 2\n  acc: vector[2]\n  gamma: matrix[N, 2]\n" +
			"  for k in 1..2 { gamma[1, k] = normal_lpdf(y[1] | m[k], s) }\n" +
			"  for t in 2..(N - 1) {\n    for k in 1..2 {\n      for j in 1..2 {\n" + pre +
			"        acc[j] = " + strings.Join(terms, " + ") + "\n      }\n      gamma[t, k] = log_sum_exp(acc)\n    }\n  }\n" +
			"  target += log_sum_exp(gamma[N - 1]) + acc[2] / 10\n}\n"
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
			t.Fatalf("recognised error %v, unrolled error %v\n%s", errV, errU, src)
		}
		if errV != nil {
			return
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
			if !(math.Abs(lv[0]-lu[0]) <= 1e-9*(1+math.Abs(lu[0]))) && !(math.IsNaN(lv[0]) && math.IsNaN(lu[0])) {
				t.Fatalf("log joint %v recognised, %v unrolled\n%s", lv[0], lu[0], src)
			}
			v.GradLogJoint(z, gv)
			u.GradLogJoint(z, gu)
			for i := range gv {
				if !(math.Abs(gv[i]-gu[i]) <= 1e-8*(1+math.Abs(gu[i]))) && !(math.IsNaN(gv[i]) && math.IsNaN(gu[i])) {
					t.Fatalf("gradient %d: %v recognised, %v unrolled\n%s", i, gv[i], gu[i], src)
				}
			}
		}
	})
}
