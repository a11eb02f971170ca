// Package simulate draws data sets from a model's prior predictive, for
// simulation-based calibration. NewSimulator compiles the model a second
// time (package ir/lower) with the data its ~ statements observe made
// latents, so that the prior's ancestral sampling (lower.SamplePrior's
// schedule, where each statement's arguments are drawn first) draws a
// data set with the latents that made it (Simulator.Draw).
package simulate
