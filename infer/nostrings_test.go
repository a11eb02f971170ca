package infer

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
	"github.com/mscppl/mscppl/stdlib"
)

// parserFuncs are the functions allowed to compare a registered name with
// a string literal: the parsers of user input (a name typed on the command
// line, in :set or in a model's infer block), keyed "dir/file.go:Func".
var parserFuncs = map[string]bool{
	"infer/msc/run.go:ParseOptimizer":       true, // --optimizer
	"cmd/mscppl/shards.go:shardOf":          true, // --shard auto (not a kernel)
	"cmd/mscppl/plot.go:panels":             true, // plot q (the plot of q, not a summary source)
	"ir/vocab.go:init":                      true, // binds the entries the later stages recognise
	"cmd/mscppl/repl/evalexpr.go:evalShape": true, // :eval mean(x) as typed
}

// nameMatchers are the functions that compare a string with another as
// == does, or a part of it.
var nameMatchers = map[string]bool{
	"strings.HasPrefix": true, "strings.HasSuffix": true, "strings.Contains": true, "strings.EqualFold": true,
	"strings.Index": true, "strings.TrimPrefix": true, "strings.CutPrefix": true, "slices.Contains": true, "slices.Index": true,
}

// nameScanDirs hold the packages whose code must not compare names: the
// IR's stages, the facade, the engine, the baselines, the diagnostics and
// the command, with the packages under them. (lang and lang/stan are the
// parsers of the user's text: they read the words.)
var nameScanDirs = []string{"infer", "cmd", "ir"}

// registeredNames are the names behaviour must never be decided on by
// comparing strings: the kernels (and auto), the variational families,
// the distributions (a GLM's family), the methods, the summary sources and
// the values of the typed settings (proposal, init).
func registeredNames() map[string]string {
	names := map[string]string{}
	add := func(what string, ns ...string) {
		for _, n := range ns {
			names[n] = what
		}
	}
	defer func() {
		for n := range names {
			if strings.HasPrefix(n, "test") { // the registrations of registry_test.go
				delete(names, n)
			}
		}
	}()
	add("kernel", msc.KernelNames()...)
	add("kernel", AutoKernel)
	add("family", msc.FamilyNames()...)
	add("distribution", stdlib.FamilyNames()...)
	add("method", Methods()...)
	for _, n := range lang.BaseTypeNames {
		if n != "" {
			add("type", n)
		}
	}
	add("block kind", lang.BlockKinds...)
	add("built-in function", ir.FunctionNames()...)
	for _, s := range summarySources() {
		add("summary source", s.String())
	}
	for _, v := range settingValueNames() {
		add("setting value", v)
	}
	return names
}

// TestNoNameComparisons: no code of ir and its stages, infer, infer/msc,
// infer/baselines or cmd/mscppl compares a registered name (a type, a
// block kind, a built-in function, a kernel, family, distribution, method
// or summary source) with a string literal, in a comparison, a switch
// case or a map index, outside the parsers of user input (parserFuncs):
// behaviour follows from the registries' declarations and typed values.
func TestNoNameComparisons(t *testing.T) {
	names := registeredNames()
	var bad []string
	for _, dir := range nameScanDirs {
		bad = append(bad, nameComparisons(t, filepath.Join("..", dir), dir, names)...)
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// TestNoNameComparisonsCatches: the scan finds a comparison and a switch
// case of a registered name, and lets a parser's through.
func TestNoNameComparisonsCatches(t *testing.T) {
	src := `package p
func f(k, s string) bool {
	switch s {
	case "psis", "other":
	}
	return k == "csmc" || "fullrank" != k || k == "not a name" || strings.HasPrefix(s, "bernoulli") || strings.HasPrefix(s, "x")
}
func ParseOptimizer(s string) bool { return s == "cis" }
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "run.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := nameComparisons(t, dir, "infer/msc", registeredNames())
	if len(got) != 4 {
		t.Fatalf("found %d comparisons, want 4 (psis, csmc, fullrank, bernoulli): %q", len(got), got)
	}
	for i, want := range []string{`"psis"`, `"csmc"`, `"fullrank"`, `"bernoulli"`} {
		if !strings.Contains(got[i], want) {
			t.Errorf("finding %d is %q, want %s", i, got[i], want)
		}
	}
}

// nameComparisons lists the comparisons of a registered name with a string
// literal in the Go files (not tests) under root, named as rel.
func nameComparisons(t *testing.T, root, rel string, names map[string]string) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		sub, _ := filepath.Rel(root, path)
		file := filepath.ToSlash(filepath.Join(rel, sub))
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if ok && parserFuncs[file+":"+fn.Name.Name] {
				continue
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				var lits []ast.Expr
				switch x := n.(type) {
				case *ast.BinaryExpr:
					if x.Op == token.EQL || x.Op == token.NEQ {
						lits = []ast.Expr{x.X, x.Y}
					}
				case *ast.CaseClause:
					lits = x.List
				case *ast.IndexExpr: // blocks["model"]
					lits = []ast.Expr{x.Index}
				case *ast.CallExpr: // strings.HasPrefix(name, "bernoulli"), slices.Contains(names, "cis")
					if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
						if pkg, ok := sel.X.(*ast.Ident); ok && nameMatchers[pkg.Name+"."+sel.Sel.Name] {
							lits = x.Args
						}
					}
				}
				for _, e := range lits {
					lit, ok := e.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						continue
					}
					if what, ok := names[s]; ok {
						pos := fset.Position(lit.Pos())
						out = append(out, fmt.Sprintf("%s:%d:%d: %s is compared with the name of a %s: compare typed values", file, pos.Line, pos.Column, lit.Value, what))
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// settingValueNames are the names the typed settings (proposal, init)
// take.
func settingValueNames() []string {
	return append(slices.Clone(proposalNames[:]), initNames[:]...)
}

// summarySources lists the sources a run records.
func summarySources() []SummarySource { return []SummarySource{SourcePSIS, SourceQ, SourceChain} }
