package baselines

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/infer/msc"
)

func init() {
	msc.RegisterKernel(msc.KernelSpec{
		Name: "advi", Help: "S reparameterised draws of q and the gradient of the ELBO each step",
		Method: "advi", MethodHelp: "automatic differentiation variational inference (exclusive KL)",
		Needs:      msc.CapLogJoint | msc.CapGradient,
		Optimizers: []msc.Optimizer{msc.Adam},
		New: func(p *msc.Problem, q msc.Family, S int, _ msc.KernelOptions) (msc.Kernel, error) {
			s, err := msc.AsSampler("advi", q)
			if err != nil {
				return nil, err
			}
			return NewADVI(p, s, S)
		},
	})
}

// ADVI is exclusive-KL variational inference (Kucukelbir et al. 2017) as a
// kernel of msc.Run: each step draws S reparameterised samples z = mu + L
// eps and computes the gradient of the ELBO, which the loop climbs with
// Adam. Its answer is the exclusive-KL optimum, which under-disperses: the
// contrast that inclusive KL avoids. The target must give gradients
// (msc.GradTarget) and q must be reparameterisable (msc.Reparam).
type ADVI struct {
	p      *msc.Problem
	t      msc.GradTarget
	q      msc.Sampler
	r      msc.Reparam
	S, d   int
	z, eps []float64
	g      []float64
	grad   []float64
}

// NewADVI returns the ADVI kernel with S samples per gradient.
func NewADVI(p *msc.Problem, q msc.Sampler, S int) (*ADVI, error) {
	if err := p.Check("ADVI", msc.CapGradient); err != nil {
		return nil, err
	}
	t, gt := p.Target, p.Grad
	r, ok := q.(msc.Reparam)
	if !ok {
		return nil, fmt.Errorf("ADVI needs a reparameterisable family; %s is not", q.Name())
	}
	d := t.Dim()
	return &ADVI{p: p, t: gt, q: q, r: r, S: S, d: d, z: make([]float64, d), eps: make([]float64, d),
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
			return msc.StepInfo{}, k.p.NaNError(k.z)
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
