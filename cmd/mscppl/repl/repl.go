// Package repl is mscppl's interactive session: load a model and its data,
// fit, evaluate expressions under q, sample, plot and save. It reads
// commands from any reader, with line editing, history and completion when
// both ends are a terminal and line by line without prompts otherwise
// (scripts, tests). The command-line front end (package main) supplies
// what belongs to it through Options: how :run's flags are parsed and a fit
// is run, and how a run is drawn.
package repl

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/peterh/liner"
	"golang.org/x/term"

	"github.com/mscppl/mscppl/cmd/mscppl/internal/show"
	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

// Options configure a session.
type Options struct {
	// Model and Data are loaded at the start when Model is not empty.
	Model, Data string
	// Banner is printed when the session is interactive.
	Banner string
	// Fit runs :run: args are what would follow "mscppl run" (the model
	// and data paths, then the :set defaults and the flags typed after
	// :run); m is the model loaded from those paths; the run's outputs
	// (summary.json, variational.json, draws.csv, trace.csv) go into
	// outDir. ctx ends when the user presses Ctrl-C.
	Fit func(ctx context.Context, m *infer.Model, args []string, outDir string) (*infer.Fitted, error)
	// Plot draws the run written into runDir as kind (trace or marginals)
	// into the file out. Nil: :plot is unavailable.
	Plot func(kind, runDir, out string) error
	// Sources collects the text of the files read, for error messages; nil
	// for a map of the session's own.
	Sources map[string][]byte
}

// state is one interactive session.
type state struct {
	ctx            context.Context
	in             io.Reader
	stdout, stderr io.Writer
	opts           Options
	sources        map[string][]byte
	modelPath      string
	dataPath       string
	dir            string // session directory: inline models and run outputs
	m              *infer.Model
	last           *infer.Fitted
	defaults       map[string]string // :set values, passed to :run as flags
	names          []string          // for completion
}

var commands = []string{":load", ":data", ":check", ":run", ":summary", ":sample", ":eval", ":plot", ":set", ":save", ":help", ":quit"}

const help = `commands:
  :load FILE.msc      load a model (or type one: lines are collected until the braces balance)
  :data FILE.csv      bind a data file
  :check              check the model and print its layout
  :run [flags]        fit q (the flags of mscppl run, e.g. --samples 2 --iters 5000)
  :summary            print the last run's summary
  :sample N           draw N samples from q (constrained space)
  :eval EXPR          evaluate an expression of latents, params and data under 4000 draws of q
  :plot trace|marginals FILE   draw the last run (.svg or .png)
  :set KEY VALUE      set a default flag for :run (seed, samples, iters, method, family, optimizer, lr)
  :save DIR           copy the last run's outputs (summary.json, variational.json, draws.csv, trace.csv) to DIR
  :help               this help
  :quit               leave (or Ctrl-D); Ctrl-C stops a running fit and keeps the partial result
`

// Run runs a session reading commands from in until :quit, the end of the
// input or the end of ctx (checked between commands). Output goes to out,
// errors (with their source lines) to errOut; a failing command does not
// end the session. Each :run also stops on an interrupt (Ctrl-C), which
// keeps the partial result and does not end the session.
func Run(ctx context.Context, in io.Reader, out, errOut io.Writer, opts Options) error {
	dir, err := os.MkdirTemp("", "mscppl-repl-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	r := &state{ctx: ctx, in: in, stdout: out, stderr: errOut, opts: opts, sources: opts.Sources, dir: dir, defaults: map[string]string{}}
	if r.sources == nil {
		r.sources = map[string][]byte{}
	}
	if opts.Model != "" {
		r.modelPath, r.dataPath = opts.Model, opts.Data
		r.reload()
	}
	interactive := false
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if f2, ok := out.(*os.File); ok && term.IsTerminal(int(f2.Fd())) {
			interactive = true
		}
	}
	if interactive {
		return r.loopTerminal()
	}
	return r.loopPipe()
}

// loopPipe reads commands line by line without prompts (scripts, tests).
func (r *state) loopPipe() error {
	sc := bufio.NewScanner(r.in)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var pending []string
	for sc.Scan() {
		if quit := r.line(sc.Text(), &pending); quit {
			return nil
		}
		if r.ctx.Err() != nil {
			return nil
		}
	}
	return sc.Err()
}

