package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/mscppl/mscppl/infer/baselines"
	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/ir/dataset"
	"github.com/mscppl/mscppl/lang"
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
		report(stderr, err, e.sources)
		return 1
	}
	return 0
}

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	fmt.Fprintf(e.stdout, "mscppl %s\n", version)
	return nil
}

// load reads, parses and checks a model and binds its data.
func (e *env) load(modelPath, dataPath string) (*ir.Model, *dataset.Table, error) {
	src, err := os.ReadFile(modelPath)
	if err != nil {
		return nil, nil, fileError(modelPath, "model", err)
	}
	e.sources[modelPath] = src
	f, err := lang.Parse(modelPath, src)
	if err != nil {
		return nil, nil, err
	}
	var table *dataset.Table
	if dataPath != "" {
		b, err := os.ReadFile(dataPath)
		if err != nil {
			return nil, nil, fileError(dataPath, "data", err)
		}
		e.sources[dataPath] = b
		table, err = dataset.Read(dataPath, strings.NewReader(string(b)))
		if err != nil {
			return nil, nil, err
		}
	}
	m, err := ir.Build(f, table)
	if err != nil {
		return nil, nil, err
	}
	return m, table, nil
}

func fileError(path, what string, err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return userErrorf("check the path", "cannot read the %s file %s: no such file", what, path)
	case errors.Is(err, os.ErrPermission):
		return userErrorf("", "cannot read the %s file %s: permission denied", what, path)
	}
	return userErrorf("", "cannot read the %s file %s: %v", what, path, err)
}

type checkCmd struct {
	Model    string `arg:"" help:"The .msc model file."`
	Data     string `arg:"" optional:"" help:"The CSV data file (optional)."`
	MaxNodes int    `name:"max-nodes" help:"Reject models whose unrolled graph has more nodes than this (default 5000000)."`
}

func (c *checkCmd) Run(e *env) error {
	m, table, err := e.load(c.Model, c.Data)
	if err != nil {
		return err
	}
	comp, err := ir.Compile(m, ir.CompileOptions{MaxNodes: c.MaxNodes})
	if err != nil {
		return err
	}
	printLayout(e.stdout, c.Model, m, comp, table)
	return nil
}

// printLayout prints what check found: sizes, data, params, latents,
// dimensions and structure.
func printLayout(w io.Writer, model string, m *ir.Model, comp *ir.Compiled, table *dataset.Table) {
	fmt.Fprintf(w, "model %s: ok\n", model)
	if table != nil {
		fmt.Fprintf(w, "data %s: %d rows, %d columns\n", table.File, table.Rows, len(table.Header))
	}
	for _, v := range m.Vars {
		if v.Kind == ir.SizeVar {
			fmt.Fprintf(w, "size %s = %d (%s)\n", v.Name, int(v.Value[0]), v.Source)
		}
	}
	section := func(title string, vs []*ir.Var, extra func(*ir.Var) string) {
		if len(vs) == 0 {
			fmt.Fprintf(w, "%s: none\n", title)
			return
		}
		fmt.Fprintf(w, "%s:\n", title)
		for _, v := range vs {
			fmt.Fprintf(w, "  %-10s %-18s %s\n", v.Name, v.Type, extra(v))
		}
	}
	section("data", m.Data, func(v *ir.Var) string {
		if v.Source != "" {
			return v.Source
		}
		return fmt.Sprintf("= %g", v.Value[0])
	})
	section("param", m.Params, func(v *ir.Var) string {
		return fmt.Sprintf("%s init %g, unconstrained offset %d", constraintText(v), v.Init[0], v.Offset)
	})
	section("latent", m.Latents, func(v *ir.Var) string {
		return fmt.Sprintf("%s unconstrained offsets %d..%d", constraintText(v), v.Offset, v.Offset+v.Type.Len()-1)
	})
	fmt.Fprintf(w, "unconstrained dimension: %d latent, %d param\n", m.LatentDim, m.ParamDim)
	fmt.Fprintf(w, "graph: %d nodes\n", comp.Graph().NumNodes())
	fmt.Fprintf(w, "structure: %s\n", comp.Structure())
}

