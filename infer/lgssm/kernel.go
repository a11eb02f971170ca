package lgssm

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mscppl/mscppl/infer/msc"
	"github.com/mscppl/mscppl/internal/resample"
	"github.com/mscppl/mscppl/stdlib"
)

func init() {
	msc.RegisterFamily(msc.FamilySpec{
		Name: "kalman", Help: "q(theta) over the static latents, with the state drawn exactly from p(x | theta, y) by forward-filtering backward-sampling (the kalman kernel's q)",
		Needs: msc.CapStatics | msc.CapLinearStatics, Conditional: true,
		NewFor: func(p *msc.Problem) (msc.Family, error) {
			return NewKalmanFamily(p, msc.NewFullRank(len(p.Statics.Statics())))
		},
	})
	msc.RegisterKernel(msc.KernelSpec{
		Name: "kalman", Help: "for static latents beside a state that enters linearly and Gaussian given them: CIS over the statics with the state integrated out by a Kalman filter, the state drawn exactly given them (FFBS)",
		Method: "msc", Priority: 4, Needs: msc.CapLogJoint | msc.CapStatics | msc.CapLinearStatics, Markov: true, Marginal: true,
		Optimizers: []msc.Optimizer{msc.Natural, msc.RM, msc.Adam},
		New: func(p *msc.Problem, q msc.Family, S int, _ msc.KernelOptions) (msc.Kernel, error) {
			f, ok := q.(*KalmanFamily)
			if !ok {
				return nil, fmt.Errorf("the kalman kernel takes the kalman family, not %s", q.Name())
			}
			return NewKalmanCIS(p, f, S)
		},
	})
}

var _ msc.ConditionalFamily = (*KalmanFamily)(nil)

// KalmanFamily is q over all the latents of a model whose state enters
// linearly and Gaussian given its statics theta: q(theta) (Theta, a
// family over the statics' unconstrained values) times p(x | theta, y),
// the exact conditional of the state, drawn by forward-filtering
// backward-sampling. Its score and natural step are q(theta)'s at the
// rows' statics; its draws' weights p(theta, x, y) / q(theta, x) are
// p(theta, y) / q(theta). Its states' Moments average the Kalman
// smoother's over the 2k unscented points of q(theta) (exact for a
// smoothing mean quadratic in theta), and its Cov has no covariance
// between the states. Clones share the evaluator: they are not for
// concurrent use.
type KalmanFamily struct {
	Theta   msc.Sampler
	lg      *LinearGaussian
	d       int
	statics []int
	states  []int

	th, eth, rows []float64
	epsX          []float64
	err           error
}

// NewKalmanFamily returns the family with q(theta) = theta for p.
func NewKalmanFamily(p *msc.Problem, theta msc.Sampler) (*KalmanFamily, error) {
	lg, err := NewLinearGaussian(p)
	if err != nil {
		return nil, err
	}
	if theta.Dim() != len(lg.statics) {
		return nil, fmt.Errorf("q(theta) has %d dimensions, the model %d statics", theta.Dim(), len(lg.statics))
	}
	return newKalmanFamily(lg, theta), nil
}

// NewFamilyFor is the kalman family for p with q(theta) of the named
// sampleable family, its mean at the statics' part of initMean when that
// is given.
func NewFamilyFor(p *msc.Problem, family string, initMean []float64) (*KalmanFamily, error) {
	theta, err := msc.NewFamily(family, len(p.Statics.Statics()))
	if err != nil {
		return nil, err
	}
	q, err := NewKalmanFamily(p, theta)
	if err == nil && initMean != nil {
		err = q.SetMoments(initMean, nil)
	}
	return q, err
}

// Path says how a run takes p, a model with static latents beside a state
// that enters linearly and Gaussian given them, for mscppl check: by the
// Kalman marginal, and why (infer/pmcis.Path says it for the others).
func Path(p *msc.Problem) string {
	statics := fmt.Sprintf("%d statics", len(p.Statics.Statics()))
	if len(p.Statics.Statics()) == 1 {
		statics = "1 static"
	}
	if K := p.Statics.Given().StateDim(); K > 1 {
		statics += fmt.Sprintf(" with a %d-dimensional state", K)
	}
	return fmt.Sprintf("state space: Kalman marginal over %s, not particle Gibbs (transition linear-Gaussian, observations Gaussian-linear, at %d random values of the statics); states drawn by FFBS (--kernel pg for particle Gibbs)",
		statics, DetectDraws)
}

