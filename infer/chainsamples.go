package infer

import (
	"github.com/mscppl/mscppl/ir/lower"
)

// ChainSamples are the chains' retained samples over the averaging window
// (CIS's retained samples, CSMC's retained trajectories): the records that
// R-hat, the bulk ESS and the chains' quantiles of the summary are computed
// from (at most msc.MaxChainDraws per chain), each mapped to the latents'
// own spaces with the derived quantities computed on it.
type ChainSamples struct {
	// Names are the columns after lp__: the latents' components and the
	// derived quantities, in the model's order (Model.IR.LatentNames).
	Names []string
	// Draws[c][r] is chain c's r-th record: the log joint on the
	// unconstrained scale with the log-Jacobians (CmdStan's lp__), then
	// the components named by Names.
	Draws [][][]float64
	// Iters are the iterations (counted from 1, as the summary's) of the records, Thin the
	// iterations between two of them.
	Iters []int
	Thin  int
	// Kernel is the Markov kernel whose retained samples they are.
	Kernel string
}

// ChainSamples returns the chains' retained samples, or nil when the run
// kept none: a method without a Markov kernel (the record then holds q's
// mean iterates, which are no posterior draws), or fewer than 4 records
// per chain.
func (f *Fitted) ChainSamples() *ChainSamples {
	res := f.Result
	if res == nil || res.ChainDraws == nil || res.RhatOf != "retained samples" || f.kernel == nil || !f.kernel.Markov {
		return nil
	}
	comp := f.Model.Comp
	comp.SetParams(f.unconstrainedParams())
	d, xdim := comp.Dim(), f.Model.IR.XDim
	cs := &ChainSamples{Names: f.Model.IR.LatentNames(), Kernel: f.kernel.Name, Thin: 1}
	cs.Iters = append(cs.Iters, res.ChainDrawIters...)
	if len(cs.Iters) > 1 {
		cs.Thin = cs.Iters[1] - cs.Iters[0]
	}
	for i, z := range res.ChainDraws {
		rows := len(z) / d
		var lp []float64
		if res.ChainLogJoint != nil { // as the kernel computed it
			lp = res.ChainLogJoint[i]
		} else { // in batches that bound the model's arena (drawBatchFor)
			lp = make([]float64, rows)
			evalParallel([]*lower.Compiled{comp}, drawBatchFor(comp), func(c *lower.Compiled, lo, hi int) {
				c.LogJoint(z[lo*d:hi*d], lp[lo:hi])
			}, 0, rows)
		}
		chain := make([][]float64, rows)
		for r := range chain {
			row := make([]float64, 1+xdim)
			row[0] = lp[r]
			comp.Constrain(z[r*d:(r+1)*d], row[1:])
			chain[r] = row
		}
		cs.Draws = append(cs.Draws, chain)
	}
	return cs
}

// WeightedDraws are the draws behind the PSIS summaries: draws of q (or of
// the proposal named by Proposal when q's own k-hat was too large) in the
// latents' own spaces, with the raw log importance ratio log p(z, x)/q(z)
// of each and its Pareto-smoothed normalised weight (the weights sum to 1).
type WeightedDraws struct {
	Names     []string
	Rows      [][]float64
	LogWeight []float64
	Weight    []float64
	Proposal  string // "q", or the heavier-tailed proposal used instead
}

// WeightedDraws returns the PSIS draws, or nil when the run has none (a
// state-space run, or the check skipped).
func (f *Fitted) WeightedDraws() *WeightedDraws {
	im := f.imp
	if im == nil || len(im.lr) != len(im.x) || len(im.w) != len(im.x) {
		return nil
	}
	return &WeightedDraws{Names: f.Model.IR.LatentNames(), Rows: im.x, LogWeight: im.lr, Weight: im.w, Proposal: f.psisProposal()}
}
