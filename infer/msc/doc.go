// Package msc is mscppl's inference engine: Markovian Score Climbing
// (Naesseth, Lindsten & Blei, NeurIPS 2020).
//
// Three interfaces meet in one loop, Run(ctx, rng, target, family, kernel,
// settings, result), shaped like gonum's optimize.Minimize:
//
//   - Family is the variational family q(z; lambda): its parameters, its
//     score, the statistics averaged into the reported q, and its
//     variational.json form. Sampler adds sampling and log q; NaturalFamily
//     a closed-form natural-gradient step; Reparam the path gradient of
//     ADVI. FullRank, MeanField (O(d) per sample) and StudentT are
//     registered by name (RegisterFamily); Twisted and ARProposal are the
//     proposals of state-space models.
//   - Kernel moves the retained state: CIS (Algorithm 2 of the paper) and
//     SMCKernel (conditional SMC with ancestor sampling, or the particle
//     filter of the SMC baseline) here, IS and ADVI in infer/baselines.
//   - Target (and ParamTarget, StateSpace, ...) is the model, implemented by
//     ir.Compiled.
//
// Each iteration the loop steps the kernel, moves q along the weighted
// score (natural gradient, Robbins-Monro or Adam), moves the params along
// the Fisher-identity gradient at the retained sample (Algorithm 3), and
// averages the iterates. Defaults holds every default in one place.
package msc
