package show

import (
	"fmt"
	"io"
	"strings"

	"github.com/mscppl/mscppl/infer"
)

// Timing prints on one line where a run's wall time went (s.Timing),
// phase by phase: "time: read 0.21s, compile 0.01s, warm start 0.40s,
// 150 iterations 0.90s, PSIS 0.30s, write 0.02s". The write phase is left
// out when nothing was written; nothing is printed without a Timing.
func Timing(w io.Writer, s *infer.Summary) {
	t := s.Timing
	if t == nil {
		return
	}
	parts := []string{
		"read " + seconds(t.Read),
		"compile " + seconds(t.Compile),
		"warm start " + seconds(t.WarmStart),
		fmt.Sprintf("%d iterations %s", s.Iterations, seconds(t.Iterations)),
		"PSIS " + seconds(t.PSIS),
	}
	if t.Write > 0 {
		parts = append(parts, "write "+seconds(t.Write))
	}
	fmt.Fprintf(w, "time: %s\n", strings.Join(parts, ", "))
}

// seconds writes a duration in seconds with two decimals below 10 s, one above.
func seconds(x float64) string {
	if x >= 10 {
		return fmt.Sprintf("%.1fs", x)
	}
	return fmt.Sprintf("%.2fs", x)
}
