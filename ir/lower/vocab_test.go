package lower

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/check"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
	"github.com/stretchr/testify/require"
)

// vocabModel is a model whose model block is body, with a latent vector
// z[3] in (0.1, 0.9) and the locals s (a scalar in (0.1, 0.9)), b (a
// scalar in (2, 10)), v (a vector) and M (a 3 x 3 matrix) of z: every
// function has arguments in its domain among them.
func vocabModel(body string) string {
	return `latent { z: vector<lower=0.1, upper=0.9>[3] }
model {
  s = z[1]
  b = 1 + 10 * z[2]
  v = z
  M = diag_matrix(v) + rep_matrix(0.01, 3, 3)
  P = rep_matrix(1.0 / 3, 3, 3)
  p = v / sum(v)
` + body + "\n}\n"
}

func buildSrc(src string) (*ir.Model, error) {
	f, err := lang.Parse("m.msc", []byte(src))
	if err != nil {
		return nil, err
	}
	return check.Build(f, nil)
}

// argCombos are the argument lists of n arguments to try on a function:
// every combination of a scalar, a vector, a matrix and an integer.
func argCombos(n int) [][]string {
	if n == 0 {
		return [][]string{{}}
	}
	var out [][]string
	for _, rest := range argCombos(n - 1) {
		for _, a := range []string{"s", "2", "1", "v", "M", "b", "-s"} {
			out = append(out, append([]string{a}, rest...))
		}
	}
	return out
}

// validArgs are arguments to try first on the functions whose domain the
// combinations of argCombos miss: hmm_marginal's Gamma and rho must be
// stochastic (P's rows and p are simplexes), as in Stan.
var validArgs = map[string][][]string{"hmm_marginal": {{"M", "P", "p"}}}

// TestEveryFunctionResolvesAndLowers: every entry of the vocabulary's table,
// aliases included, takes some plausible arguments at each of its arities
// (a scalar, a vector, a matrix or an integer), and the call compiles into
// a log joint with a finite value and gradient somewhere.
func TestEveryFunctionResolvesAndLowers(t *testing.T) {
	fns := ir.Functions()
	require.Greater(t, len(fns), 100)
	for _, f := range fns {
		def := f
		if f.Alias != "" {
			def = ir.FunctionsByName[f.Alias]
		}
		if def.ODE != nil {
			continue // an ODE solver takes a user function: ode_test.go
		}
		for _, n := range def.Arity {
			resolved, finite := "", false
			for _, args := range append(validArgs[f.Name], argCombos(n)...) {
				call := f.Name + "(" + strings.Join(args, ", ") + ")"
				m, err := buildSrc(vocabModel("  x = " + call))
				if err != nil {
					continue
				}
				resolved = call
				if _, isNum := m.Body[len(m.Body)-1].(*ir.Assign).X.(*ir.Num); isNum {
					finite = true // a constant (pi(), rows(v), positive_infinity())
					break
				}
				if finite = lowersFinite(t, m, call); finite {
					break
				}
			}
			require.NotEmpty(t, resolved, "%s with %d arguments: no plausible arguments resolve", f.Name, n)
			require.True(t, finite, "%s: no finite log joint", resolved)
		}
	}
}

// lowersFinite compiles x = call, with x counting in the log joint, and
// reports whether the log joint and its gradient are finite somewhere.
func lowersFinite(t *testing.T, m *ir.Model, call string) bool {
	var x *ir.Var
	for _, s := range m.Body {
		if a, ok := s.(*ir.Assign); ok && a.Local.Name == "x" {
			x = a.Local
		}
	}
	use := map[ir.Kind]string{ir.Int: "x", ir.Real: "x", ir.Vector: "sum(x)", ir.Matrix: "sum(to_vector(x))"}[x.Type.Kind]
	c := compile(t, vocabModel("  x = "+call+"\n  target += 1e-3 * "+use), "")
	for _, z := range [][]float64{{0.3, -0.2, 0.5}, {-1, 0.4, 1.2}, {2, 1, -0.5}} {
		lp := []float64{0}
		c.LogJoint(z, lp)
		g := make([]float64, 3)
		c.GradLogJoint(z, g)
		if !math.IsInf(lp[0], 0) && !math.IsNaN(lp[0]) && !math.IsNaN(g[0]+g[1]+g[2]) {
			return true
		}
	}
	return false
}

