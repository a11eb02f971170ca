package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestREPLOverPipe drives the REPL as a script: load a model and its data,
// run, evaluate, sample, make a mistake, quit.
func TestREPLOverPipe(t *testing.T) {
	script := strings.Join([]string{
		":load ../../examples/normal_mean.msc",
		":data ../../examples/data/normal_mean.csv",
		":run --iters 20000",
		":eval z",
		":eval exp(z)",
		":sample 5",
		":eval w",
		":lod foo",
		":summary",
		":quit",
		":eval z", // never reached
	}, "\n") + "\n"
	var out, errb bytes.Buffer
	code := run([]string{"repl"}, strings.NewReader(script), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	o := out.String()
	require.Contains(t, o, "it reads data: bind a CSV file with :data")
	require.Contains(t, o, "loaded ../../examples/normal_mean.msc: 1 latent dimensions")
	require.Contains(t, o, "MSC, cis kernel")
	require.Equal(t, 2, strings.Count(o, "mean      sd      5%     95%"), o)
	require.Contains(t, o, "exp(z)")
	// :sample 5 prints a header and five rows
	i := strings.Index(o, "exp(z)")
	rest := o[i:]
	lines := strings.Split(strings.TrimSpace(rest[strings.Index(rest, "\n       z")+1:]), "\n")
	require.GreaterOrEqual(t, len(lines), 6)
	e := errb.String()
	require.Contains(t, e, "<eval>:1:1: unknown name \"w\"\n    w\n    ^\n", "the error is in the typed text")
	require.NotContains(t, e, "__eval", "no wrapper shows")
	require.Contains(t, e, "did you mean :load?")
	// the session went on after the errors: :summary printed again
	require.Equal(t, 2, strings.Count(o, "q reported:"), o)
}
