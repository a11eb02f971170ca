package infer

// Defaults are the settings of the commands built on this package that are
// not settings of one fit (those are msc.Defaults, DefaultDraws and the
// model's infer block): cross-validation, sweeps, evidence estimates and
// the draws behind derived displays, in one place. The command line takes
// its flags' defaults from here and prints them in --help.
var Defaults = struct {
	// Seed is the random seed of every command.
	Seed uint64
	// Method, Kernel, Proposal and Init are the options of a run that
	// names none of them (Options): MSC, the kernel the model allows
	// ("auto"), proposals from q and a Laplace warm start.
	Method, Kernel, Proposal, Init string

	// CrossValidate: the number of random splits, the fraction of the
	// rows in each test set and the methods compared.
	CVSplits       int
	CVTestFraction float64
	CVMethods      []string

	// Sweep: the numbers of samples S tried, the random initialisations
	// per S and method, the methods and the iterations of each fit.
	SweepSamples []int
	SweepInits   int
	SweepMethods []string
	SweepIters   int

	// Evidence: particles (or importance samples) per estimate and the
	// independent estimates behind its standard error.
	EvidenceParticles int
	EvidenceRepeats   int

	// EvalDraws is the number of draws of q behind an expression's
	// posterior summaries (the REPL's :eval): as many as behind the run's
	// own summaries.
	EvalDraws int
	// PriorDraws is the number of draws of the prior behind its marginal
	// densities (EstimateMarginals).
	PriorDraws int
}{
	Seed:   1,
	Method: "msc", Kernel: "auto", Proposal: "q", Init: "laplace",

	// the paper's Table 1: 100 splits of 90/10
	CVSplits:       100,
	CVTestFraction: 0.1,
	CVMethods:      []string{"msc", "is", "ep", "msc-prior"},

	SweepSamples: []int{2, 5, 10, 50},
	SweepInits:   100,
	SweepMethods: []string{"msc", "is"},
	SweepIters:   2000,

	EvidenceParticles: 10000,
	EvidenceRepeats:   10,

	EvalDraws:  DefaultDraws,
	PriorDraws: 10000,
}
