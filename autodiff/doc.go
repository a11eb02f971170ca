// Package autodiff is mscppl's reverse-mode automatic differentiation.
//
// A Graph is a static computation graph: the explicit tape of a model,
// built once by the compiler (package ir) and then evaluated millions of
// times. Nodes are flat records with integer indices (in the spirit of
// infergo's ad package); there is no global tape and no map keyed by
// pointers.
//
// Every evaluation is for a batch of inputs (the S proposals of an
// importance-sampling step). A node that depends on an Input has one value
// per batch element, stored batch-major in one arena; nodes that depend only
// on Params are shared by the batch and evaluated once; nodes that depend
// only on constants are folded when they are built. A shared matrix times a
// batch of vectors is one matrix-matrix product (an AVX2 kernel on amd64
// CPUs that have it; each output is the same sequential sum of separately
// rounded products on every machine, with or without the kernel); an
// Affine node, c + m v with a scalar c (a regression's linear predictor
// alpha + X beta), adds c in that product, with the bits of Add(c,
// MatVec(m, v)) and without the product's node and pass.
//
// Forward and Backward allocate nothing once the arenas are laid out:
// Alloc lays out the value arena for a maximum batch size (the constants
// stay in their store) and the adjoint arena for one row (the gradients
// are of one row where the values are of many); the first Backward (or
// Grad) of more rows grows the adjoint arena, once. A data constant added
// by ConstView is the caller's slice, not a copy, so that the compiled
// copies of a model share their data. Distribution log densities and
// special functions come in as Op and Func values (package stdlib provides
// them): an Op is called once per node and batch element, a Func once per
// node and batch element or, for an elementwise node whose input is
// batched like it, once for the whole batch; never per scalar. Clone
// copies a graph for another goroutine (a chain): its own node table,
// arenas and stateful ops (copies that the caller makes; Clone fails when
// an op cannot be copied), the constants and Funcs shared, the Input and
// Param values not copied (clone.go).
//
// Step programs (step.go) serve state-space models: CompileStep compiles
// the part of the graph that one time step evaluates into a straight-line
// program of scalars per batch element, and a StepTemplate, shared by the
// steps of one shape, evaluates one step over all particles or all its
// steps along a trajectory at once, forward and backward (an Op that is a
// BatchForwarder then computes a whole batch per call); a StepGradient
// accumulates the gradient of the params through the templates and the
// shared part of the graph.
package autodiff
