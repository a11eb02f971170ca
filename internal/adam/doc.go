// Package adam is the Adam optimiser (Kingma & Ba 2015) used for ascent,
// x += lr * mhat / (sqrt(vhat) + eps), with gradients clipped so that
// their squares cannot overflow: MSC's updates of q and of the model's
// params (package infer/msc) and the particle Gibbs proposal's.
package adam
