// Package lowertest compiles models for the tests of the IR's stages after
// ir/lower (explain, structure, simulate): internal/irtest parses and
// checks them (it cannot import ir/lower, whose own tests use it), and this
// package compiles them with the default options.
package lowertest

import (
	"testing"

	"github.com/mscppl/mscppl/internal/irtest"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/lower"
)

// Compiled compiles m with the default options.
func Compiled(t testing.TB, m *ir.Model) *lower.Compiled {
	t.Helper()
	c, err := lower.Compile(m, lower.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Compile compiles src bound to the CSV text csv.
func Compile(t testing.TB, src, csv string) *lower.Compiled {
	t.Helper()
	_, m := irtest.ParseBuild(t, src, csv)
	return Compiled(t, m)
}

// CompileFile compiles a model file with its data file (edit, when not
// nil, rewrites the model's text first).
func CompileFile(t testing.TB, model, data string, edit func(string) string) *lower.Compiled {
	t.Helper()
	return Compiled(t, irtest.BuildFile(t, model, data, edit))
}
