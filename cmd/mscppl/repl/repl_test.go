package repl

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer"
)

// fit is a small stand-in for mscppl run's flag parsing: it knows
// --iters N and --seed N.
func fit(ctx context.Context, m *infer.Model, args []string, _ string) (*infer.Fitted, error) {
	o := infer.Options{Seed: 1}
	for i := 0; i+1 < len(args); i++ {
		n, err := strconv.Atoi(args[i+1])
		switch args[i] {
		case "--iters":
			o.Iters = n
		case "--seed":
			o.Seed = uint64(n)
		default:
			continue
		}
		if err != nil {
			return nil, infer.Errorf("", "bad value %q for %s", args[i+1], args[i])
		}
	}
	return infer.Fit(ctx, m, o)
}

// session runs a script and returns stdout and stderr.
func session(t *testing.T, lines ...string) (string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := Run(context.Background(), strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, &errb, Options{Fit: fit})
	require.NoError(t, err)
	return out.String(), errb.String()
}

// TestEvalUnknownName: the error of :eval is positioned in the user's own
// text, with its caret; no wrapper shows; "did you mean" offers a latent,
// not the data size N.
func TestEvalUnknownName(t *testing.T) {
	_, stderr := session(t,
		":load ../../../examples/normal_mean.msc",
		":data ../../../examples/data/normal_mean.csv",
		":run --iters 200",
		":eval w",
		":eval exp(z) +  qq",
	)
	want := `<eval>:1:1: unknown name "w"
    w
    ^
    hint: did you mean "z"?
<eval>:1:11: unknown name "qq"
    exp(z) +  qq
              ^
    hint: an expression may use the model's latents, params, derived quantities, top-level local definitions and data
`
	require.Equal(t, want, stderr)
}

// TestEvalExpZ: the posterior of normal_mean is N(1.3456, 0.2182^2), so
// exp(z) has mean exp(1.3456 + 0.2182^2/2) = 3.93; :eval exp(z) over 4000
// draws of q must find it within Monte Carlo error.
func TestEvalExpZ(t *testing.T) {
	stdout, stderr := session(t,
		":load ../../../examples/normal_mean.msc",
		":data ../../../examples/data/normal_mean.csv",
		":run --iters 200000",
		":eval exp(z)",
		":eval exp(z)",
	)
	require.Empty(t, stderr)
	var rows [][]float64
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		if len(f) == 5 && f[0] == "exp(z)" {
			var row []float64
			for _, s := range f[1:] {
				x, err := strconv.ParseFloat(s, 64)
				require.NoError(t, err)
				row = append(row, x)
			}
			rows = append(rows, row)
		}
	}
	require.Len(t, rows, 2, stdout)
	require.Equal(t, rows[0], rows[1], "the same draws each time")
	mean, sd := rows[0][0], rows[0][1]
	want := math.Exp(1.3456 + 0.2182*0.2182/2)
	wantSD := want * math.Sqrt(math.Expm1(0.2182*0.2182))
	// Monte Carlo error of 4000 draws (4 standard errors) plus q's own
	// error after a finite run
	tol := 4*wantSD/math.Sqrt(4000) + 0.03
	require.InDelta(t, want, mean, tol, fmt.Sprintf("mean %g sd %g", mean, sd))
	require.InDelta(t, wantSD, sd, 0.1*wantSD)
	t.Logf("exp(z): mean %g (want %.4f within %.3f), sd %g (want %.4f)", mean, want, tol, sd, wantSD)
}

// TestEvalNeedsRun: :eval before :run and without an expression says so.
func TestEvalNeedsRun(t *testing.T) {
	_, stderr := session(t,
		":load ../../../examples/skew_normal.msc",
		":eval z",
		":eval",
	)
	require.Contains(t, stderr, "mscppl: no result yet\nhint: use :run first\n")
	require.Contains(t, stderr, "usage: :eval EXPR")
}

// TestPanicKeepsSession: an internal error in one line is reported and the
// session goes on with its model (the next command still sees it).
func TestPanicKeepsSession(t *testing.T) {
	replPanicForTest = ":boom"
	defer func() { replPanicForTest = "" }()
	stdout, stderr := session(t,
		":load ../../../examples/normal_mean.msc",
		":boom",
		":show",
	)
	require.Contains(t, stderr, "mscppl: internal error: a test of the recovery (the session goes on")
	require.Contains(t, stdout, "z ~ normal", "the model survives the panic")
}

// TestSwitchModelAndData: loading a model that does not fit the bound data
// file keeps the new model waiting for its own (and says so), so that
// :data then loads it; binding another model's data file to the loaded
// model says to load that model first.
func TestSwitchModelAndData(t *testing.T) {
	const ex = "../../../examples/"
	stdout, _ := session(t,
		":load "+ex+"normal_mean.msc",
		":data "+ex+"data/normal_mean.csv",
		":data "+ex+"data/eight_schools.csv",
		":load "+ex+"eight_schools_noncentered.msc",
		":data "+ex+"data/eight_schools.csv",
	)
	for _, want := range []string{
		"the data was not changed: " + ex + "normal_mean.msc is still loaded\n" +
			"to switch to a model that reads " + ex + "data/eight_schools.csv, load it first (:load FILE.msc), then :data " + ex + "data/eight_schools.csv\n",
		"loaded " + ex + "eight_schools_noncentered.msc, which reads another data file than " + ex + "data/normal_mean.csv: bind its own with :data FILE (the model then loads)\n" +
			"loaded " + ex + "eight_schools_noncentered.msc: 10 latent dimensions, 0 params\n",
	} {
		require.Contains(t, stdout, want)
	}
	// a model that cannot be read is no data misfit: the session keeps
	// the loaded one
	stdout, _ = session(t,
		":load "+ex+"normal_mean.msc",
		":data "+ex+"data/normal_mean.csv",
		":load nosuch.msc",
	)
	require.Contains(t, stdout, "the model was not changed: "+ex+"normal_mean.msc is still loaded")
	require.NotContains(t, stdout, "another data file")
}
