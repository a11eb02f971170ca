package exact

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// ScoreConfig says what to run and how to judge it.
type ScoreConfig struct {
	// Bin is the mscppl binary, run as
	// Bin run Model [Data] --json --quiet --seed SEED Flags...
	Bin, Model, Data string
	Flags            []string
	Seeds            []uint64
	// Exact is the exact answer; every row's name must be among the
	// run's reported quantities (JSON "latent", which holds the derived
	// ones too). Probs names its 0/1 rows (scored by the absolute error
	// of their means, the probabilities).
	Exact []Summary
	Probs []string
	// A run matches when, over the Exact rows other than Probs, every
	// |mean - exact mean| / exact sd <= MaxMean and every |sd / exact sd - 1|
	// <= MaxSD, and every probability is within MaxProb. Zeros mean 0.1,
	// 0.1 and 0.05. MaxQ (0.2 when 0) bounds |quantile - exact| / exact sd
	// over the quantiles the exact answer defines, for the stricter count.
	MaxMean, MaxSD, MaxProb, MaxQ float64
	Timeout                       time.Duration // per run; 0: none
	Log                           io.Writer     // a line per run as it ends; nil: none
}

// SeedResult is one run's score.
type SeedResult struct {
	Seed      uint64
	Err       error // the run failed or its output could not be read
	Secs      float64
	Converged bool
	Verdict   string
	Warnings  int
	// The worst errors and the quantities they are in: mean error in
	// exact sds, relative sd error, quantile error in exact sds.
	MeanErr, SDErr, QErr       float64
	MeanWorst, SDWorst, QWorst string
	// Probs holds the reported probabilities (Probs' means), ProbErr the
	// largest absolute error among them.
	Probs   map[string]float64
	ProbErr float64
	// Matched: means, sds and probabilities within the bounds; QMatched:
	// the quantiles too.
	Matched, QMatched bool
}

// Class is the run's category: "error", "ok" (matched and converged),
// "silent" (converged but wrong: a silent failure), "flagged" (not
// converged, and wrong) or "false-alarm" (not converged, yet matched).
// strict counts the quantiles in the match.
func (r SeedResult) Class(strict bool) string {
	m := r.Matched
	if strict {
		m = r.QMatched
	}
	switch {
	case r.Err != nil:
		return "error"
	case r.Converged && m:
		return "ok"
	case r.Converged:
		return "silent"
	case m:
		return "false-alarm"
	}
	return "flagged"
}

// Counts tallies the runs' classes.
type Counts struct {
	Runs, OK, Silent, Flagged, FalseAlarm, Errors int
}

// Tally counts the results' classes (strict: quantiles included).
func Tally(rs []SeedResult, strict bool) Counts {
	c := Counts{Runs: len(rs)}
	for _, r := range rs {
		switch r.Class(strict) {
		case "ok":
			c.OK++
		case "silent":
			c.Silent++
		case "flagged":
			c.Flagged++
		case "false-alarm":
			c.FalseAlarm++
		default:
			c.Errors++
		}
	}
	return c
}

func (c Counts) String() string {
	return fmt.Sprintf("%d runs: %d matched and converged, %d NOT converged (%d wrong, %d matched anyway), %d converged but WRONG (silent), %d errors",
		c.Runs, c.OK, c.Flagged+c.FalseAlarm, c.Flagged, c.FalseAlarm, c.Silent, c.Errors)
}

// runOutput is the part of mscppl's --json summary that is scored.
type runOutput struct {
	Latent    map[string]reported `json:"latent"`
	Converged *bool               `json:"converged"`
	Verdict   string              `json:"verdict"`
	Warnings  []string            `json:"warnings"`
}

type reported struct {
	Mean, SD, Q05, Q50, Q95 *float64
}

// Score runs the binary once per seed, one run at a time (each runs its
// chains in parallel), and scores each against the exact answer.
func Score(cfg ScoreConfig) []SeedResult {
	var out []SeedResult
	for _, seed := range cfg.Seeds {
		r := scoreOne(cfg, seed)
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "seed %d: %s (%.1fs)\n", seed, r.Class(false), r.Secs)
		}
		out = append(out, r)
	}
	return out
}

