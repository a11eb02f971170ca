package lang

import (
	"go/ast"
	"go/doc"
	goparser "go/parser"
	gotoken "go/token"
	"regexp"
	"strings"
	"testing"
)

// TestBlockDocNamesEveryKind: the doc comment of Block names every kind of
// block the language has (BlockKinds), as whole words.
func TestBlockDocNamesEveryKind(t *testing.T) {
	fset := gotoken.NewFileSet()
	f, err := goparser.ParseFile(fset, "ast.go", nil, goparser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	p, err := doc.NewFromFiles(fset, []*ast.File{f}, "github.com/mscppl/mscppl/lang")
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, ty := range p.Types {
		if ty.Name == "Block" {
			text = ty.Doc
		}
	}
	if text == "" {
		t.Fatal("no doc comment on Block")
	}
	for _, k := range BlockKinds {
		if !regexp.MustCompile(`\b` + k + `\b`).MatchString(text) {
			t.Errorf("Block's doc comment does not name the %s block: %q", k, strings.TrimSpace(text))
		}
	}
}