// TestFunctionValues: every function whose op is a stdlib op gives that
// op's value in a log joint, and its gradient matches central finite
// differences of the op (a function of one latent z, the other arguments
// constants).
func TestFunctionValues(t *testing.T) {
	points := [][]float64{{0.3, 0.6, 0.2}, {1.7, 0.4, 0.5}, {-0.4, 2, 1}, {5, 2, 1}}
	checked := 0
	for _, f := range ir.Functions() {
		def := f
		if f.Alias != "" {
			def = ir.FunctionsByName[f.Alias]
		}
		var val func(a []float64) float64
		arity := 0
		if op := def.Elem; op != nil {
			arity = 1
			val = func(a []float64) float64 {
				y := []float64{0}
				op.Eval(y, a[:1])
				return y[0]
			}
		} else if op := def.Nary; op != nil {
			arity = op.Arity
			val = op.Eval
		} else if def.Elementwise { // the tape's own exp, log, ...
			arity = 1
			val = map[string]func(a []float64) float64{
				"exp":   func(a []float64) float64 { return math.Exp(a[0]) },
				"log":   func(a []float64) float64 { return math.Log(a[0]) },
				"sqrt":  func(a []float64) float64 { return math.Sqrt(a[0]) },
				"log1p": func(a []float64) float64 { return math.Log1p(a[0]) },
				"expm1": func(a []float64) float64 { return math.Expm1(a[0]) },
			}[def.Name]
		}
		if val == nil {
			continue
		}
		found := false
		for _, p := range points {
			a := append([]float64(nil), p[:arity]...)
			if v := val(a); math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			args := []string{"z"}
			for _, x := range a[1:] {
				args = append(args, fmt.Sprintf("%g", x))
			}
			c := compile(t, "latent { z: real }\nmodel {\n  target += "+f.Name+"("+strings.Join(args, ", ")+")\n}\n", "")
			lp, g := []float64{0}, []float64{0}
			c.LogJoint(a[:1], lp)
			c.GradLogJoint(a[:1], g)
			want := val(a)
			require.InDelta(t, want, lp[0], 1e-12*math.Max(1, math.Abs(want)), "%s%v", f.Name, a)
			h := 1e-6 * math.Max(1, math.Abs(a[0]))
			ap, am := append([]float64(nil), a...), append([]float64(nil), a...)
			ap[0] += h
			am[0] -= h
			fd := (val(ap) - val(am)) / (2 * h)
			require.InDelta(t, fd, g[0], 1e-5*math.Max(1, math.Abs(fd)), "d/dz %s%v", f.Name, a)
			found, checked = true, checked+1
			break
		}
		require.True(t, found, "%s: no point in its domain", f.Name)
	}
	require.Greater(t, checked, 60)
}

// TestAliasesLowerAsCanonical: an alias is checked and lowered as its
// canonical entry (the same entry, or the same stdlib op), keeping the
// name as written for messages.
func TestAliasesLowerAsCanonical(t *testing.T) {
	cases := []struct{ call, canonical string }{
		{"fabs(s)", "abs"},
		{"dot_product(v, v)", "dot"},
		{"binomial_coefficient_log(5, s)", "lchoose"},
		{"multiply_log(s, 2)", "lmultiply"},
		{"min(s, 2)", "fmin"},
		{"max(s, 2)", "fmax"},
	}
	for _, c := range cases {
		m, err := buildSrc(vocabModel("  x = " + c.call))
		require.NoError(t, err, c.call)
		x := m.Body[len(m.Body)-1].(*ir.Assign).X
		switch x := x.(type) {
		case *ir.Call:
			require.Same(t, ir.FunctionsByName[c.canonical], x.Def, c.call)
		case *ir.NaryCall:
			require.Same(t, stdlib.FindNary(c.canonical), x.Fn, c.call)
			require.Equal(t, c.canonical, x.Fn.Name, c.call)
		default:
			t.Fatalf("%s: %T", c.call, x)
		}
		require.True(t, strings.HasPrefix(ir.FormatExpr(x), strings.Split(c.call, "(")[0]+"("), "written name kept: %s", ir.FormatExpr(x))
	}
	for _, f := range ir.Functions() {
		if f.Alias != "" {
			require.NotNil(t, ir.FunctionsByName[f.Alias], f.Name)
			require.Empty(t, ir.FunctionsByName[f.Alias].Alias, "%s: an alias of an alias", f.Name)
		}
	}
}

// TestEveryOpHasAnEntry: every numeric op of stdlib's catalogues is
// reachable from an entry of the table (a new op without its entry would
// be dead code).
func TestEveryOpHasAnEntry(t *testing.T) {
	for _, op := range stdlib.ElemFuncs {
		f, ok := ir.FunctionsByName[op.Name()]
		require.True(t, ok && f.Elem == op, "stdlib.ElemFunc %s has no entry", op.Name())
	}
	for _, op := range stdlib.NaryFuncs {
		f, ok := ir.FunctionsByName[op.Name]
		require.True(t, ok && f.Nary == op, "stdlib.NaryFunc %s has no entry", op.Name)
	}
}