func constraintText(v *ir.Var) string {
	b := v.Bij
	switch {
	case b.HasLower && b.HasUpper:
		return fmt.Sprintf("<lower=%g, upper=%g>", b.Lower, b.Upper)
	case b.HasLower:
		return fmt.Sprintf("<lower=%g>", b.Lower)
	case b.HasUpper:
		return fmt.Sprintf("<upper=%g>", b.Upper)
	}
	return ""
}

type runCmd struct {
	Model string `arg:"" help:"The .msc model file."`
	Data  string `arg:"" optional:"" help:"The CSV data file (needed when the model has a data block bound to columns)."`

	Method     string  `help:"Inference method: msc (default), or a baseline: is (self-normalised importance sampling), ep (expectation propagation, probit regression only), advi (exclusive KL), smc (particle-filter gradients, state-space models only)." placeholder:"msc|is|ep|advi|smc"`
	Seed       uint64  `default:"1" help:"Random seed; the same seed gives the same result."`
	Proposal   string  `help:"CIS proposal: q (default) or prior." placeholder:"q|prior"`
	Kernel     string  `help:"Markov kernel: auto (default: csmc for state-space models, cis otherwise), cis or csmc." placeholder:"auto|cis|csmc"`
	ParamLR    float64 `name:"param-lr" help:"Adam step for the model parameters (default 0.01; 0.1 with the csmc kernel, the paper's)."`
	Retained   bool    `help:"Use only the retained sample in the gradient instead of all S samples (Rao-Blackwellised, the default)."`
	JSON       bool    `name:"json" help:"Print the machine-readable summary on stdout."`
	Out        string  `help:"Write summary.json, variational.json, draws.csv and trace.csv into this directory (each atomically)." placeholder:"DIR"`
	Draws      int     `default:"1000" help:"Draws from q written to DIR/draws.csv with --out."`
	Quiet      bool    `help:"No progress bar (it is shown only when stderr is a terminal)."`
	MaxSeconds float64 `name:"max-seconds" help:"Stop after this many seconds and report the result so far, marked as not converged (0: no limit)."`
	MaxNodes   int     `name:"max-nodes" help:"Reject models whose unrolled graph has more nodes than this (default 5000000)."`
	fitFlags   `embed:""`
}

// FullRankLimit is the largest dimension for which the full-rank family is
// the default: above it the O(d^3) cost per iteration of refactoring the
// covariance dominates a step.
const FullRankLimit = 200

func (c *runCmd) settings(m *ir.Model) (msc.Settings, string, []string, error) {
	s, warns, err := c.fitFlags.settingsWarn(m)
	if err != nil {
		return s, "", nil, err
	}
	method := c.Method
	if method == "" {
		method = "msc"
		if v, ok := m.Settings["method"]; ok {
			if !v.IsStr {
				return s, "", nil, lang.Errorf(v.Pos, "setting method takes a name such as msc")
			}
			method = v.Str
		}
	}
	if !validMethod(method) {
		return s, "", nil, userErrorf("use --method msc, is, ep or advi", "unknown method %q", method)
	}
	prop := c.Proposal
	if prop == "" {
		prop = "q"
		if v, ok := m.Settings["proposal"]; ok && v.IsStr {
			prop = v.Str
		}
	}
	switch prop {
	case "q":
	case "prior":
		s.Proposal = msc.ProposalPrior
	default:
		return s, "", nil, userErrorf("", "unknown proposal %q (use q or prior)", prop)
	}
	s.RetainedOnly = c.Retained
	return s, method, warns, nil
}

// settings turns the flags and the model's infer block into settings.
func (c *fitFlags) settings(m *ir.Model) (msc.Settings, error) {
	s, _, err := c.settingsWarn(m)
	return s, err
}

