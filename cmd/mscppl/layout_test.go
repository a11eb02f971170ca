package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// maxPackageLines bounds a package's non-test Go lines: past it, a package
// holds more than one stage or concern and is split (issue 32).
const maxPackageLines = 6000

// irStages are the IR's stage packages in pipeline order: each may import
// only the ones before it.
var irStages = []string{"ir", "ir/check", "ir/lower", "ir/explain", "ir/structure", "ir/simulate"}

// TestPackageSizes: no package of the module is over maxPackageLines
// non-test lines.
func TestPackageSizes(t *testing.T) {
	sizes := packageLines(t, docRoot)
	require.NotEmpty(t, sizes)
	for dir, n := range sizes {
		require.LessOrEqual(t, n, maxPackageLines, "package %s has %d non-test lines; split it by stage or concern", dir, n)
	}
	require.Greater(t, sizes["ir"], 1000, "the scan reads ir")
}

// TestIRStagesImportForward: each stage of the IR imports only the stages
// before it (no package of the middle of the pipeline reaches forward).
func TestIRStagesImportForward(t *testing.T) {
	for i, stage := range irStages {
		imports := packageImports(t, filepath.Join(docRoot, filepath.FromSlash(stage)))
		for _, later := range irStages[i+1:] {
			require.False(t, imports["github.com/mscppl/mscppl/"+later], "%s imports the later stage %s", stage, later)
		}
		if i > 0 {
			require.True(t, imports["github.com/mscppl/mscppl/"+irStages[i-1]] || imports["github.com/mscppl/mscppl/ir"], "%s builds on the stages before it", stage)
		}
	}
}

// TestCompiledMethods: a compiled model is its graph, its layout and its
// log joint, at most 15 methods; what analyses or explains it are
// functions of its package or of the later stages.
func TestCompiledMethods(t *testing.T) {
	n := 0
	dir := filepath.Join(docRoot, "ir", "lower")
	for _, f := range parseDir(t, dir) {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			rt := fd.Recv.List[0].Type
			if s, ok := rt.(*ast.StarExpr); ok {
				rt = s.X
			}
			if id, ok := rt.(*ast.Ident); ok && id.Name == "Compiled" {
				n++
			}
		}
	}
	require.Greater(t, n, 5, "the scan finds Compiled's methods")
	require.LessOrEqual(t, n, 15, "lower.Compiled has %d methods", n)
}

// parseDir parses the non-test Go files of dir.
func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	fset := token.NewFileSet()
	var out []*ast.File
	for _, fn := range files {
		if strings.HasSuffix(fn, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, fn, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		out = append(out, f)
	}
	return out
}

// packageImports are the import paths of the non-test files of dir.
func packageImports(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, f := range parseDir(t, dir) {
		for _, im := range f.Imports {
			p, err := strconv.Unquote(im.Path.Value)
			require.NoError(t, err)
			out[p] = true
		}
	}
	return out
}

// packageLines counts the non-test Go lines of every package under root,
// by folder relative to root.
func packageLines(t *testing.T, root string) map[string]int {
	t.Helper()
	out := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		out[filepath.ToSlash(rel)] += strings.Count(string(b), "\n")
		return nil
	})
	require.NoError(t, err)
	return out
}
