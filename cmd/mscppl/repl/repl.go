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
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/peterh/liner"
	"golang.org/x/term"

	"github.com/mscppl/mscppl/cmd/mscppl/internal/show"
	"github.com/mscppl/mscppl/infer"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/lower"
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
	// Plot draws the run written into runDir: args are what follows
	// :plot, the arguments and flags of mscppl plot without its DIR (the
	// kind, then the file, KIND.svg by default, and flags such as --max);
	// m is the run's model (its latents' constraints label the curves and
	// bound the priors). It returns the file written. Nil: :plot is
	// unavailable.
	Plot func(args []string, runDir string, m *infer.Model) (string, error)
	// Echo prints each line read from an input that is not a terminal
	// after the prompt it would have had, so that the output reads as a
	// transcript of the session.
	Echo bool
	// Editor is the command :edit BLOCK runs on a file holding the block
	// (as a shell command, followed by the file name): $VISUAL or
	// $EDITOR. Empty: :edit shows the block's lines numbered and the user
	// retypes one of them.
	Editor string
	// Width is the width rows are cut to (:sample); 0: the terminal's,
	// or 80 when the output is not a terminal.
	Width int
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
	names          []string          // for completion: the model's names
	typed          typed             // the model typed at the prompt
	awaitingData   bool              // the model loaded and waits for :data
	loadErr        error             // why the last reload failed (nil: it did not)
	edit           *lineEdit         // a line being retyped after :edit (no editor)
}

// saved is what a failed :load or :data puts back.
type saved struct {
	modelPath, dataPath string
	m                   *infer.Model
	names               []string
	typed               typed
	awaitingData        bool
}

func (r *state) save() saved {
	t := r.typed
	t.chunks = slices.Clone(t.chunks)
	return saved{r.modelPath, r.dataPath, r.m, r.names, t, r.awaitingData}
}

// restore puts back the session as it was before a failed :load or :data
// and says so (what names what was being replaced).
func (r *state) restore(s saved, what string) {
	r.modelPath, r.dataPath, r.m, r.names, r.typed, r.awaitingData = s.modelPath, s.dataPath, s.m, s.names, s.typed, s.awaitingData
	switch {
	case r.modelPath == "" && r.typed.empty():
		fmt.Fprintf(r.stdout, "%s was not changed: nothing is loaded\n", what)
	case r.modelPath == "" || r.modelPath == replName:
		fmt.Fprintf(r.stdout, "%s was not changed: the typed model is kept (:show prints it)\n", what)
	default:
		fmt.Fprintf(r.stdout, "%s was not changed: %s is still loaded\n", what, r.modelPath)
	}
}

var commands = []string{":load", ":data", ":show", ":edit", ":clear", ":check", ":run", ":summary", ":sample", ":eval", ":plot", ":set", ":save", ":help", ":quit"}

var help = fmt.Sprintf(`commands:
  :load FILE.msc      load a model, or type one block by block (data { ... }, latent { ... }, model { ... }):
                      the blocks are collected and the model is loaded once its model block is typed;
                      a block typed again replaces the earlier one
  :data FILE          bind a data file (CSV or CmdStan JSON)
  :show               print the model typed so far, with its line numbers (or the loaded file)
  :edit BLOCK         edit a typed block (model, latent, ...) in $EDITOR, or without one retype
                      one of its lines by number
  :clear              drop the typed model
  :check              check the model and print its layout
  :run [flags]        fit q (the flags of mscppl run, e.g. --samples 2 --iters 5000)
  :summary [--all]    print the last run's summary (--all: every row of long vectors)
  :sample N           draw N samples from q (constrained space)
  :eval EXPR          evaluate an expression of latents, params and data under %d draws of q;
                      a comparison (tau > 5, a < b && b < c, !(x > 0)) prints its posterior probability,
                      mean(x) of a scalar its posterior mean, each with its Monte Carlo standard error;
                      after a run, an expression typed alone (mu, tau > 5) is evaluated as :eval
  :plot KIND [ARGS] [flags] draw the last run as mscppl plot KIND DIR does (trace, rank, pairs, marginals, q)
                      (:plot marginals --max 4 m4.png; .svg or .png; default KIND.svg)
  :set KEY VALUE      set a default flag for :run (%s)
  :save DIR           copy the last run's outputs (summary.json, variational.json, draws.csv, trace.csv) to DIR
  :help               this help
  :quit               leave (or Ctrl-D); Ctrl-C stops a running fit and keeps the partial result
`, infer.Defaults.EvalDraws, strings.Join(infer.SettingKeys(), ", "))

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
	for sc.Scan() {
		if r.opts.Echo {
			fmt.Fprintf(r.stdout, "%s%s\n", r.prompt(), sc.Text())
		}
		if quit := r.line(sc.Text()); quit {
			return nil
		}
		if r.ctx.Err() != nil {
			return nil
		}
	}
	return sc.Err()
}

