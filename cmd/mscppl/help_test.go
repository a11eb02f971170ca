package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir/lower"
)

// TestHelpDefaults: the defaults that --help shows and the flags take are
// those of packages infer, msc and ir, not numbers written in this package:
// with other values in infer.Defaults, --help shows those.
func TestHelpDefaults(t *testing.T) {
	saved := infer.Defaults
	defer func() { infer.Defaults = saved }()
	d := &infer.Defaults
	d.Seed, d.CVSplits, d.CVTestFraction, d.CVMethods = 7, 77, 0.25, []string{"is", "advi"}
	d.SweepSamples, d.SweepInits, d.SweepMethods, d.SweepIters = []int{3, 4}, 33, []string{"advi"}, 444
	d.EvidenceParticles, d.EvidenceRepeats = 555, 6
	for cmd, want := range map[string][]string{
		"run": {"infer block's seed, else " + strconv.FormatUint(d.Seed, 10) + ")", "(default " + strconv.Itoa(lower.DefaultMaxNodes) + ")",
			"(default: " + infer.ItersHelp(msc.Defaults.Iters) + ";", "(default " + strconv.Itoa(infer.DefaultDraws) + ")"},
		"check": {"(default " + strconv.Itoa(lower.DefaultMaxNodes) + ")"},
		"cv": {"--splits=" + strconv.Itoa(d.CVSplits), "--test-fraction=" + strconv.FormatFloat(d.CVTestFraction, 'g', -1, 64),
			"--methods=" + strings.Join(d.CVMethods, ",")},
		"sweep": {"--samples=" + strconv.Itoa(d.SweepSamples[0]) + ",", "--inits=" + strconv.Itoa(d.SweepInits),
			"--methods=" + strings.Join(d.SweepMethods, ","), "--iters=" + strconv.Itoa(d.SweepIters)},
		"evidence": {"--particles=" + strconv.Itoa(d.EvidenceParticles), "--repeats=" + strconv.Itoa(d.EvidenceRepeats)},
	} {
		code, out, _ := mscppl(cmd, "--help")
		require.Equal(t, 0, code)
		out = strings.ReplaceAll(strings.Join(strings.Fields(out), " "), `"`, "") // kong wraps the help and quotes lists
		for _, w := range want {
			require.Contains(t, out, w, "mscppl %s --help", cmd)
		}
	}
}

// TestHelpDataFormats: every command that reads a data file says that it
// reads CSV or CmdStan JSON (both work), never just "CSV".
func TestHelpDataFormats(t *testing.T) {
	for _, cmd := range []string{"run", "check", "cv", "sweep", "evidence", "repl"} {
		code, out, _ := mscppl(cmd, "--help")
		require.Equal(t, 0, code)
		out = strings.Join(strings.Fields(out), " ")
		require.Contains(t, out, "CSV or CmdStan JSON", "mscppl %s --help", cmd)
		require.NotContains(t, out, "The CSV data file", "mscppl %s --help", cmd)
	}
}
