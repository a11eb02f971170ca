package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
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
	require.Contains(t, o, "it reads data: bind a data file (CSV or CmdStan JSON) with :data")
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

// elapsed is the run time at the end of a summary's first line, the one
// part of a transcript that changes from run to run.
var elapsed = regexp.MustCompile(`, [0-9.]+s\n`)

// TestREPLGoldens feeds each testdata/repl/NAME.in to mscppl repl --echo
// over a pipe and compares the transcript (each line after its prompt,
// then what it printed on stdout and stderr, in order) with NAME.golden;
// go test -run TestREPLGoldens -update rewrites them. The scripts type
// models block by block, make mistakes that must be reported at once and
// in the user's own text, and evaluate probabilities and posterior means.
func TestREPLGoldens(t *testing.T) {
	t.Setenv("EDITOR", "") // :edit retypes a line at the prompt
	t.Setenv("VISUAL", "")
	// :plot writes into testdata/repl/out, which is removed afterwards
	require.NoError(t, os.MkdirAll("testdata/repl/out", 0o755))
	t.Cleanup(func() { os.RemoveAll("testdata/repl/out") })
	scripts, err := filepath.Glob("testdata/repl/*.in")
	require.NoError(t, err)
	require.NotEmpty(t, scripts)
	for _, script := range scripts {
		name := strings.TrimSuffix(filepath.Base(script), ".in")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(script)
			require.NoError(t, err)
			var out bytes.Buffer // stdout and stderr interleaved, as on a terminal
			code := run([]string{"repl", "--echo"}, bytes.NewReader(b), &out, &out)
			got := elapsed.ReplaceAllString(out.String(), ", X.XXs\n")
			golden := strings.TrimSuffix(script, ".in") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "missing golden file; run go test -update")
			require.Equal(t, string(want), got)
			require.Equal(t, 0, code)
			require.NotContains(t, got, os.TempDir(), "no temporary paths")
			require.NotContains(t, got, "__eval", "no wrapper shows")
			require.NotContains(t, got, "internal error")
		})
	}
}

// TestREPLLoadsStan: :load takes a Stan program as it takes a .msc file,
// and :eval sees its transformed parameter (a derived quantity).
func TestREPLLoadsStan(t *testing.T) {
	dir := "../../examples/posteriordb/eight_schools-eight_schools_noncentered/"
	script := ":load " + dir + "model.stan\n:data " + dir + "data.json\n:run --quiet\n:eval theta[1] - mu\n:quit\n"
	var out, errb bytes.Buffer
	code := run([]string{"repl"}, strings.NewReader(script), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	o := out.String()
	require.Contains(t, o, "loaded "+dir+"model.stan: 10 latent dimensions, 0 params")
	require.Contains(t, o, "theta[1] - mu")
	require.Empty(t, errb.String())
}

// TestREPLSampleSeed: :sample draws with the seed the last run resolved:
// a model's infer { seed = 7 } gives the draws :set seed 7 gives, and not
// those of the default seed.
func TestREPLSampleSeed(t *testing.T) {
	dir := t.TempDir()
	base := "latent { mu: real }\nmodel { mu ~ normal(0, 1) }\n"
	session := func(model, set string) string {
		path := filepath.Join(dir, "m.msc")
		require.NoError(t, os.WriteFile(path, []byte(model), 0o644))
		script := ":load " + path + "\n" + set + ":run --quiet --iters 50 --fixed\n:sample 2\n:quit\n"
		var out, errb bytes.Buffer
		require.Equal(t, 0, run([]string{"repl"}, strings.NewReader(script), &out, &errb), errb.String())
		s := out.String()
		return s[strings.LastIndex(s, "      mu"):] // the :sample rows
	}
	block := session(base+"infer { seed = 7 }\n", "")
	require.Equal(t, session(base, ":set seed 7\n"), block)
	require.NotEqual(t, session(base, ""), block)
}
