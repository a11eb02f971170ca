package main

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

	"github.com/mscppl/mscppl/infer"

	"github.com/alecthomas/kong"
	"github.com/peterh/liner"
	"golang.org/x/term"

	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

type replCmd struct {
	Model string `arg:"" optional:"" help:"A .msc model to load."`
	Data  string `arg:"" optional:"" help:"A CSV data file to bind."`
}

// replState is one interactive session.
type replState struct {
	e         *env
	modelPath string
	dataPath  string
	dir       string // session directory: inline models and run outputs
	m         *infer.Model
	last      *outcome
	defaults  map[string]string // :set values, passed to :run as flags
	names     []string          // for completion
}

var replCommands = []string{":load", ":data", ":check", ":run", ":summary", ":sample", ":eval", ":plot", ":set", ":save", ":help", ":quit"}

const replHelp = `commands:
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

func (c *replCmd) Run(e *env) error {
	dir, err := os.MkdirTemp("", "mscppl-repl-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	r := &replState{e: e, dir: dir, defaults: map[string]string{}}
	if c.Model != "" {
		r.modelPath, r.dataPath = c.Model, c.Data
		r.reload()
	}
	interactive := false
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if f2, ok := e.stdout.(*os.File); ok && term.IsTerminal(int(f2.Fd())) {
			interactive = true
		}
	}
	if interactive {
		return r.loopTerminal()
	}
	return r.loopPipe()
}

// loopPipe reads commands line by line without prompts (scripts, tests).
func (r *replState) loopPipe() error {
	sc := bufio.NewScanner(r.e.stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var pending []string
	for sc.Scan() {
		if quit := r.line(sc.Text(), &pending); quit {
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
func (r *replState) loopTerminal() error {
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
	fmt.Fprintln(r.e.stdout, "mscppl "+version+" (type :help)")
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
			fmt.Fprintln(r.e.stdout)
			return nil
		}
		if err != nil {
			return err
		}
		if strings.TrimSpace(text) != "" {
			ln.AppendHistory(text)
		}
		if r.line(text, &pending) {
			return nil
		}
	}
}

func (r *replState) complete(line string) []string {
	var out []string
	fields := strings.Fields(line)
	if len(fields) <= 1 && !strings.HasSuffix(line, " ") {
		for _, c := range replCommands {
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
func (r *replState) line(text string, pending *[]string) bool {
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

func (r *replState) fail(err error) { report(r.e.stderr, err, r.e.sources) }

// reload parses and checks the current model and data.
func (r *replState) reload() bool {
	if r.modelPath == "" {
		r.fail(userErrorf("use :load FILE.msc or type a model", "no model loaded"))
		return false
	}
	if r.dataPath == "" && needsData(r.modelPath) {
		fmt.Fprintf(r.e.stdout, "loaded %s; it reads data: bind a CSV file with :data FILE.csv\n", r.modelPath)
		r.m = nil
		return false
	}
	m, err := r.e.load(r.modelPath, r.dataPath, 0)
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
	fmt.Fprintf(r.e.stdout, "loaded %s: %d latent dimensions, %d params\n", r.modelPath, m.IR.LatentDim, m.IR.ParamDim)
	return true
}

func (r *replState) command(cmd string) bool {
	fields := strings.Fields(cmd)
	arg := strings.TrimSpace(strings.TrimPrefix(cmd, fields[0]))
	w := r.e.stdout
	switch fields[0] {
	case ":quit", ":q", ":exit":
		return true
	case ":help", ":h":
		fmt.Fprint(w, replHelp)
	case ":load":
		if arg == "" {
			r.fail(userErrorf("", ":load needs a file name"))
			break
		}
		r.modelPath = arg
		r.reload()
	case ":data":
		if arg == "" {
			r.fail(userErrorf("", ":data needs a file name"))
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
		printLayout(w, r.modelPath, r.m.IR, r.m.Comp, nil)
	case ":run":
		r.run(fields[1:])
	case ":summary":
		if r.needRun() {
			writeSummary(w, r.last.sum)
		}
	case ":sample":
		r.sample(arg)
	case ":eval":
		r.eval(arg)
	case ":plot":
		if len(fields) != 3 || r.last == nil {
			r.fail(userErrorf("run a model first, then :plot trace FILE.svg", "usage: :plot trace|marginals FILE"))
			break
		}
		p := plotCmd{Kind: fields[1], Dir: filepath.Join(r.dir, "run"), Out: fields[2], Max: 8}
		if p.Kind != "trace" && p.Kind != "marginals" {
			r.fail(userErrorf("", "plot trace or plot marginals, not %q", p.Kind))
			break
		}
		if err := p.Run(r.e); err != nil {
			r.fail(err)
			break
		}
		fmt.Fprintf(w, "wrote %s\n", p.Out)
	case ":set":
		if len(fields) != 3 {
			r.fail(userErrorf("for example :set seed 3", "usage: :set KEY VALUE"))
			break
		}
		key := fields[1]
		switch key {
		case "seed", "samples", "iters", "method", "family", "optimizer", "lr", "kernel":
			r.defaults[key] = fields[2]
			fmt.Fprintf(w, "%s = %s\n", key, fields[2])
		default:
			r.fail(userErrorf("the keys are seed, samples, iters, method, family, optimizer, lr, kernel", "unknown setting %q", key))
		}
	case ":save":
		if arg == "" || !r.needRun() {
			if arg == "" {
				r.fail(userErrorf("", "usage: :save DIR"))
			}
			break
		}
		if err := copyDir(filepath.Join(r.dir, "run"), arg); err != nil {
			r.fail(err)
			break
		}
		fmt.Fprintf(w, "saved to %s\n", arg)
	default:
		e := &userError{Msg: fmt.Sprintf("unknown command %s", fields[0]), Hint: "type :help for the commands"}
		if s := lang.Suggest(fields[0], replCommands); s != "" {
			e.Hint = fmt.Sprintf("did you mean %s?", s)
		}
		r.fail(e)
	}
	return false
}

func (r *replState) needRun() bool {
	if r.last == nil {
		r.fail(userErrorf("use :run first", "no result yet"))
		return false
	}
	return true
}

// run parses :run's flags like mscppl run's and fits, stoppable by Ctrl-C.
func (r *replState) run(flags []string) {
	if r.m == nil {
		r.fail(userErrorf("use :load FILE.msc or type a model", "no model loaded"))
		return
	}
	args := []string{"run", r.modelPath}
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
	var cli struct {
		Run runCmd `cmd:""`
	}
	parser, err := kong.New(&cli, kong.Name(":run"), helpVars(), kong.Writers(r.e.stdout, r.e.stderr), kong.Exit(func(int) {}))
	if err != nil {
		r.fail(err)
		return
	}
	if _, err := parser.Parse(args); err != nil {
		r.fail(userErrorf("the flags are those of mscppl run --help", "%v", err))
		return
	}
	rc := cli.Run
	rc.Out = filepath.Join(r.dir, "run")
	m, err := r.e.load(r.modelPath, r.dataPath, 0)
	if err != nil {
		r.fail(err)
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	e := *r.e
	e.ctx = ctx
	out, err := rc.execute(&e, m)
	if err != nil {
		r.fail(err)
		return
	}
	r.last = out
	writeSummary(r.e.stdout, out.sum)
}

// draws returns n unconstrained draws from the last run's q.
func (r *replState) draws(n int, seed uint64) ([][]float64, error) {
	return r.last.fit.UnconstrainedDraws(n, seed)
}

func (r *replState) seed() uint64 {
	if v, ok := r.defaults["seed"]; ok {
		if s, err := strconv.ParseUint(v, 10, 64); err == nil {
			return s
		}
	}
	return 1
}

func (r *replState) sample(arg string) {
	if !r.needRun() {
		return
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 {
		r.fail(userErrorf("for example :sample 5", "usage: :sample N with N a positive integer"))
		return
	}
	zs, err := r.draws(n, r.seed())
	if err != nil {
		r.fail(err)
		return
	}
	comp := r.last.fit.Model.Comp
	names := comp.Model.LatentNames()
	tw := tabwriter.NewWriter(r.e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(names, "\t")+"\t")
	x := make([]float64, comp.Dim())
	for _, z := range zs {
		comp.Constrain(z, x)
		for _, v := range x {
			fmt.Fprintf(tw, "%s\t", fmtNum(v))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// eval compiles the expression as a local definition appended to the
// model block and evaluates it under 4000 draws of q.
func (r *replState) eval(expr string) {
	if expr == "" {
		r.fail(userErrorf("for example :eval exp(b + w[1])", "usage: :eval EXPR"))
		return
	}
	if !r.needRun() {
		return
	}
	src := r.e.sources[r.modelPath]
	f, err := lang.Parse(r.modelPath, src)
	if err != nil {
		r.fail(err)
		return
	}
	const name = "__eval"
	exprSrc := []byte("model { " + name + " = " + expr + " }")
	ef, err := lang.Parse("<eval>", exprSrc)
	if err != nil {
		r.e.sources["<eval>"] = exprSrc
		r.fail(err)
		return
	}
	for _, b := range f.Blocks {
		if b.Kind == "model" {
			b.Items = append(b.Items, ef.Blocks[0].Items...)
		}
	}
	r.e.sources["<eval>"] = exprSrc
	m, err := ir.Build(f, r.m.Table)
	if err != nil {
		r.fail(err)
		return
	}
	comp, err := ir.Compile(m, ir.CompileOptions{})
	if err != nil {
		r.fail(err)
		return
	}
	if res := r.last.fit.Result; comp.NumParams() > 0 && res != nil && res.Params != nil {
		comp.SetParams(res.Params)
	}
	zs, err := r.draws(4000, r.seed())
	if err != nil {
		r.fail(err)
		return
	}
	var vals [][]float64
	for _, z := range zs {
		v, ok := comp.EvalLocal(name, z)
		if !ok {
			r.fail(fmt.Errorf("internal: %s not found", name))
			return
		}
		vals = append(vals, v)
	}
	tw := tabwriter.NewWriter(r.e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", label, fmtNum(mean), fmtNum(sd), fmtNum(col[len(col)*5/100]), fmtNum(col[len(col)*95/100]))
	}
	tw.Flush()
	if math.IsNaN(vals[0][0]) {
		fmt.Fprintln(r.e.stdout, "note: the expression is NaN for some draws")
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
		if err := writeFileAtomic(filepath.Join(dst, en.Name()), b); err != nil {
			return err
		}
	}
	return nil
}

// needsData reports whether a model file parses and declares data bound
// to CSV columns.
func needsData(path string) bool {
	src, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	f, err := lang.Parse(path, src)
	if err != nil {
		return false
	}
	for _, b := range f.Blocks {
		if b.Kind != "data" {
			continue
		}
		for _, it := range b.Items {
			if it.Decl != nil && it.Decl.Init == nil {
				return true
			}
		}
	}
	return false
}