func (c *fitFlags) settingsWarn(m *ir.Model) (msc.Settings, []string, error) {
	var s msc.Settings
	var warns []string
	set := m.Settings
	str := func(flag, key, def string) (string, error) {
		if flag != "" {
			return flag, nil
		}
		if v, ok := set[key]; ok {
			if !v.IsStr {
				return "", lang.Errorf(v.Pos, "setting %s takes a name such as %s", key, def)
			}
			return v.Str, nil
		}
		return def, nil
	}
	num := func(flag float64, key string) (float64, error) {
		if flag != 0 {
			return flag, nil
		}
		if v, ok := set[key]; ok {
			if v.IsStr {
				return 0, lang.Errorf(v.Pos, "setting %s takes a number", key)
			}
			return v.Num, nil
		}
		return 0, nil
	}
	fam, err := str(c.Family, "family", "")
	if err != nil {
		return s, nil, err
	}
	if fam == "" {
		fam = "fullrank"
		if m.LatentDim > FullRankLimit {
			fam = "meanfield"
			warns = append(warns, fmt.Sprintf("the model has %d latent dimensions, more than %d, so q is mean-field by default: a full-rank q would refactor a %dx%d covariance every iteration; pass --family fullrank to insist", m.LatentDim, FullRankLimit, m.LatentDim, m.LatentDim))
		}
	}
	if s.Family, err = msc.ParseFamily(fam); err != nil {
		return s, nil, userErrorf("", "%v", err)
	}
	opt, err := str(c.Optimizer, "optimizer", "natural")
	if err != nil {
		return s, nil, err
	}
	if s.Optimizer, err = msc.ParseOptimizer(opt); err != nil {
		return s, nil, userErrorf("", "%v", err)
	}
	for _, f := range []struct {
		flag float64
		key  string
		dst  *float64
	}{{c.LR, "lr", &s.LR}} {
		v, err := num(f.flag, f.key)
		if err != nil {
			return s, nil, err
		}
		*f.dst = v
	}
	samples, err := num(float64(c.Samples), "samples")
	if err != nil {
		return s, nil, err
	}
	iters, err := num(float64(c.Iters), "iters")
	if err != nil {
		return s, nil, err
	}
	if samples != math.Trunc(samples) || iters != math.Trunc(iters) || samples < 0 || iters < 0 {
		return s, nil, userErrorf("", "samples and iterations must be positive integers")
	}
	s.Samples, s.Iters = int(samples), int(iters)
	if c.Samples < 0 || c.Iters < 0 || c.LR < 0 {
		return s, nil, userErrorf("", "--samples, --iters and --lr must be positive")
	}
	if c.AverageLast < 0 {
		return s, nil, userErrorf("", "--average-last must be positive")
	}
	if c.AverageLast > 0 {
		iters := s.Iters
		if iters == 0 {
			iters = msc.DefaultIters(m.LatentDim)
		}
		s.AverageFraction = math.Min(1, float64(c.AverageLast)/float64(iters))
	}
	return s, warns, nil
}

// outcome is the result of one run, kept by the REPL.
type outcome struct {
	comp *ir.Compiled
	sum  *Summary
	res  *msc.Result    // Gaussian q (nil for state-space runs)
	ssm  *msc.SSMResult // state-space runs
	tr   *tracer
}

func (c *runCmd) Run(e *env) error {
	m, _, err := e.load(c.Model, c.Data)
	if err != nil {
		return err
	}
	out, err := c.execute(e, m)
	if err != nil {
		return err
	}
	if c.JSON {
		return out.sum.writeJSON(e.stdout)
	}
	out.sum.writeText(e.stdout)
	return nil
}

