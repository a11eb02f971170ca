package main

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// goPackage is what a package's documentation may name: its Go name, its
// doc comment (go/doc's), and every identifier it declares outside its
// tests: top-level names, methods, struct fields and interface methods.
type goPackage struct {
	dir, name, doc string
	names          map[string]bool
}

// theModulePackages are the module's packages, read once for the tests.
var theModulePackages = sync.OnceValues(func() (map[string]*goPackage, error) { return modulePackages(docRoot) })

// modulePackages reads every package of the module under root (testdata
// and hidden folders aside), by folder.
func modulePackages(root string) (map[string]*goPackage, error) {
	pkgs := map[string]*goPackage{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if n := d.Name(); path != root && (n == "testdata" || strings.HasPrefix(n, ".")) {
			return filepath.SkipDir
		}
		goFiles, err := filepath.Glob(filepath.Join(path, "*.go"))
		if err != nil || len(goFiles) == 0 {
			return err
		}
		fset := token.NewFileSet()
		var files, all []*ast.File
		for _, fn := range goFiles {
			f, err := parser.ParseFile(fset, fn, nil, parser.ParseComments)
			if err != nil {
				return err
			}
			all = append(all, f)
			if !strings.HasSuffix(fn, "_test.go") {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			return nil
		}
		// the documentation is go doc's, of the files that are not tests
		dp, err := doc.NewFromFiles(fset, files, path, doc.AllDecls)
		if err != nil {
			return err
		}
		gp := &goPackage{dir: path, name: dp.Name, doc: dp.Doc, names: map[string]bool{}}
		pkgs[path] = gp
		// the names: of every file, tests included (a doc may name a test
		// or a benchmark)
		for _, f := range all {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncDecl:
					gp.names[n.Name.Name] = true
				case *ast.TypeSpec:
					gp.names[n.Name.Name] = true
				case *ast.ValueSpec:
					for _, id := range n.Names {
						gp.names[id.Name] = true
					}
				case *ast.Field:
					for _, id := range n.Names {
						gp.names[id.Name] = true
					}
					if len(n.Names) == 0 { // an embedded type
						if id, ok := n.Type.(*ast.Ident); ok {
							gp.names[id.Name] = true
						}
					}
				}
				return true
			})
		}
		return nil
	})
	return pkgs, err
}

var (
	// qualifiedRE matches pkg.Name and pkg.Name.Field (or Type.Method).
	qualifiedRE = regexp.MustCompile(`\b([A-Za-z]\w*)\.([A-Z]\w*)(?:\.([A-Z]\w*))?\b`)
	// codeRE matches a backquoted identifier.
	codeRE = regexp.MustCompile("`([A-Z]\\w*)`")
	// camelRE matches a word that can only be an identifier: a capital
	// after a lower-case letter or digit (RecogniseGLM, ReadJSONFile).
	camelRE = regexp.MustCompile(`(^|[^\w.])([A-Z][A-Za-z0-9]*[a-z0-9][A-Z][A-Za-z0-9]*)\b`)
	// runFlagRE matches the -run flag of a go test command line, which
	// names a test of the package the command line names.
	runFlagRE = regexp.MustCompile(`-run\s+\S+`)
)

// properNouns are the camel-case words of the docs that are names of
// things, not identifiers.
var properNouns = map[string]bool{
	"CmdStan": true, "ArviZ": true, "NeurIPS": true, "PyMC": true, "JavaScript": true,
	"GitHub": true, "McCandlish": true, "TensorFlow": true, "PyTorch": true, "BlackJAX": true,
	"NumPyro": true, "CmdStanPy": true, "OpenMP": true, "NaN": true,
}

// docNameProblems lists the identifiers p's doc comment names that do not
// exist: pkg.Name where pkg is a package of the module (pkgs by Go name),
// Type.Member where Type is p's, and bare identifiers that are backquoted
// or camel-case.
func docNameProblems(p *goPackage, byName map[string][]*goPackage) []string {
	var bad []string
	has := func(ps []*goPackage, n string) bool {
		for _, q := range ps {
			if q.names[n] {
				return true
			}
		}
		return false
	}
	self := []*goPackage{p}
	qualified := map[string]bool{}
	text := runFlagRE.ReplaceAllString(p.doc, "")
	for _, m := range qualifiedRE.FindAllStringSubmatch(text, -1) {
		qualified[m[2]], qualified[m[3]] = true, true
		switch ps := byName[m[1]]; {
		case len(ps) > 0 && m[1] != p.name || m[1] == p.name:
			if m[1] == p.name {
				ps = self
			}
			if !has(ps, m[2]) || m[3] != "" && !has(ps, m[3]) {
				bad = append(bad, m[0])
			}
		case p.names[m[1]] && m[1][0] >= 'A' && m[1][0] <= 'Z':
			if !p.names[m[2]] || m[3] != "" && !p.names[m[3]] {
				bad = append(bad, m[0])
			}
		}
	}
	check := func(n string) {
		if !qualified[n] && !properNouns[n] && !p.names[n] {
			bad = append(bad, n)
		}
	}
	for _, m := range codeRE.FindAllStringSubmatch(text, -1) {
		check(m[1])
	}
	for _, m := range camelRE.FindAllStringSubmatch(text, -1) {
		check(m[2])
	}
	sort.Strings(bad)
	return bad
}

