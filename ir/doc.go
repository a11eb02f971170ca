// Package ir is the middle of the mscppl pipeline. It takes the concrete
// syntax tree of package lang and the bound CSV data, and produces a checked
// model:
//
//   - names resolved (data, param, latent, locals, loop variables), with
//     "did you mean" hints for unknown names;
//   - every expression typed and shape-checked against the data (sizes such
//     as N and D are inferred from the CSV);
//   - constraints turned into bijections to unconstrained space with their
//     log-Jacobians (package stdlib);
//   - a dependency graph between the latent elements and the model's
//     factors, used to detect state-space structure.
//
// Compile lowers the checked model to a static autodiff graph (package
// autodiff) that evaluates the log joint log p(z, x; theta) over
// unconstrained latents for a whole batch of proposals at once. Loops are
// unrolled at compile time; vector operations stay vector operations.
// The compiled model implements the target interfaces of infer/msc.
package ir
