package msc

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// KernelSpec is a kernel's registration: how to build it, what it needs of
// the problem and of q, and what it is. The run loop, the settings'
// defaults, the facade's choice of kernel, the warm start, the split target
// and the hints read these traits; nothing compares kernel names.
type KernelSpec struct {
	// Name is the kernel's name (--kernel, the summaries).
	Name string
	// Help is one line for --help and the docs.
	Help string
	// Method is the inference method the kernel implements (--method): its
	// Markov kernels for MSC, a baseline's own kernel otherwise.
	// MethodHelp describes the method, for --help (one kernel of each
	// method says it).
	Method, MethodHelp string
	// Priority orders the kernels of one method when --kernel is auto: the
	// highest whose needs the problem meets is chosen (CSMC above CIS on a
	// state-space model).
	Priority int
	// Needs are the problem's capabilities the kernel cannot run without.
	Needs Capability
	// Markov: the kernel keeps a retained state that moves by a Markov
	// kernel leaving the posterior invariant (an MSC kernel: R-hat is of
	// the retained samples, the change rate is a mixing diagnostic, the
	// params climb at the retained sample). A kernel that is not Markov
	// draws afresh each step (a baseline) and cannot be chosen by --kernel.
	Markov bool
	// StateSpace: the kernel moves a state trajectory and takes its q from
	// the state-space proposals (Proposal families), with the state-space
	// defaults (Defaults.ItersSSM, LRSSM, ParamLRSSM, S = Defaults.Samples).
	StateSpace bool
	// Statics: the kernel also moves static latents beside the state
	// (particle Gibbs): the iterations default to Defaults.ItersPG, and q's
	// statics part takes the natural step at Defaults.LRNatural.
	Statics bool
	// Marginal: the kernel integrates the state out and moves the statics
	// alone (the kalman kernel): q is the run's family over the statics,
	// its draws completed by the states drawn exactly given them
	// (KalmanFamily), and the settings' defaults are those of CIS for the
	// statics' dimension.
	Marginal bool
	// WarmStart: the kernel proposes from q, so q benefits from starting at
	// a Laplace approximation at a mode (the facade's warm start).
	WarmStart bool
	// Split: the kernel evaluates batches of proposals, so a costly model
	// can spread each batch over more cores (Problem.Split).
	Split bool
	// PriorProposal: the kernel can propose from the prior instead of q
	// (the paper's "MSC (prior)"); it then needs CapPrior.
	PriorProposal bool
	// Optimizers are the update rules of q that apply, the default first
	// (nil: all, with the family's default).
	Optimizers []Optimizer
	// New builds the kernel for problem p (whose needs are met), the family
	// or proposal q and S samples or particles.
	New func(p *Problem, q Family, S int, o KernelOptions) (Kernel, error)
}

// KernelOptions are the choices a caller makes about one kernel.
type KernelOptions struct {
	// ProposePrior makes a kernel with PriorProposal propose from the
	// prior instead of q.
	ProposePrior bool
}

var kernelRegistry = map[string]*KernelSpec{}

// RegisterKernel makes a kernel available by name. Each kernel file
// registers itself in an init function; a second registration of a name
// replaces the first.
func RegisterKernel(spec KernelSpec) {
	if spec.Name == "" || spec.New == nil {
		panic("msc: a kernel registration needs a name and a constructor")
	}
	kernelRegistry[spec.Name] = &spec
}

// LookupKernel returns the registered kernel of that name.
func LookupKernel(name string) (*KernelSpec, bool) {
	s, ok := kernelRegistry[name]
	return s, ok
}

// Kernels lists the registered kernels, sorted by name.
func Kernels() []*KernelSpec {
	out := make([]*KernelSpec, 0, len(kernelRegistry))
	for _, n := range KernelNames() {
		out = append(out, kernelRegistry[n])
	}
	return out
}

// KernelNames lists the registered kernels, sorted.
func KernelNames() []string { return slices.Sorted(maps.Keys(kernelRegistry)) }

// MarkovKernelNames lists the kernels --kernel may name: the Markov ones.
func MarkovKernelNames() []string {
	var out []string
	for _, k := range Kernels() {
		if k.Markov {
			out = append(out, k.Name)
		}
	}
	return out
}

// Needs is everything the kernel needs of p under options o.
func (k *KernelSpec) needs(o KernelOptions) Capability {
	n := k.Needs
	if o.ProposePrior {
		n |= CapPrior
	}
	return n
}

// Check reports whether the kernel can run on p under options o.
func (k *KernelSpec) Check(p *Problem, o KernelOptions) error {
	if o.ProposePrior && !k.PriorProposal {
		return fmt.Errorf("the %s kernel cannot propose from the prior (the kernels that can: %s)", k.Name, strings.Join(priorKernels(), ", "))
	}
	return p.Check("the "+k.Name+" kernel", k.needs(o))
}

func priorKernels() []string {
	var out []string
	for _, k := range Kernels() {
		if k.PriorProposal {
			out = append(out, k.Name)
		}
	}
	return out
}

// ChooseKernel picks the kernel of method for p when --kernel is auto: the
// kernel of highest Priority among the method's whose needs p meets. The
// error names what the best of them lacks.
func ChooseKernel(method string, p *Problem, o KernelOptions) (*KernelSpec, error) {
	var best, first *KernelSpec
	var firstErr error
	for _, k := range Kernels() {
		if k.Method != method {
			continue
		}
		if err := k.Check(p, o); err != nil {
			if first == nil || k.Priority < first.Priority {
				first, firstErr = k, err
			}
			continue
		}
		if best == nil || k.Priority > best.Priority {
			best = k
		}
	}
	if best != nil {
		return best, nil
	}
	if firstErr != nil {
		return nil, fmt.Errorf("--method %s: %w", method, firstErr)
	}
	return nil, fmt.Errorf("no kernel implements method %q", method)
}

// KernelMethods lists the methods that kernels implement, sorted, with
// their help lines.
func KernelMethods() map[string]string {
	out := map[string]string{}
	for _, k := range Kernels() {
		if _, ok := out[k.Method]; !ok || k.MethodHelp != "" {
			out[k.Method] = k.MethodHelp
		}
	}
	return out
}

// NewKernel builds the kernel of spec k for problem p after checking its
// needs. When the kernel evaluates batches (Split) and the problem can
// spread them over more cores, the kernel gets the split problem; release
// stops its workers (call it when the run is over).
func NewKernel(k *KernelSpec, p *Problem, q Family, S int, o KernelOptions) (kern Kernel, release func(), err error) {
	release = func() {}
	if err := k.Check(p, o); err != nil {
		return nil, release, err
	}
	if k.Split && p.Split != nil {
		sp, stop, err := p.Split(S)
		if err != nil {
			return nil, release, err
		}
		p, release = sp, stop
	}
	kern, err = k.New(p, q, S, o)
	if err != nil {
		release()
		return nil, func() {}, err
	}
	return kern, release, nil
}

// sampler is the common check of kernels that propose from q on their own.
func sampler(kernel string, q Family) (Sampler, error) {
	s, ok := q.(Sampler)
	if !ok {
		return nil, fmt.Errorf("the %s kernel proposes from q, and the %s family cannot be sampled on its own", kernel, q.Name())
	}
	return s, nil
}

// AsSampler checks that q can be sampled on its own, for kernels outside
// this package.
func AsSampler(kernel string, q Family) (Sampler, error) { return sampler(kernel, q) }