// execute compiles and fits a loaded model and writes the outputs.
func (c *runCmd) execute(e *env, m *ir.Model) (*outcome, error) {
	if c.MaxNodes < 0 || c.MaxSeconds < 0 {
		return nil, userErrorf("", "--max-nodes and --max-seconds must be positive")
	}
	comp, err := ir.Compile(m, ir.CompileOptions{MaxNodes: c.MaxNodes})
	if err != nil {
		return nil, err
	}
	ctx := e.ctx
	if c.MaxSeconds > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(c.MaxSeconds*float64(time.Second)))
		defer cancel()
	}
	s, method, warns, err := c.settings(m)
	if err != nil {
		return nil, err
	}
	if s.Proposal == msc.ProposalPrior {
		if err := comp.PriorError(); err != nil {
			return nil, err
		}
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x6d7363))
	csmc, err := useCSMC(c.Kernel, method, comp)
	if err != nil {
		return nil, err
	}
	if method == "smc" && !csmc {
		return nil, userErrorf("", "--method smc needs a state-space model, and this one is %s", comp.Structure())
	}
	bar := newProgress(e, c.Quiet)
	defer bar.finish()
	if csmc {
		sum, res, err := c.runSSM(e, ctx, comp, method, &s, bar)
		if err != nil {
			return nil, err
		}
		if c.Out != "" {
			v := &Variational{Model: sum.Model, Data: sum.Data, Seed: sum.Seed, Family: sum.Family, LatentNames: m.LatentNames()}
			if res.Proposal != nil {
				v.Nu, v.LogLambda = res.Proposal.Nu, res.Proposal.LogLambda
			}
			if res.AR != nil {
				v.A, v.B, v.LogS = res.AR.A, res.AR.B, res.AR.LogS
			}
			addParams(v, comp, res.Params, sum)
			if err := writeOutputs(c.Out, sum, v); err != nil {
				return nil, err
			}
		}
		// the family warnings are about Gaussian q, not the twisted proposal
		return &outcome{comp: comp, sum: sum, ssm: res}, nil
	}
	if c.ParamLR != 0 {
		s.ParamLR = c.ParamLR
	}
	tr := newTracer(comp)
	if method != "ep" {
		s.Trace = func(t *msc.TraceEntry) {
			tr.record(t)
			bar.update(t.Iter, s.Iters, t.ESS)
		}
	}
	start := time.Now()
	res, err := fit(ctx, method, comp, &s, rng)
	if err != nil {
		return nil, err
	}
	bar.finish()
	sum := summarize(comp, &s, res, method, c.Model, c.Data, c.Seed)
	sum.Warnings = append(warns, sum.Warnings...)
	sum.ElapsedSeconds = time.Since(start).Seconds()
	if c.Out != "" {
		if err := writeOutputs(c.Out, sum, gaussianVariational(comp, sum, res)); err != nil {
			return nil, err
		}
		if err := writeTables(c.Out, tr, comp, res.Q, c.Draws, c.Seed); err != nil {
			return nil, err
		}
	}
	return &outcome{comp: comp, sum: sum, res: res, tr: tr}, nil
}

// summarize reports q's marginals in each latent's own (constrained)
// space: exactly for unconstrained components, by Monte Carlo over 10000
// draws of q (seeded) for constrained ones.
func summarize(comp *ir.Compiled, s *msc.Settings, res *msc.Result, method, model, data string, seed uint64) *Summary {
	m := comp.Model
	sum := &Summary{
		Model: model, Data: data, Method: method, Kernel: "cis", Family: s.Family.String(),
		Optimizer: s.Optimizer.String(), Samples: s.Samples, Iterations: res.Iterations, Seed: seed,
		Reported: res.Reported, Latent: map[string]Moments{}, Params: map[string]float64{},
		Converged: res.Converged, Warnings: res.Warnings,
		Diagnostics: Diagnostics{ChangeRate: res.ChangeRate, ChangeRateLast: res.ChangeRateLast, MeanESS: res.MeanESS, AllInfIters: res.AllInf},
	}
	if method != "msc" {
		sum.Kernel = "none"
	}
	if method == "ep" {
		sum.Optimizer, sum.Samples = "none", 0
	}
	names := m.LatentNames()
	d := m.LatentDim
	constrained := false
	for _, v := range m.Latents {
		constrained = constrained || !v.Bij.Identity()
	}
	mean := append([]float64(nil), res.Mean...)
	sd := append([]float64(nil), res.SD...)
	if constrained {
		const n = 10000
		rng := rand.New(rand.NewPCG(seed, 0x73756d))
		u, eps, x := make([]float64, d), make([]float64, d), make([]float64, d)
		s1, s2 := make([]float64, d), make([]float64, d)
		for i := 0; i < n; i++ {
			res.Q.Sample(rng, u, eps)
			comp.Constrain(u, x)
			for j, v := range x {
				s1[j] += v
				s2[j] += v * v
			}
		}
		for _, v := range m.Latents {
			if v.Bij.Identity() {
				continue
			}
			for i := 0; i < v.Type.Len(); i++ {
				j := v.Offset + i
				mean[j] = s1[j] / n
				sd[j] = math.Sqrt(math.Max(0, s2[j]/n-mean[j]*mean[j]))
			}
		}
	}
	for j, name := range names {
		sum.Latent[name] = Moments{Mean: mean[j], SD: sd[j]}
	}
	sum.LatentOrder = names
	if m.ParamDim > 0 {
		x := make([]float64, m.ParamDim)
		comp.ConstrainParams(res.Params, x)
		for j, name := range m.ParamNames() {
			sum.Params[name] = x[j]
		}
		sum.ParamOrder = m.ParamNames()
	}
	return sum
}