func historyPath() string {
	if d, err := os.UserConfigDir(); err == nil {
		return filepath.Join(d, "mscppl", "history")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".mscppl_history")
	}
	return ""
}

// loopTerminal uses liner for line editing, history and completion.
func (r *state) loopTerminal() error {
	ln := liner.NewLiner()
	defer ln.Close()
	ln.SetCtrlCAborts(true)
	ln.SetTabCompletionStyle(liner.TabPrints)
	ln.SetCompleter(r.complete)
	hp := historyPath()
	if hp != "" {
		if f, err := os.Open(hp); err == nil {
			_, _ = ln.ReadHistory(f)
			f.Close()
		}
	}
	defer func() {
		if hp == "" {
			return
		}
		_ = os.MkdirAll(filepath.Dir(hp), 0o755)
		if f, err := os.Create(hp); err == nil {
			_, _ = ln.WriteHistory(f)
			f.Close()
		}
	}()
	if r.opts.Banner != "" {
		fmt.Fprintln(r.stdout, r.opts.Banner)
	}
	var pending []string
	for {
		prompt := "msc> "
		if len(pending) > 0 {
			prompt = "...> "
		}
		text, err := ln.Prompt(prompt)
		if err == liner.ErrPromptAborted {
			pending = nil
			continue
		}
		if err == io.EOF {
			fmt.Fprintln(r.stdout)
			return nil
		}
		if err != nil {
			return err
		}
		if strings.TrimSpace(text) != "" {
			ln.AppendHistory(text)
		}
		if r.line(text, &pending) || r.ctx.Err() != nil {
			return nil
		}
	}
}

func (r *state) complete(line string) []string {
	var out []string
	fields := strings.Fields(line)
	if len(fields) <= 1 && !strings.HasSuffix(line, " ") {
		for _, c := range commands {
			if strings.HasPrefix(c, line) {
				out = append(out, c)
			}
		}
		for _, n := range r.names {
			if strings.HasPrefix(n, line) {
				out = append(out, n)
			}
		}
		return out
	}
	// file names for :load, :data, :plot, :save; variable names otherwise
	last := ""
	if !strings.HasSuffix(line, " ") {
		last = fields[len(fields)-1]
	}
	prefix := strings.TrimSuffix(line, last)
	switch fields[0] {
	case ":load", ":data", ":save", ":plot":
		matches, _ := filepath.Glob(last + "*")
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && st.IsDir() {
				m += string(filepath.Separator)
			}
			out = append(out, prefix+m)
		}
	default:
		for _, n := range r.names {
			if strings.HasPrefix(n, last) {
				out = append(out, prefix+n)
			}
		}
	}
	return out
}

// line handles one input line; it returns true to quit.
func (r *state) line(text string, pending *[]string) bool {
	trim := strings.TrimSpace(text)
	if len(*pending) == 0 && strings.HasPrefix(trim, ":") {
		return r.command(trim)
	}
	if trim == "" && len(*pending) == 0 {
		return false
	}
	*pending = append(*pending, text)
	src := strings.Join(*pending, "\n") + "\n"
	if braceDepth(src) > 0 {
		return false
	}
	*pending = nil
	path := filepath.Join(r.dir, "repl.msc")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		r.fail(err)
		return false
	}
	r.modelPath = path
	r.reload()
	return false
}

// braceDepth counts unclosed braces, ignoring comments and strings.
func braceDepth(src string) int {
	depth := 0
	inStr := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inStr:
			if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '{':
			depth++
		case c == '}':
			depth--
		}
	}
	return depth
}

func (r *state) fail(err error) { show.Report(r.stderr, err, r.sources) }

