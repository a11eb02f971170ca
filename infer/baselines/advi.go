package baselines

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/infer/msc"
)

func init() {
	msc.RegisterKernel("advi", func(target any, q msc.Family, S int) (msc.Kernel, error) {
		t, s, err := msc.TargetAndSampler("advi", target, q)
		if err != nil {
			return nil, err
		}
		return NewADVI(t, s, S)
	})
}

// ADVI is exclusive-KL variational inference (Kucukelbir et al. 2017) as a
// kernel of msc.Run: each step draws S reparameterised samples z = mu + L
// eps and computes the gradient of the ELBO, which the loop climbs with
// Adam. Its answer is the exclusive-KL optimum, which under-disperses: the
// contrast that inclusive KL avoids. The target must give gradients
// (msc.GradTarget) and q must be reparameterisable (msc.Reparam).
type ADVI struct {
	t      msc.GradTarget
	q      msc.Sampler
	r      msc.Reparam
	S, d   int
	z, eps []float64
	g      []float64
	grad   []float64
}

// NewADVI returns the ADVI kernel with S samples per gradient.
func NewADVI(t msc.Target, q msc.Sampler, S int) (*ADVI, error) {
	gt, ok := t.(msc.GradTarget)
	if !ok {
		return nil, errors.New("ADVI needs the gradient of the log joint, which this target does not provide")
	}
	r, ok := q.(msc.Reparam)
	if !ok {
		return nil, fmt.Errorf("ADVI needs a reparameterisable family; %s is not", q.Name())
	}
	d := t.Dim()
	return &ADVI{t: gt, q: q, r: r, S: S, d: d, z: make([]float64, d), eps: make([]float64, d),
		g: make([]float64, d), grad: make([]float64, q.NumLambda())}, nil
}

func (k *ADVI) Name() string                     { return "advi" }
func (k *ADVI) Markov() bool                     { return false }
func (k *ADVI) Init(*rand.Rand) error            { return nil }
func (k *ADVI) Weighted() ([]float64, []float64) { return nil, nil }
func (k *ADVI) Retained() []float64              { return k.z }
func (k *ADVI) Refresh()                         {}
func (k *ADVI) LambdaGradient(grad []float64)    { copy(grad, k.grad) }

// Step computes the ELBO gradient over S draws.
func (k *ADVI) Step(rng *rand.Rand) (msc.StepInfo, error) {
	clear(k.grad)
	n := 0
	for b := 0; b < k.S; b++ {
		k.q.Sample(rng, k.z, k.eps)
		lp := k.t.GradLogJoint(k.z, k.g)
		if math.IsNaN(lp) {
			return msc.StepInfo{}, msc.NaNError(k.t, k.z)
		}
		if math.IsInf(lp, -1) {
			continue
		}
		n++
		k.r.AddPathGrad(1/float64(k.S), k.eps, k.g, k.grad)
	}
	k.r.AddEntropyGrad(k.grad)
	return msc.StepInfo{Degenerate: n == 0}, nil
}
