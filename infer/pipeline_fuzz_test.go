package infer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// genModel decodes fuzz bytes into a small model and its JSON data: data
// N, x and y (and an int array k), latents with constraints, a few ~
// statements on distributions of the registry with arguments built from
// latents, data and literals, a loop, a target += and a derived block.
// The bytes only steer choices, so almost every input is a model that
// parses; many are still wrong (a discrete family on real data, a bound
// out of order), which the pipeline must report with a position.
type genModel struct {
	in []byte
	i  int
}

func (g *genModel) next() int {
	if g.i >= len(g.in) {
		return 0
	}
	g.i++
	return int(g.in[g.i-1])
}

func (g *genModel) pick(n int) int { return g.next() % n }

var (
	fuzzScalars = []string{"a", "s", "b"}
	fuzzLits    = []string{"0", "1", "0.5", "2", "-1", "10", "0.001", "1e3"}
	fuzzFuncs   = []string{"exp", "log", "sqrt", "inv_logit", "fabs", "square"}
)

// expr is an expression of depth at most d over the latents, data element
// x[n] inside a loop, and literals.
func (g *genModel) expr(d int, inLoop bool) string {
	k := g.pick(8)
	if d <= 0 {
		k %= 3
	}
	switch k {
	case 0:
		return fuzzScalars[g.pick(len(fuzzScalars))]
	case 1:
		return fuzzLits[g.pick(len(fuzzLits))]
	case 2:
		if inLoop {
			return []string{"x[n]", "y[n]", "v[n]"}[g.pick(3)]
		}
		return []string{"N", "mean(x)", "sum(v)", "v[1]"}[g.pick(4)]
	case 3, 4:
		return g.expr(d-1, inLoop) + []string{" + ", " - ", " * ", " / "}[g.pick(4)] + g.expr(d-1, inLoop)
	case 5:
		return fuzzFuncs[g.pick(len(fuzzFuncs))] + "(" + g.expr(d-1, inLoop) + ")"
	case 6:
		return "(" + g.expr(d-1, inLoop) + ")"
	}
	return "-" + g.expr(d-1, inLoop)
}

// dist is a call of a scalar distribution of the registry: its name and
// arguments.
func (g *genModel) dist(names []string, inLoop bool) string {
	f, _ := stdlib.Lookup(names[g.pick(len(names))])
	args := make([]string, len(f.Params))
	for i, p := range f.Params {
		args[i] = g.expr(2, inLoop)
		if p.Domain != stdlib.RealLine && g.pick(4) != 0 {
			// a positive parameter: mostly a positive expression
			args[i] = []string{"s", "1", "exp(" + args[i] + ")", "2"}[g.pick(4)]
		}
	}
	return f.Name + "(" + strings.Join(args, ", ") + ")"
}

func (g *genModel) source() (model, data string) {
	var names []string
	for _, n := range stdlib.FamilyNames() {
		if f, _ := stdlib.Lookup(n); f.Scalar() {
			names = append(names, n)
		}
	}
	n := 1 + g.pick(5)
	xs, ys, ks := make([]float64, n), make([]float64, n), make([]int, n)
	for i := range n {
		xs[i] = float64(g.next()-128) / 16
		ys[i] = float64(g.next()-128) / 32
		ks[i] = g.pick(4)
	}
	js, _ := json.Marshal(map[string]any{"N": n, "x": xs, "y": ys, "k": ks})
	var b strings.Builder
	b.WriteString("data {\n  N: int\n  x: vector[N]\n  y: vector[N]\n  k: int<lower=0>[N]\n}\nlatent {\n  a: real\n")
	b.WriteString([]string{"  s: real<lower=0>\n", "  s: real<lower=0, upper=5>\n", "  s: real<lower=0.1>\n"}[g.pick(3)])
	b.WriteString([]string{"  b: real\n", "  b: real<lower=-1, upper=1>\n", "  b: real<lower=a>\n", "  b: real<upper=" + g.expr(1, false) + ">\n"}[g.pick(4)])
	b.WriteString([]string{"  v: vector[N]\n", "  v: vector<lower=0>[N]\n", "  v: simplex[N]\n", "  v: ordered[N]\n"}[g.pick(4)])
	b.WriteString("}\nmodel {\n  a ~ normal(0, 1)\n  s ~ exponential(1)\n")
	for range 1 + g.pick(4) {
		switch g.pick(6) {
		case 0:
			fmt.Fprintf(&b, "  %s ~ %s\n", fuzzScalars[g.pick(3)], g.dist(names, false))
		case 1:
			fmt.Fprintf(&b, "  for n in 1..N {\n    y[n] ~ %s\n  }\n", g.dist(names, true))
		case 2:
			fmt.Fprintf(&b, "  y ~ normal(a + b * x, s)\n")
		case 3:
			fmt.Fprintf(&b, "  k ~ %s\n", []string{"poisson(exp(b))", "binomial(3, inv_logit(a))", "poisson(s)"}[g.pick(3)])
		case 4:
			fmt.Fprintf(&b, "  target += %s\n", g.expr(2, false))
		default:
			fmt.Fprintf(&b, "  v ~ %s\n", []string{"normal(a, s)", "normal(0, 1)", "exponential(1)", "student_t(3, 0, s)"}[g.pick(4)])
		}
	}
	b.WriteString("}\n")
	if g.pick(2) == 0 {
		fmt.Fprintf(&b, "derived {\n  w = %s\n  r = normal_rng(a, s)\n}\n", g.expr(2, false))
	}
	return b.String(), string(js)
}