// TestDocGoNamesExist: every identifier a package's documentation names
// (pkg.Name of a package of the module, Type.Member, a backquoted or
// camel-case identifier) is declared in that package, so that a rename
// cannot leave the docs naming what is gone.
func TestDocGoNamesExist(t *testing.T) {
	pkgs, err := theModulePackages()
	require.NoError(t, err)
	byName := map[string][]*goPackage{}
	for _, p := range pkgs {
		byName[p.name] = append(byName[p.name], p)
	}
	checked := 0
	for dir, p := range pkgs {
		if p.doc == "" {
			continue
		}
		checked++
		if bad := docNameProblems(p, byName); len(bad) > 0 {
			t.Errorf("the documentation of %s (package %s) names what it does not declare: %s", dir, p.name, strings.Join(bad, ", "))
		}
	}
	require.Greater(t, checked, 20, "package docs found")
}

// TestDocGoNamesCatchesARename: a doc comment naming a function that was
// renamed (ir's doc.go before the GLM recogniser's rename; now ir/lower's) fails.
func TestDocGoNamesCatchesARename(t *testing.T) {
	pkgs, err := theModulePackages()
	require.NoError(t, err)
	byName := map[string][]*goPackage{}
	for _, p := range pkgs {
		byName[p.name] = append(byName[p.name], p)
	}
	ir := pkgs[filepath.Join(docRoot, "ir", "lower")]
	require.NotNil(t, ir)
	require.Empty(t, docNameProblems(ir, byName))
	for _, stale := range []string{"and how LinearGLM recognises a GLM", "see ir.LinearGLM", "`LinearGLM`", "see msc.NoSuchKernel", "Compiled.NoSuchMethod"} {
		p := *ir
		p.doc += "\n" + stale + "\n"
		require.NotEmpty(t, docNameProblems(&p, byName), stale)
	}
	_, err = os.Stat(filepath.Join(docRoot, "go.mod"))
	require.NoError(t, err, "docRoot is the module's root")
}

// TestDocsPagesGoNamesExist: every pkg.Name (and pkg.Name.Member) of a
// package of the module that the README and docs/ name is declared there.
func TestDocsPagesGoNamesExist(t *testing.T) {
	pkgs, err := theModulePackages()
	require.NoError(t, err)
	byName := map[string][]*goPackage{}
	for _, p := range pkgs {
		if p.name != "main" {
			byName[p.name] = append(byName[p.name], p)
		}
	}
	n := 0
	for _, page := range docPages(t) {
		src, err := os.ReadFile(filepath.Join(docRoot, page))
		require.NoError(t, err)
		for _, m := range qualifiedRE.FindAllStringSubmatch(string(src), -1) {
			ps := byName[m[1]]
			if len(ps) == 0 {
				continue
			}
			n++
			found := false
			for _, p := range ps {
				found = found || p.names[m[2]] && (m[3] == "" || p.names[m[3]])
			}
			if !found {
				t.Errorf("%s names %s, which package %s does not declare", page, m[0], m[1])
			}
		}
	}
	require.NotZero(t, n, "qualified names found in the docs")
}

// testNameRE matches the name of a test or a benchmark.
var testNameRE = regexp.MustCompile(`\b(?:Test|Benchmark|Fuzz)[A-Z]\w*`)

// TestDocsPagesTestsExist: every test and benchmark the README and docs/
// name (in the commands that run them) is a function of the module.
func TestDocsPagesTestsExist(t *testing.T) {
	pkgs, err := theModulePackages()
	require.NoError(t, err)
	n := 0
	for _, page := range docPages(t) {
		src, err := os.ReadFile(filepath.Join(docRoot, page))
		require.NoError(t, err)
		for _, name := range testNameRE.FindAllString(string(src), -1) {
			n++
			found := false
			for _, p := range pkgs {
				found = found || p.names[name]
			}
			if !found {
				t.Errorf("%s names %s, which no package declares", page, name)
			}
		}
	}
	require.NotZero(t, n, "tests named in the docs")
}

// TestDocsLayoutListsPackages: the table of folders in docs/layout.md
// names every package of the module (examples/ aside, which it names as
// one), and every folder it names exists.
func TestDocsLayoutListsPackages(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(docRoot, "docs", "layout.md"))
	require.NoError(t, err)
	blocks := docBlocksOf("docs/layout.md", string(src))
	require.NotEmpty(t, blocks)
	listed := map[string]bool{}
	for _, l := range strings.Split(blocks[0].text, "\n") {
		if f := strings.Fields(l); len(f) > 0 && !strings.HasPrefix(l, " ") && strings.HasSuffix(f[0], "/") {
			dir := strings.TrimSuffix(f[0], "/")
			listed[dir] = true
			if _, err := os.Stat(filepath.Join(docRoot, dir)); err != nil {
				t.Errorf("docs/layout.md lists %s/, which does not exist", dir)
			}
		}
	}
	pkgs, err := theModulePackages()
	require.NoError(t, err)
	for dir := range pkgs {
		rel, err := filepath.Rel(docRoot, dir)
		require.NoError(t, err)
		rel = filepath.ToSlash(rel)
		if rel == "." || rel == "examples" || strings.HasPrefix(rel, "examples/") {
			continue
		}
		if !listed[rel] {
			t.Errorf("docs/layout.md does not list the package %s/", rel)
		}
	}
}
