package baselines

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"github.com/mscppl/mscppl/infer/msc"
)

// RunIS fits q with the self-normalised importance-sampling estimate of
// the inclusive-KL gradient (the paper's eq. (5), as in reweighted
// wake-sleep): every iteration draws S fresh samples from q, weights them
// by p/q and climbs the weighted score, with the same families and update
// rules as MSC. It has no conditional sample, and for finite S it
// converges to a biased answer (it underestimates the variance).
func RunIS(ctx context.Context, rng *rand.Rand, t msc.Target, s *msc.Settings, res *msc.Result) error {
	start := time.Now()
	en, err := msc.NewEngine(rng, t, s)
	if err != nil {
		return err
	}
	d, S := t.Dim(), s.Samples
	z, eps, lp, lq, lw, w := en.Buffers()
	q := en.Q()
	avgFrom := en.AverageFrom()
	essSum := 0.0
	res.Converged = true
	it := 0
	for it = 1; it <= s.Iters; it++ {
		if it&63 == 0 && ctx.Err() != nil {
			res.Converged = false
			break
		}
		q.Sample(rng, z, eps)
		t.LogJoint(z, lp)
		for b := 0; b < S; b++ {
			if math.IsNaN(lp[b]) {
				return en.NaNError(z[b*d : (b+1)*d])
			}
			lq[b] = q.LogQEps(eps[b*d : (b+1)*d])
			lw[b] = lp[b] - lq[b]
		}
		ess, ok := en.Weights()
		if !ok {
			res.AllInf++
			continue
		}
		essSum += ess
		if s.RetainedOnly {
			j := categoricalDraw(rng, w)
			copy(z[:d], z[j*d:(j+1)*d])
			for b := range w {
				w[b] = 0
			}
			w[0] = 1
		}
		if err := en.Update(it); err != nil {
			return err
		}
		if en.Theta() != nil {
			j := categoricalDraw(rng, w)
			if err := en.ParamStep(z[j*d:(j+1)*d], it); err != nil {
				return err
			}
		}
		if it > avgFrom {
			en.Accumulate()
		}
		en.Trace(it, ess, 0)
	}
	iters := it - 1
	en.Finish(res, iters, start)
	if iters > 0 {
		res.MeanESS = essSum / float64(iters)
	}
	return nil
}

func categoricalDraw(rng *rand.Rand, w []float64) int {
	u := rng.Float64()
	c := 0.0
	for i, p := range w {
		c += p
		if u < c {
			return i
		}
	}
	return len(w) - 1
}
