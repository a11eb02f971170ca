package exact

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// The test binary stands in for mscppl when fakeEnv is set: it prints a
// JSON summary chosen by --seed (see fakeRuns).
const fakeEnv = "EXACT_FAKE_MSCPPL"

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) != "" {
		os.Exit(fakeMscppl(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeExact is the exact answer the fake runs are scored against.
var fakeExact = []Summary{
	{Name: "theta", Mean: 0, SD: 5, Q05: -5.06, Q50: math.NaN(), Q95: 5.06},
	Indicator("pos", 0.5),
}

type fakeRun struct {
	exit      int
	converged bool
	warnings  []string
	theta     map[string]float64 // nil: theta not reported
	pos       float64
}

// fakeRuns by seed, and the class each should get (by means, sds and
// probabilities; and with the quantiles).
var fakeRuns = map[uint64]struct {
	run           fakeRun
	class, strict string
}{
	1: {fakeRun{converged: true, theta: map[string]float64{"mean": 0.02, "sd": 4.9, "q05": -5.05, "q50": 0, "q95": 5.07}, pos: 0.51}, "ok", "ok"},
	2: {fakeRun{converged: true, theta: map[string]float64{"mean": 5, "sd": 0.05, "q05": 4.92, "q50": 5, "q95": 5.08}, pos: 1}, "silent", "silent"},
	3: {fakeRun{converged: false, warnings: []string{"R-hat"}, theta: map[string]float64{"mean": -5, "sd": 0.05, "q05": -5.08, "q50": -5, "q95": -4.92}, pos: 0}, "flagged", "flagged"},
	4: {fakeRun{converged: false, warnings: []string{"k-hat"}, theta: map[string]float64{"mean": 0, "sd": 5.1, "q05": -5.1, "q50": 0, "q95": 5.1}, pos: 0.5}, "false-alarm", "false-alarm"},
	5: {fakeRun{exit: 1}, "error", "error"},
	// a normal q of the right mean and sd: its quantiles are 0.6 sd off
	6: {fakeRun{converged: true, theta: map[string]float64{"mean": 0, "sd": 5, "q05": -8.2, "q50": 0, "q95": 8.2}, pos: 0.5}, "ok", "silent"},
	7: {fakeRun{converged: true}, "error", "error"},
	// right moments, wrong probability
	8: {fakeRun{converged: true, theta: map[string]float64{"mean": 0, "sd": 5, "q05": -5.06, "q50": 0, "q95": 5.06}, pos: 0.6}, "silent", "silent"},
}

func fakeMscppl(args []string) int {
	var seed uint64
	for i, a := range args {
		if a == "--seed" && i+1 < len(args) {
			fmt.Sscan(args[i+1], &seed)
		}
	}
	r := fakeRuns[seed].run
	if r.exit != 0 {
		fmt.Fprintln(os.Stderr, "fake failure")
		return r.exit
	}
	latent := map[string]any{"pos": map[string]float64{"mean": r.pos, "sd": math.Sqrt(r.pos * (1 - r.pos))}}
	if r.theta != nil {
		latent["theta"] = r.theta
	}
	b, _ := json.Marshal(map[string]any{"latent": latent, "converged": r.converged, "verdict": "fake", "warnings": r.warnings})
	os.Stdout.Write(b)
	return 0
}

// TestScore runs the harness on the test binary as a fake mscppl, one
// seed per kind of run, and checks each run's class and the counts.
func TestScore(t *testing.T) {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeEnv, "1")
	cfg := ScoreConfig{Bin: bin, Model: "m.msc", Exact: fakeExact, Probs: []string{"pos"}}
	for s := uint64(1); s <= uint64(len(fakeRuns)); s++ {
		cfg.Seeds = append(cfg.Seeds, s)
	}
	rs := Score(cfg)
	for _, r := range rs {
		want := fakeRuns[r.Seed]
		if got := r.Class(false); got != want.class {
			t.Errorf("seed %d: class %s, want %s (%+v)", r.Seed, got, want.class, r)
		}
		if got := r.Class(true); got != want.strict {
			t.Errorf("seed %d: class with quantiles %s, want %s", r.Seed, got, want.strict)
		}
	}
	if r := rs[1]; math.Abs(r.MeanErr-1) > 1e-12 || r.MeanWorst != "theta" || math.Abs(r.SDErr-0.99) > 1e-12 || r.Probs["pos"] != 1 || r.ProbErr != 0.5 {
		t.Errorf("seed 2's errors: %+v", r)
	}
	if c := Tally(rs, false); c != (Counts{Runs: 8, OK: 2, Silent: 2, Flagged: 1, FalseAlarm: 1, Errors: 2}) {
		t.Errorf("counts %+v", c)
	}
	if c := Tally(rs, true); c.Silent != 3 || c.OK != 1 {
		t.Errorf("strict counts %+v", c)
	}
	var b strings.Builder
	if err := WriteTable(&b, rs, []string{"pos"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 converged but WRONG (silent)", "3 converged but WRONG (silent)", "fake failure", `no "theta"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table has no %q:\n%s", want, b.String())
		}
	}
}
