package main

import (
	"context"
	"os"

	"github.com/alecthomas/kong"

	"github.com/mscppl/mscppl/cmd/mscppl/repl"
	"github.com/mscppl/mscppl/infer"
)

type replCmd struct {
	Model string `arg:"" optional:"" help:"A model to load (.msc, or a Stan program .stan)."`
	Data  string `arg:"" optional:"" help:"A data file to bind, CSV or CmdStan JSON."`
	Echo  bool   `help:"When the input is not a terminal, print each line read after its prompt (a transcript of the session)."`
}

func (c *replCmd) Run(e *env) error {
	// the session gets its own context, not e.ctx: Ctrl-C during a :run
	// stops that fit (the REPL listens for it) and must not end the session
	return repl.Run(context.Background(), e.stdin, e.stdout, e.stderr, repl.Options{
		Model:   c.Model,
		Data:    c.Data,
		Banner:  "mscppl " + version + " (type :help)",
		Sources: e.sources,
		Echo:    c.Echo,
		Fit: func(ctx context.Context, m *infer.Model, args []string, outDir string) (*infer.Fitted, error) {
			return replFit(e, ctx, m, args, outDir)
		},
		Plot: func(args []string, runDir string, m *infer.Model) (string, error) {
			return replPlot(e, args, runDir, m)
		},
		Editor: editor(),
	})
}

// replFit parses :run's arguments exactly as mscppl run's and fits m.
func replFit(e *env, ctx context.Context, m *infer.Model, args []string, outDir string) (*infer.Fitted, error) {
	var cli struct {
		Run runCmd `cmd:""`
	}
	parser, err := kong.New(&cli, kong.Name(":run"), helpVars(), kong.Writers(e.stdout, e.stderr), kong.Exit(func(int) {}))
	if err != nil {
		return nil, err
	}
	kctx, err := parser.Parse(append([]string{"run"}, args...))
	if err != nil {
		return nil, userErrorf("the flags are those of mscppl run --help", "%v", err)
	}
	if err := checkFlagValues(kctx); err != nil {
		return nil, err
	}
	rc := cli.Run
	rc.Out = outDir
	re := *e
	re.ctx = ctx
	out, err := rc.execute(&re, m)
	if err != nil {
		return nil, err
	}
	return out.fit, nil
}

// replPlot parses :plot's arguments exactly as mscppl plot's (the run
// directory inserted after the kind) and draws the run; the file is
// KIND.svg in the working directory unless one is given.
func replPlot(e *env, args []string, runDir string, m *infer.Model) (string, error) {
	var cli struct {
		Plot plotCmd `cmd:""`
	}
	parser, err := kong.New(&cli, kong.Name(":plot"), helpVars(), kong.Writers(e.stdout, e.stderr), kong.Exit(func(int) {}))
	if err != nil {
		return "", err
	}
	if _, err := parser.Parse(append([]string{"plot", args[0], runDir}, args[1:]...)); err != nil {
		return "", userErrorf("the flags are those of mscppl plot --help, for example :plot marginals --max 4 m4.png", "%v", err)
	}
	c := cli.Plot
	if _, outArg, err := c.split(); err == nil && outArg == "" && c.Out == "" {
		c.Out = c.Kind + ".svg" // in the working directory, not the run's
	}
	c.model = m
	return c.write(e) // the REPL prints "wrote FILE"
}

// editor is the command :edit runs on a block: $VISUAL, else $EDITOR
// (empty: :edit retypes one line at the prompt).
func editor() string {
	if v := os.Getenv("VISUAL"); v != "" {
		return v
	}
	return os.Getenv("EDITOR")
}
