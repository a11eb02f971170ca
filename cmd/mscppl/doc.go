// Command mscppl is the command-line front end of the mscppl probabilistic
// programming language: check, run, cv, sweep, evidence, plot, repl and
// version (see mscppl --help). It holds flag parsing, printing and exit
// codes only; loading, fitting, evidence, cross-validation, sweeps and the
// densities behind the marginal plots are library functions of package
// infer, and every default lives in infer (infer.Defaults,
// infer.DefaultDraws), infer/msc (msc.Defaults) or ir
// (ir.DefaultMaxNodes), from where --help prints it. The REPL is the
// library cmd/mscppl/repl, to which this package passes how :run's flags
// are parsed; what both print lives in cmd/mscppl/internal/show.
//
// User errors (bad models, bad data, bad flags) print a positioned message
// with the source line and a caret, and exit with status 1.
package main