func newKalmanFamily(lg *LinearGaussian, theta msc.Sampler) *KalmanFamily {
	k := len(lg.statics)
	return &KalmanFamily{Theta: theta, lg: lg, d: lg.d, statics: lg.statics, states: lg.states,
		th: make([]float64, k), eth: make([]float64, k), epsX: make([]float64, len(lg.states))}
}

// Statics is q(theta), the family over the statics.
func (f *KalmanFamily) Statics() msc.Sampler { return f.Theta }

// With is the family with q(theta) replaced by theta (the evaluator is
// shared).
func (f *KalmanFamily) With(theta msc.Sampler) msc.Sampler { return newKalmanFamily(f.lg, theta) }

// Err is the first failure of the states' probes during Sample or LogQ
// (whose draws then have a NaN log density): the caller must stop.
func (f *KalmanFamily) Err() error { return f.err }

func (f *KalmanFamily) Name() string   { return "kalman" }
func (f *KalmanFamily) Dim() int       { return f.d }
func (f *KalmanFamily) NumLambda() int { return f.Theta.NumLambda() }
func (f *KalmanFamily) NumStats() int  { return f.Theta.NumStats() }

func (f *KalmanFamily) Lambda(dst []float64)         { f.Theta.Lambda(dst) }
func (f *KalmanFamily) SetLambda(src []float64)      { f.Theta.SetLambda(src) }
func (f *KalmanFamily) Stats(dst []float64)          { f.Theta.Stats(dst) }
func (f *KalmanFamily) SetStats(src []float64) error { return f.Theta.SetStats(src) }

func (f *KalmanFamily) staticsOf(z, th []float64) {
	for i, p := range f.statics {
		th[i] = z[p]
	}
}

// AddScore adds q(theta)'s score at the row's statics.
func (f *KalmanFamily) AddScore(w float64, z, grad []float64) {
	f.staticsOf(z, f.th)
	f.Theta.AddScore(w, f.th, grad)
}

// NaturalStep is q(theta)'s natural step at the rows' statics.
func (f *KalmanFamily) NaturalStep(z, w []float64, rho float64) error {
	nat, ok := f.Theta.(msc.NaturalFamily)
	if !ok {
		return fmt.Errorf("q(theta) (%s) has no natural step", f.Theta.Name())
	}
	k, S := len(f.statics), len(w)
	if len(f.rows) < S*k {
		f.rows = make([]float64, S*k)
	}
	for b := range S {
		f.staticsOf(z[b*f.d:(b+1)*f.d], f.rows[b*k:(b+1)*k])
	}
	return nat.NaturalStep(f.rows[:S*k], w, rho)
}

// Clone returns a copy with its own q(theta) (the evaluator is shared).
func (f *KalmanFamily) Clone() msc.Family {
	return newKalmanFamily(f.lg, f.Theta.Clone().(msc.Sampler))
}

// fail records the first probe failure.
func (f *KalmanFamily) fail(err error) {
	if f.err == nil {
		f.err = err
	}
}

// Sample draws theta from q(theta) and the states given it for each row;
// eps holds theta's noise at the statics' positions and the states'
// standard noise at theirs.
func (f *KalmanFamily) Sample(rng *rand.Rand, z, eps []float64) {
	d := f.d
	for b := 0; b < len(z)/d; b++ {
		row, e := z[b*d:(b+1)*d], eps[b*d:(b+1)*d]
		f.Theta.Sample(rng, f.th, f.eth)
		for i, p := range f.statics {
			row[p], e[p] = f.th[i], f.eth[i]
		}
		lz, err := f.lg.Filter(f.th)
		if err != nil || math.IsInf(lz, -1) {
			if err != nil {
				f.fail(err)
			}
			for _, p := range f.states {
				row[p], e[p] = math.NaN(), 0
			}
			continue
		}
		f.lg.FFBS(rng, row, f.epsX)
		for t, p := range f.states {
			e[p] = f.epsX[t]
		}
	}
}

// statesLogDensity is log p(x | theta, y) of row z's states.
func (f *KalmanFamily) statesLogDensity(z []float64) float64 {
	f.staticsOf(z, f.th)
	lz, err := f.lg.Filter(f.th)
	if err != nil {
		f.fail(err)
		return math.NaN()
	}
	if math.IsInf(lz, -1) {
		return math.NaN()
	}
	return f.lg.LogDensity(z)
}

