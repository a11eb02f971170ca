package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mscppl/mscppl/cmd/mscppl/internal/show"
	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/ir/lower"

	"github.com/alecthomas/kong"
	"golang.org/x/term"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/infer/sbc"
)

const version = "0.1.0"

// env is what a command needs from the process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	ctx            context.Context
	sources        map[string][]byte
	// cmd is the subcommand being run ("run", "check", ...), for hints.
	cmd string
	// tty reports whether w is a terminal (replaced in tests).
	tty func(w io.Writer) bool
}

type cli struct {
	Run       runCmd       `cmd:"" aliases:"fit" help:"Fit a variational approximation q to the posterior of MODEL given DATA."`
	Sweep     sweepCmd     `cmd:"" help:"Fit from many random initialisations for several S and report the spread of the fitted means (the paper's Figure 2)."`
	Repl      replCmd      `cmd:"" help:"Explore models interactively: load, run, evaluate expressions under q, sample, plot."`
	Plot      plotCmd      `cmd:"" help:"Draw a run written with --out DIR: trace, rank, pairs, marginals or q (SVG, or PNG by extension)."`
	Evidence  evidenceCmd  `cmd:"" help:"Estimate log p(x; theta) with a particle filter (state-space models) or importance sampling with q."`
	Sbc       sbcCmd       `cmd:"" name:"sbc" help:"Simulation-based calibration: fit data sets drawn from the model's prior and check that the true latents' ranks among the fits' draws are uniform."`
	Merge     mergeCmd     `cmd:"" help:"Combine the sets that the shards of sbc, cv or sweep (--shard i/n --out DIR) wrote into the set one process would have written."`
	Cv        cvCmd        `cmd:"" name:"cv" help:"Cross-validate methods on random train/test splits of DATA (test error for binary outcomes, held-out log predictive density otherwise)."`
	Check     checkCmd     `cmd:"" help:"Parse and check MODEL (binding DATA when given) and print its layout."`
	Translate translateCmd `cmd:"" help:"Print the .msc program a Stan program (.stan) runs as."`
	List      listCmd      `cmd:"" help:"List the methods, kernels, families, distributions and built-in functions, with what each is."`
	Version   versionCmd   `cmd:"" help:"Print the version of mscppl."`
}

type exitCode int

// Exit statuses: 1 for bad input (a model, data or option value that is
// wrong), 2 for a command line that cannot be parsed.
const (
	exitInput = 1
	exitUsage = 2
)

// run is the whole program; main only calls os.Exit with its result.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	return runContext(context.Background(), args, &env{stdin: stdin, stdout: stdout, stderr: stderr})
}

// runContext is run with a parent context (cancelling it is an interrupt)
// and an env whose streams are set.
func runContext(parent context.Context, args []string, e *env) (code int) {
	stderr := e.stderr
	e.sources = map[string][]byte{}
	if e.tty == nil {
		e.tty = isTerminal
	}
	defer func() {
		if r := recover(); r != nil {
			if c, ok := r.(exitCode); ok {
				code = int(c)
				return
			}
			fmt.Fprintf(stderr, "mscppl: internal error: %v\n", r)
			if os.Getenv("MSCPPL_DEBUG") != "" {
				fmt.Fprintf(stderr, "%s\n", debug.Stack())
			}
			code = 1
		}
	}()
	var c cli
	parser, err := newParser(&c, e)
	if err != nil {
		fmt.Fprintf(stderr, "mscppl: %v\n", err)
		return 1
	}
	if len(args) == 0 {
		// the usage, on stderr: a missing command is a usage error
		parser.Stdout = stderr
		if kctx, err := kong.Trace(parser, nil); err == nil {
			_ = kctx.PrintUsage(false)
		}
		return exitUsage
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "mscppl: %v\n", err)
		var pe *kong.ParseError
		var pctx *kong.Context
		if errors.As(err, &pe) {
			pctx = pe.Context
		}
		fmt.Fprintf(stderr, "hint: run '%s --help' for the usage\n", commandPath(pctx))
		return exitUsage
	}
	e.cmd = strings.TrimPrefix(commandPath(kctx), "mscppl ")
	if err := checkFlagValues(kctx); err != nil {
		show.Report(stderr, err, e.sources)
		return exitUsage
	}
	// SIGINT and SIGTERM stop a run the same way: it reports its result so
	// far and writes its outputs, then exits with 128 + the signal's number
	// (130, 143), as shells report a process a signal ended
	// (the commands that stop on their context: the others, such as
	// plot, end at the first signal as any program; a second signal ends
	// any command at once)
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var got atomic.Value
	if stoppable[e.cmd] {
		sigs := make(chan os.Signal, 2)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sigs)
		go func() {
			select {
			case s := <-sigs:
				got.Store(s)
				cancel()
			case <-ctx.Done():
				return
			}
			if e.cmd == "repl" { // Ctrl-C stops a :run; the session goes on
				for range sigs {
				}
			}
			if s, ok := (<-sigs).(syscall.Signal); ok {
				os.Exit(128 + int(s))
			}
		}()
	}
	e.ctx = ctx
	err = kctx.Run(e)
	if err != nil {
		show.Report(stderr, err, e.sources)
		if errors.As(err, new(usageError)) {
			return exitUsage
		}
		return exitInput
	}
	if s, ok := got.Load().(syscall.Signal); ok && e.cmd != "repl" {
		return 128 + int(s)
	}
	return 0
}

