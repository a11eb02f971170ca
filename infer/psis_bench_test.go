package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
)

// logisticModel is a logistic regression on a CSV of columns x1..xK, y.
const logisticModel = "data { y: vector[N]; X: matrix[N, D] from \"x*\" }\nlatent { a: real; w: vector[D] }\nmodel {\n  a ~ normal(0, 2.5)\n  w ~ normal(0, 2.5)\n  y ~ bernoulli_logit(a + X * w)\n}\n"

// logisticData writes a logistic regression of n rows and k standard
// normal covariates (coefficients 0.5/sqrt(j), alternating signs;
// intercept -0.5; seed 3) and logisticModel into dir.
func logisticData(tb testing.TB, dir string, n, k int) (model, data string) {
	rng := rand.New(rand.NewPCG(3, 3))
	var sb strings.Builder
	for j := 1; j <= k; j++ {
		fmt.Fprintf(&sb, "x%d,", j)
	}
	sb.WriteString("y\n")
	for i := 0; i < n; i++ {
		eta := -0.5
		for j := 1; j <= k; j++ {
			x := rng.NormFloat64()
			c := 0.5 / float64(j)
			if j%2 == 0 {
				c = -c
			}
			eta += c * x
			fmt.Fprintf(&sb, "%.5f,", x)
		}
		y := 0
		if rng.Float64()*(1+math.Exp(-eta)) < 1 {
			y = 1
		}
		fmt.Fprintf(&sb, "%d\n", y)
	}
	data, model = filepath.Join(dir, "logistic.csv"), filepath.Join(dir, "logistic.msc")
	if err := os.WriteFile(data, []byte(sb.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(model, []byte(logisticModel), 0o644); err != nil {
		tb.Fatal(err)
	}
	return model, data
}

// BenchmarkPSISDraw: the cost of one PSIS draw (sampling q, the log joint,
// the constrained values, the log ratio) of a logistic regression on
// n = 100000 rows and 10 covariates; one op is one draw.
func BenchmarkPSISDraw(b *testing.B) {
	model, data := logisticData(b, b.TempDir(), 100000, 10)
	// one compiled model per core, as the chains' models are
	var comps []*ir.Compiled
	for range runtime.GOMAXPROCS(0) {
		m, err := Load(model, data)
		if err != nil {
			b.Fatal(err)
		}
		comps = append(comps, m.Comp)
	}
	m := comps[0]
	d := m.Dim()
	q := msc.NewFullRank(d)
	for i := range q.Mu {
		q.Mu[i] = 0.1
	}
	for i := 0; i < d; i++ {
		q.L[i*d+i] = 0.01
	}
	rng := rand.New(rand.NewPCG(1, 2))
	(&importance{}).draw(rng, comps, q, drawChunk) // warm up
	b.ReportAllocs()
	b.ResetTimer()
	im := &importance{}
	im.draw(rng, comps, q, b.N)
}
