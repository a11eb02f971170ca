package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/mscppl/mscppl/cmd/mscppl/internal/show"
	"github.com/mscppl/mscppl/infer"

	"github.com/alecthomas/kong"

	"github.com/mscppl/mscppl/infer/msc"
)

const version = "0.1.0"

// env is what a command needs from the process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	ctx            context.Context
	sources        map[string][]byte
}

type cli struct {
	Run      runCmd      `cmd:"" help:"Fit a variational approximation q to the posterior of MODEL given DATA."`
	Sweep    sweepCmd    `cmd:"" help:"Fit from many random initialisations for several S and report the spread of the fitted means (the paper's Figure 2)."`
	Repl     replCmd     `cmd:"" help:"Explore models interactively: load, run, evaluate expressions under q, sample, plot."`
	Plot     plotCmd     `cmd:"" help:"Draw the trace or the marginals of a run written with --out DIR (SVG, or PNG by extension)."`
	Evidence evidenceCmd `cmd:"" help:"Estimate log p(x; theta) with a particle filter (state-space models) or importance sampling with q."`
	Cv       cvCmd       `cmd:"" name:"cv" help:"Cross-validate methods on random train/test splits of DATA (test error for binary outcomes, held-out log predictive density otherwise)."`
	Check    checkCmd    `cmd:"" help:"Parse and check MODEL (binding DATA when given) and print its layout."`
	Version  versionCmd  `cmd:"" help:"Print the version of mscppl."`
}

type exitCode int

// run is the whole program; main only calls os.Exit with its result.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, sources: map[string][]byte{}}
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
	parser, err := kong.New(&c,
		kong.Name("mscppl"),
		kong.Description("mscppl: a probabilistic programming language whose inference is Markovian Score Climbing (variational inference with KL(p||q))."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(exitCode(code)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Bind(e),
		helpVars(),
	)
	if err != nil {
		fmt.Fprintf(stderr, "mscppl: %v\n", err)
		return 1
	}
	if len(args) == 0 {
		args = []string{"--help"}
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "mscppl: %v\n", err)
		cmd := "mscppl"
		if kctx != nil && kctx.Command() != "" {
			cmd += " " + strings.Fields(kctx.Command())[0]
		}
		fmt.Fprintf(stderr, "hint: run '%s --help' for the usage\n", cmd)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	e.ctx = ctx
	if err := kctx.Run(e); err != nil {
		show.Report(stderr, err, e.sources)
		return 1
	}
	return 0
}

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	fmt.Fprintf(e.stdout, "mscppl %s\n", version)
	return nil
}

// load reads, parses, checks and compiles a model with its data; the
// sources it read are kept for error messages.
func (e *env) load(modelPath, dataPath string, maxNodes int) (*infer.Model, error) {
	m, err := infer.Load(modelPath, dataPath, infer.LoadOptions{MaxNodes: maxNodes})
	if m != nil {
		for k, v := range m.Sources {
			e.sources[k] = v
		}
	}
	return m, err
}

type checkCmd struct {
	Model    string `arg:"" help:"The .msc model file."`
	Data     string `arg:"" optional:"" help:"The CSV data file (optional)."`
	MaxNodes int    `name:"max-nodes" help:"Reject models whose unrolled graph has more nodes than this (default 5000000)."`
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
	Model string `arg:"" help:"The .msc model file."`
	Data  string `arg:"" optional:"" help:"The CSV data file (needed when the model has a data block bound to columns)."`

	Method     string  `help:"Inference method: msc (default), or a baseline: is (self-normalised importance sampling), ep (expectation propagation, probit regression only), advi (exclusive KL), smc (particle-filter gradients, state-space models only)." placeholder:"msc|is|ep|advi|smc"`
	Seed       uint64  `default:"1" help:"Random seed; the same seed gives the same result."`
	Proposal   string  `help:"CIS proposal: q (default) or prior." placeholder:"q|prior"`
	Kernel     string  `help:"Markov kernel of MSC: auto (default: csmc for state-space models, cis otherwise), cis or csmc." placeholder:"auto|cis|csmc"`
	ParamLR    float64 `name:"param-lr" help:"Adam step for the model parameters (default ${param_lr}; ${param_lr_ssm} with the csmc kernel, the paper's)."`
	Retained   bool    `help:"Use only the retained sample in the gradient instead of all S samples (Rao-Blackwellised, the default)."`
	JSON       bool    `name:"json" help:"Print the machine-readable summary on stdout."`
	Out        string  `help:"Write summary.json, variational.json, draws.csv and trace.csv into this directory (each atomically)." placeholder:"DIR"`
	Draws      int     `help:"Draws of q behind the PSIS check and the summaries, and the rows of DIR/draws.csv with --out (default ${draws})."`
	Quiet      bool    `help:"No progress bar (it is shown only when stderr is a terminal)."`
	MaxSeconds float64 `name:"max-seconds" help:"Stop after this many seconds and report the result so far, marked as not converged (0: no limit)."`
	MaxNodes   int     `name:"max-nodes" help:"Reject models whose unrolled graph has more nodes than this (default 5000000)."`
	fitFlags   `embed:""`
}

// options turns the flags into the facade's options.
func (c *runCmd) options() infer.Options {
	o := c.fitFlags.options()
	o.Method, o.Kernel, o.Proposal, o.Seed, o.ParamLR, o.Retained, o.Draws = c.Method, c.Kernel, c.Proposal, c.Seed, c.ParamLR, c.Retained, c.Draws
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
	m, err := e.load(c.Model, c.Data, c.MaxNodes)
	if err != nil {
		return err
	}
	out, err := c.execute(e, m)
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, out.sum)
	}
	show.Summary(e.stdout, out.sum)
	return nil
}

// execute fits a loaded model and writes the outputs.
func (c *runCmd) execute(e *env, m *infer.Model) (*outcome, error) {
	ctx := e.ctx
	if c.MaxSeconds > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(c.MaxSeconds*float64(time.Second)))
		defer cancel()
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
	bar.finish()
	if c.Out != "" {
		if err := writeOutputs(c.Out, f); err != nil {
			return nil, err
		}
		if err := writeTables(c.Out, tr, f, f.Summary.Draws, f.Summary.Seed); err != nil {
			return nil, err
		}
	}
	return &outcome{fit: f, sum: f.Summary, tr: tr}, nil
}

// helpVars are the defaults of package msc, printed by --help.
func helpVars() kong.Vars {
	d := msc.Defaults
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return kong.Vars{
		"samples": strconv.Itoa(d.Samples), "iters_ssm": strconv.Itoa(d.ItersSSM),
		"lr_natural": g(d.LRNatural), "lr_rm": g(d.LRRM), "chains": strconv.Itoa(d.Chains), "draws": strconv.Itoa(infer.DefaultDraws),
		"lr_adam": g(d.LRAdam), "lr_ssm": g(d.LRSSM), "param_lr": g(d.ParamLR), "param_lr_ssm": g(d.ParamLRSSM),
		"families": strings.Join(msc.FamilyNames(), ", "), "fullrank_limit": strconv.Itoa(d.FullRankLimit),
	}
}
