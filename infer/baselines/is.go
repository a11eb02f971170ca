package baselines

import (
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/internal/resample"
)

func init() {
	msc.RegisterKernel(msc.KernelSpec{
		Name: "is", Help: "S fresh draws from q weighted by p/q each step",
		Method: "is", MethodHelp: "self-normalised importance sampling (biased for finite S)",
		Needs: msc.CapLogJoint, Split: true,
		New: func(p *msc.Problem, q msc.Family, S int, _ msc.KernelOptions) (msc.Kernel, error) {
			s, err := msc.AsSampler("is", q)
			if err != nil {
				return nil, err
			}
			return NewIS(p, s, S), nil
		},
	})
}

// IS is the self-normalised importance-sampling estimate of the
// inclusive-KL gradient (the paper's eq. (5), as in reweighted wake-sleep),
// as a kernel of msc.Run: every step draws S fresh samples from q and
// weights them by p/q; the loop climbs the weighted score. It keeps no
// state between steps, and for finite S it converges to a biased answer
// (it underestimates the variance). The params climb at one sample drawn
// from the weights.
type IS struct {
	p                     *msc.Problem
	t                     msc.Target
	q                     msc.Sampler
	S, d                  int
	z, eps, lp, lq, lw, w []float64
	pick                  []float64
	rng                   *rand.Rand
}

// NewIS returns the IS kernel with S samples.
func NewIS(p *msc.Problem, q msc.Sampler, S int) *IS {
	t := p.Target
	d := t.Dim()
	t.Reserve(S)
	return &IS{p: p, t: t, q: q, S: S, d: d, z: make([]float64, S*d), eps: make([]float64, S*d),
		lp: make([]float64, S), lq: make([]float64, S), lw: make([]float64, S), w: make([]float64, S), pick: make([]float64, d)}
}

func (k *IS) Name() string               { return "is" }
func (k *IS) Markov() bool               { return false }
func (k *IS) Init(*rand.Rand) error      { return nil }
func (k *IS) Weighted() (z, w []float64) { return k.z, k.w }
func (k *IS) Refresh()                   {}

// Step draws and weights S samples from q.
func (k *IS) Step(rng *rand.Rand) (msc.StepInfo, error) {
	d := k.d
	k.q.Sample(rng, k.z, k.eps)
	k.t.LogJoint(k.z, k.lp)
	for b := 0; b < k.S; b++ {
		if math.IsNaN(k.lp[b]) {
			return msc.StepInfo{}, k.p.NaNError(k.z[b*d : (b+1)*d])
		}
		k.lq[b] = k.q.LogQNoise(k.z[b*d:(b+1)*d], k.eps[b*d:(b+1)*d])
		k.lw[b] = k.lp[b] - k.lq[b]
	}
	_, ess, ok := resample.Normalise(k.lw, k.w)
	if !ok {
		clear(k.w) // no information this step: q does not move
		return msc.StepInfo{Degenerate: true}, nil
	}
	k.rng = rng
	return msc.StepInfo{ESS: ess}, nil
}

// Retained draws one of this step's samples by its weight (for the params'
// gradient, or the --retained score); each call is a new draw.
func (k *IS) Retained() []float64 {
	j := resample.Categorical(k.rng, k.w)
	copy(k.pick, k.z[j*k.d:(j+1)*k.d])
	return k.pick
}