// LogQNoise is log q(theta) + log p(x | theta, y).
func (f *KalmanFamily) LogQNoise(z, eps []float64) float64 {
	for i, p := range f.statics {
		f.eth[i] = eps[p]
	}
	lx := f.statesLogDensity(z)
	f.staticsOf(z, f.th)
	return f.Theta.LogQNoise(f.th, f.eth) + lx
}

// LogQ is log q(theta) + log p(x | theta, y).
func (f *KalmanFamily) LogQ(z []float64) float64 {
	lx := f.statesLogDensity(z)
	f.staticsOf(z, f.th)
	return f.Theta.LogQ(f.th) + lx
}

// Moments writes q(theta)'s moments at the statics and, at the states,
// the smoother's moments averaged over the unscented points of q(theta)
// (by the law of total variance).
func (f *KalmanFamily) Moments(mean, sd []float64) {
	k, T := len(f.statics), len(f.states)
	tm, ts := make([]float64, k), make([]float64, k)
	f.Theta.Moments(tm, ts)
	for i, p := range f.statics {
		mean[p], sd[p] = tm[i], ts[i]
	}
	cov, L := make([]float64, k*k), make([]float64, k*k)
	f.Theta.Cov(cov)
	pts := [][]float64{tm}
	if stdlib.CholeskyLower(cov, k, L) {
		pts = nil
		r := math.Sqrt(float64(k))
		for j := range k {
			for _, s := range []float64{r, -r} {
				pt := make([]float64, k)
				for i := range k {
					pt[i] = tm[i] + s*L[i*k+j]
				}
				pts = append(pts, pt)
			}
		}
	}
	m, v := make([]float64, T), make([]float64, T)
	s1, s2 := make([]float64, T), make([]float64, T)
	n := 0
	for _, pt := range pts {
		lz, err := f.lg.Filter(pt)
		if err != nil || math.IsInf(lz, -1) {
			continue
		}
		f.lg.Smooth(m, v)
		for t := range T {
			s1[t] += m[t]
			s2[t] += v[t] + m[t]*m[t]
		}
		n++
	}
	for t, p := range f.states {
		if n == 0 {
			mean[p], sd[p] = math.NaN(), math.NaN()
			continue
		}
		mu := s1[t] / float64(n)
		mean[p], sd[p] = mu, math.Sqrt(math.Max(0, s2[t]/float64(n)-mu*mu))
	}
}

// Cov writes q(theta)'s covariance at the statics and the states'
// variances (Moments) on the diagonal; nothing else.
func (f *KalmanFamily) Cov(dst []float64) {
	d, k := f.d, len(f.statics)
	clear(dst[:d*d])
	c := make([]float64, k*k)
	f.Theta.Cov(c)
	for i, p := range f.statics {
		for j, q := range f.statics {
			dst[p*d+q] = c[i*k+j]
		}
	}
	mean, sd := make([]float64, d), make([]float64, d)
	f.Moments(mean, sd)
	for _, p := range f.states {
		dst[p*d+p] = sd[p] * sd[p]
	}
}

// SetMoments sets q(theta) from the statics' part of a mean and a
// covariance over all the latents (or over the statics alone).
func (f *KalmanFamily) SetMoments(mean, cov []float64) error {
	k, d := len(f.statics), f.d
	var m, c []float64
	switch {
	case mean == nil:
	case len(mean) == d:
		m = make([]float64, k)
		f.staticsOf(mean, m)
	case len(mean) == k:
		m = mean
	default:
		return fmt.Errorf("the kalman family's mean has %d or %d values, not %d", d, k, len(mean))
	}
	switch {
	case cov == nil:
	case len(cov) == d*d:
		c = make([]float64, k*k)
		for i, p := range f.statics {
			for j, q := range f.statics {
				c[i*k+j] = cov[p*d+q]
			}
		}
	case len(cov) == k*k:
		c = cov
	default:
		return fmt.Errorf("the kalman family's covariance has %d values, not %d or %d", len(cov), d*d, k*k)
	}
	return f.Theta.SetMoments(m, c)
}

type kalmanJSON struct {
	ThetaFamily string          `json:"theta_family"`
	Theta       json.RawMessage `json:"theta"`
}