// reload parses and checks the current model and data.
func (r *state) reload() bool {
	if r.modelPath == "" {
		r.fail(infer.Errorf("use :load FILE.msc or type a model", "no model loaded"))
		return false
	}
	if r.dataPath == "" && infer.NeedsDataFile(r.modelPath) {
		fmt.Fprintf(r.stdout, "loaded %s; it reads data: bind a CSV file with :data FILE.csv\n", r.modelPath)
		r.m = nil
		return false
	}
	m, err := r.load()
	if err != nil {
		r.fail(err)
		r.m = nil
		return false
	}
	r.m = m
	r.names = nil
	for _, v := range m.IR.Vars {
		if v.Kind != ir.LocalVar && v.Kind != ir.LoopVar {
			r.names = append(r.names, v.Name)
		}
	}
	sort.Strings(r.names)
	fmt.Fprintf(r.stdout, "loaded %s: %d latent dimensions, %d params\n", r.modelPath, m.IR.LatentDim, m.IR.ParamDim)
	return true
}

func (r *state) command(cmd string) bool {
	fields := strings.Fields(cmd)
	arg := strings.TrimSpace(strings.TrimPrefix(cmd, fields[0]))
	w := r.stdout
	switch fields[0] {
	case ":quit", ":q", ":exit":
		return true
	case ":help", ":h":
		fmt.Fprint(w, help)
	case ":load":
		if arg == "" {
			r.fail(infer.Errorf("", ":load needs a file name"))
			break
		}
		r.modelPath = arg
		r.reload()
	case ":data":
		if arg == "" {
			r.fail(infer.Errorf("", ":data needs a file name"))
			break
		}
		r.dataPath = arg
		if r.modelPath != "" {
			r.reload()
		}
	case ":check":
		if !r.reload() {
			break
		}
		show.Layout(w, r.modelPath, r.m.IR, r.m.Comp, nil)
	case ":run":
		r.run(fields[1:])
	case ":summary":
		if r.needRun() {
			show.Summary(w, r.last.Summary)
		}
	case ":sample":
		r.sample(arg)
	case ":eval":
		r.eval(arg)
	case ":plot":
		if len(fields) != 3 || r.last == nil {
			r.fail(infer.Errorf("run a model first, then :plot trace FILE.svg", "usage: :plot trace|marginals FILE"))
			break
		}
		kind, out := fields[1], fields[2]
		if kind != "trace" && kind != "marginals" {
			r.fail(infer.Errorf("", "plot trace or plot marginals, not %q", kind))
			break
		}
		if r.opts.Plot == nil {
			r.fail(infer.Errorf("", ":plot is not available in this session"))
			break
		}
		if err := r.opts.Plot(kind, filepath.Join(r.dir, "run"), out); err != nil {
			r.fail(err)
			break
		}
		fmt.Fprintf(w, "wrote %s\n", out)
	case ":set":
		if len(fields) != 3 {
			r.fail(infer.Errorf("for example :set seed 3", "usage: :set KEY VALUE"))
			break
		}
		key := fields[1]
		switch key {
		case "seed", "samples", "iters", "method", "family", "optimizer", "lr", "kernel":
			r.defaults[key] = fields[2]
			fmt.Fprintf(w, "%s = %s\n", key, fields[2])
		default:
			r.fail(infer.Errorf("the keys are seed, samples, iters, method, family, optimizer, lr, kernel", "unknown setting %q", key))
		}
	case ":save":
		if arg == "" || !r.needRun() {
			if arg == "" {
				r.fail(infer.Errorf("", "usage: :save DIR"))
			}
			break
		}
		if err := copyDir(filepath.Join(r.dir, "run"), arg); err != nil {
			r.fail(err)
			break
		}
		fmt.Fprintf(w, "saved to %s\n", arg)
	default:
		e := &infer.UserError{Msg: fmt.Sprintf("unknown command %s", fields[0]), Hint: "type :help for the commands"}
		if s := lang.Suggest(fields[0], commands); s != "" {
			e.Hint = fmt.Sprintf("did you mean %s?", s)
		}
		r.fail(e)
	}
	return false
}

func (r *state) needRun() bool {
	if r.last == nil {
		r.fail(infer.Errorf("use :run first", "no result yet"))
		return false
	}
	return true
}

// load reads, parses, checks and compiles the current model with its
// data, keeping the sources read for error messages.
func (r *state) load() (*infer.Model, error) {
	m, err := infer.Load(r.modelPath, r.dataPath)
	if m != nil {
		for k, v := range m.Sources {
			r.sources[k] = v
		}
	}
	return m, err
}