var methods = []string{"msc", "is", "ep", "advi", "msc-prior", "smc"}

func validMethod(m string) bool {
	for _, x := range methods {
		if m == x {
			return true
		}
	}
	return false
}

// fit runs one inference method on a compiled model.
func fit(ctx context.Context, method string, comp *ir.Compiled, s *msc.Settings, rng *rand.Rand) (*msc.Result, error) {
	var res msc.Result
	var err error
	switch method {
	case "is":
		err = baselines.RunIS(ctx, rng, comp, s, &res)
	case "advi":
		err = baselines.RunADVI(ctx, rng, comp, s, &res)
	case "ep":
		return fitEP(comp)
	case "msc-prior":
		s.Proposal = msc.ProposalPrior
		fallthrough
	default:
		if s.Proposal == msc.ProposalPrior {
			if perr := comp.PriorError(); perr != nil {
				return nil, perr
			}
		}
		err = msc.Run(ctx, rng, comp, s, &res)
	}
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// fitEP runs expectation propagation when the model is a probit regression
// with independent normal priors.
func fitEP(comp *ir.Compiled) (*msc.Result, error) {
	start := time.Now()
	glm, err := comp.LinearGLM()
	if err != nil {
		return nil, userErrorf("EP works for probit regression: y ~ bernoulli_probit(linear predictor) with normal priors", "--method ep is not available for this model: %v", err)
	}
	if glm.Family.Name != "bernoulli_probit" {
		return nil, userErrorf("EP works for probit regression", "--method ep is not available for this model: its likelihood at %s is %s, not bernoulli_probit", glm.Pos, glm.Family.Name)
	}
	if glm.PriorMean == nil {
		return nil, userErrorf("EP works with independent normal priors with constant arguments", "--method ep is not available for this model: %s", glm.PriorReason)
	}
	ep, err := baselines.EPProbit(glm.A, glm.N, glm.D, glm.C, glm.Y, glm.PriorMean, glm.PriorVar, baselines.EPSettings{})
	if err != nil {
		return nil, err
	}
	d := glm.D
	res := &msc.Result{Mean: ep.Mean, Cov: ep.Cov, SD: make([]float64, d), Iterations: ep.Iterations, Converged: ep.Converged,
		Reported: fmt.Sprintf("EP fixed point after %d sweeps over the sites", ep.Iterations)}
	for i := range res.SD {
		res.SD[i] = math.Sqrt(ep.Cov[i*d+i])
	}
	res.Q = msc.NewGaussian(msc.FullRank, d)
	copy(res.Q.Mu, ep.Mean)
	if !res.Q.SetCov(ep.Cov) {
		return nil, fmt.Errorf("EP's covariance is not positive definite")
	}
	res.Elapsed = time.Since(start)
	return res, nil
}
