package infer

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer/msc"
)

// TestDocsListRegistries: the table of methods, kernels and families in
// docs/inference.md names every registered one (this package's test-only ones
// aside), so that the docs follow the registries.
func TestDocsListRegistries(t *testing.T) {
	b, err := os.ReadFile("../docs/inference.md")
	require.NoError(t, err)
	// the rows "| kind | `name`, `name` | ... |"
	listed := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		kind := strings.TrimSpace(cells[1])
		for _, n := range strings.Split(cells[2], ",") {
			listed[kind+" "+strings.Trim(strings.TrimSpace(n), "`")] = true
		}
	}
	check := func(kind, name string) {
		if !strings.HasPrefix(name, "test") {
			require.Truef(t, listed[kind+" "+name], "docs/inference.md's table lists the %s %s", kind, name)
		}
	}
	for _, n := range Methods() {
		check("method", n)
	}
	for _, k := range msc.Kernels() {
		check("kernel", k.Name)
	}
	for _, f := range msc.Families() {
		check("family", f.Name)
	}
}