// prompt is "...> " while a block is being typed, "msc> " otherwise.
func (r *state) prompt() string {
	if r.edit != nil {
		return r.edit.prompt()
	}
	if r.typed.open != nil {
		return "...> "
	}
	return "msc> "
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
	for {
		text, err := ln.Prompt(r.prompt())
		if err == liner.ErrPromptAborted {
			r.typed.open = nil // Ctrl-C drops the block being typed, or the line being retyped
			r.edit = nil
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
		if r.line(text) || r.ctx.Err() != nil {
			return nil
		}
	}
}

// complete offers completions of the whole line: commands at its start;
// file names after :load, :data, :save and :plot; otherwise, for the word
// being typed (the identifier before the cursor), the model's names (data,
// params, latents, derived quantities, top-level locals), the functions and
// distributions (not inside an index: after w[ only the names), and at the
// start of a line the block names.
func (r *state) complete(line string) []string {
	var out []string
	fields := strings.Fields(line)
	if strings.HasPrefix(strings.TrimSpace(line), ":") && len(fields) <= 1 && !strings.HasSuffix(line, " ") {
		for _, c := range commands {
			if strings.HasPrefix(c, strings.TrimSpace(line)) {
				out = append(out, c)
			}
		}
		return out
	}
	if len(fields) > 0 {
		switch fields[0] {
		case ":load", ":data", ":save", ":plot":
			last := ""
			if !strings.HasSuffix(line, " ") {
				last = fields[len(fields)-1]
			}
			prefix := strings.TrimSuffix(line, last)
			matches, _ := filepath.Glob(last + "*")
			for _, m := range matches {
				if st, err := os.Stat(m); err == nil && st.IsDir() {
					m += string(filepath.Separator)
				}
				out = append(out, prefix+m)
			}
			return out
		}
	}
	// the identifier being typed
	k := len(line)
	for k > 0 && isIdentByte(line[k-1]) {
		k--
	}
	prefix, word := line[:k], line[k:]
	if strings.TrimSpace(line) == "" {
		return append(out, commands...)
	}
	var cands []string
	if strings.TrimSpace(prefix) == "" {
		cands = append(cands, lang.BlockKinds...)
	}
	cands = append(cands, r.names...)
	if !inIndex(prefix) { // an index is a name in scope, not a function (w[ offered ordered_logistic)
		cands = append(cands, functionNames()...)
	}
	seen := map[string]bool{}
	for _, c := range cands {
		if strings.HasPrefix(c, word) && !seen[c] {
			seen[c] = true
			out = append(out, prefix+c)
		}
	}
	return out
}

// inIndex reports whether the text before the word being completed opens
// an index or continues one: an unclosed '[' whose last character (spaces
// aside) is '[' or ','.
func inIndex(prefix string) bool {
	t := strings.TrimRight(prefix, " ")
	if t == "" || (t[len(t)-1] != '[' && t[len(t)-1] != ',') {
		return false
	}
	depth := 0
	for i := range len(t) {
		switch t[i] {
		case '[':
			depth++
		case ']':
			depth--
		}
	}
	return depth > 0
}

// line handles one input line; it returns true to quit. A line starting
// with ':' is a command (also while a block is being typed: no model line
// starts with ':'); any other line belongs to the typed model.
func (r *state) line(text string) (quit bool) {
	// an internal error in one command is reported and the session, with
	// the user's model and last run, goes on
	defer func() {
		if e := recover(); e != nil {
			fmt.Fprintf(r.stderr, "mscppl: internal error: %v (the session goes on; please report it with the input above)\n", e)
			quit = false
		}
	}()
	if replPanicForTest != "" && strings.TrimSpace(text) == replPanicForTest {
		panic("a test of the recovery")
	}
	trim := strings.TrimSpace(text)
	if strings.HasPrefix(trim, ":") {
		r.edit = nil // a command ends a :edit
		return r.command(trim)
	}
	if r.edit != nil {
		r.editLine(text)
		return false
	}
	r.modelLine(text)
	return false
}

// replPanicForTest, when set by a test, is a line that panics.
var replPanicForTest string

func (r *state) fail(err error) { show.Report(r.stderr, err, r.sources) }

// reload parses and checks the current model and data.
func (r *state) reload() bool {
	if r.modelPath == "" {
		r.fail(infer.Errorf("use :load FILE.msc or type a model", "no model loaded"))
		return false
	}
	r.awaitingData = false
	if r.dataPath == "" && r.needsData() {
		r.awaitingData = true
		fmt.Fprintf(r.stdout, "loaded %s; it reads data: bind a data file (CSV or CmdStan JSON) with :data FILE\n", r.modelPath)
		r.m = nil
		return false
	}
	m, err := r.load()
	r.loadErr = err
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
	r.names = append(r.names, topLocals(m.IR)...)
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
		saved := r.save()
		r.modelPath = arg
		r.typed.clear()
		if !r.reload() && r.m == nil && !r.awaitingData {
			if r.misfitData(saved.dataPath) {
				// another model's data file: this one waits for its own
				r.dataPath, r.awaitingData = "", true
				fmt.Fprintf(w, "loaded %s, which reads another data file than %s: bind its own with :data FILE (the model then loads)\n", arg, saved.dataPath)
				break
			}
			r.restore(saved, "the model")
		}
	case ":show":
		r.showTyped(w)
	case ":edit":
		r.editBlock(arg)
	case ":clear":
		if r.typed.empty() {
			fmt.Fprintln(w, "nothing typed")
			break
		}
		r.typed.clear()
		if r.modelPath == replName {
			r.modelPath, r.m, r.names = "", nil, nil
		}
		fmt.Fprintln(w, "dropped the typed model")
	case ":data":
		if arg == "" {
			r.fail(infer.Errorf("", ":data needs a file name"))
			break
		}
		saved := r.save()
		r.dataPath = arg
		if r.modelPath != "" {
			// a data file that cannot be read, or one that breaks a model
			// that loaded, leaves the session as it was
			if _, err := os.Stat(arg); !r.reload() && (err != nil || saved.m != nil) {
				misfit := err == nil && r.misfitData(arg)
				r.restore(saved, "the data")
				if misfit {
					fmt.Fprintf(w, "to switch to a model that reads %s, load it first (:load FILE.msc), then :data %s\n", arg, arg)
				}
			}
		} else {
			fmt.Fprintf(w, "data file %s: it is read when the model is loaded\n", arg)
		}
	case ":check":
		if !r.typed.empty() {
			if !r.typedReady() {
				break
			}
			r.useTyped()
		}
		if !r.reload() {
			break
		}
		show.Layout(w, r.modelPath, r.m.IR, r.m.Comp, nil)
	case ":run":
		if !r.typed.empty() && (r.typed.dirty || r.typed.open != nil || r.modelPath != replName) {
			if !r.typedReady() {
				break
			}
			r.useTyped()
			if !r.reload() {
				break
			}
		}
		r.run(fields[1:])
	case ":summary":
		if r.needRun() {
			summary(w, r.last.Summary, slices.Contains(fields[1:], "--all"))
		}
	case ":sample":
		r.sample(arg)
	case ":eval":
		r.eval(arg)
	case ":plot":
		if len(fields) < 2 {
			r.fail(infer.Errorf("for example :plot marginals, :plot trace FILE.png, :plot marginals --max 4 m4.png",
				"usage: :plot KIND [FILE] [flags of mscppl plot]"))
			break
		}
		if r.last == nil {
			r.fail(infer.Errorf("use :run first, then :plot "+fields[1], "no result to draw yet"))
			break
		}
		if r.opts.Plot == nil {
			r.fail(infer.Errorf("", ":plot is not available in this session"))
			break
		}
		out, err := r.opts.Plot(fields[1:], filepath.Join(r.dir, "run"), r.last.Model)
		if err != nil {
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
		if err := infer.CheckSetting(key, fields[2]); err != nil {
			r.fail(err)
			break
		}
		r.defaults[key] = fields[2]
		fmt.Fprintf(w, "%s = %s\n", key, fields[2])
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

// needsData reports whether the current model parses and reads a data
// file.
func (r *state) needsData() bool {
	if r.modelPath != replName {
		return infer.NeedsDataFile(r.modelPath)
	}
	f, err := lang.Parse(replName, r.typed.src())
	return err == nil && infer.NeedsData(f)
}

// misfitData reports whether the last reload failed because the data file
// data does not fit the model (a column or field it lacks, a size that
// disagrees: the errors name the file) while the model reads data.
func (r *state) misfitData(data string) bool {
	return data != "" && r.loadErr != nil && strings.Contains(r.loadErr.Error(), data) && r.needsData()
}

// load reads, parses, checks and compiles the current model (a file, or
// the typed one) with its data, keeping the sources read for error
// messages.
func (r *state) load() (*infer.Model, error) {
	var m *infer.Model
	var err error
	if r.modelPath == replName {
		m, err = infer.LoadSource(replName, r.typed.src(), r.dataPath)
	} else {
		m, err = infer.Load(r.modelPath, r.dataPath)
	}
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
		args = append(args, "--"+infer.SettingFlag(k), r.defaults[k])
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
	summary(r.stdout, f.Summary, slices.Contains(flags, "--all"))
}

// summary prints a run's summary, with every row when all.
func summary(w io.Writer, s *infer.Summary, all bool) {
	if all {
		show.SummaryAll(w, s)
		return
	}
	show.Summary(w, s)
}

// draws returns n unconstrained draws from the last run's q.
func (r *state) draws(n int, seed uint64) ([][]float64, error) {
	return r.last.UnconstrainedDraws(n, seed)
}

// seed is the seed of :sample's and :eval's draws: the last run's, as it
// resolved it (:set seed, run's --seed, the model's infer block or the
// default), not filled in again here.
func (r *state) seed() uint64 { return r.last.Summary.Seed }

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
	rows := [][]string{names}
	x := make([]float64, comp.Dim())
	for _, z := range zs {
		comp.Constrain(z, x)
		row := make([]string, len(x))
		for j, v := range x {
			row[j] = show.Num(v)
		}
		rows = append(rows, row)
	}
	printCut(r.stdout, rows, r.width())
}

// width is the width rows are cut to: Options.Width, else the terminal's,
// else 80.
func (r *state) width() int {
	if r.opts.Width > 0 {
		return r.opts.Width
	}
	if f, ok := r.stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 80
}

// printCut prints rows of right-aligned columns (two spaces before each),
// keeping only the columns that fit in width; a last line says how many
// were left out.
func printCut(w io.Writer, rows [][]string, width int) {
	if len(rows) == 0 {
		return
	}
	ncol := len(rows[0])
	widths := make([]int, ncol)
	for _, row := range rows {
		for j, c := range row {
			widths[j] = max(widths[j], len(c))
		}
	}
	keep, used := 0, 0
	for keep < ncol && used+2+widths[keep] <= width {
		used += 2 + widths[keep]
		keep++
	}
	keep = max(keep, 1) // at least one column, however narrow the terminal
	for _, row := range rows {
		var sb strings.Builder
		for j := range keep {
			fmt.Fprintf(&sb, "  %*s", widths[j], row[j])
		}
		fmt.Fprintln(w, sb.String())
	}
	if keep < ncol {
		fmt.Fprintf(w, "(%d of %d columns fit in %d: %s to %s are left out; :eval NAME summarises one)\n",
			keep, ncol, width, rows[0][keep], rows[0][ncol-1])
	}
}

// evalName names the text of :eval in error messages.
const evalName = "<eval>"

// eval compiles the expression once into the fitted model's graph (no data
// is read again and the model is not rebuilt) and evaluates it under
// infer.Defaults.EvalDraws draws of q with the fitted params (resampled by the PSIS weights when the
// summaries are PSIS estimates). A 0/1 expression prints its posterior
// probability and mean(x) of a scalar x its posterior mean, each with its
// Monte Carlo standard error; anything else its mean, sd and 5% and 95%
// quantiles.
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
	kind, inner := evalShape(src)
	var e *lower.ExprEval
	var err error
	if kind == evalMean {
		// mean(x) of a scalar x is its posterior mean; of a vector, the
		// language's mean of its elements
		if e, err = lower.CompileExpr(comp, evalName, inner); err == nil && !e.Type.Scalar() {
			kind = evalPlain
			e, err = lower.CompileExpr(comp, evalName, src)
		}
	} else {
		e, err = lower.CompileExpr(comp, evalName, src)
	}
	if err != nil {
		r.fail(evalError(err, comp.Model))
		return
	}
	if res := r.last.Result; comp.NumParams() > 0 && res != nil && res.Params != nil {
		comp.SetParams(res.Params)
	}
	zs, err := r.draws(infer.Defaults.EvalDraws, r.seed())
	if err != nil {
		r.fail(err)
		return
	}
	vals := make([][]float64, len(zs))
	for i, z := range zs {
		vals[i] = e.Eval(z)
	}
	tw := tabwriter.NewWriter(r.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	switch kind {
	case evalProb:
		fmt.Fprintln(tw, "\tprobability\tmcse\t")
	case evalMean:
		fmt.Fprintln(tw, "\tmean\tmcse\t")
	default:
		fmt.Fprintln(tw, "\tmean\tsd\t5%\t95%\t")
	}
	nan := false
	for j := range vals[0] {
		col := make([]float64, len(vals))
		for i := range vals {
			col[i] = vals[i][j]
			nan = nan || math.IsNaN(col[i])
		}
		s := r.last.SummarizeDraws(col)
		label := expr
		if len(vals[0]) > 1 {
			label = fmt.Sprintf("[%d]", j+1)
		}
		if kind != evalPlain {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\n", label, show.Num(s.Mean), show.Num(s.MCSE))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", label, show.Num(s.Mean), show.Num(s.SD), show.Num(s.Q05), show.Num(s.Q95))
	}
	tw.Flush()
	if nan {
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
