// Package pfsmooth is an independent particle smoother for the
// state-space models of package msc: bootstrap particle filters (the
// transition itself as the proposal, so that nothing a run learned
// enters) and backward simulation (Godsill, Doucet & West 2004). Package
// infer asks it for a second opinion on the states a CSMC or particle
// Gibbs run kept. It shares no code with msc's sweep.
package pfsmooth
