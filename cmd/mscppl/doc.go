// Command mscppl is the command-line front end of the mscppl probabilistic
// programming language: check, run, cv, sweep, evidence, plot, repl, list
// and version (see mscppl --help, and docs/commands.md). It parses flags, prints, writes the output
// files of --out (summary.json, variational.json, output_N.csv in
// CmdStan's layout through package infer/cmdstan, psis_draws.csv,
// draws.csv, trace.csv, manifest.json) as one set that takes DIR's place
// whole (outset.go),
// draws the pictures of plot with gonum/plot, and sets exit codes; loading,
// fitting, evidence, cross-validation, sweeps, the marginal densities the
// plots draw and the summaries of :eval are library functions of package
// infer. Every default lives in msc.Defaults (one fit), infer.Defaults
// (the commands' other settings) or ir (the graph's size limit), from where
// --help prints it; the methods, kernels and families --help lists come from
// their registries, and the help of the flags that a model's infer block can
// also set is that of infer.Settings (the vars setting_KEY). The REPL is the library cmd/mscppl/repl, to which this
// package passes how :run's and :plot's flags are parsed; what both print lives in
// cmd/mscppl/internal/show.
//
// User errors (bad models, bad data, sizes beyond the limits) print a
// positioned message with the source line and a caret, and exit with
// status 1; a command line that cannot be used, including a flag value no
// run can use (checkFlagValues: --samples 0, --lr 0), exits with status 2.
package main
