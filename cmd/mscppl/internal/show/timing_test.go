package show

import (
	"strings"
	"testing"

	"github.com/mscppl/mscppl/infer"
)

// TestTiming: the time line names every phase in order, with the number of
// iterations, two decimals below 10 s and one above; no write phase when
// nothing was written; nothing without a Timing.
func TestTiming(t *testing.T) {
	s := &infer.Summary{Iterations: 150, Timing: &infer.Timing{Read: 0.214, Compile: 0.011, WarmStart: 0.4, Iterations: 12.34, PSIS: 0.305, Write: 0.02}}
	var b strings.Builder
	Timing(&b, s)
	if want := "time: read 0.21s, compile 0.01s, warm start 0.40s, 150 iterations 12.3s, PSIS 0.30s, write 0.02s\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	s.Timing.Write = 0
	Timing(&b, s)
	if want := "time: read 0.21s, compile 0.01s, warm start 0.40s, 150 iterations 12.3s, PSIS 0.30s\n"; b.String() != want {
		t.Errorf("without writing: got %q, want %q", b.String(), want)
	}
	b.Reset()
	s.Timing = nil
	if Timing(&b, s); b.Len() != 0 {
		t.Errorf("without a Timing: got %q", b.String())
	}
}
