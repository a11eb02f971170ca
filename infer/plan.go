package infer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/ir"
	"github.com/mscppl/mscppl/lang"
)

// AutoKernel is the kernel setting that leaves the choice to the method
// and the model (msc.ChooseKernel).
const AutoKernel = "auto"

// Proposal is where the CIS kernel draws its proposals from.
type Proposal uint8

const (
	ProposeQ     Proposal = iota // q itself
	ProposePrior                 // the prior (the paper's MSC (prior))
)

var proposalNames = [...]string{ProposeQ: "q", ProposePrior: "prior"}

// Init is how each chain's q starts.
type Init uint8

const (
	// InitLaplace: a Laplace approximation at a mode found from a random
	// point, N(0, I) when there is none.
	InitLaplace Init = iota
	// InitZero: N(0, I).
	InitZero
)

var initNames = [...]string{InitLaplace: "laplace", InitZero: "zero"}

func (i Init) String() string { return initNames[i] }

// parseName is the value of names[i] == s.
func parseName[T ~uint8](what, s string, names []string) (T, error) {
	if i := slices.Index(names, s); i >= 0 {
		return T(i), nil
	}
	return 0, fmt.Errorf("unknown %s %q (use %s)", what, s, joinOr(names))
}

func parseProposal(s string) (Proposal, error) {
	return parseName[Proposal]("proposal", s, proposalNames[:])
}

func parseInit(s string) (Init, error) { return parseName[Init]("init", s, initNames[:]) }

// ProposalNames are the names of the proposals (--proposal).
func ProposalNames() []string { return slices.Clone(proposalNames[:]) }

// InitNames are the names of the inits (--init).
func InitNames() []string { return slices.Clone(initNames[:]) }

// DrawsSetting is the number of draws of q the fit was asked for (the
// draws behind the PSIS check before k-hat extended them, and the rows of
// a run's draws.csv).
func (f *Fitted) DrawsSetting() int { return f.plan.draws }

// parseMethod is the method of a name.
func parseMethod(s string) (*method, error) {
	m, ok := lookupMethod(s)
	if !ok {
		return nil, Errorf("the methods are "+joinAnd(Methods()), "unknown method %q", s)
	}
	return m, nil
}

// parseKernel is the Markov kernel of a name (nil for AutoKernel).
func parseKernel(s string) (*msc.KernelSpec, error) {
	if s == AutoKernel {
		return nil, nil
	}
	k, ok := msc.LookupKernel(s)
	if !ok || !k.Markov {
		return nil, Errorf("", "unknown kernel %q (use %s or %s)", s, AutoKernel, joinOr(msc.MarkovKernelNames()))
	}
	return k, nil
}

// parseFamily is the sampleable family of a name.
func parseFamily(s string) (*msc.FamilySpec, error) {
	f, ok := msc.LookupFamily(s)
	if !ok || f.New == nil {
		return nil, Errorf("", "unknown family %q (the families are %s)", s, joinAnd(msc.FamilyNames()))
	}
	return f, nil
}

// plan is the options of one fit resolved once, against the model's infer
// block and the defaults, into typed choices: the run reads these, never
// the names.
type plan struct {
	method *method
	// kernel is the named Markov kernel (nil: chosen by the method and
	// the model).
	kernel *msc.KernelSpec
	// family is q's family (unused by a state-space kernel); familyNote
	// says why a default other than msc.Defaults.Family was taken.
	family     *msc.FamilySpec
	familyNote string
	optimizer  msc.Optimizer
	proposal   Proposal
	init       Init
	// the numbers, with the defaults of this package filled in (msc.Fill
	// fills those of the engine)
	samples, iters, chains, draws, averageLast int
	fixed, retained, skipCheck                 bool
	lr, paramLR                                float64
	seed                                       uint64
	initMean                                   []float64
	trace                                      func(*msc.TraceEntry)
}

// kernelOptions are the kernel options of the plan.
func (p *plan) kernelOptions() msc.KernelOptions {
	return msc.KernelOptions{ProposePrior: p.proposal == ProposePrior}
}