// MarshalJSON writes q(theta) with its family's name.
func (f *KalmanFamily) MarshalJSON() ([]byte, error) {
	th, err := json.Marshal(f.Theta)
	if err != nil {
		return nil, err
	}
	return json.Marshal(kalmanJSON{f.Theta.Name(), th})
}

// UnmarshalJSON reads what MarshalJSON wrote (q(theta) of any sampleable
// family).
func (f *KalmanFamily) UnmarshalJSON(b []byte) error {
	var v kalmanJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	th, err := msc.NewFamily(v.ThetaFamily, len(f.statics))
	if err != nil {
		return err
	}
	u, ok := th.(json.Unmarshaler)
	if !ok {
		return fmt.Errorf("%s cannot be read back", v.ThetaFamily)
	}
	if err := u.UnmarshalJSON(v.Theta); err != nil {
		return err
	}
	f.Theta = th
	return nil
}

// KalmanCIS is the CIS kernel (Algorithm 2) over the statics theta of a
// model whose state enters linearly and Gaussian given them, its target
// the marginal log p(theta, y) (LinearGaussian: the log joint at the
// filtered means less the step terms there, plus the Kalman filter's log
// marginal), the retained theta kept as row 0 with its cached value, S-1
// proposals from q(theta) evaluated with one batched log joint. After each
// step the retained latents are theta with a fresh exact draw of the
// states from p(x | theta, y) (FFBS), so that the chain leaves p(theta, x
// | y) invariant. A failed verification of the probes stops the run.
type KalmanCIS struct {
	p  *msc.Problem
	lg *LinearGaussian
	q  *KalmanFamily

	S, d, k int
	cur     []float64 // the retained latents
	curLP   float64   // log p(theta, y) at the retained statics
	theta   []float64

	z, th, eps, lp, lq, lw, w, rest []float64
	epsX                            []float64
}

// NewKalmanCIS returns the kernel with S samples.
func NewKalmanCIS(p *msc.Problem, q *KalmanFamily, S int) (*KalmanCIS, error) {
	if err := p.Check("the kalman kernel", msc.CapLogJoint|msc.CapStatics|msc.CapLinearStatics); err != nil {
		return nil, err
	}
	lg, err := NewLinearGaussian(p)
	if err != nil {
		return nil, err
	}
	d, k := p.Dim, len(lg.statics)
	p.Target.Reserve(S)
	mk := func(n int) []float64 { return make([]float64, n) }
	return &KalmanCIS{p: p, lg: lg, q: q, S: S, d: d, k: k, cur: mk(d), curLP: math.Inf(-1), theta: mk(k),
		z: mk(S * d), th: mk(S * k), eps: mk(S * k), lp: mk(S), lq: mk(S), lw: mk(S), w: mk(S), rest: mk(S),
		epsX: mk(len(lg.states))}, nil
}

func (k *KalmanCIS) Name() string { return "kalman" }
func (k *KalmanCIS) Markov() bool { return true }

// probeError is the error that stops the run when the probes fail at the
// (unconstrained) statics theta.
func probeError(err error, theta []float64) error {
	var nl *NotLinearError
	if errors.As(err, &nl) && !nl.Fatal {
		return fmt.Errorf("the kalman kernel integrates the state out only while it enters linearly and Gaussian given the statics, and at the statics' unconstrained values %.6g it does not: %v (run with --kernel pg)", theta, err)
	}
	return err
}

// evaluate fills rows from..S-1 of z (their statics set in th) with the
// filtered means and computes their log p(theta, y) into lp.
func (k *KalmanCIS) evaluate(from int) error {
	d, nk := k.d, k.k
	for b := from; b < k.S; b++ {
		row := k.z[b*d : (b+1)*d]
		th := k.th[b*nk : (b+1)*nk]
		copy(row, k.cur)
		for i, p := range k.lg.statics {
			row[p] = th[i]
		}
		lz, err := k.lg.Filter(th)
		if err != nil {
			var nl *NotLinearError
			if errors.As(err, &nl) && nl.Fatal {
				return k.p.NaNError(row)
			}
			return probeError(err, th)
		}
		if math.IsInf(lz, -1) {
			k.rest[b] = math.Inf(-1)
			continue
		}
		k.lg.Means(row)
		k.rest[b] = k.lg.Rest()
	}
	k.p.Target.LogJoint(k.z[from*d:k.S*d], k.lp[from:k.S])
	for b := from; b < k.S; b++ {
		if math.IsInf(k.rest[b], -1) {
			k.lp[b] = math.Inf(-1)
			continue
		}
		k.lp[b] += k.rest[b]
	}
	return nil
}

