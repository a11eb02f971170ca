package main

import (
	"context"

	"github.com/alecthomas/kong"

	"github.com/mscppl/mscppl/cmd/mscppl/repl"
	"github.com/mscppl/mscppl/infer"
)

type replCmd struct {
	Model string `arg:"" optional:"" help:"A .msc model to load."`
	Data  string `arg:"" optional:"" help:"A CSV data file to bind."`
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
		Plot: func(kind, runDir, out string, m *infer.Model) error {
			var args []string
			if out != "" {
				args = []string{out}
			}
			_, err := (&plotCmd{Kind: kind, Dir: runDir, Args: args, Max: plotMax, model: m}).write(e) // the REPL prints "wrote FILE"
			return err
		},
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
	if _, err := parser.Parse(append([]string{"run"}, args...)); err != nil {
		return nil, userErrorf("the flags are those of mscppl run --help", "%v", err)
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
