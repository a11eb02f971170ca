package infer

import (
	"runtime"
	"sync"
	"time"

	"github.com/mscppl/mscppl/ir/lower"
)

// splitTarget gives one chain more than one core when the model is costly
// (issue 12: a large data set). It evaluates a batch's log joints on W
// compiled copies of the model at once, rows split in contiguous blocks;
// every other method is the chain's own model's. A row's log joint does not
// depend on the rows evaluated with it, so the chain is the same, bit for
// bit, whatever W is. The workers are started once and wait on channels,
// so an evaluation allocates nothing.
type splitTarget struct {
	*lower.Compiled
	parts []*lower.Compiled // parts[0] is the chain's own model
	jobs  []chan splitJob
	wg    sync.WaitGroup
}

type splitJob struct{ z, out []float64 }

// splitMinCost is the time of one batch's log joint from which a chain
// takes more cores: below it the hand-over costs more than it saves (a
// variable for the tests, which split a cheap model).
var splitMinCost = 300 * time.Microsecond

// splitWays is how many cores each of C chains can have on top of its
// own: chains first, then within a chain.
func splitWays(C int) int { return max(1, runtime.GOMAXPROCS(0)/max(C, 1)) }

// newSplitTarget wraps comp when W >= 2 and a batch of S rows at z0 costs
// at least splitMinCost; clone builds the other copies. It returns nil (and
// a no-op stop) otherwise: comp itself is then the target.
func newSplitTarget(comp *lower.Compiled, W, S int, clone func() (*lower.Compiled, error)) (*splitTarget, func(), error) {
	if W < 2 || S < 2 {
		return nil, func() {}, nil
	}
	d := comp.Dim()
	comp.Reserve(S)
	z, out := make([]float64, S*d), make([]float64, S)
	start := time.Now()
	comp.LogJoint(z, out)
	if time.Since(start) < splitMinCost {
		return nil, func() {}, nil
	}
	W = min(W, S)
	s := &splitTarget{Compiled: comp, parts: []*lower.Compiled{comp}}
	for len(s.parts) < W {
		c, err := clone()
		if err != nil {
			return nil, func() {}, err
		}
		c.SetParams(comp.Params())
		s.parts = append(s.parts, c)
	}
	s.Reserve(S)
	s.jobs = make([]chan splitJob, W)
	for w := 1; w < W; w++ {
		s.jobs[w] = make(chan splitJob)
		go func(c *lower.Compiled, jobs chan splitJob) {
			for j := range jobs {
				c.LogJoint(j.z, j.out)
				s.wg.Done()
			}
		}(s.parts[w], s.jobs[w])
	}
	stop := func() {
		for _, j := range s.jobs[1:] {
			close(j)
		}
	}
	return s, stop, nil
}

// Reserve prepares every copy for its block of n rows.
func (s *splitTarget) Reserve(n int) {
	per := (n + len(s.parts) - 1) / len(s.parts)
	for _, c := range s.parts {
		c.Reserve(max(per, 1))
	}
	s.Compiled.Reserve(n) // the chain's own model also serves single rows and gradients
}

// LogJoint evaluates the rows of z in W blocks at once.
func (s *splitTarget) LogJoint(z, out []float64) {
	n, W := len(out), len(s.parts)
	if n < 2 {
		s.Compiled.LogJoint(z, out)
		return
	}
	d := s.Dim()
	per := (n + W - 1) / W
	for w := 1; w < W; w++ {
		lo, hi := min(n, w*per), min(n, (w+1)*per)
		if lo == hi {
			continue
		}
		s.wg.Add(1)
		s.jobs[w] <- splitJob{z[lo*d : hi*d], out[lo:hi]}
	}
	s.Compiled.LogJoint(z[:min(n, per)*d], out[:min(n, per)])
	s.wg.Wait()
}

// SetParams sets the params of every copy.
func (s *splitTarget) SetParams(theta []float64) {
	for _, c := range s.parts {
		c.SetParams(theta)
	}
}
