package msc

import (
	"fmt"
	"maps"
	"slices"
)

// KernelFactory builds a kernel for a target (the compiled model), the
// family or proposal q it draws from, and S samples or particles.
type KernelFactory func(target any, q Family, S int) (Kernel, error)

var kernelRegistry = map[string]KernelFactory{}

// RegisterKernel makes a kernel available by name. Each kernel file
// registers itself in an init function.
func RegisterKernel(name string, f KernelFactory) { kernelRegistry[name] = f }

// NewKernel builds the named kernel.
func NewKernel(name string, target any, q Family, S int) (Kernel, error) {
	f, ok := kernelRegistry[name]
	if !ok {
		return nil, fmt.Errorf("unknown kernel %q (the kernels are %v)", name, KernelNames())
	}
	return f(target, q, S)
}

// KernelNames lists the registered kernels, sorted.
func KernelNames() []string { return slices.Sorted(maps.Keys(kernelRegistry)) }

// targetAndSampler is the common argument check of kernels that propose
// from q on a batched target.
func targetAndSampler(kernel string, target any, q Family) (Target, Sampler, error) {
	t, ok := target.(Target)
	if !ok {
		return nil, nil, fmt.Errorf("the %s kernel needs a target with a batched log joint", kernel)
	}
	s, ok := q.(Sampler)
	if !ok {
		return nil, nil, fmt.Errorf("the %s kernel proposes from q, and the %s family cannot be sampled on its own", kernel, q.Name())
	}
	return t, s, nil
}

// TargetAndSampler checks that a kernel's target is batched and q can be
// sampled, for kernels outside this package.
func TargetAndSampler(kernel string, target any, q Family) (Target, Sampler, error) {
	return targetAndSampler(kernel, target, q)
}
