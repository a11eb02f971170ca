package infer

import (
	"maps"
	"slices"
	"strings"

	"github.com/mscppl/mscppl/infer/msc"
)

// method is an inference method of --method. Most are the methods of
// msc's registered kernels (msc.KernelSpec.Method): MSC's Markov kernels,
// and the baselines' own kernels. The others are registered here: a method
// that fits without a kernel (solve, EP), or a variant of another with
// different options (alias, msc-prior).
type method struct {
	name, help string
	// solve fits q without a kernel.
	solve func(f *Fitted) error
	// base and proposal: the method is base with --proposal proposal.
	base     string
	proposal Proposal
}

var methodRegistry = map[string]*method{}

// registerMethod makes a method that is not a kernel's available by name.
func registerMethod(m method) { methodRegistry[m.name] = &m }

func init() {
	registerMethod(method{name: "msc-prior", help: "MSC whose CIS kernel proposes from the prior (the paper's MSC (prior))", base: "msc", proposal: ProposePrior})
}

// lookupMethod returns the method of that name: a registered one, or the
// method of registered kernels.
func lookupMethod(name string) (*method, bool) {
	if m, ok := methodRegistry[name]; ok {
		return m, true
	}
	if help, ok := msc.KernelMethods()[name]; ok {
		return &method{name: name, help: help}, true
	}
	return nil, false
}

// Methods lists the inference methods: the default first, then the rest
// sorted.
func Methods() []string {
	names := slices.Collect(maps.Keys(msc.KernelMethods()))
	names = append(names, slices.Collect(maps.Keys(methodRegistry))...)
	slices.Sort(names)
	names = slices.Compact(names)
	out := []string{Defaults.Method}
	for _, n := range names {
		if n != Defaults.Method {
			out = append(out, n)
		}
	}
	return out
}

// MethodsHelp describes every method ("name: help; ..."), for --help.
func MethodsHelp() string {
	var parts []string
	for _, n := range Methods() {
		m, _ := lookupMethod(n)
		if m.help != "" {
			parts = append(parts, n+": "+m.help)
		} else {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, "; ")
}

// kernelMethod is the kernel method behind m (its base for an alias).
func (m *method) kernelMethod() string {
	if m.base != "" {
		return m.base
	}
	return m.name
}

// stateSpaceOnly reports whether every kernel of the method needs a
// state-space structure.
func (m *method) stateSpaceOnly() bool {
	if m.solve != nil {
		return false
	}
	found := false
	for _, k := range msc.Kernels() {
		if k.Method == m.kernelMethod() {
			found = true
			if k.Needs&msc.CapStateSpace == 0 {
				return false
			}
		}
	}
	return found
}

// aliasOf is the name of the alias that stands for method base with
// proposal ("" when none does), so that a summary names the variant.
func aliasOf(base string, proposal Proposal) string {
	for _, n := range slices.Sorted(maps.Keys(methodRegistry)) {
		if m := methodRegistry[n]; m.base == base && m.proposal == proposal {
			return n
		}
	}
	return ""
}

// cvMethods are the methods cross-validation can compare: those that run
// on any model.
func cvMethods() []string {
	var out []string
	for _, n := range Methods() {
		if m, _ := lookupMethod(n); !m.stateSpaceOnly() {
			out = append(out, n)
		}
	}
	return out
}

// sweepMethods are the methods a sweep can compare: the stochastic ones
// that run on any model.
func sweepMethods() []string {
	var out []string
	for _, n := range Methods() {
		if m, _ := lookupMethod(n); !m.stateSpaceOnly() && m.solve == nil {
			out = append(out, n)
		}
	}
	return out
}

// MethodHelp is the one-line description of a method ("" when unknown).
func MethodHelp(name string) string {
	if m, ok := lookupMethod(name); ok {
		return m.help
	}
	return ""
}
