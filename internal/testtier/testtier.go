// Package testtier names the two tiers of the project's tests. The fast
// tier is what `go test ./...` runs: one test per behaviour, at the smallest
// size that still catches the bug it guards. The long tier adds the
// expensive statistical and end-to-end tests (exact-answer runs at full
// size, the method x kernel matrix, the hostile-input catalogue in full,
// signal and fault injection at many points); it runs when the environment
// variable MSCPPL_LONG is set to 1:
//
//	MSCPPL_LONG=1 go test -count=1 -timeout 40m ./...
//
// Only tests import this package.
package testtier

import (
	"os"
	"testing"
)

// Env is the environment variable that turns the long tier on.
const Env = "MSCPPL_LONG"

// Long reports whether the long tier runs.
func Long() bool { return os.Getenv(Env) == "1" }

// Skip skips t in the fast tier: the test belongs to the long tier.
func Skip(t testing.TB) {
	t.Helper()
	if !Long() {
		t.Skip("long tier: run with " + Env + "=1")
	}
}