func scoreOne(cfg ScoreConfig, seed uint64) SeedResult {
	r := SeedResult{Seed: seed}
	args := []string{"run", cfg.Model}
	if cfg.Data != "" {
		args = append(args, cfg.Data)
	}
	args = append(args, "--json", "--quiet", "--seed", strconv.FormatUint(seed, 10))
	args = append(args, cfg.Flags...)
	ctx := context.Background()
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, cfg.Bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r.Secs = time.Since(start).Seconds()
	if err != nil {
		r.Err = fmt.Errorf("%s %s: %v: %s", cfg.Bin, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		return r
	}
	var o runOutput
	if err := json.Unmarshal(stdout.Bytes(), &o); err != nil {
		r.Err = fmt.Errorf("reading the JSON summary: %v", err)
		return r
	}
	if o.Converged == nil {
		r.Err = fmt.Errorf("the JSON summary has no \"converged\"")
		return r
	}
	r.Converged, r.Verdict, r.Warnings = *o.Converged, o.Verdict, len(o.Warnings)
	r.Err = compare(&r, cfg, o.Latent)
	return r
}

// compare fills r's errors from the reported summaries.
func compare(r *SeedResult, cfg ScoreConfig, got map[string]reported) error {
	maxMean, maxSD, maxProb, maxQ := orDefault(cfg.MaxMean, 0.1), orDefault(cfg.MaxSD, 0.1), orDefault(cfg.MaxProb, 0.05), orDefault(cfg.MaxQ, 0.2)
	r.Probs = map[string]float64{}
	for _, e := range cfg.Exact {
		g, ok := got[e.Name]
		if !ok || g.Mean == nil {
			return fmt.Errorf("the run reports no %q", e.Name)
		}
		if slices.Contains(cfg.Probs, e.Name) {
			r.Probs[e.Name] = *g.Mean
			r.ProbErr = max(r.ProbErr, math.Abs(*g.Mean-e.Mean))
			continue
		}
		if g.SD == nil {
			return fmt.Errorf("the run reports no sd of %q", e.Name)
		}
		worse(&r.MeanErr, &r.MeanWorst, math.Abs(*g.Mean-e.Mean)/e.SD, e.Name)
		worse(&r.SDErr, &r.SDWorst, math.Abs(*g.SD/e.SD-1), e.Name)
		for _, q := range []struct {
			got  *float64
			want float64
		}{{g.Q05, e.Q05}, {g.Q50, e.Q50}, {g.Q95, e.Q95}} {
			if math.IsNaN(q.want) {
				continue
			}
			if q.got == nil {
				worse(&r.QErr, &r.QWorst, math.Inf(1), e.Name)
				continue
			}
			worse(&r.QErr, &r.QWorst, math.Abs(*q.got-q.want)/e.SD, e.Name)
		}
	}
	r.Matched = r.MeanErr <= maxMean && r.SDErr <= maxSD && r.ProbErr <= maxProb
	r.QMatched = r.Matched && r.QErr <= maxQ
	return nil
}

// worse records err and its quantity's name when err exceeds *worst (NaN
// counts as worse than anything).
func worse(worst *float64, name *string, err float64, n string) {
	if err > *worst || math.IsNaN(err) && !math.IsNaN(*worst) {
		*worst, *name = err, n
	}
}

func orDefault(x, d float64) float64 {
	if x == 0 {
		return d
	}
	return x
}

// WriteTable prints one row per run and the two counts.
func WriteTable(w io.Writer, rs []SeedResult, probs []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "seed\tconverged\twarnings\tmax|dmean|/sd\tat\tmax|sd/ref-1|\tat\tmax|dq|/sd\tat"
	for _, p := range probs {
		head += "\tP(" + p + ")"
	}
	fmt.Fprintln(tw, head+"\tclass\tclass(+q)\tseconds\t")
	for _, r := range rs {
		if r.Err != nil {
			fmt.Fprintf(tw, "%d\t-\t-\t-\t-\t-\t-\t-\t-%s\terror\terror\t%.1f\t\n", r.Seed, strings.Repeat("\t-", len(probs)), r.Secs)
			continue
		}
		line := fmt.Sprintf("%d\t%v\t%d\t%.3f\t%s\t%.3f\t%s\t%.3f\t%s", r.Seed, r.Converged, r.Warnings, r.MeanErr, r.MeanWorst, r.SDErr, r.SDWorst, r.QErr, r.QWorst)
		for _, p := range probs {
			line += fmt.Sprintf("\t%.3f", r.Probs[p])
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t\n", line, r.Class(false), r.Class(true), r.Secs)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rs {
		if r.Err != nil {
			fmt.Fprintf(w, "seed %d: %v\n", r.Seed, r.Err)
		}
	}
	fmt.Fprintf(w, "means, sds and probabilities: %s\n", Tally(rs, false))
	fmt.Fprintf(w, "with the quantiles too:       %s\n", Tally(rs, true))
	return nil
}