// drawStates redraws the retained states given the retained statics.
func (k *KalmanCIS) drawStates(rng *rand.Rand) error {
	if math.IsInf(k.curLP, -1) {
		return fmt.Errorf("log p(theta, y) was -Inf at 100 draws of q(theta): no starting point")
	}
	lz, err := k.lg.Filter(k.theta)
	if err != nil {
		return probeError(err, k.theta)
	}
	if math.IsInf(lz, -1) {
		return fmt.Errorf("the transition's sd is 0 at the retained statics %.6g", k.theta)
	}
	if lq := k.lg.FFBS(rng, k.cur, k.epsX); math.IsNaN(lq) {
		return fmt.Errorf("the states' covariance given the next step's is not positive definite at the retained statics %.6g (run with --kernel pg)", k.theta)
	}
	return nil
}

// Init draws theta from q(theta), retrying up to 100 times while its
// log p(theta, y) is -Inf, and the states given it.
func (k *KalmanCIS) Init(rng *rand.Rand) error {
	for try := 0; try < 100; try++ {
		k.q.Theta.Sample(rng, k.th[(k.S-1)*k.k:], k.eps[(k.S-1)*k.k:])
		if err := k.evaluate(k.S - 1); err != nil {
			return err
		}
		lp := k.lp[k.S-1]
		if math.IsNaN(lp) || math.IsInf(lp, 1) {
			return k.p.NaNError(k.z[(k.S-1)*k.d:])
		}
		copy(k.theta, k.th[(k.S-1)*k.k:])
		copy(k.cur, k.z[(k.S-1)*k.d:])
		k.curLP = lp
		if !math.IsInf(lp, -1) {
			break
		}
	}
	return k.drawStates(rng)
}

// Step runs one CIS step over the statics and redraws the states.
func (k *KalmanCIS) Step(rng *rand.Rand) (msc.StepInfo, error) {
	d, S, nk := k.d, k.S, k.k
	copy(k.z[:d], k.cur)
	copy(k.th[:nk], k.theta)
	k.lp[0] = k.curLP
	k.q.Theta.Sample(rng, k.th[nk:], k.eps[nk:])
	if err := k.evaluate(1); err != nil {
		return msc.StepInfo{}, err
	}
	for b := 1; b < S; b++ {
		k.lq[b] = k.q.Theta.LogQNoise(k.th[b*nk:(b+1)*nk], k.eps[b*nk:(b+1)*nk])
	}
	k.lq[0] = k.q.Theta.LogQ(k.theta)
	for b := range S {
		if math.IsNaN(k.lp[b]) || math.IsInf(k.lp[b], 1) {
			return msc.StepInfo{}, k.p.NaNError(k.z[b*d : (b+1)*d])
		}
		k.lw[b] = k.lp[b] - k.lq[b]
	}
	_, ess, ok := resample.Normalise(k.lw, k.w)
	info := msc.StepInfo{ESS: ess}
	if !ok {
		clear(k.w)
		k.w[0] = 1
		info = msc.StepInfo{Degenerate: true}
	} else if j := resample.Categorical(rng, k.w); j != 0 {
		info.Changed = true
		copy(k.theta, k.th[j*nk:(j+1)*nk])
		for i, p := range k.lg.statics {
			k.cur[p] = k.theta[i]
		}
		k.curLP = k.lp[j]
	}
	return info, k.drawStates(rng)
}

// Weighted returns the step's rows (their statics are what q's score
// reads) and normalised weights.
func (k *KalmanCIS) Weighted() ([]float64, []float64) { return k.z, k.w }

// Retained is the retained latents: the statics and their states' draw.
func (k *KalmanCIS) Retained() []float64 { return k.cur }

// Refresh recomputes the retained statics' log p(theta, y) (the params
// changed).
func (k *KalmanCIS) Refresh() {
	lp, err := k.lg.LogMarginal(k.theta)
	if err != nil {
		lp = math.NaN()
	}
	k.curLP = lp
}
