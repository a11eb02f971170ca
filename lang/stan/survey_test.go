package stan_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/lang/stan"
)

// TestStanc3Check measures mscppl check on stanc3's integration tests
// (test/integration/good and bad of github.com/stan-dev/stanc3, checked
// out at $MSCPPL_STANC3): each program is checked as mscppl check
// MODEL.stan DATA.json does, with data made up from its data block (ints
// 3 within their bounds, reals 0.5 within theirs, sizes evaluated from
// those). It logs the share of good programs that pass by folder, the most
// common reasons for the rest, and the bad programs that pass (which
// stanc3 refuses); with MSCPPL_STANC3_LIST set, each good program that
// fails and why. It only logs: go test ./lang/stan -run Stanc3Check -v.
func TestStanc3Check(t *testing.T) {
	root := os.Getenv("MSCPPL_STANC3")
	if root == "" {
		t.Skip("set MSCPPL_STANC3 to a checkout of stanc3's test/integration")
	}
	tmp := t.TempDir()
	digits := regexp.MustCompile(`"[^"]*"|\([^)]*\)|[0-9.]+`)
	for _, kind := range []string{"good", "bad"} {
		type tally struct{ ok, all int }
		byDir := map[string]*tally{}
		reasons := map[string]int{}
		var passed []string
		_ = filepath.WalkDir(filepath.Join(root, kind), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".stan") {
				return nil
			}
			rel, _ := filepath.Rel(filepath.Join(root, kind), path)
			dir := strings.SplitN(filepath.Dir(rel), string(filepath.Separator), 2)[0]
			if byDir[dir] == nil {
				byDir[dir] = &tally{}
			}
			byDir[dir].all++
			reason := checkOne(path, tmp)
			if reason == "" {
				byDir[dir].ok++
				passed = append(passed, rel)
				return nil
			}
			reasons[digits.ReplaceAllString(reason, "_")]++
			if kind == "good" && os.Getenv("MSCPPL_STANC3_LIST") != "" {
				t.Logf("  good but fails: %s: %s", rel, reason)
			}
			return nil
		})
		var dirs []string
		ok, all := 0, 0
		for d, c := range byDir {
			dirs = append(dirs, d)
			ok += c.ok
			all += c.all
		}
		sort.Strings(dirs)
		t.Logf("%s: %d of %d pass check (%.0f%%)", kind, ok, all, 100*float64(ok)/float64(max(all, 1)))
		for _, d := range dirs {
			t.Logf("  %-28s %4d / %4d", d, byDir[d].ok, byDir[d].all)
		}
		type rc struct {
			r string
			n int
		}
		var rs []rc
		for r, n := range reasons {
			rs = append(rs, rc{r, n})
		}
		sort.Slice(rs, func(i, j int) bool { return rs[i].n > rs[j].n || rs[i].n == rs[j].n && rs[i].r < rs[j].r })
		for _, r := range rs[:min(15, len(rs))] {
			t.Logf("  %5d  %s", r.n, r.r)
		}
		if kind == "bad" {
			for _, p := range passed {
				t.Logf("  bad but passes: %s", p)
			}
		}
	}
}

// checkOne checks one program with made-up data and returns why it
// fails ("" when it passes).
func checkOne(path, tmp string) (reason string) {
	defer func() {
		if r := recover(); r != nil {
			reason = fmt.Sprintf("PANIC: %v", r)
		}
	}()
	src, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	p, err := stan.ParseProgram(path, src)
	if err != nil {
		return firstLine(err)
	}
	data, err := makeData(p)
	if err != nil {
		return "no data made: " + err.Error()
	}
	dp := filepath.Join(tmp, "data.json")
	b, _ := json.Marshal(data)
	if err := os.WriteFile(dp, b, 0o644); err != nil {
		return err.Error()
	}
	if _, err := infer.Load(path, dp); err != nil {
		return firstLine(err)
	}
	return ""
}

func firstLine(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if i := strings.Index(msg, ".stan:"); i >= 0 {
		msg = msg[i+6:]
		if j := strings.Index(msg, ": "); j >= 0 {
			msg = msg[j+2:]
		}
	}
	return msg
}

// makeData makes a value for each declaration of the data block.
func makeData(p *stan.Program) (map[string]any, error) {
	out := map[string]any{}
	ints := map[string]float64{}
	for _, b := range p.Blocks {
		if b.Name != "data" || b.Second != "" {
			continue
		}
		for _, s := range b.Stmts {
			if s.Decl == nil {
				continue
			}
			t := s.Decl.Type
			for _, d := range append([]*stan.Declarator{s.Decl.First}, s.Decl.More...) {
				var dims []int
				for _, e := range append(append([]*stan.Expr(nil), t.Array...), d.Old...) {
					n, err := evalInt(e, ints)
					if err != nil {
						return nil, err
					}
					dims = append(dims, n)
				}
				var sizes []int
				for _, e := range t.Sizes {
					n, err := evalInt(e, ints)
					if err != nil {
						return nil, err
					}
					sizes = append(sizes, n)
				}
				lo, hi := math.Inf(-1), math.Inf(1)
				for _, bd := range t.Bounds {
					v, err := evalChain(bd.Value.Left, bd.Value.Rest, ints)
					if err != nil {
						return nil, err
					}
					if bd.Which == "lower" {
						lo = v
					} else if bd.Which == "upper" {
						hi = v
					}
				}
				x := 0.5
				if t.Base == "int" {
					x = 3
				}
				switch {
				case !math.IsInf(lo, 0) && !math.IsInf(hi, 0):
					x = lo + (hi-lo)/2
					if t.Base == "int" {
						x = math.Floor(x)
					}
				case !math.IsInf(lo, 0):
					x = math.Max(x, lo+0.5)
					if t.Base == "int" {
						x = math.Max(3, lo)
					}
				case !math.IsInf(hi, 0):
					x = math.Min(x, hi-0.5)
					if t.Base == "int" {
						x = math.Min(3, hi)
					}
				}
				elem, err := element(t.Base, sizes, x)
				if err != nil {
					return nil, err
				}
				if t.Base == "int" && len(dims) == 0 {
					ints[d.Name] = x
				}
				v := elem
				for i := len(dims) - 1; i >= 0; i-- {
					arr := make([]any, dims[i])
					for k := range arr {
						arr[k] = v
					}
					v = arr
				}
				out[d.Name] = v
			}
		}
	}
	return out, nil
}

