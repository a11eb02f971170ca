package explain

import (
	"testing"

	"github.com/mscppl/mscppl/internal/irtest"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/lower"
)

// compiled compiles m with the default options.
func compiled(t testing.TB, m *ir.Model) *lower.Compiled {
	t.Helper()
	c, err := lower.Compile(m, lower.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// compile compiles src bound to the CSV text csv.
func compile(t testing.TB, src, csv string) *lower.Compiled {
	t.Helper()
	_, m := irtest.ParseBuild(t, src, csv)
	return compiled(t, m)
}
