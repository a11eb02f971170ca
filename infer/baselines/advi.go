package baselines

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/mscppl/mscppl/infer/msc"
)

// RunADVI fits q by exclusive-KL variational inference (ADVI, Kucukelbir
// et al. 2017): the reparameterisation gradient of the ELBO, z = mu + L eps,
// averaged over S draws, with Adam (step LR, default 0.01). Its answer is
// the exclusive-KL optimum, which under-disperses: the contrast that
// inclusive KL avoids. The target must give gradients (msc.GradTarget).
func RunADVI(ctx context.Context, rng *rand.Rand, t msc.Target, s *msc.Settings, res *msc.Result) error {
	start := time.Now()
	gt, ok := t.(msc.GradTarget)
	if !ok {
		return errors.New("ADVI needs the gradient of the log joint, which this target does not provide")
	}
	if s.Optimizer == msc.Natural {
		s.Optimizer = msc.Adam // ADVI climbs the ELBO with Adam
	}
	en, err := msc.NewEngine(rng, t, s)
	if err != nil {
		return err
	}
	q := en.Q()
	d, S := t.Dim(), s.Samples
	n := q.NumLambda()
	lam, grad := make([]float64, n), make([]float64, n)
	z, eps := make([]float64, d), make([]float64, d)
	g := make([]float64, d)
	opt := msc.NewAdam(n)
	avgFrom := en.AverageFrom()
	res.Converged = true
	it := 0
	for it = 1; it <= s.Iters; it++ {
		if it&63 == 0 && ctx.Err() != nil {
			res.Converged = false
			break
		}
		for i := range grad {
			grad[i] = 0
		}
		for b := 0; b < S; b++ {
			q.Sample(rng, z, eps)
			lp := gt.GradLogJoint(z, g)
			if math.IsNaN(lp) {
				return en.NaNError(z)
			}
			if math.IsInf(lp, -1) {
				continue
			}
			addELBOGrad(q, g, eps, 1/float64(S), grad)
		}
		// the entropy term: d/d log L_ii of sum log L_ii
		addEntropyGrad(q, grad)
		q.Lambda(lam)
		opt.Step(lam, grad, s.LR)
		for _, v := range lam {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("ADVI's variational parameters became non-finite at iteration %d; lower --lr", it)
			}
		}
		q.SetLambda(lam)
		if it > avgFrom {
			en.Accumulate()
		}
		en.Trace(it, 0, 0)
	}
	en.Finish(res, it-1, start)
	return nil
}

// addELBOGrad adds w * d log p(mu + L eps)/d lambda: g for mu and g eps'
// (lower triangle, chain rule through the log diagonal) for L.
func addELBOGrad(q *msc.Gaussian, g, eps []float64, w float64, grad []float64) {
	d := q.D
	for i := 0; i < d; i++ {
		grad[i] += w * g[i]
	}
	k := d
	for i := 0; i < d; i++ {
		if q.Kind == msc.MeanField {
			grad[k] += w * g[i] * eps[i] * q.L[i*d+i]
			k++
			continue
		}
		for j := 0; j <= i; j++ {
			v := g[i] * eps[j]
			if i == j {
				v *= q.L[i*d+i]
			}
			grad[k] += w * v
			k++
		}
	}
}

func addEntropyGrad(q *msc.Gaussian, grad []float64) {
	d := q.D
	k := d
	for i := 0; i < d; i++ {
		if q.Kind == msc.MeanField {
			grad[k]++
			k++
			continue
		}
		k += i
		grad[k]++
		k++
	}
}
