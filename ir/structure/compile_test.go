package structure

import (
	"testing"

	"github.com/mscppl/mscppl/internal/lowertest"
	"github.com/mscppl/mscppl/ir/lower"
)

// compile compiles src bound to the CSV text csv (internal/lowertest).
func compile(t testing.TB, src, csv string) *lower.Compiled {
	t.Helper()
	return lowertest.Compile(t, src, csv)
}

// compileFile compiles a model file with its data file.
func compileFile(t testing.TB, model, data string, edit func(string) string) *lower.Compiled {
	t.Helper()
	return lowertest.CompileFile(t, model, data, edit)
}
