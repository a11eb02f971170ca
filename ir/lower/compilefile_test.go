package lower

import (
	"testing"

	"github.com/mscppl/mscppl/internal/irtest"
)

// compileFile compiles a model file with a CSV or JSON data file.
func compileFile(t *testing.T, model, data string, edit func(string) string) *Compiled {
	t.Helper()
	c, err := Compile(irtest.BuildFile(t, model, data, edit), CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
