package main

import (
	"fmt"
	"math"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is a progress bar on stderr for runs longer than about a
// second, shown only when stderr is a terminal.
type progress struct {
	bar   *progressbar.ProgressBar
	start time.Time
	on    bool
}

func newProgress(e *env, quiet bool) *progress {
	p := &progress{start: time.Now()}
	f, ok := e.stderr.(*os.File)
	p.on = !quiet && ok && term.IsTerminal(int(f.Fd()))
	return p
}

func (p *progress) update(iter, total int, ess float64) {
	if p == nil || !p.on || time.Since(p.start) < time.Second {
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription("mscppl"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("it"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	if !math.IsNaN(ess) { // NaN: a count of jobs (sbc's simulations)
		p.bar.Describe(fmt.Sprintf("mscppl ESS %.1f", ess))
	}
	_ = p.bar.Set(iter)
}

func (p *progress) finish() {
	if p != nil && p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
		p.on = false
	}
}
