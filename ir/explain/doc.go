// Package explain is the stage of the IR after lower that words what went
// wrong in a compiled model's evaluation, for the messages of check and
// run: Diagnose names the statement whose term is NaN or +Inf at a draw,
// ZeroDensity the one whose term is -Inf (and why: a value outside its
// support, an overflow, a rejected solve), and ImproperError a latent
// with no prior along which the posterior is flat. The counts of rejected
// draws are lower's (lower.SolverNotes, lower.RejectNotes).
package explain