// element makes one value of a base type with the given sizes.
func element(base string, sizes []int, x float64) (any, error) {
	vec := func(n int, f func(i int) float64) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	mat := func(r, c int, f func(i, j int) float64) []any {
		out := make([]any, r)
		for i := range out {
			out[i] = vec(c, func(j int) float64 { return f(i, j) })
		}
		return out
	}
	eye := func(i, j int) float64 {
		if i == j {
			return 1
		}
		return 0
	}
	switch {
	case (base == "int" || base == "real") && len(sizes) == 0:
		return x, nil
	case (base == "vector" || base == "row_vector") && len(sizes) == 1:
		return vec(sizes[0], func(int) float64 { return x }), nil
	case base == "simplex" && len(sizes) == 1:
		return vec(sizes[0], func(int) float64 { return 1 / float64(sizes[0]) }), nil
	case (base == "ordered" || base == "positive_ordered") && len(sizes) == 1:
		return vec(sizes[0], func(i int) float64 { return float64(i + 1) }), nil
	case base == "matrix" && len(sizes) == 2:
		return mat(sizes[0], sizes[1], func(int, int) float64 { return x }), nil
	case (base == "cov_matrix" || base == "corr_matrix" || base == "cholesky_factor_corr" || base == "cholesky_factor_cov") && len(sizes) >= 1:
		c := sizes[0]
		if len(sizes) == 2 {
			c = sizes[1]
		}
		return mat(sizes[0], c, eye), nil
	}
	return nil, fmt.Errorf("a value of %s with %d sizes", base, len(sizes))
}

func evalInt(e *stan.Expr, ints map[string]float64) (int, error) {
	if e.Then != nil {
		return 0, fmt.Errorf("a conditional size")
	}
	rest := make([]*stan.BoundOp, len(e.Chain.Rest))
	for i, o := range e.Chain.Rest {
		rest[i] = &stan.BoundOp{Op: o.Op, X: o.X}
	}
	v, err := evalChain(e.Chain.Left, rest, ints)
	return int(v), err
}

// evalChain evaluates + - * / of ints left to right with * and / first.
func evalChain(first *stan.Unary, rest []*stan.BoundOp, ints map[string]float64) (float64, error) {
	terms := []float64{}
	ops := []string{}
	x, err := evalUnary(first, ints)
	if err != nil {
		return 0, err
	}
	for _, o := range rest {
		y, err := evalUnary(o.X, ints)
		if err != nil {
			return 0, err
		}
		switch o.Op {
		case "*":
			x *= y
		case "/", "%/%":
			x = math.Trunc(x / y)
		case "+", "-":
			terms, ops = append(terms, x), append(ops, o.Op)
			x = y
		default:
			return 0, fmt.Errorf("operator %s in a size", o.Op)
		}
	}
	terms = append(terms, x)
	v := terms[0]
	for i, op := range ops {
		if op == "+" {
			v += terms[i+1]
		} else {
			v -= terms[i+1]
		}
	}
	return v, nil
}

func evalUnary(u *stan.Unary, ints map[string]float64) (float64, error) {
	if u.Power == nil {
		v, err := evalUnary(u.X, ints)
		if u.Op == "-" {
			v = -v
		}
		return v, err
	}
	if u.Power.Exp != nil || len(u.Power.Base.Ops) > 0 {
		return 0, fmt.Errorf("a power or an index in a size")
	}
	pr := u.Power.Base.Prim
	switch {
	case pr.Number != nil:
		return strconv.ParseFloat(strings.ReplaceAll(*pr.Number, "_", ""), 64)
	case pr.Ident != nil:
		v, ok := ints[*pr.Ident]
		if !ok {
			return 0, fmt.Errorf("the size %s", *pr.Ident)
		}
		return v, nil
	case pr.Paren != nil:
		return evalInt2(pr.Paren, ints)
	}
	return 0, fmt.Errorf("a call in a size")
}

func evalInt2(e *stan.Expr, ints map[string]float64) (float64, error) {
	n, err := evalInt(e, ints)
	return float64(n), err
}

// TestStanc3Sample checks the sample of stanc3's integration tests kept in
// testdata/stanc3 (see its README) as TestStanc3Check does: every good
// program passes, every bad one is refused.
func TestStanc3Sample(t *testing.T) {
	tmp := t.TempDir()
	for _, kind := range []string{"good", "bad"} {
		files, err := filepath.Glob(filepath.Join("testdata", "stanc3", kind, "*.stan"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no %s sample: %v", kind, err)
		}
		for _, f := range files {
			reason := checkOne(f, tmp)
			if kind == "good" && reason != "" {
				t.Errorf("%s: %s", f, reason)
			}
			if kind == "bad" && reason == "" {
				t.Errorf("%s is accepted", f)
			}
			if strings.HasPrefix(reason, "PANIC") {
				t.Errorf("%s: %s", f, reason)
			}
		}
	}
}