// newParser is the command line's parser over c, writing to e's streams
// and binding e for the commands' Run methods; an exit it asks for (after
// --help) panics with its exitCode.
func newParser(c *cli, e *env) (*kong.Kong, error) {
	return kong.New(c,
		kong.Name("mscppl"),
		kong.Description("mscppl: a probabilistic programming language whose inference is Markovian Score Climbing (variational inference with KL(p||q))."),
		kong.Writers(e.stdout, e.stderr),
		kong.Exit(func(code int) { panic(exitCode(code)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Bind(e),
		helpVars(),
	)
}

// stoppable are the commands that stop on their context when a signal
// comes, reporting what they have (the REPL stops its own :run).
var stoppable = map[string]bool{"run": true, "sbc": true, "cv": true, "sweep": true, "evidence": true, "repl": true}

// commandPath is "mscppl" followed by the (sub)commands the command line
// selected in c (which may be nil).
func commandPath(c *kong.Context) string {
	path := []string{"mscppl"}
	if c != nil {
		for _, p := range c.Path {
			if p.Command != nil {
				path = append(path, p.Command.Name)
			}
		}
	}
	return strings.Join(path, " ")
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	fmt.Fprintf(e.stdout, "mscppl %s\n", version)
	return nil
}

// load reads, parses, checks and compiles a model with its data; the
// sources it read are kept for error messages.
// A data file given where the model goes is reported as such.
func (e *env) load(modelPath, dataPath string, maxNodes int) (*infer.Model, error) {
	if err := swappedArgs(e.cmd, modelPath, dataPath, nil); err != nil {
		return nil, err
	}
	m, err := infer.Load(modelPath, dataPath, infer.LoadOptions{MaxNodes: maxNodes})
	if m != nil {
		if src, ok := m.Sources[modelPath]; ok && err != nil && m.File == nil && isParseError(err) {
			if serr := swappedArgs(e.cmd, modelPath, dataPath, src); serr != nil {
				return nil, serr
			}
		}
		for k, v := range m.Sources {
			e.sources[k] = v
		}
	}
	return m, err
}

type checkCmd struct {
	Model    string `arg:"" help:"The model file: .msc, or a Stan program (.stan)."`
	Data     string `arg:"" optional:"" help:"The data file, CSV or CmdStan JSON (optional)."`
	MaxNodes int    `name:"max-nodes" help:"Reject models whose unrolled graph has more nodes than this (default ${max_nodes})."`
}

func (c *checkCmd) Run(e *env) error {
	m, err := e.load(c.Model, c.Data, c.MaxNodes)
	if err != nil {
		return err
	}
	show.Layout(e.stdout, c.Model, m.IR, m.Comp, m.Table)
	return nil
}

type runCmd struct {
	Model string `arg:"" help:"The model file: .msc, or a Stan program (.stan)."`
	Data  string `arg:"" optional:"" help:"The data file, CSV or CmdStan JSON (needed when the model has a data block bound to columns)."`

	Method     string  `help:"${setting_method}" placeholder:"${method_names}"`
	Seed       uint64  `help:"${setting_seed}"`
	Proposal   string  `help:"${setting_proposal}" placeholder:"${proposal_names}"`
	Init       string  `help:"${setting_init}" placeholder:"${init_names}"`
	Kernel     string  `help:"${setting_kernel}" placeholder:"auto|${kernel_names}"`
	ParamLR    float64 `name:"param-lr" help:"${setting_param_lr}"`
	Retained   bool    `help:"Use only the retained sample in the gradient instead of all S samples (Rao-Blackwellised, the default)."`
	JSON       bool    `name:"json" help:"Print the machine-readable summary on stdout."`
	All        bool    `help:"Print every element of every latent (by default a vector of more than ${long_vector} elements shows its first and last ${vector_ends} and those a warning names)."`
	Out        string  `help:"Write summary.json, variational.json, output_N.csv (each chain's retained samples, CmdStan's layout), psis_draws.csv (weighted draws), draws.csv (their equal-weight resample) and trace.csv into this folder, as one set with manifest.json: a failure, a signal or a kill leaves DIR holding the previous run's files or the new ones, whole; other files in DIR are kept." placeholder:"DIR"`
	Draws      int     `help:"Draws of q behind the PSIS check and the summaries, and the rows of DIR/draws.csv with --out (default ${draws})."`
	Quiet      bool    `help:"No progress bar (it is shown only when stderr is a terminal)."`
	MaxSeconds float64 `name:"max-seconds" help:"Stop after this many seconds and report the result so far, marked as not converged (0: no limit)."`
	MaxNodes   int     `name:"max-nodes" help:"Reject models whose unrolled graph has more nodes than this (default ${max_nodes})."`
	fitFlags   `embed:""`
}

// options turns the flags into the facade's options.
func (c *runCmd) options() infer.Options {
	o := c.fitFlags.options()
	o.Method, o.Kernel, o.Proposal, o.Seed, o.ParamLR, o.Retained, o.Draws = c.Method, c.Kernel, c.Proposal, c.Seed, c.ParamLR, c.Retained, c.Draws
	o.Init = c.Init
	return o
}

// outcome is the result of one run, kept by the REPL.
type outcome struct {
	fit *infer.Fitted
	sum *infer.Summary
	tr  *tracer
}

func (c *runCmd) Run(e *env) error {
	if c.MaxNodes < 0 || c.MaxSeconds < 0 {
		return userErrorf("", "--max-nodes and --max-seconds must be positive")
	}
	start := time.Now()
	m, err := e.load(c.Model, c.Data, c.MaxNodes)
	if err != nil {
		return err
	}
	out, err := c.execute(e, m)
	if err != nil {
		return err
	}
	if e.ctx.Err() != nil {
		e.interrupted(out.sum)
	}
	if c.JSON {
		return writeJSON(e.stdout, out.sum)
	}
	if c.All {
		show.SummaryAll(e.stdout, out.sum)
	} else {
		show.Summary(e.stdout, out.sum)
	}
	if time.Since(start) > timingAfter {
		show.Timing(e.stdout, out.sum)
	}
	return nil
}

// interrupted starts the report of a run stopped by Ctrl-C on a line of
// its own: the terminal echoed ^C after whatever its current line held, so
// a newline goes first to the stream the terminal shows (stderr, else
// stdout), then a line on stderr says where the run stopped.
func (e *env) interrupted(s *infer.Summary) {
	switch {
	case e.tty(e.stderr):
		fmt.Fprintln(e.stderr)
	case e.tty(e.stdout):
		fmt.Fprintln(e.stdout)
	}
	fmt.Fprintf(e.stderr, "mscppl: interrupted at iteration %d; reporting the result so far (not converged)\n", s.Iterations)
}

// execute fits a loaded model and writes the outputs.
func (c *runCmd) execute(e *env, m *infer.Model) (*outcome, error) {
	ctx := e.ctx
	if c.MaxSeconds > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(c.MaxSeconds*float64(time.Second)))
		defer cancel()
	}
	// the output folder is checked (its set's temporary folder made)
	// before the fit, so that one that cannot be written fails at once
	var set *outSet
	if c.Out != "" {
		var err error
		if set, err = beginOutSet(c.Out); err != nil {
			return nil, err
		}
		defer set.abort() // nothing left to remove once committed
	}
	bar := newProgress(e, c.Quiet)
	defer bar.finish()
	tr := newTracer(m)
	o := c.options()
	o.Trace = func(t *msc.TraceEntry) {
		tr.record(t)
		bar.update(t.Iter, t.Iters, t.ESS)
	}
	f, err := infer.Fit(ctx, m, o)
	if err != nil {
		return nil, err
	}
	if e.ctx.Err() != nil { // a signal, not --max-seconds
		f.Summary.MarkInterrupted()
	}
	bar.finish()
	if set != nil {
		start := time.Now()
		if err := c.writeSet(set, tr, f, start); err != nil {
			return nil, err
		}
		set.setInputs(f.Model.Path, f.Model.DataPath)
		if err := set.commit(f.Summary.Seed); err != nil {
			return nil, err
		}
		if f.Summary.Timing != nil { // the whole set, for the printed line
			f.Summary.Timing.Write = time.Since(start).Seconds()
		}
	}
	return &outcome{fit: f, sum: f.Summary, tr: tr}, nil
}

// writeSet writes the files of a run into its output set, summary.json
// last with the time the others took since start.
func (c *runCmd) writeSet(set *outSet, tr *tracer, f *infer.Fitted, start time.Time) error {
	// the setting, not the draws k-hat's extension took
	if err := writeTables(set, tr, f, f.DrawsSetting(), f.Summary.Seed); err != nil {
		return err
	}
	if err := writeStanFiles(set, f); err != nil {
		return err
	}
	if f.Summary.Timing != nil {
		f.Summary.Timing.Write = time.Since(start).Seconds()
	}
	return writeOutputs(set, f)
}

// timingAfter is the run time (reading to writing) above which run prints
// where the time went (show.Timing): a short run's line would only be noise,
// and the tests' runs are short, so their outputs stay deterministic.
const timingAfter = 5 * time.Second

// helpVars are the defaults of packages msc, infer and ir, printed by
// --help and taken by the flags that have one; setting_KEY is the help of
// the flag of each setting of a run (infer.Settings, the table the infer
// block, the REPL's :set and the docs read too).
func helpVars() kong.Vars {
	d, c := msc.Defaults, infer.Defaults
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	ints := func(xs []int) string {
		s := make([]string, len(xs))
		for i, x := range xs {
			s[i] = strconv.Itoa(x)
		}
		return strings.Join(s, ",")
	}
	v := kong.Vars{
		// package msc: one fit
		"chains":          strconv.Itoa(d.Chains),
		"average_percent": g(100 * d.AverageFraction),
		"methods":         infer.MethodsHelp(),
		"method_names":    strings.Join(infer.Methods(), "|"),
		"kernel_names":    strings.Join(msc.MarkovKernelNames(), "|"),
		"proposal_names":  strings.Join(infer.ProposalNames(), "|"),
		"init_names":      strings.Join(infer.InitNames(), "|"),
		// packages infer and ir
		"draws":              strconv.Itoa(infer.DefaultDraws),
		"max_nodes":          strconv.Itoa(lower.DefaultMaxNodes),
		"seed":               strconv.FormatUint(c.Seed, 10),
		"cv_splits":          strconv.Itoa(c.CVSplits),
		"cv_test_fraction":   g(c.CVTestFraction),
		"cv_methods":         strings.Join(c.CVMethods, ","),
		"sweep_samples":      ints(c.SweepSamples),
		"sweep_inits":        strconv.Itoa(c.SweepInits),
		"sweep_methods":      strings.Join(c.SweepMethods, ","),
		"sweep_iters":        strconv.Itoa(c.SweepIters),
		"evidence_particles": strconv.Itoa(c.EvidenceParticles),
		"evidence_repeats":   strconv.Itoa(c.EvidenceRepeats),
		"sbc_sims":           strconv.Itoa(sbc.DefaultSims),
		"rank_draws":         strconv.Itoa(sbc.DefaultRankDraws),
		// the pictures and the table
		"plot_max":    strconv.Itoa(plotMax),
		"long_vector": strconv.Itoa(show.LongVector),
		"vector_ends": strconv.Itoa(show.Ends),
	}
	for _, s := range infer.Settings() {
		v["setting_"+s.Key] = s.Help
	}
	return v
}
