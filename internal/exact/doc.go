// Package exact computes exact posterior answers for the cases where the
// engine has reported convergence with a wrong answer (separated modes, a
// weakly identified centred hierarchy, a funnel, label switching), and
// scores runs of an mscppl binary against them over seeds. Nothing here
// uses the engine: the answers come from quadrature, grids and closed
// forms, and the harness runs the binary and reads its --json summary.
//
// # Quadrature
//
// Density.Integrate normalises a one-dimensional log density by adaptive
// 15-point Gauss-Kronrod quadrature (the panel with the largest error
// estimate split first, to a relative error of 1e-13 by default), and
// returns an Integrated: the log of the normalising constant (LogZ, the
// log evidence when the density is a log joint) and a Rule: the Kronrod
// nodes of the final panels with normalised weights, which
// gives any posterior expectation, the CDF at any point (the panels below
// it plus the Kronrod rule on the part of its panel) and the quantiles (by
// bisection on the CDF; NaN where the CDF is flat, as a median in the gap
// between two modes of equal mass). A quantity that is normal given the
// integrated parameter is a NormalMixture over the rule's nodes.
//
// # Cases
//
//  1. Bimodal (case 1): theta ~ N(0, 10^2), y ~ N(theta^2, 0.5^2), y = 25:
//     modes at +-4.999875 of sd 0.05, P(theta > 0) = 1/2 (the derived pos).
//     Trimodal: y ~ N(theta^3 - 4 theta, 0.5^2), y = 1: three modes of
//     masses 0.298, 0.505, 0.197 (the derived left, mid and right).
//     Both by quadrature of the log joint, which also gives log p(y).
//  2. ExactHier (case 2): 30 groups of 3 observations y ~ N(a_g, 2^2)
//     with sigma = 2 known, a_j ~ N(mu, tau^2), mu ~ N(0, 5^2) and
//     tau ~ N(0, 5^2) on tau > 0 (the half-normal a Stan user writes as
//     tau ~ normal(0, 5) with real<lower=0>), simulated with tau = 0.2
//     (SimulateHier). Given tau everything is Gaussian: the group means are
//     ybar_j ~ N(mu, tau^2 + sigma^2/n_j), so mu given tau and y is normal
//     and p(ybar | tau) is closed form; tau's posterior is one-dimensional
//     (quadrature on (0, 25)), and mu and each a_j are normal mixtures
//     over its nodes. HierGrid (a midpoint grid over (mu, log tau)) and
//     HierMH (random-walk Metropolis on (mu, log tau)) are the independent
//     cross-checks; the tests also check the analytic parts against dense
//     Gaussian algebra on all 90 observations. The models are written in
//     the centred form and the non-centred one (a derived from a_raw).
//  3. Funnel (case 3): v ~ N(0, 3^2), x ~ N(0, exp(v)) (9 of them): v in
//     closed form, each x a normal mixture over v's quadrature nodes (sd
//     exp(9/4)).
//  4. ExactMix (case 4): 200 points from 0.5 N(-2, 1) + 0.5 N(2, 1)
//     (SimulateMix), the weights and the sd known, mu ~ N(0, 5^2) each:
//     the ordered model's posterior on a 200 x 200 midpoint grid around the
//     mode, each mean's marginal interpolated (cubics in its log) and
//     integrated by quadrature; the unordered model's posterior is the
//     ordered one and its mirror image, so each mu[i] is the equal mixture
//     of the ordered marginals (mean 0.129, sd 1.98).
//
// Cases returns them all with their model texts and data; the files under
// testdata (its README.md aside) are what it writes (TestCaseFiles;
// -update rewrites them, and so does go run ./examples/tools/exactref).
//
// # Scoring runs
//
// Score runs an mscppl binary (BIN run MODEL [DATA] --json --quiet --seed
// S FLAGS...) for each seed, one run at a time, and compares the reported
// quantities with an exact answer: the worst |mean - exact| in exact sds,
// the worst relative sd error, the worst quantile error in exact sds and
// the probabilities (the means of 0/1 derived quantities). A run matches
// when the means, sds and probabilities are within ScoreConfig's bounds
// (by default 0.1 exact sd, 10% and 0.05), and, counted strictly, the
// quantiles too (0.2 exact sd). A run is "ok" (matched and converged),
// "silent" (converged but wrong), "flagged" (not converged, and wrong),
// "false-alarm" (not converged, yet matched) or "error"; Tally counts them
// and WriteTable prints a table of the runs. examples/tools/seedscore is
// its command.
package exact