// resolve merges the options with the model's infer block (a flag
// overrides its setting) and the defaults, and parses them into the plan.
func (o Options) resolve(m *ir.Model) (*plan, error) {
	for _, s := range Settings() {
		if v, ok := m.Settings[s.Key]; ok {
			if e := s.take(&o, v); e != nil {
				return nil, lang.ErrorList{e}
			}
		}
	}
	def := func(v *string, d string) {
		if *v == "" {
			*v = d
		}
	}
	def(&o.Method, Defaults.Method)
	def(&o.Kernel, Defaults.Kernel)
	def(&o.Proposal, Defaults.Proposal)
	def(&o.Init, Defaults.Init)
	if o.Seed == 0 {
		o.Seed = Defaults.Seed
	}
	p := &plan{samples: o.Samples, iters: o.Iters, chains: o.Chains, draws: o.Draws, averageLast: o.AverageLast,
		fixed: o.Fixed, retained: o.Retained, skipCheck: o.SkipCheck, lr: o.LR, paramLR: o.ParamLR, seed: o.Seed,
		initMean: o.InitMean, trace: o.Trace}
	var err error
	if p.method, err = parseMethod(o.Method); err != nil {
		return nil, settingError(m, "method", o.Method, err)
	}
	if p.init, err = parseInit(o.Init); err != nil {
		return nil, settingError(m, "init", o.Init, err)
	}
	if p.proposal, err = parseProposal(o.Proposal); err != nil {
		return nil, settingError(m, "proposal", o.Proposal, err)
	}
	if base := p.method.base; base != "" { // an alias: base with its proposal
		p.proposal = p.method.proposal
		if p.method, err = parseMethod(base); err != nil {
			return nil, err
		}
	}
	if o.Samples < 0 || o.Iters < 0 || o.LR < 0 || o.ParamLR < 0 || o.AverageLast < 0 || o.Chains < 0 || o.Draws < 0 {
		return nil, Errorf("", "--samples, --iters, --chains, --draws, --lr, --param-lr and --average-last must be positive")
	}
	for _, n := range []struct {
		key string
		v   int
	}{{"samples", o.Samples}, {"iters", o.Iters}} {
		if n.v > maxInt32 { // a flag's (the infer block's are checked)
			return nil, Errorf("", "--%s %d is more than the limit of %d", n.key, n.v, maxInt32)
		}
	}
	if o.Fixed && o.Iters == 0 {
		return nil, Errorf("for example --iters 20000 --fixed", "--fixed needs --iters: the number of iterations to run")
	}
	if p.draws == 0 {
		p.draws = DefaultDraws
	}
	if p.draws < 100 {
		return nil, Errorf("", "--draws must be at least 100 for the PSIS check, got %d", p.draws)
	}
	if p.kernel, err = parseKernel(o.Kernel); err != nil {
		return nil, settingError(m, "kernel", o.Kernel, err)
	}
	if p.optimizer, err = msc.ParseOptimizer(o.Optimizer); err != nil {
		return nil, settingError(m, "optimizer", o.Optimizer, err)
	}
	if o.Family == "" {
		name := msc.Defaults.Family
		if m.LatentDim > msc.Defaults.FullRankLimit {
			name = msc.Defaults.FamilyLarge
			p.familyNote = fmt.Sprintf("the model has %d latent dimensions, more than %d, so q is mean-field by default: a full-rank q would refactor a %dx%d covariance every iteration; pass --family %s to insist", m.LatentDim, msc.Defaults.FullRankLimit, m.LatentDim, m.LatentDim, msc.Defaults.Family)
		}
		o.Family = name
	}
	if p.family, err = parseFamily(o.Family); err != nil {
		return nil, settingError(m, "family", o.Family, err)
	}
	return p, nil
}

// maxInt32 is the largest count a setting takes.
const maxInt32 = 1<<31 - 1

// settingError is the error err for a bad value of the setting key: at the
// value in the model's infer block when it came from there, else (a flag)
// without a position.
func settingError(m *ir.Model, key, value string, err error) error {
	if sv, ok := m.Settings[key]; ok && sv.IsStr && sv.Str == value {
		e := lang.Errorf(sv.Pos, "setting %s: %v", key, err)
		e.Hint = hintOf(err)
		return lang.ErrorList{e}
	}
	return err
}

// blockKeys are the keys of an infer block in the order written.
func blockKeys(set ir.Settings) []string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		pa, pb := set[a].KeyPos, set[b].KeyPos
		if pa.Line != pb.Line {
			return pa.Line - pb.Line
		}
		return pa.Col - pb.Col
	})
	return keys
}

// KernelsHelp lists MSC's Markov kernels with their help lines.
func KernelsHelp() string {
	var parts []string
	for _, k := range msc.Kernels() {
		if k.Markov {
			parts = append(parts, k.Name+": "+k.Help)
		}
	}
	return strings.Join(parts, "; ")
}

// ItersHelp describes the default cap on the iterations, a step function
// of the number of dimensions, as "100000 up to 10 dimensions, 40000
// above".
func ItersHelp(iters func(d int) int) string {
	const maxDim = 1 << 16
	var parts []string
	cur := iters(1)
	for dim := 2; dim <= maxDim; dim++ {
		if v := iters(dim); v != cur {
			unit := "dimensions"
			if dim == 2 {
				unit = "dimension"
			}
			parts = append(parts, fmt.Sprintf("%d up to %d %s", cur, dim-1, unit))
			cur = v
		}
	}
	if parts == nil {
		return fmt.Sprint(cur)
	}
	return strings.Join(append(parts, fmt.Sprint(cur)+" above"), ", ")
}