// TestEveryDistributionResolves: every distribution of the registry works
// after ~ and as NAME_lpdf / NAME_lpmf, with arguments of the shapes it
// declares; scalar ones also as NAME_rng in derived, and NAME_lcdf /
// NAME_lccdf / NAME_cdf where they have them.
func TestEveryDistributionResolves(t *testing.T) {
	names := ir.DistributionNames()
	require.Greater(t, len(names), 35)
	shapeArg := map[stdlib.Shape]string{stdlib.ShapeScalar: "0.5", stdlib.ShapeInt: "2",
		stdlib.ShapeVector: "rep_vector(0.25, 4)", stdlib.ShapeVectorOrScalar: "0.5", stdlib.ShapeSquare: "diag_matrix(rep_vector(1.0, 4))"}
	for _, n := range names {
		fam, ok := stdlib.Lookup(n)
		require.True(t, ok)
		require.NotEmpty(t, fam.Doc, n)
		var y string
		var params []string
		switch {
		case fam.Vec != nil:
			require.Len(t, fam.Vec.Params, len(fam.Params), n)
			y = map[stdlib.Shape]string{stdlib.ShapeVector: "rep_vector(0.25, 4)", stdlib.ShapeInt: "2",
				stdlib.ShapeSquare: "diag_matrix(rep_vector(1.0, 4))"}[fam.Vec.Value]
			for _, s := range fam.Vec.Params {
				params = append(params, shapeArg[s])
			}
			if n == "ordered_logistic" {
				params[1] = "append_row(-1.0, append_row(0.0, 1.0))"
			}
			require.Equal(t, n, fam.Vec.New(4).Name(), "the op's name")
		case fam.GLMOf != "":
			y, params = "rep_vector(0.5, 3)", []string{"diag_matrix(rep_vector(1.0, 3))", "0.1", "rep_vector(0.2, 3)", "1.5"}
		default:
			y = map[bool]string{true: "1", false: "0.5"}[fam.Discrete]
			for _, p := range fam.Params {
				params = append(params, map[stdlib.Domain]string{stdlib.NonNegInt: "3", stdlib.Unit: "0.4"}[p.Domain])
				if params[len(params)-1] == "" {
					params[len(params)-1] = "1.5"
				}
			}
			if n == "uniform" {
				params = []string{"0", "2"}
			}
			if n == "pareto" {
				y = "2"
			}
		}
		density := fam.DensityName() + "(" + y
		if len(params) > 0 {
			density += " | " + strings.Join(params, ", ")
		}
		density += ")"
		c := compile(t, "latent { z: real }\nmodel {\n  z ~ normal(0, 1)\n  target += "+density+"\n}\n", "")
		lp := []float64{0}
		c.LogJoint([]float64{0}, lp)
		require.False(t, math.IsInf(lp[0], 0) || math.IsNaN(lp[0]), "%s = %g", density, lp[0])
		if fam.Scalar() {
			compile(t, "latent { z: real }\nmodel { z ~ normal(0, 1) }\nderived { d = "+n+"_rng("+strings.Join(params, ", ")+") }\n", "")
			for _, f := range []*stdlib.NaryFunc{fam.LogCDF, fam.LogCCDF, fam.CDF} {
				if f != nil {
					name := strings.TrimPrefix(strings.TrimPrefix(f.Name, n), "_")
					call := n + "_" + name + "(" + y + ")"
					if len(params) > 0 {
						call = n + "_" + name + "(" + y + " | " + strings.Join(params, ", ") + ")"
					}
					compile(t, vocabModel("  target += "+call), "")
				}
			}
		}
	}
}

// TestDocsListTheVocabulary: the lists of functions and of distributions in
// docs/language.md name every entry of the registries (and of the log
// CDFs), as whole words.
func TestDocsListTheVocabulary(t *testing.T) {
	src, err := os.ReadFile("../../docs/language.md")
	require.NoError(t, err)
	missing := docsMissing(string(src))
	require.Empty(t, missing, "add them to the lists of functions and distributions in docs/language.md")
}

// docSection is the text of the section of a Markdown page under the
// heading "## TITLE", up to the next heading of that level.
func docSection(page, title string) string {
	_, after, ok := strings.Cut(page, "\n## "+title+"\n")
	if !ok {
		return ""
	}
	body, _, _ := strings.Cut(after, "\n## ")
	return body
}

// docsMissing lists the names of the vocabulary that docs/language.md's
// sections do not name: the functions under "Functions", the
// distributions and their log CDFs (NAME_lcdf) under "Distributions".
func docsMissing(page string) []string {
	fns := docSection(page, "Functions")
	dists := docSection(page, "Distributions")
	cdfs := dists
	has := func(text, name string) bool {
		return regexp.MustCompile(`(^|[^\w])` + regexp.QuoteMeta(name) + `($|[^\w])`).MatchString(text)
	}
	var missing []string
	for _, f := range ir.Functions() {
		if !has(fns, f.Name) {
			missing = append(missing, "function "+f.Name)
		}
	}
	for _, n := range ir.DistributionNames() {
		if !has(dists, n) {
			missing = append(missing, "distribution "+n)
		}
		if fam, _ := stdlib.Lookup(n); fam.LogCDF != nil && !has(cdfs, n+"_lcdf") {
			missing = append(missing, "log CDF of "+n)
		}
	}
	return missing
}

// TestDocsTestCatchesAMissingName: removing a name from the lists of
// docs/language.md makes the docs test fail.
func TestDocsTestCatchesAMissingName(t *testing.T) {
	src, err := os.ReadFile("../../docs/language.md")
	require.NoError(t, err)
	readme := string(src)
	for _, name := range []string{"log1m_exp", "cholesky_decompose", "dirichlet", "rayleigh"} {
		cut := regexp.MustCompile(`\b`+name+`\b`).ReplaceAllString(readme, "")
		require.NotEmpty(t, docsMissing(cut), "without %s", name)
	}
}
