package simulate

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