// run fits with :run's flags (those of mscppl run), stoppable by Ctrl-C.
func (r *state) run(flags []string) {
	if r.m == nil {
		r.fail(infer.Errorf("use :load FILE.msc or type a model", "no model loaded"))
		return
	}
	if r.opts.Fit == nil {
		r.fail(infer.Errorf("", ":run is not available in this session"))
		return
	}
	args := []string{r.modelPath}
	if r.dataPath != "" {
		args = append(args, r.dataPath)
	}
	keys := make([]string, 0, len(r.defaults))
	for k := range r.defaults {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "--"+k, r.defaults[k])
	}
	args = append(args, flags...)
	m, err := r.load()
	if err != nil {
		r.fail(err)
		return
	}
	ctx, stop := signal.NotifyContext(r.ctx, os.Interrupt)
	defer stop()
	f, err := r.opts.Fit(ctx, m, args, filepath.Join(r.dir, "run"))
	if err != nil {
		r.fail(err)
		return
	}
	r.last = f
	show.Summary(r.stdout, f.Summary)
}

// draws returns n unconstrained draws from the last run's q.
func (r *state) draws(n int, seed uint64) ([][]float64, error) {
	return r.last.UnconstrainedDraws(n, seed)
}

func (r *state) seed() uint64 {
	if v, ok := r.defaults["seed"]; ok {
		if s, err := strconv.ParseUint(v, 10, 64); err == nil {
			return s
		}
	}
	return 1
}

func (r *state) sample(arg string) {
	if !r.needRun() {
		return
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 {
		r.fail(infer.Errorf("for example :sample 5", "usage: :sample N with N a positive integer"))
		return
	}
	zs, err := r.draws(n, r.seed())
	if err != nil {
		r.fail(err)
		return
	}
	comp := r.last.Model.Comp
	names := comp.Model.LatentNames()
	tw := tabwriter.NewWriter(r.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(names, "\t")+"\t")
	x := make([]float64, comp.Dim())
	for _, z := range zs {
		comp.Constrain(z, x)
		for _, v := range x {
			fmt.Fprintf(tw, "%s\t", show.Num(v))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// evalName names the text of :eval in error messages.
const evalName = "<eval>"

// eval compiles the expression once into the fitted model's graph (no data
// is read again and the model is not rebuilt) and evaluates it under 4000
// draws of q with the fitted params.
func (r *state) eval(expr string) {
	if expr == "" {
		r.fail(infer.Errorf("for example :eval exp(b + w[1])", "usage: :eval EXPR"))
		return
	}
	if !r.needRun() {
		return
	}
	src := []byte(expr)
	r.sources[evalName] = src
	comp := r.last.Model.Comp
	e, err := comp.CompileExpr(evalName, src)
	if err != nil {
		r.fail(err)
		return
	}
	if res := r.last.Result; comp.NumParams() > 0 && res != nil && res.Params != nil {
		comp.SetParams(res.Params)
	}
	zs, err := r.draws(4000, r.seed())
	if err != nil {
		r.fail(err)
		return
	}
	vals := make([][]float64, len(zs))
	for i, z := range zs {
		vals[i] = e.Eval(z)
	}
	tw := tabwriter.NewWriter(r.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tmean\tsd\t5%\t95%\t")
	for j := range vals[0] {
		col := make([]float64, len(vals))
		for i := range vals {
			col[i] = vals[i][j]
		}
		mean, sd := infer.MeanSD(col)
		sort.Float64s(col)
		label := expr
		if len(vals[0]) > 1 {
			label = fmt.Sprintf("[%d]", j+1)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", label, show.Num(mean), show.Num(sd), show.Num(col[len(col)*5/100]), show.Num(col[len(col)*95/100]))
	}
	tw.Flush()
	if math.IsNaN(vals[0][0]) {
		fmt.Fprintln(r.stdout, "note: the expression is NaN for some draws")
	}
}

func copyDir(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, en := range entries {
		b, err := os.ReadFile(filepath.Join(src, en.Name()))
		if err != nil {
			return err
		}
		if err := show.WriteFileAtomic(filepath.Join(dst, en.Name()), b); err != nil {
			return err
		}
	}
	return nil
}