// FuzzPipeline runs the whole pipeline on a small generated model and its
// data (parse, check, bind, compile, then Fit with a tiny budget: 20
// iterations of 2 chains, 4 samples, 100 draws): never a panic; an error
// is positioned inside the model or data text, or a UserError; a success
// has finite summaries or a verdict of not converged; and the same seed
// gives the same summary twice.
func FuzzPipeline(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("probit"))
	f.Add([]byte{2, 10, 200, 30, 40, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{4, 0, 255, 128, 64, 1, 3, 0, 1, 2, 3, 2, 1, 0, 5, 5, 5, 5, 1, 1})
	// the examples' bytes steer the generator into varied choices
	ex, _ := filepath.Glob("../examples/*.msc")
	for i, p := range ex {
		if b, err := os.ReadFile(p); err == nil && i%4 == 0 {
			f.Add(b[:min(len(b), 64)])
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		g := &genModel{in: in}
		src, data := g.source()
		seed := uint64(g.next())
		dir := t.TempDir()
		dataPath := filepath.Join(dir, "d.json")
		if err := os.WriteFile(dataPath, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := LoadSource("f.msc", []byte(src), dataPath, LoadOptions{MaxNodes: 10000})
		if err != nil {
			checkPipelineError(t, err, src, data)
			return
		}
		fit := func() (*Fitted, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			return Fit(ctx, m, Options{Iters: 20, Fixed: true, Chains: 2, Samples: 4, Draws: 100, Seed: seed, Init: []string{"zero", "laplace"}[seed%2]})
		}
		start := time.Now()
		fa, err := fit()
		if time.Since(start) > 15*time.Second {
			t.Skip("too slow to compare runs")
		}
		if err != nil {
			checkPipelineError(t, err, src, data)
			return
		}
		s := fa.Summary
		for _, name := range s.LatentOrder {
			mo := s.Latent[name]
			if (math.IsNaN(mo.Mean) || math.IsInf(mo.Mean, 0) || math.IsNaN(mo.SD) || math.IsInf(mo.SD, 0)) && s.Converged {
				t.Fatalf("converged with a non-finite summary of %s (%v, %v):\n%s", name, mo.Mean, mo.SD, src)
			}
		}
		if s.Converged == strings.Contains(s.Verdict, "NOT converged") {
			t.Fatalf("converged %v with verdict %q", s.Converged, s.Verdict)
		}
		fb, err := fit()
		if err != nil {
			t.Fatalf("the same seed failed the second time: %v\n%s", err, src)
		}
		ja, jb := summaryKey(t, fa.Summary), summaryKey(t, fb.Summary)
		if ja != jb {
			t.Fatalf("the same seed gave two summaries:\n%s\n%s\nmodel:\n%s", ja, jb, src)
		}
	})
}

// summaryKey is a summary as JSON, without its elapsed time and timing.
func summaryKey(t *testing.T, s *Summary) string {
	c := *s
	c.ElapsedSeconds, c.Timing = 0, nil
	b, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkPipelineError: a user error, and a positioned one inside its file
// when it carries a position.
func checkPipelineError(t *testing.T, err error, src, data string) {
	t.Helper()
	var list lang.ErrorList
	var one *lang.Error
	var user *UserError
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = lang.ErrorList{one}
	case errors.As(err, &user):
		if user.Msg == "" {
			t.Fatalf("empty user error:\n%s", src)
		}
		return
	default:
		t.Fatalf("error of type %T (%v), neither positioned nor a user error; model:\n%s\ndata: %s", err, err, src, data)
	}
	for _, e := range list {
		text := src
		if e.Pos.File != "f.msc" {
			text = data
		}
		if lines := 1 + strings.Count(text, "\n"); e.Pos.Line < 1 || e.Pos.Line > lines || e.Pos.Col < 1 {
			t.Fatalf("error outside the text (%d lines): %v\nmodel:\n%s", lines, e, src)
		}
	}
}
