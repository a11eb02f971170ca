// Package msc is mscppl's inference engine: Markovian Score Climbing
// (Naesseth, Lindsten & Blei, NeurIPS 2020).
//
// Three kinds of thing meet in one loop, Run(ctx, rng, problem, q, kernel,
// settings, result) for one chain and RunChains(ctx, chains, settings,
// result) for several, shaped like gonum's optimize.Minimize:
//
//   - Problem is the model as the engine sees it: its dimension, its
//     components' names and typed, optional capabilities (Target, the
//     batched log joint; Grad; Params, learned by the Fisher identity;
//     Prior; Diagnoser; StateSpace, the state-space structure with a
//     K-dimensional state per step, K = 1 for a scalar state, its
//     transition Gaussian when it is a GaussianStateSpace and its density
//     known when it is a GeneralStateSpace; Statics, for static latents
//     beside the state; Split, more cores for a costly log joint). Has
//     lists them as a Capability set; Check names what is missing. Package
//     infer builds one per chain from the compiled model; tests build them
//     by hand.
//   - Family is the variational family q(z; lambda): its parameters, its
//     score, the statistics averaged into the reported q, and its
//     variational.json form. Sampler adds sampling and log q; NaturalFamily
//     a closed-form natural-gradient step; Reparam the path gradient of
//     ADVI. Each family is one file that registers a FamilySpec
//     (RegisterFamily): its constructor and its traits (Dense, Gaussian,
//     HeavyTails, its mixing hint; Proposal for the state-space proposals
//     Twisted and ARProposal, for scalar and vector states alike, built for
//     a Problem by NewFor and chosen by their Needs and Priority).
//   - Kernel moves the retained state: CIS (Algorithm 2 of the paper),
//     SMCKernel (conditional SMC with ancestor sampling, or the particle
//     filter of the SMC baseline) and PG (particle Gibbs within MSC, for
//     static latents beside a state: CSMC for the state given them, CIS and
//     random-walk steps for them given the state and given its noise, with
//     the PGFamily over both; pg.go), PMCIS (particle-marginal CIS for the
//     same models: draws of q(theta) weighed by a particle filter's
//     likelihood estimate, the retained theta with its stored estimate;
//     pmcis.go) here, IS and ADVI in infer/baselines, and the kalman kernel
//     (CIS over statics whose state a Kalman filter integrates out,
//     KernelSpec.Marginal) in infer/lgssm.
//     Each registers a KernelSpec (RegisterKernel): its constructor, what
//     it needs of the Problem (Needs, checked by NewKernel before it is
//     built), the method it implements and its Priority among that
//     method's kernels (ChooseKernel), and what it is (Markov, StateSpace,
//     WarmStart, Split, PriorProposal, the Optimizers that apply).
//
// Behaviour follows from these declarations, never from names: Fill derives
// the settings' defaults from the kernel's and the family's traits,
// NewKernel hands a Split kernel the split problem, the facade warm-starts
// the kernels that propose from q, and the warnings take their remedies
// from the family's traits and the Problem's Facts (what the model's
// structure is: a centred hierarchy, exchangeable components; remedies.go),
// and offer more iterations only when the run's Trend says the chains were
// still coming together.
//
// Each iteration the loop steps the kernel, moves q along the weighted
// score (natural gradient, Robbins-Monro or Adam), moves the params along
// the Fisher-identity gradient at the retained sample (Algorithm 3), and
// averages the iterates. RunChains runs the chains in parallel and stops
// when they agree (R-hat and the spread of their averaged means), checked
// every Defaults.CheckStep iterations instead of every 500 or more when an
// iteration is costly (Problem.Cost, the scalars a row of the log joint
// computes: a large data set); such a run whose summaries the caller's
// importance weights correct (Settings.Corrected) checks from iteration
// 300 against a looser agreement (Defaults.AgreeSDCorrected). Defaults
// holds the engine's defaults in one place.
package msc
